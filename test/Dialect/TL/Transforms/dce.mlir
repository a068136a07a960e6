// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-dce))' | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-dce{remove-unused-variables=1}))' | FileCheck %s --check-prefix=VARS

// With qualifiers only outputs are live-out. t feeds the output and stays;
// the statement assigning u reaches no output; v is overwritten before any
// read, so its first statement is dead; w's statement is live because the
// last statement reads it.
// CHECK-LABEL: tl.program @qualified
// CHECK: tl.assign @t
// CHECK-NOT: tl.assign @u
// CHECK: tl.assign @w
// CHECK: tl.assign @v = {
// CHECK-NEXT: tl.use @w
// CHECK-NOT: tl.assign
// VARS-LABEL: tl.program @qualified
// VARS: tl.var input @a
// VARS-NEXT: tl.var output @v
// VARS-NEXT: tl.var @t
// VARS-NEXT: tl.var @w
// VARS-NEXT: tl.assign
tl.program @qualified {
  tl.var input @a : tensor<4xf64>
  tl.var output @v : tensor<4xf64>
  tl.var @t : tensor<4xf64>
  tl.var @u : tensor<4xf64>
  tl.var @w : tensor<4xf64>
  tl.assign @t = {
    %a = tl.use @a : tensor<4xf64>
    %0 = tl.add %a, %a : tensor<4xf64>, tensor<4xf64>
    tl.yield %0 : tensor<4xf64>
  }
  tl.assign @u = {
    %t = tl.use @t : tensor<4xf64>
    tl.yield %t : tensor<4xf64>
  }
  tl.assign @v = {
    %a = tl.use @a : tensor<4xf64>
    tl.yield %a : tensor<4xf64>
  }
  tl.assign @w = {
    %t = tl.use @t : tensor<4xf64>
    %0 = tl.mul %t, %t : tensor<4xf64>, tensor<4xf64>
    tl.yield %0 : tensor<4xf64>
  }
  tl.assign @v = {
    %w = tl.use @w : tensor<4xf64>
    tl.yield %w : tensor<4xf64>
  }
}

// -----

// Without qualifiers every variable is live-out: only a statement whose
// value is overwritten unread is dead. `b = b + a` reads b, so the
// statement before it stays; c's first value is overwritten unread.
// Declarations are the interface and stay.
// CHECK-LABEL: tl.program @base
// CHECK: tl.assign @b = {
// CHECK: tl.assign @b = {
// CHECK: tl.assign @c = {
// CHECK-NEXT: tl.use @a
// CHECK-NEXT: tl.yield
// CHECK-NOT: tl.assign
// VARS-LABEL: tl.program @base
// VARS: tl.var @a
// VARS-NEXT: tl.var @b
// VARS-NEXT: tl.var @c
// VARS-NEXT: tl.var @unused
tl.program @base {
  tl.var @a : tensor<f64>
  tl.var @b : tensor<f64>
  tl.var @c : tensor<f64>
  tl.var @unused : tensor<f64>
  tl.assign @c = {
    %a = tl.use @a : tensor<f64>
    %0 = tl.add %a, %a : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
  tl.assign @b = {
    %a = tl.use @a : tensor<f64>
    tl.yield %a : tensor<f64>
  }
  tl.assign @b = {
    %a = tl.use @a : tensor<f64>
    %b = tl.use @b : tensor<f64>
    %0 = tl.add %b, %a : tensor<f64>, tensor<f64>
    tl.yield %0 : tensor<f64>
  }
  tl.assign @c = {
    %a = tl.use @a : tensor<f64>
    tl.yield %a : tensor<f64>
  }
}
