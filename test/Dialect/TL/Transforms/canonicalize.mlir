// RUN: tl-opt %s --canonicalize --split-input-file | FileCheck %s

// Transpositions compose: two that cancel fold away, a chain becomes one
// with the fewest swaps, and swaps that undo each other vanish.
// CHECK-LABEL: tl.program @transpositions
// CHECK: tl.assign @b = {
// CHECK-NEXT: %[[A:.*]] = tl.use @a
// CHECK-NEXT: tl.yield %[[A]]
// CHECK: tl.assign @c = {
// CHECK-NEXT: %[[A2:.*]] = tl.use @a
// CHECK-NEXT: %[[T:.*]] = tl.transpose %[[A2]] {{\[}}[0, 2]] : tensor<2x3x4xf64>
// CHECK-NEXT: tl.yield %[[T]]
// CHECK: tl.assign @b = {
// CHECK-NEXT: %[[A3:.*]] = tl.use @a
// CHECK-NEXT: tl.yield %[[A3]]
tl.program @transpositions {
  tl.var @a : tensor<2x3x4xf64>
  tl.var @b : tensor<2x3x4xf64>
  tl.var @c : tensor<4x3x2xf64>
  tl.assign @b = {
    %a = tl.use @a : tensor<2x3x4xf64>
    %0 = tl.transpose %a [[0, 1]] : tensor<2x3x4xf64>
    %1 = tl.transpose %0 [[1, 0]] : tensor<3x2x4xf64>
    tl.yield %1 : tensor<2x3x4xf64>
  }
  tl.assign @c = {
    %a = tl.use @a : tensor<2x3x4xf64>
    %0 = tl.transpose %a [[0, 1], [1, 2]] : tensor<2x3x4xf64>
    %1 = tl.transpose %0 [[0, 1]] : tensor<3x4x2xf64>
    tl.yield %1 : tensor<4x3x2xf64>
  }
  tl.assign @b = {
    %a = tl.use @a : tensor<2x3x4xf64>
    %0 = tl.transpose %a [[1, 1], [0, 2], [2, 0]] : tensor<2x3x4xf64>
    tl.yield %0 : tensor<2x3x4xf64>
  }
}
