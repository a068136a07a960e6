// RUN: tl-opt %s | tl-opt | FileCheck %s
// RUN: tl-opt %s --mlir-print-op-generic | tl-opt | FileCheck %s

// CHECK-LABEL: tl.program @all_forms {
tl.program @all_forms {
  // CHECK-NEXT: tl.var input @A : tensor<3x4xf64>
  // CHECK-NEXT: tl.var input @B : tensor<4x5xf64>
  // CHECK-NEXT: tl.var output @C : tensor<3x5xf64>
  // CHECK-NEXT: tl.var input output @s : tensor<f64>
  // CHECK-NEXT: tl.var @T : tensor<2x3x4x5xf64>
  tl.var input @A : tensor<3x4xf64>
  tl.var input @B : tensor<4x5xf64>
  tl.var output @C : tensor<3x5xf64>
  tl.var input output @s : tensor<f64>
  tl.var @T : tensor<2x3x4x5xf64>

  // CHECK: tl.assign @C = {
  // CHECK-NEXT: %[[A:.*]] = tl.use @A : tensor<3x4xf64>
  // CHECK-NEXT: %[[B:.*]] = tl.use @B : tensor<4x5xf64>
  // CHECK-NEXT: %[[P:.*]] = tl.outer %[[A]], %[[B]] : tensor<3x4xf64>, tensor<4x5xf64>
  // CHECK-NEXT: %[[M:.*]] = tl.contract %[[P]] {{\[}}[1, 2]] : tensor<3x4x4x5xf64>
  // CHECK-NEXT: tl.yield %[[M]] : tensor<3x5xf64>
  // CHECK-NEXT: }
  tl.assign @C = {
    %a = tl.use @A : tensor<3x4xf64>
    %b = tl.use @B : tensor<4x5xf64>
    %p = tl.outer %a, %b : tensor<3x4xf64>, tensor<4x5xf64>
    %m = tl.contract %p [[1, 2]] : tensor<3x4x4x5xf64>
    tl.yield %m : tensor<3x5xf64>
  }

  // Arithmetic, including the scalar forms of rules t-smul and t-sdiv.
  // CHECK: tl.assign @C = {
  // CHECK: %[[S:.*]] = tl.use @s : tensor<f64>
  // CHECK: %[[C:.*]] = tl.use @C : tensor<3x5xf64>
  // CHECK: %[[SC:.*]] = tl.mul %[[S]], %[[C]] : tensor<f64>, tensor<3x5xf64>
  // CHECK: %[[D:.*]] = tl.div %[[SC]], %[[S]] : tensor<3x5xf64>, tensor<f64>
  // CHECK: %[[E:.*]] = tl.add %[[D]], %[[C]] : tensor<3x5xf64>, tensor<3x5xf64>
  // CHECK: %[[F:.*]] = tl.sub %[[E]], %[[C]] : tensor<3x5xf64>, tensor<3x5xf64>
  // CHECK: %[[G:.*]] = tl.mul %[[F]], %[[F]] : tensor<3x5xf64>, tensor<3x5xf64>
  // CHECK: %[[H:.*]] = tl.div %[[G]], %[[F]] : tensor<3x5xf64>, tensor<3x5xf64>
  // CHECK: tl.yield %[[H]] : tensor<3x5xf64>
  tl.assign @C = {
    %s = tl.use @s : tensor<f64>
    %c = tl.use @C : tensor<3x5xf64>
    %sc = tl.mul %s, %c : tensor<f64>, tensor<3x5xf64>
    %d = tl.div %sc, %s : tensor<3x5xf64>, tensor<f64>
    %e = tl.add %d, %c : tensor<3x5xf64>, tensor<3x5xf64>
    %f = tl.sub %e, %c : tensor<3x5xf64>, tensor<3x5xf64>
    %g = tl.mul %f, %f : tensor<3x5xf64>, tensor<3x5xf64>
    %h = tl.div %g, %f : tensor<3x5xf64>, tensor<3x5xf64>
    tl.yield %h : tensor<3x5xf64>
  }

  // Extensions: literals, a scalar on either side of any binary operation
  // (rule t-scalar), min and max, and the unary functions (rule t-fun).
  // CHECK: tl.assign @C = {
  // CHECK: %[[K:.*]] = tl.constant 2.500000e-01 : tensor<f64>
  // CHECK: %[[U:.*]] = tl.use @C : tensor<3x5xf64>
  // CHECK: %[[V:.*]] = tl.sub %[[U]], %[[K]] : tensor<3x5xf64>, tensor<f64>
  // CHECK: %[[W:.*]] = tl.div %[[K]], %[[V]] : tensor<f64>, tensor<3x5xf64>
  // CHECK: %[[X:.*]] = tl.min %[[W]], %[[U]] : tensor<3x5xf64>, tensor<3x5xf64>
  // CHECK: %[[Y:.*]] = tl.max %[[K]], %[[X]] : tensor<f64>, tensor<3x5xf64>
  // CHECK: %[[N:.*]] = tl.neg %[[Y]] : tensor<3x5xf64>
  // CHECK: %[[R:.*]] = tl.sqrt %[[N]] : tensor<3x5xf64>
  // CHECK: %[[AB:.*]] = tl.abs %[[R]] : tensor<3x5xf64>
  // CHECK: %[[E:.*]] = tl.exp %[[AB]] : tensor<3x5xf64>
  // CHECK: %[[L:.*]] = tl.log %[[E]] : tensor<3x5xf64>
  // CHECK: tl.yield %[[L]] : tensor<3x5xf64>
  tl.assign @C = {
    %k = tl.constant 0.25 : tensor<f64>
    %u = tl.use @C : tensor<3x5xf64>
    %v = tl.sub %u, %k : tensor<3x5xf64>, tensor<f64>
    %w = tl.div %k, %v : tensor<f64>, tensor<3x5xf64>
    %x = tl.min %w, %u : tensor<3x5xf64>, tensor<3x5xf64>
    %y = tl.max %k, %x : tensor<f64>, tensor<3x5xf64>
    %n = tl.neg %y : tensor<3x5xf64>
    %r = tl.sqrt %n : tensor<3x5xf64>
    %a = tl.abs %r : tensor<3x5xf64>
    %e = tl.exp %a : tensor<3x5xf64>
    %l = tl.log %e : tensor<3x5xf64>
    tl.yield %l : tensor<3x5xf64>
  }

  // A stack (rule t-stack), plain and padded.
  // CHECK: tl.assign @B = {
  // CHECK: %[[ST:.*]] = tl.stack %[[BB:.*]], %[[BB]] : tensor<4x5xf64>, tensor<4x5xf64>
  // CHECK: tl.stack %[[ST]] padded to 2 : tensor<2x4x5xf64>
  tl.assign @B = {
    %b = tl.use @B : tensor<4x5xf64>
    %st = tl.stack %b, %b : tensor<4x5xf64>, tensor<4x5xf64>
    %one = tl.stack %st padded to 2 : tensor<2x4x5xf64>
    %r = tl.contract %one [[0, 1]] : tensor<2x2x4x5xf64>
    tl.yield %r : tensor<4x5xf64>
  }

  // Multi-pair transposition (swaps applied left to right) and contraction.
  // CHECK: tl.assign @T = {
  // CHECK: %[[T:.*]] = tl.use @T : tensor<2x3x4x5xf64>
  // CHECK: %[[X:.*]] = tl.transpose %[[T]] {{\[}}[0, 3], [1, 2], [3, 3]] : tensor<2x3x4x5xf64>
  // CHECK: %[[Y:.*]] = tl.transpose %[[X]] {{\[}}[0, 3], [1, 2]] : tensor<5x4x3x2xf64>
  // CHECK: tl.yield %[[Y]] : tensor<2x3x4x5xf64>
  tl.assign @T = {
    %t = tl.use @T : tensor<2x3x4x5xf64>
    %x = tl.transpose %t [[0, 3], [1, 2], [3, 3]] : tensor<2x3x4x5xf64>
    %y = tl.transpose %x [[0, 3], [1, 2]] : tensor<5x4x3x2xf64>
    tl.yield %y : tensor<2x3x4x5xf64>
  }

  // CHECK: tl.assign @s = {
  // CHECK: tl.contract %{{.*}} {{\[}}[0, 3], [1, 2]] : tensor<4x5x5x4xf64>
  tl.assign @s = {
    %b = tl.use @B : tensor<4x5xf64>
    %bt = tl.transpose %b [[0, 1]] : tensor<4x5xf64>
    %p = tl.outer %b, %bt : tensor<4x5xf64>, tensor<5x4xf64>
    %r = tl.contract %p [[0, 3], [1, 2]] : tensor<4x5x5x4xf64>
    tl.yield %r : tensor<f64>
  }
}

