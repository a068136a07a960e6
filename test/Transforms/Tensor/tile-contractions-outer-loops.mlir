// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 parallel=1}))" | FileCheck %s --check-prefix=THREADS

// A mode product with the element index last (K5L's first step, E = 4000:
// not split, its columns blocked): few terms per element (11), so its
// other parallel dimensions (b, c) are stepped one at a time outside the
// column blocks, and each register tile streams its 11 rows of u whole
// instead of every column block revisiting all 1331 rows in short pieces.
// (tile-contractions-sized.mlir has the same with E a size.)
// REMARK: remark: tiling plan: rows=d0 columns=d4 depth=d3 cache=[0,1,1,0,{{[0-9]+}}] register=[11,1,1,1,16] cache-order=[d1,d2,d4,d3,d0]
// CHECK-LABEL: func.func @mode_product_element_last
// CHECK: scf.for %{{.*}} = %c0 to %c11 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c11 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4000 step %c{{[0-9]+}}
// CHECK: vector.contract {{.*}} : vector<11x1xf64>, vector<1x16xf64> into vector<11x16xf64>
// With threads, they share the first of those dimensions (as without the
// rule), and step the second outside the column blocks.
// THREADS-LABEL: func.func @mode_product_element_last
// THREADS: scf.forall (%{{.*}}) in (11)
// THREADS: scf.for %{{.*}} = %c0 to %c11 step %c1
// THREADS-NEXT: scf.for %{{.*}} = %c0 to %c4000 step %c{{[0-9]+}}
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3)>
#u = affine_map<(d0, d1, d2, d3, d4) -> (d3, d1, d2, d4)>
#t = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
func.func @mode_product_element_last(%A: tensor<11x11xf64>, %u: tensor<11x11x11x4000xf64>) -> tensor<11x11x11x4000xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<11x11x11x4000xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<11x11x11x4000xf64>) -> tensor<11x11x11x4000xf64>
  %t = linalg.generic {indexing_maps = [#a, #u, #t], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%A, %u : tensor<11x11xf64>, tensor<11x11x11x4000xf64>) outs(%fill : tensor<11x11x11x4000xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<11x11x11x4000xf64>
  return %t : tensor<11x11x11x4000xf64>
}

// -----

// Many terms per element (a sum over 2048): the operand slices of each
// step would leave L2, so the column blocks stay outermost.
// REMARK: remark: tiling plan: rows=d0 columns=d3 depth=d2 cache=[0,0,{{[0-9]+}},{{[0-9]+}}]
// CHECK-LABEL: func.func @many_terms
// CHECK: scf.for %{{.*}} = %c0 to %c4000 step %c{{[0-9]+}}
#a2 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#u2 = affine_map<(d0, d1, d2, d3) -> (d2, d1, d3)>
#t2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
func.func @many_terms(%A: tensor<8x2048xf64>, %u: tensor<2048x3x4000xf64>) -> tensor<8x3x4000xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<8x3x4000xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<8x3x4000xf64>) -> tensor<8x3x4000xf64>
  %t = linalg.generic {indexing_maps = [#a2, #u2, #t2], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%A, %u : tensor<8x2048xf64>, tensor<2048x3x4000xf64>) outs(%fill : tensor<8x3x4000xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x3x4000xf64>
  return %t : tensor<8x3x4000xf64>
}
