// RUN: tl-opt %s -split-input-file -verify-diagnostics

// The passes' marks (TLDialect.td's discardableAttrs): each has one type
// and belongs on one op.

tl.program @allreduce_on_program attributes {tl.allreduce} {
// expected-error @-1 {{'tl.allreduce' belongs on a tl.assign}}
  tl.var output @s : tensor<f64>
}

// -----

tl.program @allreduce_with_value {
  tl.var output @s : tensor<f64>
  // expected-error @+1 {{'tl.allreduce' must be a unit attribute}}
  tl.assign @s attributes {tl.allreduce = true} = {
    %c = tl.constant 1.0 : tensor<f64>
    tl.yield %c : tensor<f64>
  }
}

// -----

// expected-error @+1 {{'tl.distributed' names @N, which is not a size of the program}}
tl.program @distributed_over_no_size attributes {tl.distributed = @N} {
  tl.size @E
  tl.var output @s : tensor<f64>
}

// -----

// A variable is a symbol of the program too, but not a size.
// expected-error @+1 {{'tl.distributed' names @s, which is not a size of the program}}
tl.program @distributed_over_variable attributes {tl.distributed = @s} {
  tl.var output @s : tensor<f64>
}

// -----

// expected-error @+1 {{'tl.distributed' must name a size of the program (a flat symbol reference)}}
tl.program @distributed_by_string attributes {tl.distributed = "E"} {
  tl.size @E
  tl.var output @s : tensor<f64>
}

// -----

// expected-error @+1 {{'tl.distributed' must name a size of the program (a flat symbol reference)}}
tl.program @distributed_nested_reference attributes {tl.distributed = @E::@F} {
  tl.size @E
  tl.var output @s : tensor<f64>
}

// -----

tl.program @distributed_on_assign {
  tl.size @E
  tl.var output @s : tensor<f64>
  // expected-error @+1 {{'tl.distributed' belongs on a tl.program}}
  tl.assign @s attributes {tl.distributed = @E} = {
    %c = tl.constant 1.0 : tensor<f64>
    tl.yield %c : tensor<f64>
  }
}

// -----

// expected-error @+1 {{'tl.column_major' must be a unit attribute}}
tl.program @column_major_with_value attributes {tl.column_major = 1 : i64} {
  tl.var output @s : tensor<f64>
}

// -----

// expected-error @+1 {{'tl.column_major' belongs on a tl.program}}
module attributes {tl.column_major} {
}
