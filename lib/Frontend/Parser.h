//===- Parser.h - Parser of the tensor language -----------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_PARSER_H
#define TENSORLANG_FRONTEND_PARSER_H

#include "AST.h"

#include "tensorlang/Frontend/SourceSyntax.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

namespace tensorlang::frontend {

/// The deepest nesting of parentheses the parser accepts.
constexpr unsigned kMaxParenNesting = 1000;
/// The deepest expression tree the parser accepts (counting operators).
constexpr unsigned kMaxExprDepth = 2000;

/// Maps a position in the main buffer of `sourceMgr` to an MLIR location.
mlir::Location getLocation(mlir::MLIRContext *context,
                           const llvm::SourceMgr &sourceMgr, llvm::SMLoc loc);

/// Parses the main buffer of `sourceMgr`. Reports the first syntax error
/// through the context's diagnostic engine and returns std::nullopt.
std::optional<Program>
parseProgram(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
             SourceSyntax syntax = SourceSyntax::TensorLang);

} // namespace tensorlang::frontend

#endif // TENSORLANG_FRONTEND_PARSER_H
