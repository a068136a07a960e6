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

// -----

// The extensions: f(0) = 0 for -x, sqrt, abs, min and max, and for c * x
// with a literal c, so those statements keep zero padding; s + x, exp(x)
// and log(x) do not (s + 0 = s, exp 0 = 1, log 0 undefined), and neither
// does s * x for a variable scalar s, which may be undefined.
// CHECK-LABEL: tl.program @extensions
// CHECK: tl.assign @y = {
// CHECK: %[[KEEP:.*]] = tl.max
// CHECK-NEXT: tl.yield %[[KEEP]]
// CHECK: tl.assign @y = {
// CHECK: %[[ADD:.*]] = tl.add
// CHECK-NEXT: %[[Z1:.*]] = tl.zero_padding %[[ADD]] [5] : tensor<8xf64>
// CHECK-NEXT: tl.yield %[[Z1]]
// CHECK: tl.assign @y = {
// CHECK: %[[EXP:.*]] = tl.exp
// CHECK-NEXT: %[[Z2:.*]] = tl.zero_padding %[[EXP]] [5] : tensor<8xf64>
// CHECK: tl.assign @y = {
// CHECK: %[[LOG:.*]] = tl.log
// CHECK-NEXT: %[[Z3:.*]] = tl.zero_padding %[[LOG]] [5] : tensor<8xf64>
// CHECK: tl.assign @y = {
// CHECK: %[[SX:.*]] = tl.mul %{{.*}}, %{{.*}} : tensor<8xf64>, tensor<f64>
// CHECK-NEXT: %[[Z4:.*]] = tl.zero_padding %[[SX]] [5] : tensor<8xf64>
tl.program @extensions {
  tl.var input @x : tensor<5xf64>
  tl.var input @s : tensor<f64>
  tl.var output @y : tensor<5xf64>
  tl.assign @y = {
    %x = tl.use @x : tensor<5xf64>
    %c = tl.constant 2.0 : tensor<f64>
    %cx = tl.mul %x, %c : tensor<5xf64>, tensor<f64>
    %n = tl.neg %cx : tensor<5xf64>
    %a = tl.abs %n : tensor<5xf64>
    %r = tl.sqrt %a : tensor<5xf64>
    %m = tl.min %r, %x : tensor<5xf64>, tensor<5xf64>
    %k = tl.max %m, %x : tensor<5xf64>, tensor<5xf64>
    tl.yield %k : tensor<5xf64>
  }
  tl.assign @y = {
    %x = tl.use @x : tensor<5xf64>
    %s = tl.use @s : tensor<f64>
    %a = tl.add %s, %x : tensor<f64>, tensor<5xf64>
    tl.yield %a : tensor<5xf64>
  }
  tl.assign @y = {
    %x = tl.use @x : tensor<5xf64>
    %e = tl.exp %x : tensor<5xf64>
    tl.yield %e : tensor<5xf64>
  }
  tl.assign @y = {
    %x = tl.use @x : tensor<5xf64>
    %l = tl.log %x : tensor<5xf64>
    tl.yield %l : tensor<5xf64>
  }
  tl.assign @y = {
    %x = tl.use @x : tensor<5xf64>
    %s = tl.use @s : tensor<f64>
    %m = tl.mul %x, %s : tensor<5xf64>, tensor<f64>
    tl.yield %m : tensor<5xf64>
  }
}

// -----