// A program in single precision, without variables or statements.
// CHECK-LABEL: tl.program @f32_program {
// CHECK-NEXT: tl.var @x : tensor<2xf32>
tl.program @f32_program {
  tl.var @x : tensor<2xf32>
  tl.assign @x = {
    %x = tl.use @x : tensor<2xf32>
    %y = tl.add %x, %x : tensor<2xf32>, tensor<2xf32>
    tl.yield %y : tensor<2xf32>
  }
}

// CHECK-LABEL: tl.program @empty {
// CHECK-NEXT: }
tl.program @empty {
}

// Expression ops are usable outside a program, on any values of the language.
// CHECK-LABEL: func.func @expressions
func.func @expressions(%a: tensor<2x2xf32>, %s: tensor<f32>) -> tensor<2x2xf32> {
  // CHECK: tl.mul %{{.*}}, %{{.*}} : tensor<f32>, tensor<2x2xf32>
  %0 = tl.mul %s, %a : tensor<f32>, tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Padded programs: real shapes and zero_padding round-trip.
// CHECK-LABEL: tl.program @padded
// CHECK: tl.var @x {real_shape = array<i64: 5>} : tensor<8xf64>
// CHECK: tl.zero_padding %{{.*}} [5] : tensor<8xf64>
tl.program @padded {
  tl.var @x {real_shape = array<i64: 5>} : tensor<8xf64>
  tl.assign @x = {
    %x = tl.use @x : tensor<8xf64>
    %z = tl.zero_padding %x [5] : tensor<8xf64>
    tl.yield %z : tensor<8xf64>
  }
}
