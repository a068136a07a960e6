// A size bound to 0 makes empty variables: they verify, pad to 0 and keep
// their meaning through the tl passes (the interpreter runs them; compiled
// code takes such a size at run time: empty-extent.mlir in TLToLinalg).
// RUN: tl-opt %s | FileCheck %s
// RUN: tl-opt %s --tl-pad=multiple=4 | FileCheck %s --check-prefix=PADDED
// RUN: tl-opt %s --tl-check-semantics --tl-optimize -o /dev/null
// CHECK: tl.var input @u : tensor<0x3xf64>
// CHECK: tl.transpose %{{.*}} {{\[\[}}0, 1]] : tensor<0x3xf64>
// PADDED: tl.var input @u {real_shape = array<i64: 0, 3>} : tensor<0x4xf64>
// PADDED: tl.var output @t {real_shape = array<i64: 3, 0>} : tensor<4x0xf64>
tl.program @p {
  tl.var input @u : tensor<0x3xf64>
  tl.var input @w : tensor<3xf64>
  tl.var output @t : tensor<3x0xf64>
  tl.var output @s : tensor<3xf64>
  tl.assign @t = {
    %u = tl.use @u : tensor<0x3xf64>
    %x = tl.transpose %u [[0, 1]] : tensor<0x3xf64>
    tl.yield %x : tensor<3x0xf64>
  }
  tl.assign @s = {
    %u = tl.use @u : tensor<0x3xf64>
    %w = tl.use @w : tensor<3xf64>
    %p = tl.outer %u, %w : tensor<0x3xf64>, tensor<3xf64>
    %c = tl.contract %p [[1, 2]] : tensor<0x3x3xf64>
    %o = tl.outer %c, %c : tensor<0xf64>, tensor<0xf64>
    %d = tl.contract %o [[0, 1]] : tensor<0x0xf64>
    %e = tl.outer %d, %w : tensor<f64>, tensor<3xf64>
    tl.yield %e : tensor<3xf64>
  }
}
