// RUN: tl-opt %s --tl-column-major --split-input-file --verify-diagnostics | FileCheck %s

// Every variable's type is reversed; reads of rank 2 or more are
// transposed back, values of rank 2 or more reversed before they are
// stored; vectors and scalars are unchanged.
// CHECK-LABEL: tl.program @p attributes {tl.column_major} {
// CHECK-NEXT: tl.var input @A : tensor<4x3xf64>
// CHECK-NEXT: tl.var input @x : tensor<4xf64>
// CHECK-NEXT: tl.var input @z : tensor<5xf64>
// CHECK-NEXT: tl.var output @B : tensor<5x4x3xf64>
// CHECK-NEXT: tl.var output @y : tensor<3xf64>
// CHECK: tl.assign @B = {
// CHECK-NEXT: %[[A:.*]] = tl.use @A : tensor<4x3xf64>
// CHECK-NEXT: %[[BACK:.*]] = tl.transpose %[[A]] {{\[\[}}0, 1]] : tensor<4x3xf64>
// CHECK-NEXT: %[[Z:.*]] = tl.use @z : tensor<5xf64>
// CHECK-NEXT: %[[P:.*]] = tl.outer %[[BACK]], %[[Z]] : tensor<3x4xf64>, tensor<5xf64>
// CHECK-NEXT: %[[R:.*]] = tl.transpose %[[P]] {{\[\[}}0, 2]] : tensor<3x4x5xf64>
// CHECK-NEXT: tl.yield %[[R]] : tensor<5x4x3xf64>
// CHECK: tl.assign @y = {
// CHECK-NEXT: %[[A2:.*]] = tl.use @A : tensor<4x3xf64>
// CHECK-NEXT: %[[BACK2:.*]] = tl.transpose %[[A2]] {{\[\[}}0, 1]] : tensor<4x3xf64>
// CHECK-NEXT: %[[X:.*]] = tl.use @x : tensor<4xf64>
// CHECK-NEXT: %[[O:.*]] = tl.outer %[[BACK2]], %[[X]]
// CHECK-NEXT: %[[C:.*]] = tl.contract %[[O]] {{\[\[}}1, 2]]
// CHECK-NEXT: tl.yield %[[C]] : tensor<3xf64>
tl.program @p {
  tl.var input @A : tensor<3x4xf64>
  tl.var input @x : tensor<4xf64>
  tl.var input @z : tensor<5xf64>
  tl.var output @B : tensor<3x4x5xf64>
  tl.var output @y : tensor<3xf64>
  tl.assign @B = {
    %a = tl.use @A : tensor<3x4xf64>
    %c = tl.use @z : tensor<5xf64>
    %p = tl.outer %a, %c : tensor<3x4xf64>, tensor<5xf64>
    tl.yield %p : tensor<3x4x5xf64>
  }
  tl.assign @y = {
    %a = tl.use @A : tensor<3x4xf64>
    %x = tl.use @x : tensor<4xf64>
    %p = tl.outer %a, %x : tensor<3x4xf64>, tensor<4xf64>
    %c = tl.contract %p [[1, 2]] : tensor<3x4x4xf64>
    tl.yield %c : tensor<3xf64>
  }
}

// -----

// Sizes and a padded program's real extents are reversed too; the batch
// dimension moves to the other end.
// CHECK-LABEL: tl.program @batched batch 6 last attributes {tl.column_major} {
// CHECK-NEXT: tl.size @E
// CHECK-NEXT: tl.var input @A {real_shape = array<i64: -9223372036854775808, 3>} : tensor<?x4xf64, [@E]>
// CHECK-NEXT: tl.var output @u batched {real_shape = array<i64: 3, -9223372036854775808, 6>} : tensor<4x?x6xf64, [@E]>
// CHECK: %[[A:.*]] = tl.use @A : tensor<?x4xf64, [@E]>
// CHECK-NEXT: %[[BACK:.*]] = tl.transpose %[[A]] {{\[\[}}0, 1]] : tensor<?x4xf64, [@E]>
// CHECK-NEXT: %[[T:.*]] = tl.transpose %[[BACK]] {{\[\[}}0, 1]] : tensor<4x?xf64, [@E]>
// CHECK-NEXT: %[[U:.*]] = tl.transpose %[[T]] {{\[\[}}0, 1]] : tensor<?x4xf64, [@E]>
// CHECK-NEXT: tl.yield %[[U]] : tensor<4x?xf64, [@E]>
tl.program @batched batch 6 {
  tl.size @E
  tl.var input @A {real_shape = array<i64: 3, -9223372036854775808>} : tensor<4x?xf64, [@E]>
  tl.var output @u batched {real_shape = array<i64: 6, -9223372036854775808, 3>} : tensor<6x?x4xf64, [@E]>
  tl.assign @u = {
    %a = tl.use @A : tensor<4x?xf64, [@E]>
    %t = tl.transpose %a [[0, 1]] : tensor<4x?xf64, [@E]>
    tl.yield %t : tensor<?x4xf64, [@E]>
  }
}

// -----

// expected-error @below {{the program is already column-major}}
tl.program @twice attributes {tl.column_major} {
  tl.var input @A : tensor<3x4xf64>
}

// -----

// expected-error @below {{a distributed program cannot be made column-major}}
tl.program @distributed attributes {tl.distributed = @E} {
  tl.size @E
  tl.var input @A : tensor<?x4xf64, [@E]>
}
