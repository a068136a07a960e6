// RUN: tl-opt %s --convert-tl-to-linalg --split-input-file | FileCheck %s

// The matrix product: one generic whose reduction dimension is the
// contracted pair; the outer product is never built. Loop order puts the
// reduction before the result's last dimension.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// Each statement is a private function over the variables it mentions.
// CHECK-LABEL: func.func private @matmul.s0(
// CHECK-SAME: %[[ARGA:.*]]: memref<3x4xf64> {tl.name = "A"},
// CHECK-SAME: %[[ARGB:.*]]: memref<4x5xf64> {tl.name = "B"},
// CHECK-SAME: %[[ARGC:.*]]: memref<3x5xf64> {tl.name = "C"})
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK: %[[TA:.*]] = bufferization.to_tensor %[[ARGA]] restrict :
// CHECK: %[[TB:.*]] = bufferization.to_tensor %[[ARGB]] restrict :
// CHECK: %[[TC:.*]] = bufferization.to_tensor %[[ARGC]] restrict writable :
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[TC]] : tensor<3x5xf64>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[TA]], %[[TB]] : tensor<3x4xf64>, tensor<4x5xf64>) outs(%[[ZERO]] : tensor<3x5xf64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f64
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT: linalg.yield %[[S]] : f64
// CHECK: bufferization.materialize_in_destination %[[R]] in writable %[[ARGC]]
// CHECK-NOT: materialize_in_destination
// CHECK: return
// The program's function: one argument per variable, with its qualifiers;
// it calls the statements in order.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[MA:.*]]: memref<3x4xf64> {tl.input, tl.name = "A"},
// CHECK-SAME: %[[MB:.*]]: memref<4x5xf64> {tl.input, tl.name = "B"},
// CHECK-SAME: %[[MC:.*]]: memref<3x5xf64> {tl.name = "C", tl.output})
// CHECK-NEXT: call @matmul.s0(%[[MA]], %[[MB]], %[[MC]])
// CHECK-NEXT: return
tl.program @matmul {
  tl.var input @A : tensor<3x4xf64>
  tl.var input @B : tensor<4x5xf64>
  tl.var output @C : tensor<3x5xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<3x4xf64>
    %b = tl.use @B : tensor<4x5xf64>
    %p = tl.outer %a, %b : tensor<3x4xf64>, tensor<4x5xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x4x4x5xf64>
    tl.yield %c : tensor<3x5xf64>
  }
}

// -----

// The trace of a product: nested contractions fold into one generic with
// two reduction dimensions, O(n^2).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func private @trace.s0(
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[S]]], iterator_types = ["reduction", "reduction"]}
// CHECK-NOT: linalg.generic
tl.program @trace {
  tl.var @A : tensor<4x6xf64>
  tl.var @B : tensor<6x4xf64>
  tl.var @s : tensor<f64>
  tl.assign @s = {
    %a = tl.use @A : tensor<4x6xf64>
    %b = tl.use @B : tensor<6x4xf64>
    %p = tl.outer %a, %b : tensor<4x6xf64>, tensor<6x4xf64>
    %m = tl.contract %p [[1, 2]] : tensor<4x6x6x4xf64>
    %t = tl.contract %m [[0, 1]] : tensor<4x4xf64>
    tl.yield %t : tensor<f64>
  }
}

// -----

// The CFD interpolation: the 10-dimensional outer product is never built;
// one generic with three reduction dimensions, transpositions and all
// absorbed into the indexing maps.
// CHECK-DAG: #[[U:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d4, d5)>
// CHECK-DAG: #[[A1:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d3)>
// CHECK-DAG: #[[A2:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4)>
// CHECK-DAG: #[[A3:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d5)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func private @cfd.s0(
// CHECK: linalg.generic {indexing_maps = [#[[U]], #[[A1]], #[[A2]], #[[A3]], #[[V]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
// CHECK-NOT: linalg.generic
tl.program @cfd {
  tl.var input @u : tensor<10x5x5x5xf64>
  tl.var input @A : tensor<5x5xf64>
  tl.var output @v : tensor<10x5x5x5xf64>
  tl.assign @v = {
    %u = tl.use @u : tensor<10x5x5x5xf64>
    %a = tl.use @A : tensor<5x5xf64>
    %0 = tl.outer %u, %a : tensor<10x5x5x5xf64>, tensor<5x5xf64>
    %1 = tl.outer %0, %a : tensor<10x5x5x5x5x5xf64>, tensor<5x5xf64>
    %2 = tl.outer %1, %a : tensor<10x5x5x5x5x5x5x5xf64>, tensor<5x5xf64>
    %3 = tl.contract %2 [[1, 5], [2, 7], [3, 9]] : tensor<10x5x5x5x5x5x5x5x5x5xf64>
    tl.yield %3 : tensor<10x5x5x5xf64>
  }
}

