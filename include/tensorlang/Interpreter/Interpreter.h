//===- Interpreter.h - The reference interpreter ----------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Executes a verified tl.program by the report's semantics, literally: each
// statement evaluates its right-hand side element by element (the report's
// `eval`) against the store as it is, then updates the variable (ev-stmt).
// Undefined is NaN; division is controlled division; contraction sums run
// over the contracted index in ascending order, with one accumulator per
// contraction (for a multi-pair contraction, the first pair is innermost).
//
// Outer products, transpositions and contractions are never materialized
// where a consumer asks for fewer elements than they have: `(A # B) . [2 3]`
// costs O(n^3) time and O(n^2) memory, and the trace of a product O(n^2).
// A contraction or element-wise subexpression whose elements would be asked
// for more often than it has elements is computed once into a temporary
// instead (a cache that changes no value).
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INTERPRETER_INTERPRETER_H
#define TENSORLANG_INTERPRETER_INTERPRETER_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Support/Store.h"

namespace tensorlang {

struct InterpreterOptions {
  /// Programs estimated to need more element evaluations than this are
  /// refused before they start (about a minute of work on one core).
  double maxWork = 3e10;
};

/// The element kind of `program`'s variables.
ElementKind getElementKind(tl::ProgramOp program);

/// A store in which every variable of `program` is undefined (rule d-var
/// with the ambient application initializing nothing); in a padded program
/// the padding is zero (rule d-pad-var). Fails, with an error on the
/// program, if memory runs out.
/// A program with sizes needs their values, `sizeValue`: each variable then
/// has the extents its type has with them (as if bound by tl-bind-sizes).
/// The real region of a variable for which `overwritten` holds is left
/// unset: the caller writes every element of it next (an input's value).
mlir::FailureOr<Store> makeUndefinedStore(
    tl::ProgramOp program,
    llvm::function_ref<int64_t(mlir::FlatSymbolRefAttr)> sizeValue = nullptr,
    llvm::function_ref<bool(llvm::StringRef)> overwritten = nullptr);

/// The interpreter's estimate of the element evaluations `program` needs.
mlir::FailureOr<double> estimateWork(tl::ProgramOp program);

/// Runs `program` on `store`, which must hold a tensor of the declared
/// shape and element type for every variable. Errors (unsupported IR, too
/// much work, out of memory) are reported on the program's ops; on error the
/// store is left as it was before the failing statement.
mlir::LogicalResult interpret(tl::ProgramOp program, Store &store,
                              const InterpreterOptions &options = {});

} // namespace tensorlang

#endif // TENSORLANG_INTERPRETER_INTERPRETER_H
