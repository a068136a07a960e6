// RUN: tl-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Rule t-prod: operands share the element type.
func.func @outer_element_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{operands of '#' have different element types 'f32' and 'f64' (rule t-prod)}}
  %0 = tl.outer %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// An expression's value may exceed the limits of stored tensors (rank 16,
// a size in bytes within int64): an outer product that a contraction
// consumes is never stored. Only the looser rank limit of 64 applies.
func.func @outer_rank_limit(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>) {
  // expected-error @+1 {{has rank 66, above the limit of 64 (rule t-prod)}}
  %0 = tl.outer %a, %a : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>, tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>
  return
}

// -----

// Rule t-contr.
func.func @contract_out_of_range(%a: tensor<4x4xf64>) {
  // expected-error @+1 {{dimension index 2 of '.' is out of range for type [4 4] (valid indices are 0 to 1) (rule t-contr)}}
  %0 = tl.contract %a [[0, 2]] : tensor<4x4xf64>
  return
}

// -----

func.func @contract_negative_index(%a: tensor<4x4xf64>) {
  // expected-error @+1 {{dimension index -1 of '.' is out of range}}
  %0 = tl.contract %a [[-1, 0]] : tensor<4x4xf64>
  return
}

// -----

func.func @contract_scalar(%a: tensor<f64>) {
  // expected-error @+1 {{dimension index 0 of '.' is out of range for type [], which has no dimensions (rule t-contr)}}
  %0 = tl.contract %a [[0, 1]] : tensor<f64>
  return
}

// -----

func.func @contract_with_itself(%a: tensor<4x4xf64>) {
  // expected-error @+1 {{cannot contract dimension 1 with itself (rule t-contr)}}
  %0 = tl.contract %a [[1, 1]] : tensor<4x4xf64>
  return
}

// -----

func.func @contract_twice(%a: tensor<4x4x4xf64>) {
  // expected-error @+1 {{dimension 1 is contracted more than once (rule t-contr)}}
  %0 = tl.contract %a [[0, 1], [1, 2]] : tensor<4x4x4xf64>
  return
}

// -----

func.func @contract_extents(%a: tensor<4x5xf64>) {
  // expected-error @+1 {{contracted dimensions 0 and 1 of type [4 5] have different extents 4 and 5 (rule t-contr)}}
  %0 = tl.contract %a [[0, 1]] : tensor<4x5xf64>
  return
}

// -----

func.func @contract_no_pairs(%a: tensor<4x4xf64>) {
  // expected-error @+1 {{'.' expects a non-empty list of index pairs, got 0 indices (rule t-contr)}}
  %0 = tl.contract %a [] : tensor<4x4xf64>
  return
}

// -----

func.func @contract_odd_indices(%a: tensor<4x4xf64>) {
  // expected-error @+2 {{'.' expects a non-empty list of index pairs, got 3 indices (rule t-contr)}}
  // expected-error @+1 {{'tl.contract' op failed to infer returned types}}
  %0 = "tl.contract"(%a) <{pairs = array<i64: 0, 1, 0>}> : (tensor<4x4xf64>) -> tensor<f64>
  return
}

// -----

func.func @contract_pair_syntax(%a: tensor<4x4xf64>) {
  // expected-error @+1 {{expected ']'}}
  %0 = tl.contract %a [[0, 1, 2]] : tensor<4x4xf64>
  return
}

// -----

// Rule t-trans.
func.func @transpose_out_of_range(%a: tensor<2x3xf64>) {
  // expected-error @+1 {{dimension index 3 of '^' is out of range for type [2 3] (valid indices are 0 to 1) (rule t-trans)}}
  %0 = tl.transpose %a [[0, 1], [1, 3]] : tensor<2x3xf64>
  return
}

// -----

// The verifier recomputes the type of ops written in generic form.
func.func @transpose_wrong_result(%a: tensor<2x3xf64>) {
  // expected-error @+2 {{'tl.transpose' op inferred type(s) 'tensor<3x2xf64>' are incompatible with return type(s) of operation 'tensor<2x3xf64>'}}
  // expected-error @+1 {{'tl.transpose' op failed to infer returned types}}
  %0 = "tl.transpose"(%a) <{pairs = array<i64: 0, 1>}> : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return
}