// -----

// A = A + B reads A only element-wise: it writes in place (outs is A's
// tensor). A = A ^ [1 2] and A = (A # A) . [2 3] read A elsewhere: they
// compute into a fresh tensor.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func private @in_place.s0(
// CHECK: %[[A0:.*]] = bufferization.to_tensor %{{.*}} restrict writable
// CHECK: %[[B0:.*]] = bufferization.to_tensor %{{.*}} restrict :
// CHECK: %[[A1:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]]
// CHECK-SAME: ins(%[[A0]], %[[B0]] : {{.*}}) outs(%[[A0]] : tensor<4x4xf64>)
// CHECK: materialize_in_destination %[[A1]] in writable
// CHECK-LABEL: func.func private @in_place.s1(
// CHECK: %[[A2:.*]] = bufferization.to_tensor %{{.*}} restrict writable
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf64>
// CHECK: %[[T2:.*]] = linalg.generic {indexing_maps = [#[[T]], #[[ID]]]
// CHECK-SAME: ins(%[[A2]] : tensor<4x4xf64>) outs(%[[E]] : tensor<4x4xf64>)
// CHECK: materialize_in_destination %[[T2]] in writable
// CHECK-LABEL: func.func private @in_place.s2(
// CHECK: %[[A3:.*]] = bufferization.to_tensor %{{.*}} restrict writable
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf64>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[E2]] : tensor<4x4xf64>)
// CHECK: %[[P3:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A3]], %[[A3]] : {{.*}}) outs(%[[Z]] : tensor<4x4xf64>)
// CHECK: materialize_in_destination %[[P3]] in writable
tl.program @in_place {
  tl.var @A : tensor<4x4xf64>
  tl.var @B : tensor<4x4xf64>
  tl.assign @A = {
    %a = tl.use @A : tensor<4x4xf64>
    %b = tl.use @B : tensor<4x4xf64>
    %s = tl.add %a, %b : tensor<4x4xf64>, tensor<4x4xf64>
    tl.yield %s : tensor<4x4xf64>
  }
  tl.assign @A = {
    %a = tl.use @A : tensor<4x4xf64>
    %t = tl.transpose %a [[0, 1]] : tensor<4x4xf64>
    tl.yield %t : tensor<4x4xf64>
  }
  tl.assign @A = {
    %a = tl.use @A : tensor<4x4xf64>
    %p = tl.outer %a, %a : tensor<4x4xf64>, tensor<4x4xf64>
    %m = tl.contract %p [[1, 2]] : tensor<4x4x4x4xf64>
    tl.yield %m : tensor<4x4xf64>
  }
}

// -----

// Element-wise arithmetic fuses into one generic; the scalar of t-smul is
// read at no index; division is controlled division.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func private @arith.s0(
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]}
// CHECK-NEXT: ^bb0(%[[S:.*]]: f64, %[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[SX:.*]] = arith.mulf %[[S]], %[[X]] : f64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[NAN:.*]] = arith.constant 0x7FF8000000000000 : f64
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[SX]], %[[Y]] : f64
// CHECK-NEXT: %[[DENZERO:.*]] = arith.cmpf oeq, %[[Y]], %[[ZERO]] : f64
// CHECK-NEXT: %[[NUMZERO:.*]] = arith.cmpf oeq, %[[SX]], %[[ZERO]] : f64
// CHECK-NEXT: %[[IFNONZERO:.*]] = arith.select %[[DENZERO]], %[[NAN]], %[[Q]] : f64
// CHECK-NEXT: %[[R:.*]] = arith.select %[[NUMZERO]], %[[ZERO]], %[[IFNONZERO]] : f64
// CHECK-NEXT: linalg.yield %[[R]] : f64
tl.program @arith {
  tl.var @s : tensor<f64>
  tl.var @x : tensor<8xf64>
  tl.var @y : tensor<8xf64>
  tl.assign @y = {
    %s = tl.use @s : tensor<f64>
    %x = tl.use @x : tensor<8xf64>
    %y = tl.use @y : tensor<8xf64>
    %sx = tl.mul %s, %x : tensor<f64>, tensor<8xf64>
    %q = tl.div %sx, %y : tensor<8xf64>, tensor<8xf64>
    tl.yield %q : tensor<8xf64>
  }
}

