// tl-distribute: statements that sum over the distributed size are marked
// for an allreduce; what the processes' partial values cannot give is an
// error at the statement.
// RUN: tl-opt %s -split-input-file --tl-distribute=size=E -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tl.program @marks attributes {tl.distributed = @E}
// Element-parallel: local, no mark.
// CHECK: tl.assign @v = {
// A sum over E, and a linear function of one (a contraction with a
// replicated matrix, a transposition, a replicated scalar's multiple).
// CHECK: tl.assign @s attributes {tl.allreduce} = {
// CHECK: tl.assign @g attributes {tl.allreduce} = {
// Replicated values only: every process computes the same.
// CHECK: tl.assign @h = {
tl.program @marks {
  tl.size @E
  tl.var input @A : tensor<3x3xf64>
  tl.var input @u : tensor<?x3xf64, [@E]>
  tl.var output @v : tensor<?x3xf64, [@E]>
  tl.var output @s : tensor<f64>
  tl.var output @g : tensor<3x3xf64>
  tl.var output @h : tensor<3x3xf64>
  tl.assign @v = {
    %u = tl.use @u : tensor<?x3xf64, [@E]>
    %a = tl.use @A : tensor<3x3xf64>
    %p = tl.outer %u, %a : tensor<?x3xf64, [@E]>, tensor<3x3xf64>
    %c = tl.contract %p [[1, 2]] : tensor<?x3x3x3xf64, [@E]>
    tl.yield %c : tensor<?x3xf64, [@E]>
  }
  tl.assign @s = {
    %u = tl.use @u : tensor<?x3xf64, [@E]>
    %v = tl.use @v : tensor<?x3xf64, [@E]>
    %p = tl.outer %u, %v : tensor<?x3xf64, [@E]>, tensor<?x3xf64, [@E]>
    %c = tl.contract %p [[0, 2], [1, 3]] : tensor<?x3x?x3xf64, [@E, @E]>
    tl.yield %c : tensor<f64>
  }
  tl.assign @g = {
    %u = tl.use @u : tensor<?x3xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?x3xf64, [@E]>, tensor<?x3xf64, [@E]>
    %c = tl.contract %p [[0, 2]] : tensor<?x3x?x3xf64, [@E, @E]>
    %a = tl.use @A : tensor<3x3xf64>
    %q = tl.outer %c, %a : tensor<3x3xf64>, tensor<3x3xf64>
    %d = tl.contract %q [[1, 2]] : tensor<3x3x3x3xf64>
    %t = tl.transpose %d [[0, 1]] : tensor<3x3xf64>
    %two = tl.constant 2.0 : tensor<f64>
    %m = tl.mul %two, %t : tensor<f64>, tensor<3x3xf64>
    tl.yield %m : tensor<3x3xf64>
  }
  tl.assign @h = {
    %a = tl.use @A : tensor<3x3xf64>
    %m = tl.add %a, %a : tensor<3x3xf64>, tensor<3x3xf64>
    tl.yield %m : tensor<3x3xf64>
  }
}

// -----

tl.program @nonlinear {
  tl.size @E
  tl.var input @u : tensor<?xf64, [@E]>
  tl.var output @n : tensor<f64>
  tl.assign @n = {
    %u = tl.use @u : tensor<?xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?xf64, [@E]>, tensor<?xf64, [@E]>
    %c = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @E]>
    // expected-error @+1 {{cannot distribute 'E': this operation of the sum over 'E' would combine the processes' partial sums wrongly; assign the sum to a variable first}}
    %r = tl.sqrt %c : tensor<f64>
    tl.yield %r : tensor<f64>
  }
}

// -----

tl.program @product_of_sums {
  tl.size @E
  tl.var input @u : tensor<?xf64, [@E]>
  tl.var output @n : tensor<f64>
  tl.assign @n = {
    %u = tl.use @u : tensor<?xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?xf64, [@E]>, tensor<?xf64, [@E]>
    %c = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @E]>
    // expected-error @+1 {{cannot distribute 'E': a second sum over 'E' in one statement; the processes' partial sums would multiply; assign each sum to a variable of its own}}
    %d = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @E]>
    %m = tl.mul %c, %d : tensor<f64>, tensor<f64>
    tl.yield %m : tensor<f64>
  }
}

// -----

tl.program @two_dims {
  tl.size @E
  // expected-error @+1 {{cannot distribute 'E': variable 'M' has it in more than one dimension, so no block of it is one process's}}
  tl.var @M : tensor<?x?xf64, [@E, @E]>
}

// -----

// expected-error @+1 {{cannot distribute 'E': the program has no such size}}
tl.program @no_size {
  tl.var @x : tensor<3xf64>
}