// -----

// Rules t-elem and t-scalar: a scalar goes with any tensor, not two tensors
// of different types.
func.func @add_shapes(%a: tensor<4x4xf64>, %b: tensor<4x5xf64>) {
  // expected-error @+1 {{operands of '+' must have the same type, got [4 4] and [4 5] (rule t-elem)}}
  %0 = tl.add %a, %b : tensor<4x4xf64>, tensor<4x5xf64>
  return
}

// -----

func.func @min_shapes(%a: tensor<4xf64>, %b: tensor<5xf64>) {
  // expected-error @+1 {{operands of 'min' must have the same type, got [4] and [5] (rule t-elem)}}
  %0 = tl.min %a, %b : tensor<4xf64>, tensor<5xf64>
  return
}

// -----

func.func @max_element_types(%a: tensor<4xf64>, %s: tensor<f32>) {
  // expected-error @+1 {{operands of 'max' have different element types 'f64' and 'f32' (rule t-elem)}}
  %0 = tl.max %a, %s : tensor<4xf64>, tensor<f32>
  return
}

// -----

// Rule t-fun: a unary function keeps its operand's type.
func.func @sqrt_wrong_result(%a: tensor<4xf64>) {
  // expected-error @+2 {{'tl.sqrt' op inferred type(s) 'tensor<4xf64>' are incompatible with return type(s) of operation 'tensor<5xf64>'}}
  // expected-error @+1 {{'tl.sqrt' op failed to infer returned types}}
  %0 = "tl.sqrt"(%a) : (tensor<4xf64>) -> tensor<5xf64>
  return
}

// -----

// Rule t-lit: a literal is a finite scalar of the element type.
func.func @constant_not_scalar() {
  // expected-error @+1 {{'tl.constant' op result #0 must be 0D tensor of 32-bit float or 64-bit float values, but got 'tensor<2xf64>'}}
  %0 = tl.constant 1.0 : tensor<2xf64>
  return
}

// -----

func.func @constant_infinite() {
  // expected-error @+1 {{'tl.constant' op number INF is not finite (rule t-lit)}}
  %0 = tl.constant 0x7FF0000000000000 : tensor<f64>
  return
}

// -----

func.func @constant_out_of_f32() {
  // expected-error @+1 {{'tl.constant' op number 1.000000e+39 is out of the range of f32 (rule t-lit)}}
  %0 = tl.constant 1.0e39 : tensor<f32>
  return
}

// -----

func.func @arith_element_types(%a: tensor<4xf64>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands of '*' have different element types 'f64' and 'f32' (rule t-elem)}}
  %0 = tl.mul %a, %b : tensor<4xf64>, tensor<4xf32>
  return
}

// -----

// Values outside the language.
func.func @integer_tensor(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand type 'tensor<4xi32>' is not a tensor of f32 or f64 whose dynamic dimensions are sizes}}
  %0 = tl.add %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @dynamic_tensor(%a: tensor<?xf64>) {
  // expected-error @+1 {{operand type 'tensor<?xf64>' is not a tensor of f32 or f64 whose dynamic dimensions are sizes}}
  %0 = tl.transpose %a [[0, 0]] : tensor<?xf64>
  return
}

// -----

// Declarations (rule s-var and the limits).
tl.program @p {
  // expected-error @+1 {{type [1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1] has rank 17, above the limit of 16}}
  tl.var @x : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>
}

// -----

tl.program @p {
  // expected-error @+1 {{type [4611686018427387904] is too large: its size in bytes overflows int64}}
  tl.var @x : tensor<4611686018427387904xf32>
}

// -----

tl.program @p {
  // expected-error @+1 {{'tl.var' op attribute 'tensor_type' failed to satisfy constraint: type attribute of tensor of f32 or f64 whose dynamic dimensions are sizes}}
  tl.var @x : tensor<4xi64>
}

// -----

