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

#endif // TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_TD
