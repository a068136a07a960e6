// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-vectorize-parallel-loops{vector-lanes=4}))" | FileCheck %s

// A parallel innermost loop is vectorized.
// CHECK-LABEL: func.func @parallel
// CHECK: affine.for %{{.*}} = 0 to 10 step 4
// CHECK: vector.transfer_read
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: vector.transfer_write
func.func @parallel(%a: memref<10xf64>, %b: memref<10xf64>) {
  affine.for %i = 0 to 10 {
    %x = affine.load %a[%i] : memref<10xf64>
    %y = affine.load %b[%i] : memref<10xf64>
    %s = arith.addf %x, %y : f64
    affine.store %s, %b[%i] : memref<10xf64>
  }
  return
}

// -----

// A reduction that accumulates through memory is left alone (upstream's
// --affine-super-vectorize turns it into an invalid broadcast store).
// CHECK-LABEL: func.func @reduction
// CHECK: affine.for %{{.*}} = 0 to 10 {
// CHECK-NOT: vector
func.func @reduction(%a: memref<10xf64>, %s: memref<f64>) {
  affine.for %i = 0 to 10 {
    %x = affine.load %a[%i] : memref<10xf64>
    %acc = affine.load %s[] : memref<f64>
    %t = arith.addf %acc, %x : f64
    affine.store %t, %s[] : memref<f64>
  }
  return
}

// -----

// A loop of one iteration is not vectorized either.
// CHECK-LABEL: func.func @single_iteration
// CHECK-NOT: vector
func.func @single_iteration(%a: memref<1xf64>, %s: memref<f64>) {
  affine.for %i = 0 to 1 {
    %x = affine.load %a[%i] : memref<1xf64>
    affine.store %x, %s[] : memref<f64>
  }
  return
}
