// RUN: tl-opt %s --convert-tl-to-linalg --split-input-file | FileCheck %s

// A value used several times (what tl-fuse-statements and tl-cse make of
// `c = a * a - a; c = c * c - c; ...`) is computed once per element of the
// loop nest, and a variable read twice along the same indices is one
// operand: three levels of sharing give three multiplications, not the
// 4^3 of the expression written out as a tree.
// CHECK-LABEL: func.func private @chain.s0(
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x4xf64>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[M1:.*]] = arith.mulf %[[A]], %[[A]] : f64
// CHECK-NEXT: %[[S1:.*]] = arith.subf %[[M1]], %[[A]] : f64
// CHECK-NEXT: %[[M2:.*]] = arith.mulf %[[S1]], %[[S1]] : f64
// CHECK-NEXT: %[[S2:.*]] = arith.subf %[[M2]], %[[S1]] : f64
// CHECK-NEXT: %[[M3:.*]] = arith.mulf %[[S2]], %[[S2]] : f64
// CHECK-NEXT: %[[S3:.*]] = arith.subf %[[M3]], %[[S2]] : f64
// CHECK-NEXT: linalg.yield %[[S3]] : f64
tl.program @chain {
  tl.var input @a : tensor<4x4xf64>
  tl.var output @c : tensor<4x4xf64>
  tl.assign @c = {
    %0 = tl.use @a : tensor<4x4xf64>
    %1 = tl.use @a : tensor<4x4xf64>
    %2 = tl.mul %0, %1 : tensor<4x4xf64>, tensor<4x4xf64>
    %3 = tl.sub %2, %0 : tensor<4x4xf64>, tensor<4x4xf64>
    %4 = tl.mul %3, %3 : tensor<4x4xf64>, tensor<4x4xf64>
    %5 = tl.sub %4, %3 : tensor<4x4xf64>, tensor<4x4xf64>
    %6 = tl.mul %5, %5 : tensor<4x4xf64>, tensor<4x4xf64>
    %7 = tl.sub %6, %5 : tensor<4x4xf64>, tensor<4x4xf64>
    tl.yield %7 : tensor<4x4xf64>
  }
}

// -----

// A shared value stored as a temporary is stored once and read twice.
// CHECK-LABEL: func.func private @outer.s0(
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK-NOT: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.generic {{.*}} ins(%[[R]], %[[R]] : tensor<4xf64>, tensor<4xf64>)
tl.program @outer {
  tl.var input @x : tensor<4x4x4xf64>
  tl.var output @s : tensor<4x4xf64>
  tl.assign @s = {
    %x = tl.use @x : tensor<4x4x4xf64>
    %r = tl.contract %x [[1, 2]] : tensor<4x4x4xf64>
    %p = tl.outer %r, %r : tensor<4xf64>, tensor<4xf64>
    tl.yield %p : tensor<4x4xf64>
  }
}

// -----

// A shared sum that joins the contraction around it is not shared: the
// two factors of sum_k r_k r_k sum over indices of their own, three
// reductions in all, and x is read along two different maps.
// CHECK-LABEL: func.func private @flattened.s0(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X:.*]], %[[X]] : tensor<4x4x4xf64>, tensor<4x4x4xf64>)
tl.program @flattened {
  tl.var input @x : tensor<4x4x4xf64>
  tl.var output @t : tensor<f64>
  tl.assign @t = {
    %x = tl.use @x : tensor<4x4x4xf64>
    %r = tl.contract %x [[1, 2]] : tensor<4x4x4xf64>
    %p = tl.outer %r, %r : tensor<4xf64>, tensor<4xf64>
    %d = tl.contract %p [[0, 1]] : tensor<4x4xf64>
    tl.yield %d : tensor<f64>
  }
}