// A contraction sums over padded dimensions, so its operand must be zero in
// its padding whenever the inputs are defined: exp(a) is 1 there. The
// tl.zero_padding goes on exp(a), the lowest value lacking the property,
// not on the outer product above it, which stays unstored.
// CHECK-LABEL: tl.program @contraction_operand
// CHECK: tl.assign @c = {
// CHECK: %[[A:.*]] = tl.use @a : tensor<8x8xf64>
// CHECK-NEXT: %[[E:.*]] = tl.exp %[[A]] : tensor<8x8xf64>
// CHECK-NEXT: %[[Z:.*]] = tl.zero_padding %[[E]] [3, 5] : tensor<8x8xf64>
// CHECK-NEXT: %[[B:.*]] = tl.use @b : tensor<8x8xf64>
// CHECK-NEXT: %[[P:.*]] = tl.outer %[[Z]], %[[B]]
// CHECK-NEXT: %[[C:.*]] = tl.contract %[[P]] {{\[}}[1, 2]]
// CHECK-NEXT: %[[ZC:.*]] = tl.zero_padding %[[C]] [3, 6]
// CHECK-NEXT: tl.yield %[[ZC]]
// A product with a literal keeps the property; so does the sum of two
// such tensors; a scalar added to a tensor does not.
// CHECK: tl.assign @c = {
// CHECK-NOT: tl.zero_padding
// CHECK: tl.contract
// CHECK: tl.zero_padding
// CHECK-NEXT: tl.yield
// CHECK: tl.assign @c = {
// CHECK: %[[S:.*]] = tl.add %{{.*}}, %{{.*}} : tensor<f64>, tensor<8x8xf64>
// CHECK-NEXT: tl.zero_padding %[[S]] [3, 5]
tl.program @contraction_operand {
  tl.var input @a : tensor<3x5xf64>
  tl.var input @b : tensor<5x6xf64>
  tl.var input @s : tensor<f64>
  tl.var output @c : tensor<3x6xf64>
  tl.assign @c = {
    %a = tl.use @a : tensor<3x5xf64>
    %e = tl.exp %a : tensor<3x5xf64>
    %b = tl.use @b : tensor<5x6xf64>
    %p = tl.outer %e, %b : tensor<3x5xf64>, tensor<5x6xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x5x5x6xf64>
    tl.yield %c : tensor<3x6xf64>
  }
  tl.assign @c = {
    %a = tl.use @a : tensor<3x5xf64>
    %k = tl.constant 3.0 : tensor<f64>
    %ka = tl.mul %k, %a : tensor<f64>, tensor<3x5xf64>
    %n = tl.neg %a : tensor<3x5xf64>
    %sum = tl.add %ka, %n : tensor<3x5xf64>, tensor<3x5xf64>
    %b = tl.use @b : tensor<5x6xf64>
    %p = tl.outer %sum, %b : tensor<3x5xf64>, tensor<5x6xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x5x5x6xf64>
    tl.yield %c : tensor<3x6xf64>
  }
  tl.assign @c = {
    %a = tl.use @a : tensor<3x5xf64>
    %s = tl.use @s : tensor<f64>
    %sa = tl.add %s, %a : tensor<f64>, tensor<3x5xf64>
    %b = tl.use @b : tensor<5x6xf64>
    %p = tl.outer %sa, %b : tensor<3x5xf64>, tensor<5x6xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x5x5x6xf64>
    tl.yield %c : tensor<3x6xf64>
  }
}

// -----

// A stack's new dimension is padded like every extent (rows beyond the
// elements are zero); a stack of values with zero padding keeps it.
// CHECK-LABEL: tl.program @stack
// CHECK: tl.var output @g {real_shape = array<i64: 3, 5>} : tensor<8x8xf64>
// CHECK: tl.assign @g = {
// CHECK: %[[S:.*]] = tl.stack %{{.*}}, %{{.*}}, %{{.*}} padded to 8 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
// CHECK-NEXT: tl.yield %[[S]] : tensor<8x8xf64>
tl.program @stack {
  tl.var input @x : tensor<5xf64>
  tl.var output @g : tensor<3x5xf64>
  tl.assign @g = {
    %x = tl.use @x : tensor<5xf64>
    %n = tl.neg %x : tensor<5xf64>
    %s = tl.stack %x, %n, %x : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
    tl.yield %s : tensor<3x5xf64>
  }
}

// -----

// A batch program pads each element, never the batch: the batch dimension
// (last here) keeps its extent and its real extent.
// CHECK-LABEL: tl.program @batched batch 3 last
// CHECK-NEXT: tl.var input @u batched {real_shape = array<i64: 5, 3>} : tensor<8x3xf64>
// CHECK-NEXT: tl.var input @A {real_shape = array<i64: 5, 5>} : tensor<8x8xf64>
// CHECK-NEXT: tl.var output @v batched {real_shape = array<i64: 5, 3>} : tensor<8x3xf64>
// CHECK: tl.use @u : tensor<8xf64>
// CHECK: tl.yield %{{.*}} : tensor<8xf64>
tl.program @batched batch 3 last {
  tl.var input @u batched : tensor<5x3xf64>
  tl.var input @A : tensor<5x5xf64>
  tl.var output @v batched : tensor<5x3xf64>
  tl.assign @v = {
    %a = tl.use @A : tensor<5x5xf64>
    %u = tl.use @u : tensor<5xf64>
    %p = tl.outer %a, %u : tensor<5x5xf64>, tensor<5xf64>
    %c = tl.contract %p [[1, 2]] : tensor<5x5x5xf64>
    tl.yield %c : tensor<5xf64>
  }
}
