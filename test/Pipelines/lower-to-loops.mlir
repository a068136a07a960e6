// RUN: tl-opt %s --convert-tl-to-linalg --tl-bufferize --tl-lower-to-loops="vector-lanes=8" | FileCheck %s
// RUN: tl-opt %s --convert-tl-to-linalg --tl-bufferize --tl-lower-to-loops="vector-lanes=0" | FileCheck %s --check-prefix=SCALAR

// The contraction's inner loop runs along the result's last dimension and
// is vectorized: 8 lanes of f64, B's row and C's row as vectors, A's element
// broadcast, a multiply and an add per vector. The extent 20 is not a
// multiple of 8; the last vector is masked by its transfer ops.
// CHECK-LABEL: func.func private @matmul.s0(
// The result is zeroed 8 elements at a time.
// CHECK: affine.for %{{.*}} = 0 to 12 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 20 step 8 {
// CHECK-NEXT: vector.transfer_write %{{.*}} : vector<8xf64>, memref<12x20xf64>
// CHECK: affine.for %[[I:.*]] = 0 to 12 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 20 step 8 {
// CHECK-NEXT: %[[AV:.*]] = vector.transfer_read %{{.*}}[%[[I]], %[[K]]], %{{.*}} {in_bounds = [true], permutation_map = #{{.*}}} : memref<12x16xf64>, vector<8xf64>
// CHECK-NEXT: %[[BV:.*]] = vector.transfer_read %{{.*}}[%[[K]], %[[J]]], %{{.*}} : memref<16x20xf64>, vector<8xf64>
// CHECK-NEXT: %[[CV:.*]] = vector.transfer_read %{{.*}}[%[[I]], %[[J]]], %{{.*}} : memref<12x20xf64>, vector<8xf64>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[AV]], %[[BV]] : vector<8xf64>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[CV]], %[[P]] : vector<8xf64>
// CHECK-NEXT: vector.transfer_write %[[S]], %{{.*}}[%[[I]], %[[J]]] : vector<8xf64>, memref<12x20xf64>
// SCALAR-LABEL: func.func private @matmul.s0(
// SCALAR-NOT: vector
tl.program @matmul {
  tl.var @A : tensor<12x16xf64>
  tl.var @B : tensor<16x20xf64>
  tl.var @C : tensor<12x20xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<12x16xf64>
    %b = tl.use @B : tensor<16x20xf64>
    %p = tl.outer %a, %b : tensor<12x16xf64>, tensor<16x20xf64>
    %c = tl.contract %p [[1, 2]] : tensor<12x16x16x20xf64>
    tl.yield %c : tensor<12x20xf64>
  }
}
