// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-check-definitions))' -verify-diagnostics

// With qualifiers, a read of a variable that is neither an input nor
// assigned earlier is an error, reported once per variable, with its
// declaration. Reads after an assignment are fine, and so is a
// statement reading its own target once it has been assigned.
tl.program @qualified {
  tl.var input @a : tensor<2xf64>
  // expected-note @below {{variable declared here}}
  tl.var output @b : tensor<2xf64>
  tl.var @t : tensor<2xf64>
  tl.assign @t = {
    %a = tl.use @a : tensor<2xf64>
    // expected-error @below {{variable 'b' is read before it is assigned and is not an input: its value is undefined (rules d-var, d-in-var)}}
    %b = tl.use @b : tensor<2xf64>
    %0 = tl.add %a, %b : tensor<2xf64>, tensor<2xf64>
    tl.yield %0 : tensor<2xf64>
  }
  tl.assign @b = {
    %b = tl.use @b : tensor<2xf64>
    tl.yield %b : tensor<2xf64>
  }
  tl.assign @t = {
    %t = tl.use @t : tensor<2xf64>
    tl.yield %t : tensor<2xf64>
  }
}

// -----

// Without qualifiers every variable comes from the caller: a warning.
tl.program @base {
  // expected-note @below {{variable declared here}}
  tl.var @a : tensor<f64>
  tl.var @s : tensor<f64>
  tl.assign @s = {
    // expected-warning @below {{variable 'a' is read before it is assigned; without qualifiers its value is the caller's}}
    %a = tl.use @a : tensor<f64>
    tl.yield %a : tensor<f64>
  }
  tl.assign @s = {
    %s = tl.use @s : tensor<f64>
    tl.yield %s : tensor<f64>
  }
}