// -----

// Literals are constants of the loop body; a scalar on the right is read at
// no index (rule t-scalar); the functions lower to math and arith ops, and
// log 0 is undefined (NaN), not -inf.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func private @functions.s0(
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]], iterator_types = ["parallel"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[NEG]] : f32
// CHECK-NEXT: %[[SQRT:.*]] = math.sqrt %[[ABS]] : f32
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[SQRT]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-NEXT: %[[ISZERO:.*]] = arith.cmpf oeq, %[[EXP]], %[[ZERO]] : f32
// CHECK-NEXT: %[[LOG:.*]] = math.log %[[EXP]] : f32
// CHECK-NEXT: %[[L:.*]] = arith.select %[[ISZERO]], %[[NAN]], %[[LOG]] : f32
// CHECK-NEXT: %[[MIN:.*]] = arith.minimumf %[[L]], %[[S]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[MIN]], %[[HALF]] : f32
// CHECK-NEXT: linalg.yield %[[MAX]] : f32
tl.program @functions {
  tl.var @s : tensor<f32>
  tl.var @x : tensor<8xf32>
  tl.assign @x = {
    %x = tl.use @x : tensor<8xf32>
    %n = tl.neg %x : tensor<8xf32>
    %a = tl.abs %n : tensor<8xf32>
    %r = tl.sqrt %a : tensor<8xf32>
    %e = tl.exp %r : tensor<8xf32>
    %l = tl.log %e : tensor<8xf32>
    %s = tl.use @s : tensor<f32>
    %m = tl.min %l, %s : tensor<8xf32>, tensor<f32>
    %h = tl.constant 0.5 : tensor<f32>
    %y = tl.max %m, %h : tensor<8xf32>, tensor<f32>
    tl.yield %y : tensor<8xf32>
  }
}

// -----

// A stack is never stored: each element selects its operand by the index
// of the stack's dimension. Summed (here with itself), that dimension is
// read by no operand, so an unread tensor.empty carries its range.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[RANGE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func private @stack.s0(
// CHECK: %[[CARRIER:.*]] = tensor.empty() : tensor<2xf64>
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[LHS]], #[[RHS]], #[[RHS]], #[[RANGE]], #{{.*}}], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CARRIER]] :
// CHECK: ^bb0(%[[A1:.*]]: f64, %[[B1:.*]]: f64, %[[A2:.*]]: f64, %[[B2:.*]]: f64, %{{.*}}: f64, %[[OUT:.*]]: f64):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[IS0:.*]] = arith.cmpi eq, %[[I]], %[[ZERO]] : index
// CHECK-NEXT: %[[L:.*]] = arith.select %[[IS0]], %[[A1]], %[[B1]] : f64
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[A2]], %[[B2]] : f64
// CHECK-NEXT: arith.mulf %[[L]], %[[R]] : f64
tl.program @stack {
  tl.var @a : tensor<3x4xf64>
  tl.var @b : tensor<3x4xf64>
  tl.var @c : tensor<3x3xf64>
  tl.assign @c = {
    %a = tl.use @a : tensor<3x4xf64>
    %b = tl.use @b : tensor<3x4xf64>
    %s = tl.stack %a, %b : tensor<3x4xf64>, tensor<3x4xf64>
    %t = tl.stack %a, %b : tensor<3x4xf64>, tensor<3x4xf64>
    %p = tl.outer %s, %t : tensor<2x3x4xf64>, tensor<2x3x4xf64>
    %c = tl.contract %p [[0, 3], [2, 5]] : tensor<2x3x4x2x3x4xf64>
    tl.yield %c : tensor<3x3xf64>
  }
}

// -----

