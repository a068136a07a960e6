// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-optimize-contractions{report=1}))' -verify-diagnostics -o /dev/null

// `report` gives both costs and the order chosen, for every tree of three
// or more factors, rewritten or not.

tl.program @cfd {
  tl.var input @u : tensor<40x5x5x5xf64>
  tl.var input @A : tensor<5x5xf64>
  tl.var output @v : tensor<40x5x5x5xf64>
  tl.assign @v = {
    %u = tl.use @u : tensor<40x5x5x5xf64>
    %a = tl.use @A : tensor<5x5xf64>
    %0 = tl.outer %u, %a : tensor<40x5x5x5xf64>, tensor<5x5xf64>
    %1 = tl.outer %0, %a : tensor<40x5x5x5x5x5xf64>, tensor<5x5xf64>
    %2 = tl.outer %1, %a : tensor<40x5x5x5x5x5x5x5xf64>, tensor<5x5xf64>
    // expected-remark @below {{4 factors: 6.25e+05 multiply-adds as written, 7.50e+04 as (((u A) A) A)}}
    %3 = tl.contract %2 [[1, 5], [2, 7], [3, 9]] : tensor<40x5x5x5x5x5x5x5x5x5xf64>
    tl.yield %3 : tensor<40x5x5x5xf64>
  }
}

// -----

tl.program @chains {
  tl.var input @A : tensor<10x1000xf64>
  tl.var input @B : tensor<1000x10xf64>
  tl.var output @D : tensor<10x10xf64>
  tl.assign @D = {
    %a = tl.use @A : tensor<10x1000xf64>
    %b = tl.use @B : tensor<1000x10xf64>
    %0 = tl.outer %a, %b : tensor<10x1000xf64>, tensor<1000x10xf64>
    %1 = tl.outer %0, %a : tensor<10x1000x1000x10xf64>, tensor<10x1000xf64>
    %2 = tl.outer %1, %b : tensor<10x1000x1000x10x10x1000xf64>, tensor<1000x10xf64>
    // expected-remark @below {{4 factors: 1.00e+09 multiply-adds as written, 2.01e+05 as ((A B) (A B))}}
    %3 = tl.contract %2 [[1, 2], [3, 4], [5, 6]] : tensor<10x1000x1000x10x10x1000x1000x10xf64>
    tl.yield %3 : tensor<10x10xf64>
  }
  // A scalar product of a tree is part of the tree.
  tl.assign @D = {
    %a = tl.use @A : tensor<10x1000xf64>
    %b = tl.use @B : tensor<1000x10xf64>
    %d = tl.use @D : tensor<10x10xf64>
    %s = tl.contract %d [[0, 1]] : tensor<10x10xf64>
    %0 = tl.outer %a, %b : tensor<10x1000xf64>, tensor<1000x10xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<10x1000x1000x10xf64>
    // expected-remark @below {{3 factors: 1.00e+06 multiply-adds as written, 1.00e+05 as (D (A B))}}
    %2 = tl.mul %s, %1 : tensor<f64>, tensor<10x10xf64>
    tl.yield %2 : tensor<10x10xf64>
  }
}