tl.program @p {
  // expected-note @+1 {{see existing symbol definition here}}
  tl.var @x : tensor<4xf64>
  // expected-error @+1 {{redefinition of symbol named 'x'}}
  tl.var @x : tensor<4xf64>
}

// -----

tl.program @p {
  // expected-note @+1 {{first declaration is here}}
  tl.var @x : tensor<4xf64>
  // expected-error @+1 {{'tl.var' op has element type 'f32' but the program's variables are 'f64'}}
  tl.var @y : tensor<4xf32>
}

// -----

tl.program @p {
  tl.var @x : tensor<4xf64>
  // expected-note @+1 {{first statement is here}}
  tl.assign @x = {
    %x = tl.use @x : tensor<4xf64>
    tl.yield %x : tensor<4xf64>
  }
  // expected-error @+1 {{'tl.var' op declarations must precede all statements of the program}}
  tl.var @y : tensor<4xf64>
}

// -----

// expected-error @+1 {{'tl.var' op expects parent op 'tl.program'}}
tl.var @x : tensor<4xf64>

// -----

tl.program @p {
  // expected-error @+1 {{'func.func' op cannot appear in a tl.program, which holds only tl.size and tl.var declarations and tl.assign statements}}
  func.func @f() {
    return
  }
}

// -----

// Statements (rule ok-stmt).
tl.program @p {
  tl.var @x : tensor<4xf64>
  // expected-error @+1 {{'tl.assign' op assigns to undeclared variable @y (rule ok-stmt)}}
  tl.assign @y = {
    %x = tl.use @x : tensor<4xf64>
    tl.yield %x : tensor<4xf64>
  }
}

// -----

tl.program @p {
  // expected-note @+1 {{variable declared here}}
  tl.var @x : tensor<4xf64>
  tl.var @y : tensor<4x4xf64>
  // expected-error @+1 {{'tl.assign' op assigns a value of type [4 4] ('tensor<4x4xf64>') to variable @x of type [4] ('tensor<4xf64>') (rule ok-stmt)}}
  tl.assign @x = {
    %y = tl.use @y : tensor<4x4xf64>
    tl.yield %y : tensor<4x4xf64>
  }
}

// -----

tl.program @p {
  tl.var @x : tensor<4xf64>
  // expected-error @+1 {{'tl.assign' op body must end with a tl.yield of the assigned value}}
  "tl.assign"() <{target = @x}> ({
    "test.terminator"() : () -> ()
  }) : () -> ()
}

// -----

func.func @yield_outside() {
  %0 = arith.constant dense<0.0> : tensor<4xf64>
  // expected-error @+1 {{'tl.yield' op expects parent op 'tl.assign'}}
  tl.yield %0 : tensor<4xf64>
}

// -----

// Reads of the store (rule t-var).
tl.program @p {
  tl.var @x : tensor<4xf64>
  tl.assign @x = {
    // expected-error @+1 {{'tl.use' op uses undeclared variable @z (rule t-var)}}
    %z = tl.use @z : tensor<4xf64>
    tl.yield %z : tensor<4xf64>
  }
}

// -----

tl.program @p {
  // expected-note @+1 {{variable declared here}}
  tl.var @x : tensor<4xf64>
  tl.var @y : tensor<5xf64>
  tl.assign @y = {
    // expected-error @+1 {{'tl.use' op result type 'tensor<5xf64>' differs from the type 'tensor<4xf64>' of variable @x (rule t-var)}}
    %x = tl.use @x : tensor<5xf64>
    tl.yield %x : tensor<5xf64>
  }
}

// -----

// Padding: real shapes fit in the padded types.
tl.program @p {
  // expected-error @+1 {{'tl.var' op real extent 9 is not between 1 and the padded extent 8 of [8]}}
  tl.var @x {real_shape = array<i64: 9>} : tensor<8xf64>
}

// -----

tl.program @p {
  // expected-error @+1 {{'tl.var' op real shape has 1 extents but the type [8 8] has rank 2}}
  tl.var @x {real_shape = array<i64: 5>} : tensor<8x8xf64>
}

// -----

