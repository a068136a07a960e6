//===- Lexer.h - Tokens of the tensor language ------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_LEXER_H
#define TENSORLANG_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace tensorlang::frontend {

enum class TokenKind {
  Eof,
  Error, // An invalid character; the token's text is that character.
  UnterminatedComment, // `/*` without `*/`; the text is the `/*`.
  Identifier,
  Integer, // Digits only: an extent, an index or a literal.
  Real,    // A literal with a fraction or an exponent: 0.5, 1e-3, 2.5E+4.
  KwVar,
  KwType,
  KwInput,
  KwOutput,
  Colon,
  Comma,
  LSquare,
  RSquare,
  LParen,
  RParen,
  Equal,
  Plus,
  Minus,
  Star,
  Slash,
  Hash,
  Dot,
  Caret,
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  llvm::SMLoc getLoc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(TokenKind other) const { return kind == other; }
};

/// Splits a source buffer into tokens. Whitespace and `//` comments separate
/// tokens; the lexer never fails, it returns an Error token instead.
class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer) : buffer(buffer), pos(0) {}
  Token next();

  /// A description of `kind` for messages: "identifier", "'['", ...
  static llvm::StringRef describe(TokenKind kind);

private:
  llvm::StringRef buffer;
  size_t pos;
};

} // namespace tensorlang::frontend

#endif // TENSORLANG_FRONTEND_LEXER_H
