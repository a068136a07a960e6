// RUN: tl-opt %s --convert-tl-to-linalg --split-input-file -verify-diagnostics

// An expression's value may have a rank above 16 as long as it is never
// stored: here the sum is read three times per element (once per element
// of w), so it would be computed once into a temporary of rank 18, which
// is refused. (tl-optimize-contractions would first sum its own pairs,
// and nothing would be stored.)
tl.program @stored_temporary {
  tl.var input @x : tensor<1x1x1x1x1x1x1x1x1xf64>
  tl.var input @w : tensor<3xf64>
  tl.var output @v : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf64>
  tl.assign @v = {
    %x = tl.use @x : tensor<1x1x1x1x1x1x1x1x1xf64>
    %w = tl.use @w : tensor<3xf64>
    %p = tl.outer %x, %x : tensor<1x1x1x1x1x1x1x1x1xf64>, tensor<1x1x1x1x1x1x1x1x1xf64>
    // expected-error @+1 {{the value of this expression would be stored as a temporary, but type [1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1] has rank 18, above the limit of 16}}
    %s = tl.add %p, %p : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>, tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>
    %o = tl.outer %s, %w : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>, tensor<3xf64>
    %c = tl.contract %o [[0, 1], [2, 3]] : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf64>
    tl.yield %c : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xf64>
  }
}
