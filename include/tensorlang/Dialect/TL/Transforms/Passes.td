//===- Passes.td - Passes of the tl dialect -----------------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_TD
#define TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TLPad : Pass<"tl-pad", "::tensorlang::tl::ProgramOp"> {
  let summary = "Pad every variable to a multiple of M (report section 4)";
  let description = [{
    Rewrites a program into the report's padded implementation: every extent
    of every variable is rounded up to a multiple of `multiple` (the report's
    vector length M), each variable records its extents before padding in
    `real_shape`, and every expression is retyped over the padded extents
    (the report's lemma 5: the typing rules are syntax-directed, so a
    well-typed program stays well-typed). Evaluation then runs over the
    padded extents; the padding of every variable is zero on entry.

    The report's simulation theorem says the real region of every variable
    then ends up as in the unpadded program. Its proof also claims that the
    padding stays zero, which fails when undefined values occur (`0 * undef
    = undef`): for `w = u # v` with an undefined `v[1]`, the padded element
    `w[n+1, 1] = 0 * undef` is undefined. This pass therefore re-establishes
    the invariant exactly: a statement whose result can be non-zero in its
    padding (it has an outer product, a contraction or a scalar product at
    its root) ends with `tl.zero_padding`. Statements that provably keep
    zero padding (element-wise operations on equal types, transpositions,
    division by a scalar, copies) are left alone. See docs/padding.md.

    The pass works at the `tl` level because the report's argument is about
    the language's own expressions (index-free typing, `eval` over padded
    extents); everything below is unchanged and sees ordinary programs whose
    extents happen to be multiples of M.
  }];
  let options = [
    Option<"multiple", "multiple", "int64_t", "1",
           "Round every extent up to a multiple of this (M >= 1)">,
    Option<"zeroPadding", "zero-padding", "bool", "true",
           "Keep the padding zero after every statement; false gives the "
           "report's rules literally (for demonstrating the erratum only)">,
  ];
}

def TLDistribute : Pass<"tl-distribute", "::tensorlang::tl::ProgramOp"> {
  let summary = "Split a size of a program over MPI processes";
  let description = [{
    Distribution is a deployment choice: each process runs the program on
    a contiguous block of the indices of one size (`size`), and every
    variable whose type has that size holds its block (distributed); the
    others are replicated. Since a program with sizes means the program
    with the sizes' values, a process computes, for each statement, the
    statement on its block, which is the statement's value on those
    indices for element-parallel statements. Only a sum over the
    distributed size (a contraction pairing it with itself) differs: each
    process holds a partial sum, and the statement is marked `allreduce`:
    the compiled code sums the target over the processes after the
    statement (MPI_Allreduce).

    The pass checks that this is the program's meaning, and otherwise
    reports why at the statement: a variable with the size in two
    dimensions (no block of it is local), a sum over the size whose value
    still has the size, two such sums in one statement, or one under an
    operation that is not linear in it (the partial sums would not add up:
    `sqrt(u # u . [[1 2]])`; assign the sum to a variable first). It runs
    on the optimized program (after tl-optimize), whose statements it
    marks.

    ```
    tl-opt --tl-distribute=size=E
    ```
  }];
  let options = [
    Option<"size", "size", "std::string", "",
           "The size whose indices are split over the processes">,
  ];
}

def TLBindSizes : Pass<"tl-bind-sizes", "::tensorlang::tl::ProgramOp"> {
  let summary = "Replace each size of a program by its value";
  let description = [{
    The meaning of a program with sizes (`tl.size`) for given values of
    its sizes is the program with every size replaced by its value. This
    pass does exactly that: every type's sized dimensions become the
    values, a padded program's real extents of them too, and the `tl.size`
    declarations go. The reference interpreter runs a program with sizes
    this way, once the values are known from its inputs' shapes.

    ```
    tl-opt --tl-bind-sizes=sizes=E=4000,F=7
    ```

    One option serves every program of a module: a program ignores the
    values of names that are not its sizes.
  }];
  let options = [
    ListOption<"sizes", "sizes", "std::string",
               "The value of each size of the program, as NAME=VALUE">,
  ];
}

def TLColumnMajor : Pass<"tl-column-major", "::tensorlang::tl::ProgramOp"> {
  let summary = "Store every variable in column-major (Fortran) order";
  let description = [{
    Rewrites the program to run on a store whose variables are in
    column-major order, as Fortran arrays are. A variable of type `[a b c]`
    in column-major order is laid out as one of type `[c b a]` in row-major
    order, so every variable's type is reversed (sizes and a padded
    program's real extents too), every read of a variable of rank 2 or
    more is followed by the transposition that reverses it back, and every
    value assigned to one is reversed before it is stored. In a batch
    program the batch dimension moves to the other end (`last` flips). The
    program is marked `tl.column_major`, which the C and Fortran interface
    generators read to show the declared types.

    ```mlir
    tl.var input @A : tensor<3x4xf64>       ->  tl.var input @A : tensor<4x3xf64>
    %a = tl.use @A : tensor<3x4xf64>        ->  %s = tl.use @A : tensor<4x3xf64>
                                                %a = tl.transpose %s [[0, 1]] : tensor<4x3xf64>
    ```

    A program already marked, or distributed (tl-distribute splits
    row-major blocks), is refused.
  }];
}