// A stack at the root of a statement that does not read its target: each
// element is computed straight into its slice of the target (a copy for a
// variable), and a padded stack's extra rows are zeroed; no temporary.
// CHECK-LABEL: func.func private @stack_root.s0(
// CHECK-NOT: tensor.empty
// CHECK: %[[G:.*]] = bufferization.to_tensor %arg2 restrict writable
// CHECK-NEXT: %[[G0:.*]] = tensor.insert_slice %{{.*}} into %[[G]][0, 0, 0] [1, 3, 4] [1, 1, 1] : tensor<3x4xf64> into tensor<4x3x4xf64>
// CHECK-NEXT: %[[S1:.*]] = tensor.extract_slice %[[G0]][1, 0, 0] [1, 3, 4] [1, 1, 1] : tensor<4x3x4xf64> to tensor<3x4xf64>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[S1]] : tensor<3x4xf64>)
// CHECK-NEXT: %[[C:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<3x4xf64>)
// CHECK: %[[G1:.*]] = tensor.insert_slice %[[C]] into %[[G0]][1, 0, 0] [1, 3, 4]
// CHECK-NEXT: %[[REST:.*]] = tensor.extract_slice %[[G1]][2, 0, 0] [2, 3, 4]
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[REST]] : tensor<2x3x4xf64>)
// CHECK-NEXT: %[[G2:.*]] = tensor.insert_slice %[[Z]] into %[[G1]][2, 0, 0] [2, 3, 4]
// CHECK-NEXT: bufferization.materialize_in_destination %[[G2]] in writable %arg2
tl.program @stack_root {
  tl.var @a : tensor<3x4xf64>
  tl.var @m : tensor<4x4xf64>
  tl.var @g : tensor<4x3x4xf64>
  tl.assign @g = {
    %a = tl.use @a : tensor<3x4xf64>
    %m = tl.use @m : tensor<4x4xf64>
    %p = tl.outer %a, %m : tensor<3x4xf64>, tensor<4x4xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x4x4x4xf64>
    %s = tl.stack %a, %c padded to 4 : tensor<3x4xf64>, tensor<3x4xf64>
    tl.yield %s : tensor<4x3x4xf64>
  }
}

// -----

// A contraction beneath arithmetic is computed first, into its own tensor.
// CHECK-LABEL: func.func private @mixed.s0(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf64>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[E]] : tensor<3xf64>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[M]], %{{.*}} : tensor<3xf64>, tensor<3xf64>)
tl.program @mixed {
  tl.var @A : tensor<3x3xf64>
  tl.var @x : tensor<3xf64>
  tl.assign @x = {
    %a = tl.use @A : tensor<3x3xf64>
    %x = tl.use @x : tensor<3xf64>
    %p = tl.outer %a, %x : tensor<3x3xf64>, tensor<3xf64>
    %m = tl.contract %p [[1, 2]] : tensor<3x3x3xf64>
    %s = tl.sub %m, %x : tensor<3xf64>, tensor<3xf64>
    tl.yield %s : tensor<3xf64>
  }
}

// -----

// t = a copies a's value into t's argument; a = b then writes a's. Only
// each statement's target is writable.
// CHECK-LABEL: func.func private @swap.s0(
// CHECK-SAME: %[[A:[^:]*]]: memref<2xf64> {tl.name = "a"}, %[[T:[^:]*]]: memref<2xf64> {tl.name = "t"})
// CHECK: %[[TA:.*]] = bufferization.to_tensor %[[A]] restrict :
// CHECK: bufferization.to_tensor %[[T]] restrict writable
// CHECK: materialize_in_destination %[[TA]] in writable %[[T]]
// CHECK-LABEL: func.func private @swap.s1(
// CHECK-SAME: %[[A1:[^:]*]]: memref<2xf64> {tl.name = "a"}, %[[B1:[^:]*]]: memref<2xf64> {tl.name = "b"})
// CHECK: bufferization.to_tensor %[[A1]] restrict writable
// CHECK: %[[TB:.*]] = bufferization.to_tensor %[[B1]] restrict :
// CHECK: materialize_in_destination %[[TB]] in writable %[[A1]]
// CHECK-LABEL: func.func @swap(
// CHECK-NEXT: call @swap.s0(%arg0, %arg2)
// CHECK-NEXT: call @swap.s1(%arg0, %arg1)
tl.program @swap {
  tl.var @a : tensor<2xf64>
  tl.var @b : tensor<2xf64>
  tl.var @t : tensor<2xf64>
  tl.assign @t = {
    %a = tl.use @a : tensor<2xf64>
    tl.yield %a : tensor<2xf64>
  }
  tl.assign @a = {
    %b = tl.use @b : tensor<2xf64>
    tl.yield %b : tensor<2xf64>
  }
}

