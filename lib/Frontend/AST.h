//===- AST.h - Syntax tree of the tensor language ---------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The parsed program, before typing. Type aliases are already resolved and
// dimension indices are already 0-based; everything else is as written.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_AST_H
#define TENSORLANG_FRONTEND_AST_H

#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <vector>

namespace tensorlang::frontend {

enum class ExprKind {
  Variable,
  Literal,
  Outer,
  Contract,
  Transpose,
  Arith,         // binary: an operator (+ - * /) or a function (min max)
  Unary,         // negation or a function of one argument (sqrt abs exp log)
  Stack,         // [e1 e2 ... ek]
  MatrixProduct, // CFDlang's `E . F`: last index of E with first of F
};

/// An expression node. Nodes are owned by their Program's arena, so that
/// destroying a deep tree does not recurse.
struct Expr {
  ExprKind kind;
  /// The identifier for a variable, the literal's first character, the
  /// function's name for a call, the operator's position otherwise.
  llvm::SMLoc loc;
  llvm::StringRef name;           // Variable; Literal: its text
  double value = 0;               // Literal
  Expr *lhs = nullptr;            // every operator; the operand if unary
  Expr *rhs = nullptr;            // Outer, Arith, MatrixProduct
  tl::ArithKind arith{};          // Arith
  tl::UnaryKind unary{};          // Unary
  llvm::SmallVector<int64_t> pairs; // Contract, Transpose: 0-based pairs
  llvm::SmallVector<Expr *, 4> elements; // Stack
  unsigned depth = 1;             // height of the tree rooted here
};

/// The extents of a type as written: numbers, or declared sizes.
struct Shape {
  /// The numbers; mlir::ShapedType::kDynamic where a size stands.
  llvm::SmallVector<int64_t> extents;
  /// Per dimension, the size's name, or empty for a number.
  llvm::SmallVector<llvm::StringRef> sizes;
};

/// `size E`: an extent known only at run time.
/// `shape` as the dialect's extents (sizes by symbol).
inline llvm::SmallVector<tl::Extent> getExtents(const Shape &shape,
                                                mlir::MLIRContext *context) {
  llvm::SmallVector<tl::Extent> extents;
  for (auto [value, size] : llvm::zip(shape.extents, shape.sizes))
    extents.push_back(
        {value,
         size.empty() ? nullptr : mlir::FlatSymbolRefAttr::get(context, size)});
  return extents;
}

struct SizeDecl {
  llvm::StringRef name;
  llvm::SMLoc loc;
};

struct Decl {
  llvm::StringRef name;
  llvm::SMLoc loc;     // the name
  llvm::SMLoc typeLoc; // the extents or the alias name
  Shape shape;
  bool input = false;
  bool output = false;
};

/// `batch [u v] N` (or CFDlang's `elem [u v] N first`): the program runs
/// once per element; the listed variables hold one value per element.
/// `type name : shape`: the shape is substituted where the name is used.
struct TypeAliasDecl {
  llvm::StringRef name;
  llvm::SMLoc loc; // the name
  Shape shape;
};

/// A type alias's or a size's name where a type uses it (for the language
/// server's go-to-definition).
struct TypeNameUse {
  llvm::StringRef name;
  llvm::SMLoc loc;
};

struct BatchDecl {
  llvm::SMLoc loc; // the keyword
  llvm::SmallVector<std::pair<llvm::StringRef, llvm::SMLoc>> vars;
  int64_t extent = 0;
  /// Whether the batch dimension comes last rather than first.
  bool last = false;
};

struct Stmt {
  llvm::StringRef target;
  llvm::SMLoc loc; // the target
  Expr *value = nullptr;
};

struct Program {
  std::vector<SizeDecl> sizes;
  std::vector<TypeAliasDecl> aliases;
  std::vector<TypeNameUse> typeNameUses;
  std::vector<Decl> decls;
  std::optional<BatchDecl> batch;
  std::vector<Stmt> stmts;
  std::vector<std::unique_ptr<Expr>> arena;

  Expr *makeExpr(ExprKind kind, llvm::SMLoc loc) {
    arena.push_back(std::make_unique<Expr>());
    arena.back()->kind = kind;
    arena.back()->loc = loc;
    return arena.back().get();
  }
};

} // namespace tensorlang::frontend

#endif // TENSORLANG_FRONTEND_AST_H
