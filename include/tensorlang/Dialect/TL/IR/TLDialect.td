//===- TLDialect.td - The tl dialect ------------------------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLDIALECT_TD
#define TENSORLANG_DIALECT_TL_IR_TLDIALECT_TD

include "mlir/IR/OpBase.td"

def TL_Dialect : Dialect {
  let name = "tl";
  let cppNamespace = "::tensorlang::tl";
  let summary = "The tensor model language of Rink's report, as MLIR";
  let description = [{
    The `tl` dialect models programs of the tensor language defined in
    N. A. Rink, "Modeling of languages for tensor manipulation" (2018).

    A program is a `tl.program` symbol table holding `tl.var` declarations
    (the report's static context Gamma) followed by `tl.assign` statements.
    Each statement's region reads the store through `tl.use` and computes the
    right-hand side with side-effect-free expression ops on builtin `tensor`
    values; its `tl.yield` hands the complete result to the assignment. That
    the region reads the store *before* the variable is updated is exactly
    the report's rule `ev-stmt`.

    Dimension indices in the IR are 0-based (the source language's are
    1-based; the frontend translates at the boundary). The typing rules of
    the report (`t-prod`, `t-trans`, `t-contr`, `t-elem`, `t-smul`,
    `t-sdiv`, `ok-stmt`, `t-var`, `s-var`) are the verifiers of these ops.
  }];
  let useDefaultAttributePrinterParser = 1;
  // The passes' marks, which later passes and the compiler read: declared
  // here so that each has one name and typed accessors
  // (`TLDialect::getAllreduceAttrHelper()` ...), and verified with
  // `tl.target` in verifyOperationAttribute (TLAttributes.cpp).
  let discardableAttrs = (ins
    // On a tl.assign whose target the processes sum after the statement
    // (tl-distribute).
    "::mlir::UnitAttr":$allreduce,
    // On a tl.program: the size whose indices are split over processes
    // (tl-distribute).
    "::mlir::FlatSymbolRefAttr":$distributed,
    // On a tl.program whose variables are stored in column-major order
    // (tl-column-major).
    "::mlir::UnitAttr":$column_major
  );
  // `tl.target` on a module must be a #tl.target; the marks above must
  // have their types and sit on their ops.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // TENSORLANG_DIALECT_TL_IR_TLDIALECT_TD
