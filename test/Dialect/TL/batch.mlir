// RUN: tl-opt %s | tl-opt | FileCheck %s
// RUN: tl-opt %s --mlir-print-op-generic | tl-opt | FileCheck %s

// A batch program: batched variables' types carry the batch dimension
// (first here), their uses the element's type; the shared A keeps its own.
// CHECK-LABEL: tl.program @interpolate batch 4000 {
// CHECK-NEXT: tl.var input @A : tensor<11x11xf64>
// CHECK-NEXT: tl.var input @u batched : tensor<4000x11xf64>
// CHECK-NEXT: tl.var output @v batched : tensor<4000x11xf64>
// CHECK: tl.use @u : tensor<11xf64>
tl.program @interpolate batch 4000 {
  tl.var input @A : tensor<11x11xf64>
  tl.var input @u batched : tensor<4000x11xf64>
  tl.var output @v batched : tensor<4000x11xf64>
  tl.assign @v = {
    %a = tl.use @A : tensor<11x11xf64>
    %u = tl.use @u : tensor<11xf64>
    %p = tl.outer %a, %u : tensor<11x11xf64>, tensor<11xf64>
    %c = tl.contract %p [[1, 2]] : tensor<11x11x11xf64>
    tl.yield %c : tensor<11xf64>
  }
}

// The batch dimension last; a batched scalar is a vector of the batch; a
// padded batched variable pads its element, not the batch.
// CHECK-LABEL: tl.program @last batch 3 last {
// CHECK-NEXT: tl.var input @s batched : tensor<3xf64>
// CHECK-NEXT: tl.var output @w batched {real_shape = array<i64: 5, 3>} : tensor<8x3xf64>
// CHECK: tl.use @s : tensor<f64>
tl.program @last batch 3 last {
  tl.var input @s batched : tensor<3xf64>
  tl.var output @w batched {real_shape = array<i64: 5, 3>} : tensor<8x3xf64>
  tl.assign @w = {
    %s = tl.use @s : tensor<f64>
    %w = tl.use @w : tensor<8xf64>
    %m = tl.mul %s, %w : tensor<f64>, tensor<8xf64>
    tl.yield %m : tensor<8xf64>
  }
}
