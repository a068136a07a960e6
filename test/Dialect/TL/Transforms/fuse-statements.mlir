// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-fuse-statements))' | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-fuse-statements{contractions=false}))' | FileCheck %s --check-prefix=ELEMENTWISE

// t is a local read only by the next statement, element-wise: its
// expression moves into that statement and t is never written.
// CHECK-LABEL: tl.program @chain
// CHECK-NOT: tl.assign @t
// CHECK: tl.assign @z = {
// CHECK-NEXT: %[[A:.*]] = tl.use @a
// CHECK-NEXT: %[[B:.*]] = tl.use @b
// CHECK-NEXT: %[[S:.*]] = tl.add %[[A]], %[[B]]
// CHECK-NEXT: %[[C:.*]] = tl.use @c
// CHECK: %[[M:.*]] = tl.mul %[[S]], %[[C]]
// CHECK: %[[R:.*]] = tl.sub %[[M]], %[[S]]
// CHECK: tl.yield %[[R]]
tl.program @chain {
  tl.var input @a : tensor<8xf64>
  tl.var input @b : tensor<8xf64>
  tl.var input @c : tensor<8xf64>
  tl.var @t : tensor<8xf64>
  tl.var output @z : tensor<8xf64>
  tl.assign @t = {
    %a = tl.use @a : tensor<8xf64>
    %b = tl.use @b : tensor<8xf64>
    %0 = tl.add %a, %b : tensor<8xf64>, tensor<8xf64>
    tl.yield %0 : tensor<8xf64>
  }
  tl.assign @z = {
    %t = tl.use @t : tensor<8xf64>
    %c = tl.use @c : tensor<8xf64>
    %0 = tl.mul %t, %c : tensor<8xf64>, tensor<8xf64>
    %1 = tl.sub %0, %t : tensor<8xf64>, tensor<8xf64>
    tl.yield %1 : tensor<8xf64>
  }
}

// -----

// Not fused: t is an output (live-out); u is read again later; v feeds an
// outer product (each of its elements would be recomputed 8 times).
// CHECK-LABEL: tl.program @kept
// CHECK: tl.assign @t
// CHECK: tl.assign @u
// CHECK: tl.assign @v
// CHECK: tl.assign @w
// CHECK: tl.assign @m
tl.program @kept {
  tl.var input @a : tensor<8xf64>
  tl.var output @t : tensor<8xf64>
  tl.var @u : tensor<8xf64>
  tl.var @v : tensor<8xf64>
  tl.var output @w : tensor<8xf64>
  tl.var output @m : tensor<8x8xf64>
  tl.assign @t = {
    %a = tl.use @a : tensor<8xf64>
    %0 = tl.add %a, %a : tensor<8xf64>, tensor<8xf64>
    tl.yield %0 : tensor<8xf64>
  }
  tl.assign @u = {
    %t = tl.use @t : tensor<8xf64>
    %0 = tl.mul %t, %t : tensor<8xf64>, tensor<8xf64>
    tl.yield %0 : tensor<8xf64>
  }
  tl.assign @v = {
    %u = tl.use @u : tensor<8xf64>
    %0 = tl.add %u, %u : tensor<8xf64>, tensor<8xf64>
    tl.yield %0 : tensor<8xf64>
  }
  tl.assign @w = {
    %u = tl.use @u : tensor<8xf64>
    tl.yield %u : tensor<8xf64>
  }
  tl.assign @m = {
    %v = tl.use @v : tensor<8xf64>
    %a = tl.use @a : tensor<8xf64>
    %0 = tl.outer %v, %a : tensor<8xf64>, tensor<8xf64>
    tl.yield %0 : tensor<8x8xf64>
  }
}

// -----

// A contraction is computed into a temporary wherever it is used, so its
// statement is substituted into a consumer that reads it any way: here
// scaled, then contracted again (the inverse Helmholtz operator's two
// halves become one statement, which tl-fuse-batches computes one
// element at a time). An element-wise producer still is not (above).
// CHECK-LABEL: tl.program @contraction
// ELEMENTWISE-LABEL: tl.program @contraction
// ELEMENTWISE: tl.assign @t
// ELEMENTWISE: tl.assign @v
// CHECK-NOT: tl.assign @t
// CHECK: tl.assign @v = {
// CHECK: %[[C:.*]] = tl.contract %{{.*}} {{\[\[}}1, 2]] : tensor<4x6x6x6xf64>
// CHECK: %[[D:.*]] = tl.use @D
// CHECK: %[[M:.*]] = tl.mul %[[D]], %[[C]]
// CHECK: %[[O:.*]] = tl.outer %[[M]], %{{.*}}
// CHECK: tl.contract %[[O]] {{\[\[}}1, 3]]
tl.program @contraction {
  tl.var input @S : tensor<6x6xf64>
  tl.var input @D : tensor<4x6xf64>
  tl.var input @u : tensor<4x6xf64>
  tl.var output @v : tensor<4x6xf64>
  tl.var @t : tensor<4x6xf64>
  tl.assign @t = {
    %u = tl.use @u : tensor<4x6xf64>
    %S = tl.use @S : tensor<6x6xf64>
    %0 = tl.outer %u, %S : tensor<4x6xf64>, tensor<6x6xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<4x6x6x6xf64>
    tl.yield %1 : tensor<4x6xf64>
  }
  tl.assign @v = {
    %D = tl.use @D : tensor<4x6xf64>
    %t = tl.use @t : tensor<4x6xf64>
    %0 = tl.mul %D, %t : tensor<4x6xf64>, tensor<4x6xf64>
    %S = tl.use @S : tensor<6x6xf64>
    %1 = tl.outer %0, %S : tensor<4x6xf64>, tensor<6x6xf64>
    %2 = tl.contract %1 [[1, 3]] : tensor<4x6x6x6xf64>
    tl.yield %2 : tensor<4x6xf64>
  }
}

// -----

// A sum over a distributed size (marked by tl-distribute) stays a statement
// of its own: the processes sum its target before the next one reads it.
// CHECK-LABEL: tl.program @distributed_sum
// CHECK: tl.assign @s attributes {tl.allreduce} = {
// CHECK: tl.assign @n = {
// CHECK: tl.use @s
tl.program @distributed_sum attributes {tl.distributed = @E} {
  tl.size @E
  tl.var input @u : tensor<?xf64, [@E]>
  tl.var @s : tensor<f64>
  tl.var output @n : tensor<f64>
  tl.assign @s attributes {tl.allreduce} = {
    %u = tl.use @u : tensor<?xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?xf64, [@E]>, tensor<?xf64, [@E]>
    %c = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @E]>
    tl.yield %c : tensor<f64>
  }
  tl.assign @n = {
    %s = tl.use @s : tensor<f64>
    %r = tl.sqrt %s : tensor<f64>
    tl.yield %r : tensor<f64>
  }
}
