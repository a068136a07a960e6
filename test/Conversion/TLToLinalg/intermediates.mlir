// RUN: tl-opt %s --convert-tl-to-linalg --split-input-file | FileCheck %s

// With qualifiers, the interface is the input and output variables: the
// intermediate t is a buffer of the program's function, passed to the
// statements that mention it, not an argument.
// CHECK-LABEL: func.func private @helmholtz.s0(
// CHECK-SAME: memref<4x4xf64> {tl.name = "S"}, %{{.*}}: memref<4xf64> {tl.name = "u"}, %{{.*}}: memref<4xf64> {tl.name = "t"})
// CHECK-LABEL: func.func @helmholtz(
// CHECK-SAME: %[[S:.*]]: memref<4x4xf64> {tl.input, tl.name = "S"}, %[[U:.*]]: memref<4xf64> {tl.input, tl.name = "u"}, %[[V:.*]]: memref<4xf64> {tl.name = "v", tl.output}) {
// CHECK-NEXT: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf64>
// CHECK-NOT: linalg.fill
// CHECK-NEXT: call @helmholtz.s0(%[[S]], %[[U]], %[[T]])
// CHECK-NEXT: call @helmholtz.s1(%[[S]], %[[T]], %[[V]])
// CHECK-NEXT: return
tl.program @helmholtz {
  tl.var input @S : tensor<4x4xf64>
  tl.var input @u : tensor<4xf64>
  tl.var @t : tensor<4xf64>
  tl.var output @v : tensor<4xf64>
  tl.assign @t = {
    %s = tl.use @S : tensor<4x4xf64>
    %u = tl.use @u : tensor<4xf64>
    %p = tl.outer %s, %u : tensor<4x4xf64>, tensor<4xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4x4x4xf64>
    tl.yield %c : tensor<4xf64>
  }
  tl.assign @v = {
    %s = tl.use @S : tensor<4x4xf64>
    %t = tl.use @t : tensor<4xf64>
    %p = tl.outer %s, %t : tensor<4x4xf64>, tensor<4xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4x4x4xf64>
    tl.yield %c : tensor<4xf64>
  }
}

// -----

// Without qualifiers every variable is part of the interface.
// CHECK-LABEL: func.func @unqualified(
// CHECK-SAME: memref<3xf64> {tl.name = "a"}, %{{.*}}: memref<3xf64> {tl.name = "b"}, %{{.*}}: memref<3xf64> {tl.name = "c"})
// CHECK-NOT: memref.alloc
tl.program @unqualified {
  tl.var @a : tensor<3xf64>
  tl.var @b : tensor<3xf64>
  tl.var @c : tensor<3xf64>
  tl.assign @b = {
    %a = tl.use @a : tensor<3xf64>
    %n = tl.neg %a : tensor<3xf64>
    tl.yield %n : tensor<3xf64>
  }
  tl.assign @c = {
    %b = tl.use @b : tensor<3xf64>
    %n = tl.neg %b : tensor<3xf64>
    tl.yield %n : tensor<3xf64>
  }
}

// -----

// A sized intermediate is allocated with the sizes' values and passed as
// its base pointer, as a sized argument is.
// CHECK-LABEL: func.func @sized(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[A:.*]]: memref<f64> {tl.input, tl.name = "a"}, %[[C:.*]]: memref<f64> {tl.name = "c", tl.output}) {
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%[[E]]) {alignment = 64 : i64} : memref<?x3xf64>
// CHECK-NEXT: %[[BASE:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [], strides: [] : memref<?x3xf64> to memref<f64>
// CHECK-NEXT: call @sized.s0(%[[E]], %[[A]], %[[BASE]])
// CHECK-NEXT: call @sized.s1(%[[E]], %[[BASE]], %[[C]])
tl.program @sized {
  tl.size @E
  tl.var input @a : tensor<?x3xf64, [@E]>
  tl.var @b : tensor<?x3xf64, [@E]>
  tl.var output @c : tensor<?x3xf64, [@E]>
  tl.assign @b = {
    %a = tl.use @a : tensor<?x3xf64, [@E]>
    %n = tl.neg %a : tensor<?x3xf64, [@E]>
    tl.yield %n : tensor<?x3xf64, [@E]>
  }
  tl.assign @c = {
    %b = tl.use @b : tensor<?x3xf64, [@E]>
    %n = tl.exp %b : tensor<?x3xf64, [@E]>
    tl.yield %n : tensor<?x3xf64, [@E]>
  }
}

// -----

// A padded intermediate's padding starts zero (rule d-pad-var), as the
// caller's variables' does.
// CHECK-LABEL: func.func @padded(
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f64) outs(%[[B]] : memref<8xf64>)
// CHECK-NEXT: call @padded.s0
tl.program @padded {
  tl.var input @a {real_shape = array<i64: 5>} : tensor<8xf64>
  tl.var @b {real_shape = array<i64: 5>} : tensor<8xf64>
  tl.var output @c {real_shape = array<i64: 5>} : tensor<8xf64>
  tl.assign @b = {
    %a = tl.use @a : tensor<8xf64>
    %n = tl.neg %a : tensor<8xf64>
    tl.yield %n : tensor<8xf64>
  }
  tl.assign @c = {
    %b = tl.use @b : tensor<8xf64>
    %n = tl.neg %b : tensor<8xf64>
    tl.yield %n : tensor<8xf64>
  }
}