def TLOptimizeContractions
    : Pass<"tl-optimize-contractions", "::tensorlang::tl::ProgramOp"> {
  let summary = "Choose the pairwise order of contractions with the fewest "
                "multiply-adds";
  let description = [{
    Every tree of `tl.contract`, `tl.outer`, `tl.transpose` and scalar
    `tl.mul` in a statement is a sum of products in index notation (the
    report's extensions section): its leaves are factors whose dimensions
    carry indices, contracted pairs share a summed index, the root's
    dimensions are the free indices. This pass chooses the order in which
    to multiply the factors pairwise, summing each index as soon as both of
    its occurrences are in one intermediate, so that the total number of
    multiply-adds is least: exactly, by dynamic programming over subsets of
    factors, for up to `max-exact-factors` factors (3^n steps), and greedily
    (cheapest pair first) beyond. Intermediates larger than
    `max-intermediate-elements` are not considered.

    The tree is rebuilt as nested `tl.contract(tl.transpose(tl.outer(l,
    r)))`, one per pairwise step, whose intermediates the lowering
    materializes; scalar factors end up multiplied where the intermediate
    is smallest. Trees whose best order is not cheaper than one loop nest
    over all their indices (a matrix product, the trace of a product) are
    left as they are. `report` emits a remark per tree with both costs and
    the chosen order.

    ```
    v = u # A # A # A . [[2 6] [3 8] [4 10]]      // E p^6 as written
    // becomes ((u A) A) A: three contractions of E p^4 each
    ```
  }];
  let options = [
    Option<"maxExactFactors", "max-exact-factors", "unsigned", "12",
           "Plan trees of up to this many factors exactly (at most 20)">,
    Option<"maxIntermediateElements", "max-intermediate-elements", "int64_t",
           "int64_t(1) << 28",
           "Never create an intermediate with more elements than this">,
    Option<"report", "report", "bool", "false",
           "Emit a remark with the chosen order of every tree">,
  ];
}

def TLCheckDefinitions
    : Pass<"tl-check-definitions", "::tensorlang::tl::ProgramOp"> {
  let summary = "Report reads of variables before they are defined";
  let description = [{
    Reaching definitions over the statements (there is no control flow): a
    read of a variable sees the last earlier assignment, or the value on
    entry, which only an `input` variable has (rule d-in-var). In a program
    with qualifiers, reading any other variable before assigning it reads
    the undefined value of rule d-var: an error, which the frontend also
    reports when it imports such a program. Without qualifiers every
    variable comes from the caller; this pass then warns about each read
    before assignment (the frontend does not).
  }];
}

def TLDeadCodeElimination
    : Pass<"tl-dce", "::tensorlang::tl::ProgramOp"> {
  let summary = "Remove statements that cannot affect a live-out variable";
  let description = [{
    Liveness backwards over the statements: on exit the `output` variables
    are live (every variable, in a program without qualifiers); a statement
    whose target is not live after it is removed, any other makes its
    target dead and what it reads live. With qualifiers, the final values of
    variables that are not outputs are therefore unspecified.

    With `remove-unused-variables`, declarations of variables that are
    neither inputs nor outputs and that no remaining statement mentions are
    removed too; they then need no storage, but the program's interface
    (one argument per variable) changes, so the compiler's default pipeline
    does not ask for it.
  }];
  let options = [
    Option<"removeUnusedVariables", "remove-unused-variables", "bool",
           "false", "Also remove declarations of unmentioned local variables">,
  ];
}

def TLCommonSubexpressions
    : Pass<"tl-cse", "::tensorlang::tl::ProgramOp"> {
  let summary = "Reuse the value of an earlier statement instead of "
                "recomputing it";
  let description = [{
    After `x = e`, the value of `e` is available as `x` until a statement
    assigns `x` or a variable `e` reads (never when `e` reads `x` itself).
    A later statement that computes `e` again, as a whole or as a
    subexpression, reads `x` instead. Within one statement MLIR's `cse`
    does the same (expression ops are `Pure`, and all reads in a statement
    see one store).
  }];
}

def TLFuseStatements
    : Pass<"tl-fuse-statements", "::tensorlang::tl::ProgramOp"> {
  let summary = "Substitute a statement's value into the next statement "
                "when nothing else reads it";
  let description = [{
    `x = e; y = f(x)` becomes `y = f(e)` when x's value is read by no later
    statement and is not live-out (x is a local of a program with
    qualifiers, or overwritten before any other read), and f uses x only
    element-wise (through `+ - * /` of x's own type up to its root), so
    that each element of e is still computed once. The lowering then fuses
    the two into one loop nest (a contraction e is computed into a
    temporary first), and x is never written. The statements must be
    adjacent, so that the store the second one reads differs from the
    first one's only in x.

    With `contractions` (the default), a producer whose value is a
    contraction is substituted however the consumer uses x: the lowering
    computes a contraction into a temporary of its own wherever it is
    used, so nothing is recomputed. The inverse Helmholtz operator's `t =
    u # S # S # S . [...]; v = (D * t) # S # S # S . [...]` becomes one
    statement, which tl-fuse-batches computes one element at a time on the
    CPU. The GPU target turns it off: its batch kernels hold a chain's
    intermediates in shared memory, and the six steps' do not fit a block's.
  }];
  let options = [
    Option<"contractions", "contractions", "bool", "true",
           "Substitute a contraction into a consumer that reads it in any "
           "way, not only element-wise">,
  ];
}

#endif // TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_TD
