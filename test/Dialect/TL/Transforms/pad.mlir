// RUN: tl-opt %s --split-input-file --tl-pad="multiple=8" | FileCheck %s
// RUN: tl-opt %s --split-input-file --tl-pad="multiple=1" | FileCheck %s --check-prefix=ONE
// RUN: tl-opt %s --split-input-file --tl-pad="multiple=8 zero-padding=false" | FileCheck %s --check-prefix=LITERAL

// Every extent is rounded up to a multiple of 8 and the real extents are
// recorded; expressions are retyped over the padded extents (lemma 5).
// A contraction can leave undefined values in its result's padding (it
// multiplies padding by real elements): its statement ends with
// tl.zero_padding. Element-wise statements keep zero padding and are left
// alone.
// CHECK-LABEL: tl.program @padded
// CHECK: tl.var input @A {real_shape = array<i64: 11, 5>} : tensor<16x8xf64>
// CHECK: tl.var input @B {real_shape = array<i64: 5, 3>} : tensor<8x8xf64>
// CHECK: tl.var output @C {real_shape = array<i64: 11, 3>} : tensor<16x8xf64>
// CHECK: tl.var @s {real_shape = array<i64>} : tensor<f64>
// CHECK: tl.assign @C = {
// CHECK: %[[P:.*]] = tl.outer %{{.*}}, %{{.*}} : tensor<16x8xf64>, tensor<8x8xf64>
// CHECK: %[[M:.*]] = tl.contract %[[P]] {{\[}}[1, 2]] : tensor<16x8x8x8xf64>
// CHECK: %[[Z:.*]] = tl.zero_padding %[[M]] [11, 3] : tensor<16x8xf64>
// CHECK: tl.yield %[[Z]] : tensor<16x8xf64>
// CHECK: tl.assign @C = {
// CHECK: %[[SUM:.*]] = tl.add
// CHECK: %[[Q:.*]] = tl.div %[[SUM]], %{{.*}} : tensor<16x8xf64>, tensor<f64>
// CHECK-NEXT: tl.yield %[[Q]] : tensor<16x8xf64>
// CHECK: tl.assign @C = {
// CHECK: %[[SC:.*]] = tl.mul %{{.*}}, %{{.*}} : tensor<f64>, tensor<16x8xf64>
// CHECK-NEXT: %[[ZS:.*]] = tl.zero_padding %[[SC]] [11, 3] : tensor<16x8xf64>
// CHECK-NEXT: tl.yield %[[ZS]]
// LITERAL-LABEL: tl.program @padded
// LITERAL: tl.var input @A {real_shape = array<i64: 11, 5>} : tensor<16x8xf64>
// LITERAL-NOT: zero_padding
// ONE-LABEL: tl.program @padded
// ONE: tl.var input @A {real_shape = array<i64: 11, 5>} : tensor<11x5xf64>
// ONE-NOT: zero_padding
tl.program @padded {
  tl.var input @A : tensor<11x5xf64>
  tl.var input @B : tensor<5x3xf64>
  tl.var output @C : tensor<11x3xf64>
  tl.var @s : tensor<f64>
  tl.assign @C = {
    %a = tl.use @A : tensor<11x5xf64>
    %b = tl.use @B : tensor<5x3xf64>
    %p = tl.outer %a, %b : tensor<11x5xf64>, tensor<5x3xf64>
    %c = tl.contract %p [[1, 2]] : tensor<11x5x5x3xf64>
    tl.yield %c : tensor<11x3xf64>
  }
  tl.assign @C = {
    %c = tl.use @C : tensor<11x3xf64>
    %s = tl.use @s : tensor<f64>
    %sum = tl.add %c, %c : tensor<11x3xf64>, tensor<11x3xf64>
    %q = tl.div %sum, %s : tensor<11x3xf64>, tensor<f64>
    tl.yield %q : tensor<11x3xf64>
  }
  tl.assign @C = {
    %c = tl.use @C : tensor<11x3xf64>
    %s = tl.use @s : tensor<f64>
    %sc = tl.mul %s, %c : tensor<f64>, tensor<11x3xf64>
    tl.yield %sc : tensor<11x3xf64>
  }
}

// -----

// Extents that are multiples already need no zeroing, and a transposition
// of padded variables keeps its padding zero.
// CHECK-LABEL: tl.program @aligned
// CHECK: tl.var @x {real_shape = array<i64: 16, 8>} : tensor<16x8xf64>
// CHECK-NOT: zero_padding
tl.program @aligned {
  tl.var @x : tensor<16x8xf64>
  tl.var @y : tensor<8x16xf64>
  tl.assign @x = {
    %y = tl.use @y : tensor<8x16xf64>
    %t = tl.transpose %y [[0, 1]] : tensor<8x16xf64>
    tl.yield %t : tensor<16x8xf64>
  }
}
