// RUN: tl-opt %s --pass-pipeline='builtin.module(func.func(tl-parallelize-outer-loops))' | FileCheck %s

// The outer loop of a nest over a result's rows is parallel: it becomes an
// affine.parallel; the inner loops stay (to be vectorized).
// CHECK-LABEL: func.func @rows
// CHECK: affine.parallel (%[[I:.*]]) = (0) to (16) {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 32 {
func.func @rows(%a: memref<16x8xf64>, %b: memref<8x32xf64>, %c: memref<16x32xf64>) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      affine.for %j = 0 to 32 {
        %x = affine.load %a[%i, %k] : memref<16x8xf64>
        %y = affine.load %b[%k, %j] : memref<8x32xf64>
        %z = affine.load %c[%i, %j] : memref<16x32xf64>
        %p = arith.mulf %x, %y : f64
        %s = arith.addf %z, %p : f64
        affine.store %s, %c[%i, %j] : memref<16x32xf64>
      }
    }
  }
  return
}

// An outer reduction (every iteration updates the same element) and a
// single loop (vectorized instead) stay sequential.
// CHECK-LABEL: func.func @sequential
// CHECK-NOT: affine.parallel
// CHECK: return
func.func @sequential(%a: memref<16x8xf64>, %s: memref<f64>, %v: memref<64xf64>) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      %x = affine.load %a[%i, %k] : memref<16x8xf64>
      %z = affine.load %s[] : memref<f64>
      %r = arith.addf %z, %x : f64
      affine.store %r, %s[] : memref<f64>
    }
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %v[%i] : memref<64xf64>
    %d = arith.addf %x, %x : f64
    affine.store %d, %v[%i] : memref<64xf64>
  }
  return
}
