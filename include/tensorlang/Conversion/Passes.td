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
    arguments are the program's interface variables, as memrefs, in
    declaration order: the caller owns the store (the report's ambient
    application). With qualifiers, the interface is the `input` and `output`
    variables; the other variables are intermediates, `memref.alloc`ed in
    the function (their padding, in a padded program, filled with zero).
    Without qualifiers every variable is part of the interface.

    Each statement's expression becomes `linalg.generic` ops in einsum form.
    A contraction and the outer products, transpositions and nested
    contractions beneath it become one generic whose reduction dimensions
    are the contracted indices, so an outer product a contraction consumes
    is never built; transpositions only permute indexing maps. Element-wise
    arithmetic, with the outer products and transpositions beneath it, is one
    all-parallel generic. Division lowers to the report's controlled
    division (a divide and three selects).

    Each statement becomes a private function (`<program>.s<i>`, internal
    linkage) over the variables it mentions, which the program's function
    calls in order. It reads its arguments as tensors (`to_tensor
    restrict`, writable for the target only), so the right-hand side sees
    the old store (rule ev-stmt), and materializes the value into the
    target's argument. A statement writes in place (its generic's `outs` is
    the target's tensor) when it reads its own target only element-wise;
    otherwise it computes into a fresh `tensor.empty`. One function per
    statement keeps one-shot bufferization's alias analysis local: over a
    single function holding every statement it grows superlinearly (1,000
    statements took 450 s to lower, now 7 s).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // TENSORLANG_CONVERSION_PASSES_TD