func.func @zero_padding_bounds(%a: tensor<8xf64>) {
  // expected-error @+1 {{real extent 0 is not between 1 and the padded extent 8 of [8]}}
  %0 = tl.zero_padding %a [0] : tensor<8xf64>
  return
}

// -----

// Rule t-stack: elements of one type, at least one, a padded extent not
// below their number.
func.func @stack_types(%a: tensor<4xf64>, %b: tensor<5xf64>) {
  // expected-error @+1 {{elements of a stack must have one type, but element 1 has type [4] and element 2 has type [5] (rule t-stack)}}
  %0 = tl.stack %a, %b : tensor<4xf64>, tensor<5xf64>
  return
}

// -----

func.func @stack_empty() {
  // expected-error @+2 {{a stack needs at least one element (rule t-stack)}}
  // expected-error @+1 {{'tl.stack' op failed to infer returned types}}
  %0 = "tl.stack"() : () -> tensor<0xf64>
  return
}

// -----

func.func @stack_padded_below(%a: tensor<4xf64>) {
  // expected-error @+1 {{padded extent 1 of a stack is below its 2 elements}}
  %0 = tl.stack %a, %a padded to 1 : tensor<4xf64>, tensor<4xf64>
  return
}

// -----

func.func @stack_rank(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>) {
  // expected-error @+1 {{has rank 65, above the limit of 64 (rule t-stack)}}
  %0 = tl.stack %a : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf64>
  return
}

// -----

// The batch form (tl.program batch N, tl.var batched).
// expected-error @+1 {{'tl.program' op has `last` but no batch}}
tl.program @last_without_batch last {
}

// -----

tl.program @batched_without_batch {
  // expected-error @+1 {{'tl.var' op is batched but its program has no batch}}
  tl.var @u batched : tensor<4x3xf64>
}

// -----

tl.program @batched_scalar batch 4 {
  // expected-error @+1 {{'tl.var' op is batched but its type has no batch dimension}}
  tl.var @u batched : tensor<f64>
}

// -----

tl.program @batch_extent batch 4 last {
  // expected-error @+1 {{'tl.var' op has extent 3 in its batch dimension (2) but the program's batch has 4 elements}}
  tl.var @u batched : tensor<4x3xf64>
}

// -----

tl.program @padded_batch batch 4 {
  // expected-error @+1 {{'tl.var' op has a padded batch dimension; only an element's dimensions are padded}}
  tl.var @u batched {real_shape = array<i64: 2, 3>} : tensor<4x3xf64>
}

// -----

tl.program @batched_real_shape_rank batch 4 last {
  // expected-error @+1 {{'tl.var' op real shape has 0 extents but the type [3 4] has rank 2}}
  tl.var @u batched {real_shape = array<i64>} : tensor<3x4xf64>
}

// -----

// expected-error @+1 {{'tl.program' op attribute 'batch' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
tl.program @empty_batch batch 0 {
}

// -----

tl.program @use_of_whole_batch batch 4 {
  // expected-note @+1 {{variable declared here}}
  tl.var @u batched : tensor<4x3xf64>
  tl.var @v batched : tensor<4x3xf64>
  tl.assign @v = {
    // expected-error @+1 {{'tl.use' op result type 'tensor<4x3xf64>' differs from the type 'tensor<3xf64>' of variable @u (rule t-var)}}
    %u = tl.use @u : tensor<4x3xf64>
    %v = tl.use @v : tensor<3xf64>
    tl.yield %v : tensor<3xf64>
  }
}

// -----

tl.program @t_batch batch 4 {
  tl.var @u batched : tensor<4x3xf64>
  // expected-note @+1 {{'v' is declared here; list it in the batch}}
  tl.var @v : tensor<3xf64>
  // expected-error @+1 {{the value assigned to 'v' differs from element to element (it reads the batched variable 'u'), but 'v' is not batched (rule t-batch)}}
  tl.assign @v = {
    %u = tl.use @u : tensor<3xf64>
    tl.yield %u : tensor<3xf64>
  }
}

// -----

