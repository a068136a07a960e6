//===- Lexer.cpp - Tokens of the tensor language --------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace tensorlang::frontend;

/// Identifiers start with a letter or an underscore (as in CFDlang).
static bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

Token Lexer::next() {
  // Skip whitespace and comments.
  while (pos < buffer.size()) {
    char c = buffer[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos;
    } else if (c == '/' && pos + 1 < buffer.size() && buffer[pos + 1] == '/') {
      while (pos < buffer.size() && buffer[pos] != '\n')
        ++pos;
    } else if (c == '/' && pos + 1 < buffer.size() && buffer[pos + 1] == '*') {
      // A block comment, not nested (as in C); unterminated, it is one
      // token that the parser reports at its start.
      size_t end = buffer.find("*/", pos + 2);
      if (end == llvm::StringRef::npos) {
        Token token{TokenKind::UnterminatedComment, buffer.slice(pos, pos + 2)};
        pos = buffer.size();
        return token;
      }
      pos = end + 2;
    } else {
      break;
    }
  }
  if (pos >= buffer.size())
    return {TokenKind::Eof, buffer.substr(buffer.size(), 0)};

  size_t start = pos;
  char c = buffer[pos++];
  auto make = [&](TokenKind kind) {
    return Token{kind, buffer.slice(start, pos)};
  };
  if (isLetter(c)) {
    while (pos < buffer.size() && (isLetter(buffer[pos]) || isDigit(buffer[pos])))
      ++pos;
    llvm::StringRef text = buffer.slice(start, pos);
    return make(llvm::StringSwitch<TokenKind>(text)
                    .Case("var", TokenKind::KwVar)
                    .Case("type", TokenKind::KwType)
                    .Case("input", TokenKind::KwInput)
                    .Case("output", TokenKind::KwOutput)
                    .Default(TokenKind::Identifier));
  }
  if (isDigit(c)) {
    auto skipDigits = [&] {
      while (pos < buffer.size() && isDigit(buffer[pos]))
        ++pos;
    };
    skipDigits();
    bool real = false;
    // A fraction needs a digit after the point: `2.[[1 2]]` stays the
    // integer 2 followed by the contraction operator.
    if (pos + 1 < buffer.size() && buffer[pos] == '.' &&
        isDigit(buffer[pos + 1])) {
      ++pos;
      skipDigits();
      real = true;
    }
    // An exponent needs digits too: `2e` is 2 followed by the identifier e.
    if (pos < buffer.size() && (buffer[pos] == 'e' || buffer[pos] == 'E')) {
      size_t digits = pos + 1;
      if (digits < buffer.size() &&
          (buffer[digits] == '+' || buffer[digits] == '-'))
        ++digits;
      if (digits < buffer.size() && isDigit(buffer[digits])) {
        pos = digits;
        skipDigits();
        real = true;
      }
    }
    return make(real ? TokenKind::Real : TokenKind::Integer);
  }
  switch (c) {
  case ':':
    return make(TokenKind::Colon);
  case ',':
    return make(TokenKind::Comma);
  case '[':
    return make(TokenKind::LSquare);
  case ']':
    return make(TokenKind::RSquare);
  case '(':
    return make(TokenKind::LParen);
  case ')':
    return make(TokenKind::RParen);
  case '=':
    return make(TokenKind::Equal);
  case '+':
    return make(TokenKind::Plus);
  case '-':
    return make(TokenKind::Minus);
  case '*':
    return make(TokenKind::Star);
  case '/':
    return make(TokenKind::Slash);
  case '#':
    return make(TokenKind::Hash);
  case '.':
    return make(TokenKind::Dot);
  case '^':
    return make(TokenKind::Caret);
  default:
    return make(TokenKind::Error);
  }
}

llvm::StringRef Lexer::describe(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of input";
  case TokenKind::Error:
    return "invalid character";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::Integer:
    return "integer";
  case TokenKind::Real:
    return "number";
  case TokenKind::UnterminatedComment:
    return "unterminated comment";
  case TokenKind::KwVar:
    return "'var'";
  case TokenKind::KwType:
    return "'type'";
  case TokenKind::KwInput:
    return "'input'";
  case TokenKind::KwOutput:
    return "'output'";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::LSquare:
    return "'['";
  case TokenKind::RSquare:
    return "']'";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Slash:
    return "'/'";
  case TokenKind::Hash:
    return "'#'";
  case TokenKind::Dot:
    return "'.'";
  case TokenKind::Caret:
    return "'^'";
  }
  llvm_unreachable("unknown token kind");
}
