//===- SourceIndex.h - What an editor needs to know about a source -*- C++
//-*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The declarations of a TensorLang source text, where each name is used,
// and the type of every expression, by source position: what the language
// server (tl-language-server) answers hover, go-to-definition and
// document-symbol requests from. The diagnostics come from importSource.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_SOURCEINDEX_H
#define TENSORLANG_FRONTEND_SOURCEINDEX_H

#include "tensorlang/Frontend/MLIRGen.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace tensorlang {

struct SourceIndex {
  enum class SymbolKind { Size, TypeAlias, Variable, Statement };

  struct Symbol {
    SymbolKind kind;
    std::string name;
    /// The declared name (a statement's: its target).
    llvm::SMRange nameRange;
    /// The whole declaration or statement.
    llvm::SMRange range;
    /// A variable's qualifiers and type (`input [300 500]`), an alias's
    /// type, a statement's value's type (when the program is well typed),
    /// `size` for a size.
    std::string detail;
  };

  /// A use of a declared name: a variable in a statement, a type alias or
  /// a size in a type, a variable in a batch declaration.
  struct Reference {
    llvm::SMRange range;
    size_t symbol;
  };

  /// The type of what a token stands for, in the report's notation: a
  /// variable (its declared type, or one element's in a batch statement),
  /// a literal, an operator's or a function's value (`#` is the outer
  /// product's type), a declared name.
  struct TypeAt {
    llvm::SMRange range;
    std::string type;
  };

  std::vector<Symbol> symbols;
  std::vector<Reference> references;
  std::vector<TypeAt> types;

  /// The size, type alias or variable declared or used at `loc`, or null.
  const Symbol *findSymbol(llvm::SMLoc loc) const;
  /// The type at `loc`, or null.
  const TypeAt *findType(llvm::SMLoc loc) const;
};

/// The token of the main buffer of `sourceMgr` that begins at `loc`: a
/// name or a number, else one character.
llvm::SMRange getTokenRange(const llvm::SourceMgr &sourceMgr, llvm::SMLoc loc);

/// Indexes the main buffer of `sourceMgr`, in `syntax`. A source that does
/// not parse gives an empty index; one with type errors, its declarations
/// and uses without the expressions' types. Reports nothing: importSource
/// gives the diagnostics.
SourceIndex indexSource(const llvm::SourceMgr &sourceMgr,
                        mlir::MLIRContext *context,
                        SourceSyntax syntax = SourceSyntax::TensorLang);

} // namespace tensorlang

#endif // TENSORLANG_FRONTEND_SOURCEINDEX_H