tl.program @t_batch_shared batch 4 {
  tl.var @u batched : tensor<4x3xf64>
  tl.var @s : tensor<3xf64>
  // expected-error @+1 {{the shared (unbatched) variable 's' is read before the program assigns it, so each element would read the value the element before it left (rule t-batch-shared)}}
  tl.assign @u = {
    %s = tl.use @s : tensor<3xf64>
    tl.yield %s : tensor<3xf64>
  }
  // expected-note @+1 {{'s' is assigned here}}
  tl.assign @s = {
    %s = tl.use @s : tensor<3xf64>
    %t = tl.add %s, %s : tensor<3xf64>, tensor<3xf64>
    tl.yield %t : tensor<3xf64>
  }
}

// -----

// Sizes: a type names only sizes the program declares.
tl.program @undeclared_size {
  // expected-error @+1 {{'tl.var' op has extent @E, which is not a size of the program (no tl.size @E)}}
  tl.var @x : tensor<?xf64, [@E]>
}

// -----

tl.program @size_count {
  tl.size @E
  // expected-error @+1 {{'tl.var' op attribute 'tensor_type' failed to satisfy constraint: type attribute of tensor of f32 or f64 whose dynamic dimensions are sizes}}
  tl.var @x : tensor<?xf64, [@E, @E]>
}

// -----

tl.program @size_not_symbol {
  // expected-error @+1 {{'tl.var' op attribute 'tensor_type' failed to satisfy constraint: type attribute of tensor of f32 or f64 whose dynamic dimensions are sizes}}
  tl.var @x : tensor<?xf64, ["E"]>
}

// -----

tl.program @size_after_var {
  // expected-note @+1 {{first declaration or statement is here}}
  tl.var @x : tensor<3xf64>
  // expected-error @+1 {{'tl.size' op sizes must precede the variables and statements of the program}}
  tl.size @E
}

// -----

// Rule t-contr compares extents syntactically: E is not F.
func.func @contract_sizes(%p: tensor<?x?xf64, [@E, @F]>) {
  // expected-error @+1 {{contracted dimensions 0 and 1 of type [E F] have different extents E and F (rule t-contr)}}
  %c = tl.contract %p [[0, 1]] : tensor<?x?xf64, [@E, @F]>
  return
}

// -----

// Nor is a size a number, whatever its value.
func.func @contract_size_number(%p: tensor<?x4xf64, [@E]>) {
  // expected-error @+1 {{contracted dimensions 0 and 1 of type [E 4] have different extents E and 4 (rule t-contr)}}
  %c = tl.contract %p [[0, 1]] : tensor<?x4xf64, [@E]>
  return
}

// -----

// Rule t-elem: E and F are different types.
func.func @add_sizes(%a: tensor<?xf64, [@E]>, %b: tensor<?xf64, [@F]>) {
  // expected-error @+1 {{operands of '+' must have the same type, got [E] and [F] (rule t-elem)}}
  %c = tl.add %a, %b : tensor<?xf64, [@E]>, tensor<?xf64, [@F]>
  return
}

// -----

tl.program @assign_sizes {
  tl.size @E
  tl.size @F
  tl.var @x : tensor<?xf64, [@E]>
  // expected-note @+1 {{variable declared here}}
  tl.var @y : tensor<?xf64, [@F]>
  // expected-error @+1 {{'tl.assign' op assigns a value of type [E] ('tensor<?xf64, [@E]>') to variable @y of type [F] ('tensor<?xf64, [@F]>') (rule ok-stmt)}}
  tl.assign @y = {
    %x = tl.use @x : tensor<?xf64, [@E]>
    tl.yield %x : tensor<?xf64, [@E]>
  }
}

// -----

// A batch is a number: a size cannot be the batch dimension.
tl.program @sized_batch batch 3 {
  tl.size @E
  // expected-error @+1 {{'tl.var' op has extent E in its batch dimension (1) but the program's batch has 3 elements}}
  tl.var input @u batched : tensor<?x5xf64, [@E]>
}

// -----

tl.program @size_real_shape {
  tl.size @E
  // expected-error @+1 {{'tl.var' op real extent 3 is given for a sized dimension of [E 4]}}
  tl.var @u {real_shape = array<i64: 3, 4>} : tensor<?x4xf64, [@E]>
}
