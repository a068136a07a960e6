// Every tl-level pass, checked by the reference interpreter before and
// after it on seeded random inputs: the meaning is kept.
// RUN: tl-opt %s --tl-check-semantics --pass-pipeline='builtin.module(tl.program(tl-cse,canonicalize,cse,tl-dce,tl-fuse-statements,tl-optimize-contractions,tl-pad{multiple=4}))' | FileCheck %s
// A pass that changes the meaning is caught, named, and makes tl-opt fail
// (with the program before it and the seed, to reproduce it).
// RUN: not tl-opt %s --tl-check-semantics --tl-check-semantics-seed=7 -mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(tl.program(tl-cse,test-tl-break-semantics,canonicalize))' -o %t.out 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: not test -e %t.out

// CHECK-LABEL: tl.program @kernel
// CHECK: tl.var input @A {real_shape = array<i64: 3, 5>} : tensor<4x8xf64>
// BROKEN: error: semantic check: pass 'test-tl-break-semantics' changed variable 'D': element 0 (row-major) is {{.*}} before and {{.*}} after
// BROKEN: note: inputs: integers uniform in [-3, 3] from seed 7; the program before the pass:
// BROKEN-NEXT: tl.program @kernel {
// BROKEN-NOT: error:
tl.program @kernel {
  tl.var input @A : tensor<3x5xf64>
  tl.var input @B : tensor<5x6xf64>
  tl.var input @C : tensor<6x2xf64>
  tl.var output @D : tensor<3x2xf64>
  tl.var @T : tensor<3x6xf64>
  tl.var @unused : tensor<3x6xf64>
  tl.assign @T = {
    %a = tl.use @A : tensor<3x5xf64>
    %b = tl.use @B : tensor<5x6xf64>
    %0 = tl.outer %a, %b : tensor<3x5xf64>, tensor<5x6xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<3x5x5x6xf64>
    tl.yield %1 : tensor<3x6xf64>
  }
  tl.assign @unused = {
    %t = tl.use @T : tensor<3x6xf64>
    %0 = tl.transpose %t [[0, 1]] : tensor<3x6xf64>
    %1 = tl.transpose %0 [[0, 1]] : tensor<6x3xf64>
    tl.yield %1 : tensor<3x6xf64>
  }
  tl.assign @D = {
    %a = tl.use @A : tensor<3x5xf64>
    %b = tl.use @B : tensor<5x6xf64>
    %c = tl.use @C : tensor<6x2xf64>
    %0 = tl.outer %a, %b : tensor<3x5xf64>, tensor<5x6xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<3x5x5x6xf64>
    %2 = tl.outer %1, %c : tensor<3x6xf64>, tensor<6x2xf64>
    %3 = tl.contract %2 [[1, 2]] : tensor<3x6x6x2xf64>
    %4 = tl.add %3, %3 : tensor<3x2xf64>, tensor<3x2xf64>
    tl.yield %4 : tensor<3x2xf64>
  }
}
