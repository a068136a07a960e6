// RUN: tl-opt %s | FileCheck %s
// RUN: tl-opt %s | tl-opt | FileCheck %s
// RUN: tl-opt %s --mlir-print-op-generic | tl-opt | FileCheck %s

// The passes' marks where they belong: tl-distribute's on a program and
// its summing statement, tl-column-major's on a program.

// CHECK-LABEL: tl.program @distributed attributes {tl.distributed = @E} {
// CHECK: tl.assign @s attributes {tl.allreduce} = {
tl.program @distributed attributes {tl.distributed = @E} {
  tl.size @E
  tl.var input @u : tensor<?xf64, [@E]>
  tl.var output @s : tensor<f64>
  tl.assign @s attributes {tl.allreduce} = {
    %u = tl.use @u : tensor<?xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?xf64, [@E]>, tensor<?xf64, [@E]>
    %c = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @E]>
    tl.yield %c : tensor<f64>
  }
}

// CHECK-LABEL: tl.program @column_major attributes {tl.column_major} {
tl.program @column_major attributes {tl.column_major} {
  tl.var input output @s : tensor<f64>
}
