// tl-bind-sizes: the program with each size replaced by its value.
// RUN: tl-opt %s -split-input-file --tl-bind-sizes=sizes=E=5,N=3 -verify-diagnostics | FileCheck %s
// Padding leaves sizes alone; binding them then fills in the real extents.
// RUN: tl-opt %s -split-input-file --tl-pad=multiple=4 --tl-bind-sizes=sizes=E=5,N=3 -verify-diagnostics | FileCheck %s --check-prefix=PADDED
// RUN: not tl-opt %s -split-input-file --tl-bind-sizes=sizes=E=-1,N=3 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// A size may be 0 (an empty partition): its tensors have no elements.
// RUN: tl-opt %s -split-input-file --tl-bind-sizes=sizes=E=0,N=3 -verify-diagnostics | FileCheck %s --check-prefix=ZERO
// RUN: not tl-opt %s -split-input-file --tl-bind-sizes=sizes=E 2>&1 | FileCheck %s --check-prefix=SYNTAX
// NEGATIVE: error: size 'E' has the value -1, which is negative
// RUN: not tl-opt %s -split-input-file --tl-bind-sizes=sizes=E=5,E=6 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: size 'E' is given more than once
// SYNTAX: error: expected NAME=VALUE in the sizes option, got 'E'

// CHECK-LABEL: tl.program @bound
// CHECK-NOT: tl.size
// CHECK: tl.var input @u : tensor<5x3xf64>
// CHECK: tl.var output @s : tensor<f64>
// CHECK: tl.outer %{{.*}}, %{{.*}} : tensor<5x3xf64>, tensor<5x3xf64>
// CHECK: tl.contract %{{.*}} {{\[\[}}0, 2], [1, 3]] : tensor<5x3x5x3xf64>
// ZERO-LABEL: tl.program @bound
// ZERO: tl.var input @u : tensor<0x3xf64>
// ZERO: tl.contract %{{.*}} {{\[\[}}0, 2], [1, 3]] : tensor<0x3x0x3xf64>
// PADDED-LABEL: tl.program @bound
// PADDED: tl.var input @u {real_shape = array<i64: 5, 3>} : tensor<5x4xf64>
tl.program @bound {
  tl.size @E
  tl.var input @u : tensor<?x3xf64, [@E]>
  tl.var output @s : tensor<f64>
  tl.assign @s = {
    %u = tl.use @u : tensor<?x3xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?x3xf64, [@E]>, tensor<?x3xf64, [@E]>
    %c = tl.contract %p [[0, 2], [1, 3]] : tensor<?x3x?x3xf64, [@E, @E]>
    tl.yield %c : tensor<f64>
  }
}

// -----

// A padded statement's tl.zero_padding keeps the size's extent as real.
// PADDED-LABEL: tl.program @zeroed
// PADDED: tl.zero_padding %{{.*}} [3, 2] : tensor<3x4xf64>
tl.program @zeroed {
  tl.size @N
  tl.var input @x : tensor<?xf64, [@N]>
  tl.var input @y : tensor<2xf64>
  tl.var output @z : tensor<?x2xf64, [@N]>
  tl.assign @z = {
    %x = tl.use @x : tensor<?xf64, [@N]>
    %y = tl.use @y : tensor<2xf64>
    %p = tl.outer %x, %y : tensor<?xf64, [@N]>, tensor<2xf64>
    tl.yield %p : tensor<?x2xf64, [@N]>
  }
}

// -----

// A process's copy of a distributed program, bound to its block's extent:
// the distributed size is gone, and so is the mark that named it (which
// the verifier would refuse).
// CHECK-LABEL: tl.program @distributed {
// CHECK-NOT: tl.distributed
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

// -----

tl.program @unbound {
  tl.size @E
  // expected-error @+1 {{size 'F' has no value}}
  tl.size @F
  tl.var @u : tensor<?x?xf64, [@E, @F]>
}
