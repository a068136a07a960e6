// RUN: tl-opt %s --convert-tl-to-linalg --tl-tile-linalg | FileCheck %s

// A contraction whose iteration space (2^66 points) exceeds int64: the
// tiling heuristics compare saturated counts instead of overflowing. The
// variables themselves (2^44 elements each) are within the limits.
// CHECK-LABEL: func.func @huge
tl.program @huge {
  tl.var input @A : tensor<4194304x4194304xf64>
  tl.var input @B : tensor<4194304x4194304xf64>
  tl.var output @C : tensor<4194304x4194304xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<4194304x4194304xf64>
    %b = tl.use @B : tensor<4194304x4194304xf64>
    %p = tl.outer %a, %b : tensor<4194304x4194304xf64>, tensor<4194304x4194304xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4194304x4194304x4194304x4194304xf64>
    tl.yield %c : tensor<4194304x4194304xf64>
  }
}
