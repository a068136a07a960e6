// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-cse))' | FileCheck %s

// After `t = a # b`, a later statement that computes a # b again, as a
// subexpression, reads t. Once b is assigned, the value is gone.
// CHECK-LABEL: tl.program @reuse
// CHECK: tl.assign @t = {
// CHECK: tl.outer
// CHECK: tl.assign @u = {
// CHECK-NEXT: %[[T:.*]] = tl.use @t : tensor<3x3xf64>
// CHECK-NEXT: %[[C:.*]] = tl.contract %[[T]] {{\[}}[0, 1]]
// CHECK-NEXT: tl.yield %[[C]]
// CHECK: tl.assign @b
// CHECK: tl.assign @u = {
// CHECK: tl.outer
tl.program @reuse {
  tl.var @a : tensor<3xf64>
  tl.var @b : tensor<3xf64>
  tl.var @t : tensor<3x3xf64>
  tl.var @u : tensor<f64>
  tl.assign @t = {
    %a = tl.use @a : tensor<3xf64>
    %b = tl.use @b : tensor<3xf64>
    %0 = tl.outer %a, %b : tensor<3xf64>, tensor<3xf64>
    tl.yield %0 : tensor<3x3xf64>
  }
  tl.assign @u = {
    %a = tl.use @a : tensor<3xf64>
    %b = tl.use @b : tensor<3xf64>
    %0 = tl.outer %a, %b : tensor<3xf64>, tensor<3xf64>
    %1 = tl.contract %0 [[0, 1]] : tensor<3x3xf64>
    tl.yield %1 : tensor<f64>
  }
  tl.assign @b = {
    %b = tl.use @b : tensor<3xf64>
    %0 = tl.add %b, %b : tensor<3xf64>, tensor<3xf64>
    tl.yield %0 : tensor<3xf64>
  }
  tl.assign @u = {
    %a = tl.use @a : tensor<3xf64>
    %b = tl.use @b : tensor<3xf64>
    %0 = tl.outer %a, %b : tensor<3xf64>, tensor<3xf64>
    %1 = tl.contract %0 [[0, 1]] : tensor<3x3xf64>
    tl.yield %1 : tensor<f64>
  }
}

// -----

// `s = s + s` reads its own target: its value is not available as s
// afterwards. Assigning the target kills the value too (t = a + a, then
// t = ...: a + a is not t any more).
// CHECK-LABEL: tl.program @killed
// CHECK: tl.assign @s = {
// CHECK: tl.assign @r = {
// CHECK: tl.add
// CHECK: tl.assign @t = {
// CHECK: tl.assign @t = {
// CHECK: tl.assign @r = {
// CHECK-NEXT: tl.use @a
// CHECK-NEXT: tl.add
tl.program @killed {
  tl.var @a : tensor<f64>
  tl.var @s : tensor<f64>
  tl.var @t : tensor<f64>
  tl.var @r : tensor<f64>
  tl.assign @s = {
    %s = tl.use @s : tensor<f64>
    %0 = tl.add %s, %s : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
  tl.assign @r = {
    %s = tl.use @s : tensor<f64>
    %0 = tl.add %s, %s : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
  tl.assign @t = {
    %a = tl.use @a : tensor<f64>
    %0 = tl.add %a, %a : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
  tl.assign @t = {
    %s = tl.use @s : tensor<f64>
    tl.yield %s : tensor<f64>
  }
  tl.assign @r = {
    %a = tl.use @a : tensor<f64>
    %0 = tl.add %a, %a : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
}

// -----

// A literal stays a literal: it is never replaced by a variable holding the
// same value.
// CHECK-LABEL: tl.program @literals
// CHECK: tl.assign @s = {
// CHECK-NEXT: tl.constant 2.000000e+00
// CHECK: tl.assign @t = {
// CHECK-NEXT: %[[C:.*]] = tl.constant 2.000000e+00
// CHECK-NEXT: tl.yield %[[C]]
tl.program @literals {
  tl.var @s : tensor<f64>
  tl.var @t : tensor<f64>
  tl.assign @s = {
    %c = tl.constant 2.0 : tensor<f64>
    tl.yield %c : tensor<f64>
  }
  tl.assign @t = {
    %c = tl.constant 2.0 : tensor<f64>
    tl.yield %c : tensor<f64>
  }
}

// -----

// In a batch program, a value that a batched variable holds serves batched
// statements only: a shared statement reading y would break rule t-batch.
// CHECK-LABEL: tl.program @batch
// CHECK: tl.assign @s = {
// CHECK-NOT: tl.use @y
// CHECK: tl.mul
// CHECK: tl.assign @z = {
// CHECK-NEXT: %[[Y:.*]] = tl.use @y
// CHECK-NEXT: tl.yield %[[Y]]
tl.program @batch batch 4 {
  tl.var input @A : tensor<3xf64>
  tl.var output @y batched : tensor<4x3xf64>
  tl.var output @s : tensor<3xf64>
  tl.var output @z batched : tensor<4x3xf64>
  tl.assign @y = {
    %a = tl.use @A : tensor<3xf64>
    %c = tl.constant 2.0 : tensor<f64>
    %m = tl.mul %a, %c : tensor<3xf64>, tensor<f64>
    tl.yield %m : tensor<3xf64>
  }
  tl.assign @s = {
    %a = tl.use @A : tensor<3xf64>
    %c = tl.constant 2.0 : tensor<f64>
    %m = tl.mul %a, %c : tensor<3xf64>, tensor<f64>
    tl.yield %m : tensor<3xf64>
  }
  tl.assign @z = {
    %a = tl.use @A : tensor<3xf64>
    %c = tl.constant 2.0 : tensor<f64>
    %m = tl.mul %a, %c : tensor<3xf64>, tensor<f64>
    tl.yield %m : tensor<3xf64>
  }
}
