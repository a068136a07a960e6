// RUN: tl-translate --export-tl %s --split-input-file --verify-diagnostics | FileCheck %s

// Parentheses appear exactly where precedence and left associativity need
// them.
// CHECK: var x : [2]
// CHECK-NEXT: var s : []
// CHECK-EMPTY:
// CHECK-NEXT: x = x - (x - x)
// CHECK-NEXT: x = x / (s * x)
// CHECK-NEXT: x = (x + x) / s
// CHECK-NEXT: x = x # (x # x . [1 2]) - x
tl.program @main {
  tl.var @x : tensor<2xf64>
  tl.var @s : tensor<f64>
  tl.assign @x = {
    %x = tl.use @x : tensor<2xf64>
    %0 = tl.sub %x, %x : tensor<2xf64>, tensor<2xf64>
    %1 = tl.sub %x, %0 : tensor<2xf64>, tensor<2xf64>
    tl.yield %1 : tensor<2xf64>
  }
  tl.assign @x = {
    %x = tl.use @x : tensor<2xf64>
    %s = tl.use @s : tensor<f64>
    %0 = tl.mul %s, %x : tensor<f64>, tensor<2xf64>
    %1 = tl.div %x, %0 : tensor<2xf64>, tensor<2xf64>
    tl.yield %1 : tensor<2xf64>
  }
  tl.assign @x = {
    %x = tl.use @x : tensor<2xf64>
    %s = tl.use @s : tensor<f64>
    %0 = tl.add %x, %x : tensor<2xf64>, tensor<2xf64>
    %1 = tl.div %0, %s : tensor<2xf64>, tensor<f64>
    tl.yield %1 : tensor<2xf64>
  }
  tl.assign @x = {
    %x = tl.use @x : tensor<2xf64>
    %0 = tl.outer %x, %x : tensor<2xf64>, tensor<2xf64>
    %1 = tl.contract %0 [[0, 1]] : tensor<2x2xf64>
    %2 = tl.outer %x, %1 : tensor<2xf64>, tensor<f64>
    %3 = tl.sub %2, %x : tensor<2xf64>, tensor<2xf64>
    tl.yield %3 : tensor<2xf64>
  }
}

// -----

// expected-error @+1 {{expected exactly one tl.program to export, found 2}}
module {
  tl.program @a {
  }
  tl.program @b {
  }
}
