// RUN: tl-opt %s --tl-pad="multiple=3" -verify-diagnostics

// Hand-written IR whose stack is padded beyond its elements while its
// variable is not: padded again, the two disagree, and the pass says so
// instead of producing IR that does not verify (found by fuzz/IR).
tl.program @stack_padded_by_hand {
  tl.var @a : tensor<3x4xf64>
  tl.var @g : tensor<4x3x4xf64>
  // expected-error @+1 {{cannot pad: the statement's value has type [3 3 6] after padding, but its variable has type [6 3 6]}}
  tl.assign @g = {
    %a = tl.use @a : tensor<3x4xf64>
    %s = tl.stack %a, %a padded to 4 : tensor<3x4xf64>, tensor<3x4xf64>
    tl.yield %s : tensor<4x3x4xf64>
  }
}
