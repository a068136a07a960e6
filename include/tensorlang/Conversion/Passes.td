//===- Passes.td - Conversion passes of TensorLang ----------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_CONVERSION_PASSES_TD
#define TENSORLANG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTLToLinalg : Pass<"convert-tl-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower tl programs to functions of linalg ops on tensors";
  let description = [{
    Replaces every `tl.program` with a `func.func` of the same name whose
    arguments are the program's variables, as memrefs, in declaration order:
    the caller owns the store (the report's ambient application).

    Each statement's expression becomes `linalg.generic` ops in einsum form.
    A contraction and the outer products, transpositions and nested
    contractions beneath it become one generic whose reduction dimensions
    are the contracted indices, so an outer product a contraction consumes
    is never built; transpositions only permute indexing maps. Element-wise
    arithmetic, with the outer products and transpositions beneath it, is one
    all-parallel generic. Division lowers to the report's controlled
    division (a divide and three selects).

    Statements are threaded through SSA: a statement reads the tensors the
    earlier statements produced and yields its variable's new tensor, so the
    right-hand side always sees the old store (rule ev-stmt). A statement
    writes in place (its generic's `outs` is the variable's current tensor)
    when it reads its own target only element-wise; otherwise it computes
    into a fresh `tensor.empty`. At the end each assigned variable's final
    tensor is materialized into its argument.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // TENSORLANG_CONVERSION_PASSES_TD