// -----

// Arithmetic under a contraction: the diagonal of x # x + x # x needs n of
// its n^2 elements, so the sum is recomputed inside the contraction's body;
// but a nested contraction beneath the sum is not flattened into the outer
// one (the sum's other term would be added once per inner index). x, read
// five times along the same index, is one operand.
// CHECK-LABEL: func.func private @fused_arith.s0(
// CHECK: %[[INNER:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}}, %[[INNER]] :
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %[[I:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT: %[[P2:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P1]], %[[P2]] : f64
// CHECK-NEXT: %[[P3:.*]] = arith.mulf %[[I]], %[[X]] : f64
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[P3]] : f64
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[ACC]], %[[T]] : f64
tl.program @fused_arith {
  tl.var @x : tensor<6xf64>
  tl.var @M : tensor<6x6xf64>
  tl.var @s : tensor<f64>
  tl.assign @s = {
    %x = tl.use @x : tensor<6xf64>
    %m = tl.use @M : tensor<6x6xf64>
    %p = tl.outer %x, %x : tensor<6xf64>, tensor<6xf64>
    %q = tl.outer %x, %x : tensor<6xf64>, tensor<6xf64>
    %sum = tl.add %p, %q : tensor<6x6xf64>, tensor<6x6xf64>
    %mx = tl.outer %m, %x : tensor<6x6xf64>, tensor<6xf64>
    %mv = tl.contract %mx [[1, 2]] : tensor<6x6x6xf64>
    %mvx = tl.outer %mv, %x : tensor<6xf64>, tensor<6xf64>
    %mvxs = tl.transpose %mvx [[0, 0]] : tensor<6x6xf64>
    %all = tl.add %sum, %mvxs : tensor<6x6xf64>, tensor<6x6xf64>
    %d = tl.contract %all [[0, 1]] : tensor<6x6xf64>
    tl.yield %d : tensor<f64>
  }
}

// -----

// When each element of the sum is needed many times (once per column of B
// here), it is computed once into its own tensor.
// CHECK-LABEL: func.func private @stored_arith.s0(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf64>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4x4xf64>) outs(%[[E]] : tensor<4x4xf64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[SUM]], %{{.*}} : tensor<4x4xf64>, tensor<4x3xf64>)
tl.program @stored_arith {
  tl.var @A : tensor<4x4xf64>
  tl.var @B : tensor<4x3xf64>
  tl.var @C : tensor<4x3xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<4x4xf64>
    %b = tl.use @B : tensor<4x3xf64>
    %s = tl.add %a, %a : tensor<4x4xf64>, tensor<4x4xf64>
    %p = tl.outer %s, %b : tensor<4x4xf64>, tensor<4x3xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4x4x4x3xf64>
    tl.yield %c : tensor<4x3xf64>
  }
}

// -----

// A nested contraction under an outer product is computed once into its own
// tensor when the consumer reuses its elements: in the pairwise chain
// (A B) C each element of A B is read by 6 elements of D, and
// recomputing it (4 multiply-adds) each time would cost more than storing
// it. So the chain is two generics, not one nest over all four indices.
// CHECK-LABEL: func.func private @pairwise_chain.s0(
// CHECK: %[[AB:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x4xf64>, tensor<4x3xf64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[AB]], %{{.*}} : tensor<2x3xf64>, tensor<3x6xf64>)
// CHECK-NOT: linalg.generic
tl.program @pairwise_chain {
  tl.var input @A : tensor<2x4xf64>
  tl.var input @B : tensor<4x3xf64>
  tl.var input @C : tensor<3x6xf64>
  tl.var output @D : tensor<2x6xf64>
  tl.assign @D = {
    %a = tl.use @A : tensor<2x4xf64>
    %b = tl.use @B : tensor<4x3xf64>
    %c = tl.use @C : tensor<3x6xf64>
    %0 = tl.outer %a, %b : tensor<2x4xf64>, tensor<4x3xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<2x4x4x3xf64>
    %2 = tl.outer %1, %c : tensor<2x3xf64>, tensor<3x6xf64>
    %3 = tl.contract %2 [[1, 2]] : tensor<2x3x3x6xf64>
    tl.yield %3 : tensor<2x6xf64>
  }
}
