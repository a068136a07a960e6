// RUN: tl-opt %s --tl-pad="multiple=8" --convert-tl-to-linalg --tl-bufferize --tl-lower-to-loops="vector-lanes=8" | FileCheck %s

// Padded to multiples of the vector width (8 f64 lanes), every loop of the
// computation has a trip count that is a multiple of 8: the vectorized loops
// step through whole vectors with no remainder. Only the zeroing of the
// result's padding (two slabs, written in place) runs over the padding's
// own extents.
// CHECK-LABEL: func.func private @matmul.s0(
// CHECK: affine.for %{{.*}} = 0 to 16 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 24 step 8 {
// CHECK-NEXT: vector.transfer_write %{{.*}} : vector<8xf64>, memref<16x24xf64>
// CHECK: affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 24 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 24 step 8 {
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: memref.subview %{{.*}}[11, 0] [5, 24] [1, 1]
// CHECK: affine.for %{{.*}} = 0 to 5 {
// CHECK: memref.subview %{{.*}}[0, 19] [16, 5] [1, 1]
// CHECK: affine.for %{{.*}} = 0 to 16 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 5 {
// CHECK-NOT: affine.for
tl.program @matmul {
  tl.var @A : tensor<11x17xf64>
  tl.var @B : tensor<17x19xf64>
  tl.var @C : tensor<11x19xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<11x17xf64>
    %b = tl.use @B : tensor<17x19xf64>
    %p = tl.outer %a, %b : tensor<11x17xf64>, tensor<17x19xf64>
    %c = tl.contract %p [[1, 2]] : tensor<11x17x17x19xf64>
    tl.yield %c : tensor<11x19xf64>
  }
}
