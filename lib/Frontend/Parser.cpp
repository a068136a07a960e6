//===- Parser.cpp - Parser of the tensor language -------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Recursive descent over the grammar of docs/language.md. Precedence, lowest
// to highest: `+ -`, then `* /`, then unary `-`, then `# . ^` together; the
// binary operators are left-associative. Left-associative chains and runs
// of unary minus are parsed by loops; only parentheses and function calls
// recurse, and both their nesting and the height of the tree are bounded so
// that no input can exhaust the stack here or in the passes that walk the
// tree.
//
//===----------------------------------------------------------------------===//

#include "Parser.h"
#include "Lexer.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::frontend;

Location frontend::getLocation(MLIRContext *context,
                               const llvm::SourceMgr &sourceMgr,
                               llvm::SMLoc loc) {
  unsigned bufferId = sourceMgr.getMainFileID();
  auto [line, column] = sourceMgr.getLineAndColumn(loc, bufferId);
  StringRef name =
      sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  return FileLineColLoc::get(context, name, line, column);
}

namespace {
class Parser {
public:
  Parser(const llvm::SourceMgr &sourceMgr, MLIRContext *context,
         SourceSyntax syntax)
      : sourceMgr(sourceMgr), context(context), syntax(syntax),
        lexer(
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
    consume();
  }

  std::optional<Program> parse();

private:
  struct Alias {
    Shape shape;
    llvm::SMLoc loc;
  };

  InFlightDiagnostic emitError(llvm::SMLoc loc) {
    return mlir::emitError(getLocation(context, sourceMgr, loc));
  }
  InFlightDiagnostic emitErrorHere() { return emitError(tok.getLoc()); }
  void consume() { tok = lexer.next(); }
  /// Reports "expected <what>" at the current token and fails.
  LogicalResult expected(StringRef what);
  LogicalResult expect(TokenKind kind, StringRef context);

  LogicalResult parseTypeAlias();
  LogicalResult parseVarDecl();
  /// Whether the current token begins a batch declaration: `batch [`
  /// (CFDlang: `elem [`). The keyword is contextual, so a variable may
  /// still be called `batch`.
  bool atBatchDecl();
  LogicalResult parseBatchDecl();
  /// Whether the current token begins a size declaration: `size` and a
  /// name (contextual too).
  bool atSizeDecl();
  LogicalResult parseSizeDecl();
  /// Reports `name` being declared again (as a size, type or variable)
  /// when it is already one of those, and fails.
  LogicalResult checkNewName(StringRef name, llvm::SMLoc loc,
                             bool variables = true);
  /// The token after the current one.
  Token peek() const {
    Lexer copy = lexer;
    return copy.next();
  }
  LogicalResult parseShapeOrAlias(Shape &shape, llvm::SMLoc &loc);
  LogicalResult parseShape(Shape &shape);
  LogicalResult parseInteger(int64_t &value, StringRef what);
  LogicalResult parseStatement();

  Expr *parseAdditive();
  Expr *parseMultiplicative();
  Expr *parseNegation();
  Expr *parseTensorOps();
  Expr *parsePrimary();
  Expr *parseLiteral();
  Expr *parseStack();
  /// Whether the current token can begin an expression.
  bool startsExpression() const;
  /// Parses the arguments of a call of `name`; the current token is '('.
  Expr *parseCall(Token name);
  /// Parses `( expr )`, or the arguments `( expr, expr, ... )` of a call,
  /// counting the nesting.
  bool parseParenthesized(llvm::SmallVectorImpl<Expr *> &items, bool isCall);
  LogicalResult parseIndexPairs(llvm::SmallVector<int64_t> &pairs);
  LogicalResult parseIndexPair(llvm::SmallVector<int64_t> &pairs);
  /// Creates an operator node and checks the tree height limit.
  Expr *makeOperator(ExprKind kind, llvm::SMLoc loc, Expr *lhs, Expr *rhs);

  // CFDlang's expressions (parseProgram with SourceSyntax::CFDlang).
  Expr *parseCFDlangExpr();
  Expr *parseCFDlangTerm();
  Expr *parseCFDlangFactor();
  Expr *parseCFDlangAtom();
  /// Parses `operand (op operand)*` for the given operators, a flat list
  /// folded from the right.
  Expr *parseRightAssociative(llvm::ArrayRef<TokenKind> operators,
                              Expr *(Parser::*parseOperand)());
  /// Folds `operands[0] op0 operands[1] op1 ...` from the right, as
  /// CFDlang's right-recursive grammar does.
  Expr *foldRight(llvm::ArrayRef<Expr *> operands,
                  llvm::ArrayRef<Token> operators);
  /// Whether `expr` is a list of index lists, `[[0 1] [2 3]]`; appends the
  /// pairs (0-based) and reports non-pairs.
  bool isIndexList(const Expr *expr) const;
  LogicalResult takeIndexPairs(const Expr *list, Token op,
                               llvm::SmallVector<int64_t> &pairs);

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  SourceSyntax syntax;
  Lexer lexer;
  Token tok;
  Program program;
  llvm::StringMap<Alias> aliases;
  llvm::StringMap<llvm::SMLoc> varNames;
  llvm::StringMap<llvm::SMLoc> sizeNames;
  unsigned parenNesting = 0;
};
} // namespace

LogicalResult Parser::expected(StringRef what) {
  if (tok.is(TokenKind::UnterminatedComment)) {
    emitErrorHere() << "unterminated comment: '/*' without '*/'";
    return failure();
  }
  InFlightDiagnostic diag = emitErrorHere();
  diag << "expected " << what << ", found ";
  if (tok.is(TokenKind::Eof)) {
    diag << "end of input";
  } else if (tok.is(TokenKind::Error)) {
    unsigned char c = tok.text.front();
    if (c >= 0x20 && c < 0x7f)
      diag << "invalid character '" << tok.text << "'";
    else
      diag << "invalid byte 0x" << llvm::utohexstr(c, /*LowerCase=*/false, 2);
  } else {
    diag << "'" << tok.text << "'";
  }
  return failure();
}

LogicalResult Parser::expect(TokenKind kind, StringRef context) {
  if (!tok.is(kind))
    return expected((Lexer::describe(kind) + " " + context).str());
  consume();
  return success();
}

std::optional<Program> Parser::parse() {
  // Declarations first, then statements (grammar: prog ::= decl* stmt*).
  while (tok.is(TokenKind::KwVar) || tok.is(TokenKind::KwType) ||
         atBatchDecl() || atSizeDecl()) {
    LogicalResult result = tok.is(TokenKind::KwVar)    ? parseVarDecl()
                           : tok.is(TokenKind::KwType) ? parseTypeAlias()
                           : atSizeDecl()              ? parseSizeDecl()
                                                       : parseBatchDecl();
    if (failed(result))
      return std::nullopt;
  }
  while (!tok.is(TokenKind::Eof)) {
    if (tok.is(TokenKind::KwVar) || tok.is(TokenKind::KwType) ||
        atBatchDecl() || atSizeDecl()) {
      emitErrorHere() << "declarations must precede all statements";
      return std::nullopt;
    }
    if (failed(parseStatement()))
      return std::nullopt;
  }
  return std::move(program);
}

bool Parser::atSizeDecl() {
  // `size = ...` assigns a variable called size.
  return syntax == SourceSyntax::TensorLang && tok.is(TokenKind::Identifier) &&
         tok.text == "size" && peek().is(TokenKind::Identifier);
}

LogicalResult Parser::checkNewName(StringRef name, llvm::SMLoc loc,
                                   bool variables) {
  auto report = [&](StringRef kind, llvm::SMLoc previous) {
    InFlightDiagnostic diag =
        emitError(loc) << "'" << name << "' is already declared as a " << kind;
    diag.attachNote(getLocation(context, sourceMgr, previous))
        << kind << " declared here";
    return failure();
  };
  if (auto it = sizeNames.find(name); it != sizeNames.end())
    return report("size", it->second);
  if (auto it = aliases.find(name); it != aliases.end())
    return report("type", it->second.loc);
  if (auto it = varNames.find(name); variables && it != varNames.end())
    return report("variable", it->second);
  return success();
}

LogicalResult Parser::parseSizeDecl() {
  consume(); // 'size'
  while (true) {
    if (!tok.is(TokenKind::Identifier))
      return expected("a size name");
    if (failed(checkNewName(tok.text, tok.getLoc())))
      return failure();
    sizeNames[tok.text] = tok.getLoc();
    program.sizes.push_back({tok.text, tok.getLoc()});
    consume();
    if (!tok.is(TokenKind::Comma))
      return success();
    consume();
  }
}

bool Parser::atBatchDecl() {
  StringRef keyword = syntax == SourceSyntax::CFDlang ? "elem" : "batch";
  return tok.is(TokenKind::Identifier) && tok.text == keyword &&
         peek().is(TokenKind::LSquare);
}

LogicalResult Parser::parseBatchDecl() {
  BatchDecl batch;
  batch.loc = tok.getLoc();
  StringRef keyword = tok.text;
  if (program.batch) {
    InFlightDiagnostic diag = emitErrorHere() << "a program has at most one '"
                                              << keyword << "' declaration";
    diag.attachNote(getLocation(context, sourceMgr, program.batch->loc))
        << "the first one is here";
    return failure();
  }
  consume();
  consume(); // '['
  while (!tok.is(TokenKind::RSquare)) {
    if (!batch.vars.empty() && tok.is(TokenKind::Comma))
      consume();
    if (!tok.is(TokenKind::Identifier))
      return expected("a variable name or ']'");
    StringRef name = tok.text;
    if (!varNames.contains(name)) {
      InFlightDiagnostic diag = emitErrorHere();
      if (auto alias = aliases.find(name); alias != aliases.end()) {
        diag << "'" << name << "' is a type, not a variable";
        diag.attachNote(getLocation(context, sourceMgr, alias->second.loc))
            << "type declared here";
      } else {
        diag << "'" << name << "' is not a variable declared before the '"
             << keyword << "' declaration";
      }
      return failure();
    }
    for (auto &[listed, loc] : batch.vars)
      if (listed == name) {
        InFlightDiagnostic diag = emitErrorHere()
                                  << "'" << name << "' is listed twice";
        diag.attachNote(getLocation(context, sourceMgr, loc))
            << "first listed here";
        return failure();
      }
    batch.vars.push_back({name, tok.getLoc()});
    consume();
  }
  if (batch.vars.empty()) {
    emitErrorHere() << "a '" << keyword
                    << "' declaration lists at least one "
                       "variable";
    return failure();
  }
  consume(); // ']'
  llvm::SMLoc extentLoc = tok.getLoc();
  if (failed(parseInteger(batch.extent, "the number of elements of the batch")))
    return failure();
  if (batch.extent == 0) {
    emitError(extentLoc) << "a batch has at least one element";
    return failure();
  }
  // CFDlang requires the position; here it is optional, and `first` or
  // `last` followed by '=' begins a statement instead.
  bool atPosition = tok.is(TokenKind::Identifier) &&
                    (tok.text == "first" || tok.text == "last") &&
                    !peek().is(TokenKind::Equal);
  if (atPosition) {
    batch.last = tok.text == "last";
    consume();
  } else if (syntax == SourceSyntax::CFDlang) {
    return expected("'first' or 'last' after the number of elements");
  }
  program.batch = std::move(batch);
  return success();
}

LogicalResult Parser::parseInteger(int64_t &value, StringRef what) {
  if (!tok.is(TokenKind::Integer))
    return expected(what);
  if (tok.text.getAsInteger(10, value) || value < 0) {
    emitErrorHere() << "integer " << tok.text << " is too large";
    return failure();
  }
  consume();
  return success();
}

LogicalResult Parser::parseShape(Shape &shape) {
  if (failed(expect(TokenKind::LSquare, "to begin the extents of a type")))
    return failure();
  while (!tok.is(TokenKind::RSquare)) {
    if (!shape.extents.empty() && tok.is(TokenKind::Comma))
      consume();
    llvm::SMLoc loc = tok.getLoc();
    if (tok.is(TokenKind::Identifier)) {
      if (!sizeNames.contains(tok.text)) {
        InFlightDiagnostic diag = emitErrorHere();
        diag << "'" << tok.text << "' is not a size";
        if (auto alias = aliases.find(tok.text); alias != aliases.end())
          diag.attachNote(getLocation(context, sourceMgr, alias->second.loc))
              << "'" << tok.text << "' is a type";
        else if (auto var = varNames.find(tok.text); var != varNames.end())
          diag.attachNote(getLocation(context, sourceMgr, var->second))
              << "'" << tok.text << "' is a variable";
        else if (syntax == SourceSyntax::TensorLang)
          diag << "; declare it before its use with 'size " << tok.text << "'";
        return failure();
      }
      shape.extents.push_back(ShapedType::kDynamic);
      shape.sizes.push_back(tok.text);
      program.typeNameUses.push_back({tok.text, loc});
      consume();
      continue;
    }
    int64_t extent;
    if (failed(parseInteger(extent, "an extent (a number or a size) or ']'")))
      return failure();
    if (extent == 0) {
      emitError(loc) << "extent 0 is not a positive integer";
      return failure();
    }
    shape.extents.push_back(extent);
    shape.sizes.push_back({});
  }
  consume();
  return success();
}

LogicalResult Parser::parseShapeOrAlias(Shape &shape, llvm::SMLoc &loc) {
  loc = tok.getLoc();
  if (tok.is(TokenKind::Identifier)) {
    auto it = aliases.find(tok.text);
    if (it == aliases.end()) {
      emitErrorHere() << "unknown type '" << tok.text << "'";
      return failure();
    }
    shape = it->second.shape;
    program.typeNameUses.push_back({tok.text, loc});
    consume();
    return success();
  }
  if (!tok.is(TokenKind::LSquare))
    return expected("a type ('[' extents ']' or a type name)");
  return parseShape(shape);
}

LogicalResult Parser::parseTypeAlias() {
  consume(); // 'type'
  if (!tok.is(TokenKind::Identifier))
    return expected("a type name after 'type'");
  StringRef name = tok.text;
  llvm::SMLoc loc = tok.getLoc();
  if (auto it = aliases.find(name); it != aliases.end()) {
    InFlightDiagnostic diag = emitError(loc)
                              << "redefinition of type '" << name << "'";
    diag.attachNote(getLocation(context, sourceMgr, it->second.loc))
        << "previous definition is here";
    return failure();
  }
  if (failed(checkNewName(name, loc)))
    return failure();
  consume();
  Alias alias;
  alias.loc = loc;
  llvm::SMLoc typeLoc;
  if (failed(expect(TokenKind::Colon, "after the type name")) ||
      failed(parseShapeOrAlias(alias.shape, typeLoc)))
    return failure();
  program.aliases.push_back({name, loc, alias.shape});
  aliases[name] = std::move(alias);
  return success();
}

LogicalResult Parser::parseVarDecl() {
  consume(); // 'var'
  Decl decl;
  while (tok.is(TokenKind::KwInput) || tok.is(TokenKind::KwOutput)) {
    bool &flag = tok.is(TokenKind::KwInput) ? decl.input : decl.output;
    if (flag) {
      emitErrorHere() << "duplicate qualifier '" << tok.text << "'";
      return failure();
    }
    flag = true;
    consume();
  }
  if (!tok.is(TokenKind::Identifier))
    return expected("a variable name");
  decl.name = tok.text;
  decl.loc = tok.getLoc();
  // A variable declared twice is rule s-var's error (MLIRGen).
  if (failed(checkNewName(decl.name, decl.loc, /*variables=*/false)))
    return failure();
  consume();
  if (failed(expect(TokenKind::Colon, "after the variable name")) ||
      failed(parseShapeOrAlias(decl.shape, decl.typeLoc)))
    return failure();
  varNames.try_emplace(decl.name, decl.loc);
  program.decls.push_back(std::move(decl));
  return success();
}

LogicalResult Parser::parseStatement() {
  if (!tok.is(TokenKind::Identifier))
    return expected("a statement (variable '=' expression)");
  Stmt stmt;
  stmt.target = tok.text;
  stmt.loc = tok.getLoc();
  consume();
  if (failed(expect(TokenKind::Equal, "after the assigned variable")))
    return failure();
  stmt.value =
      syntax == SourceSyntax::CFDlang ? parseCFDlangExpr() : parseAdditive();
  if (!stmt.value)
    return failure();
  program.stmts.push_back(stmt);
  return success();
}

Expr *Parser::makeOperator(ExprKind kind, llvm::SMLoc loc, Expr *lhs,
                           Expr *rhs) {
  unsigned depth = 1 + std::max(lhs->depth, rhs ? rhs->depth : 0u);
  if (depth > kMaxExprDepth) {
    emitError(loc) << "expression is nested too deeply (more than "
                   << kMaxExprDepth
                   << " operators); split it into several statements";
    return nullptr;
  }
  Expr *expr = program.makeExpr(kind, loc);
  expr->lhs = lhs;
  expr->rhs = rhs;
  expr->depth = depth;
  return expr;
}

Expr *Parser::parseAdditive() {
  Expr *lhs = parseMultiplicative();
  while (lhs && (tok.is(TokenKind::Plus) || tok.is(TokenKind::Minus))) {
    tl::ArithKind kind =
        tok.is(TokenKind::Plus) ? tl::ArithKind::Add : tl::ArithKind::Sub;
    llvm::SMLoc loc = tok.getLoc();
    consume();
    Expr *rhs = parseMultiplicative();
    if (!rhs)
      return nullptr;
    lhs = makeOperator(ExprKind::Arith, loc, lhs, rhs);
    if (lhs)
      lhs->arith = kind;
  }
  return lhs;
}

Expr *Parser::parseMultiplicative() {
  Expr *lhs = parseNegation();
  while (lhs && (tok.is(TokenKind::Star) || tok.is(TokenKind::Slash))) {
    tl::ArithKind kind =
        tok.is(TokenKind::Star) ? tl::ArithKind::Mul : tl::ArithKind::Div;
    llvm::SMLoc loc = tok.getLoc();
    consume();
    Expr *rhs = parseNegation();
    if (!rhs)
      return nullptr;
    lhs = makeOperator(ExprKind::Arith, loc, lhs, rhs);
    if (lhs)
      lhs->arith = kind;
  }
  return lhs;
}

Expr *Parser::parseNegation() {
  llvm::SmallVector<llvm::SMLoc> minuses;
  while (tok.is(TokenKind::Minus)) {
    minuses.push_back(tok.getLoc());
    consume();
  }
  Expr *operand = parseTensorOps();
  // `-e` binds looser than `# . ^`: `-a # b` is `-(a # b)`, the same value.
  for (llvm::SMLoc loc : llvm::reverse(minuses)) {
    if (!operand)
      return nullptr;
    operand = makeOperator(ExprKind::Unary, loc, operand, nullptr);
    if (operand)
      operand->unary = tl::UnaryKind::Neg;
  }
  return operand;
}

Expr *Parser::parseTensorOps() {
  Expr *lhs = parsePrimary();
  while (lhs && (tok.is(TokenKind::Hash) || tok.is(TokenKind::Dot) ||
                 tok.is(TokenKind::Caret))) {
    llvm::SMLoc loc = tok.getLoc();
    TokenKind op = tok.kind;
    consume();
    if (op == TokenKind::Hash) {
      Expr *rhs = parsePrimary();
      if (!rhs)
        return nullptr;
      lhs = makeOperator(ExprKind::Outer, loc, lhs, rhs);
      continue;
    }
    llvm::SmallVector<int64_t> pairs;
    if (failed(parseIndexPairs(pairs)))
      return nullptr;
    lhs = makeOperator(op == TokenKind::Dot ? ExprKind::Contract
                                            : ExprKind::Transpose,
                       loc, lhs, nullptr);
    if (lhs)
      lhs->pairs = std::move(pairs);
  }
  return lhs;
}

Expr *Parser::parsePrimary() {
  if (tok.is(TokenKind::Identifier)) {
    Token name = tok;
    consume();
    // A name followed by '(' calls a function.
    if (tok.is(TokenKind::LParen))
      return parseCall(name);
    Expr *expr = program.makeExpr(ExprKind::Variable, name.getLoc());
    expr->name = name.text;
    return expr;
  }
  if (tok.is(TokenKind::Integer) || tok.is(TokenKind::Real))
    return parseLiteral();
  if (tok.is(TokenKind::LSquare))
    return parseStack();
  if (tok.is(TokenKind::LParen)) {
    llvm::SmallVector<Expr *, 1> inner;
    if (!parseParenthesized(inner, /*isCall=*/false))
      return nullptr;
    return inner.front();
  }
  (void)expected("an expression (a variable, a number, a function call, "
                 "'(' or a stack '[')");
  return nullptr;
}

Expr *Parser::parseLiteral() {
  llvm::APFloat value(llvm::APFloat::IEEEdouble());
  auto status =
      value.convertFromString(tok.text, llvm::APFloat::rmNearestTiesToEven);
  // Underflow rounds to zero or a subnormal number, as in C; overflow has
  // no value.
  if (!status || (*status & llvm::APFloat::opOverflow)) {
    if (!status)
      llvm::consumeError(status.takeError());
    emitErrorHere() << "number " << tok.text
                    << " is too large for a double-precision value";
    return nullptr;
  }
  Expr *expr = program.makeExpr(ExprKind::Literal, tok.getLoc());
  expr->name = tok.text;
  expr->value = value.convertToDouble();
  consume();
  return expr;
}

Expr *Parser::parseStack() {
  llvm::SMLoc loc = tok.getLoc();
  if (parenNesting == kMaxParenNesting) {
    emitErrorHere() << "parentheses are nested too deeply (more than "
                    << kMaxParenNesting << " levels)";
    return nullptr;
  }
  consume(); // '['
  ++parenNesting;
  llvm::SmallVector<Expr *, 4> elements;
  // Elements are whole expressions, separated by whitespace or commas:
  // `[a -b]` is the one element a - b; `[a, -b]` has two.
  while (!tok.is(TokenKind::RSquare)) {
    Expr *element = parseAdditive();
    if (!element) {
      --parenNesting;
      return nullptr;
    }
    elements.push_back(element);
    if (tok.is(TokenKind::Comma))
      consume();
    else if (!tok.is(TokenKind::RSquare) && !startsExpression()) {
      --parenNesting;
      (void)expected("']' or another element of the stack");
      return nullptr;
    }
  }
  --parenNesting;
  if (elements.empty()) {
    emitError(loc) << "a stack needs at least one element (rule t-stack)";
    return nullptr;
  }
  consume(); // ']'
  unsigned depth = 0;
  for (Expr *element : elements)
    depth = std::max(depth, element->depth);
  if (depth + 1 > kMaxExprDepth) {
    emitError(loc) << "expression is nested too deeply (more than "
                   << kMaxExprDepth
                   << " operators); split it into several statements";
    return nullptr;
  }
  Expr *stack = program.makeExpr(ExprKind::Stack, loc);
  stack->elements = std::move(elements);
  stack->depth = depth + 1;
  return stack;
}

bool Parser::startsExpression() const {
  return tok.is(TokenKind::Identifier) || tok.is(TokenKind::Integer) ||
         tok.is(TokenKind::Real) || tok.is(TokenKind::LParen) ||
         tok.is(TokenKind::LSquare) || tok.is(TokenKind::Minus);
}

bool Parser::parseParenthesized(llvm::SmallVectorImpl<Expr *> &items,
                                bool isCall) {
  if (parenNesting == kMaxParenNesting) {
    emitErrorHere() << "parentheses are nested too deeply (more than "
                    << kMaxParenNesting << " levels)";
    return false;
  }
  consume(); // '('
  ++parenNesting;
  auto finish = [&](bool ok) {
    --parenNesting;
    return ok;
  };
  while (true) {
    Expr *item = parseAdditive();
    if (!item)
      return finish(false);
    items.push_back(item);
    if (!isCall || !tok.is(TokenKind::Comma))
      break;
    consume();
  }
  if (!tok.is(TokenKind::RParen)) {
    (void)expected(isCall ? "',' or ')' after an argument" : "')'");
    return finish(false);
  }
  consume();
  return finish(true);
}

Expr *Parser::parseCall(Token name) {
  std::optional<tl::UnaryKind> unary =
      llvm::StringSwitch<std::optional<tl::UnaryKind>>(name.text)
          .Case("sqrt", tl::UnaryKind::Sqrt)
          .Case("abs", tl::UnaryKind::Abs)
          .Case("exp", tl::UnaryKind::Exp)
          .Case("log", tl::UnaryKind::Log)
          .Default(std::nullopt);
  std::optional<tl::ArithKind> binary =
      llvm::StringSwitch<std::optional<tl::ArithKind>>(name.text)
          .Case("min", tl::ArithKind::Min)
          .Case("max", tl::ArithKind::Max)
          .Default(std::nullopt);
  if (!unary && !binary) {
    emitError(name.getLoc())
        << "unknown function '" << name.text
        << "' (the functions are sqrt, abs, exp, log, min and max)";
    return nullptr;
  }
  llvm::SmallVector<Expr *, 2> args;
  if (!parseParenthesized(args, /*isCall=*/true))
    return nullptr;
  size_t arity = unary ? 1 : 2;
  if (args.size() != arity) {
    emitError(name.getLoc())
        << "'" << name.text << "' takes " << arity
        << (arity == 1 ? " argument" : " arguments") << ", got " << args.size();
    return nullptr;
  }
  Expr *call = makeOperator(unary ? ExprKind::Unary : ExprKind::Arith,
                            name.getLoc(), args[0], unary ? nullptr : args[1]);
  if (!call)
    return nullptr;
  if (unary)
    call->unary = *unary;
  else
    call->arith = *binary;
  return call;
}

LogicalResult Parser::parseIndexPair(llvm::SmallVector<int64_t> &pairs) {
  // The caller has consumed '['.
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && tok.is(TokenKind::Comma))
      consume();
    int64_t index;
    if (failed(parseInteger(index, i == 0 ? "a dimension index"
                                          : "a second dimension index")))
      return failure();
    // Source indices are 1-based; 0 becomes -1, which the typing rule
    // reports as out of range (printing it as 0 again).
    pairs.push_back(index - 1);
  }
  return expect(TokenKind::RSquare, "to close the index pair");
}

LogicalResult Parser::parseIndexPairs(llvm::SmallVector<int64_t> &pairs) {
  if (failed(expect(TokenKind::LSquare, "to begin an index pair")))
    return failure();
  if (!tok.is(TokenKind::LSquare))
    return parseIndexPair(pairs);
  // A list of pairs: [[m n] [p q] ...].
  while (tok.is(TokenKind::LSquare)) {
    consume();
    if (failed(parseIndexPair(pairs)))
      return failure();
    if (tok.is(TokenKind::Comma))
      consume();
  }
  return expect(TokenKind::RSquare, "to close the list of index pairs");
}

//===----------------------------------------------------------------------===//
// CFDlang's expressions
//===----------------------------------------------------------------------===//
//
// expr ::= term (('+' | '-') expr)?          right-associative
// term ::= factor (('*' | '/' | '.') term)?
// factor ::= atom (('#' | '^') factor)?
// atom ::= id | integer | '[' expr* ']' | '(' expr ')'
//
// Each level is parsed as a flat list and folded from the right, so that
// no input recurses deeper than its parentheses and brackets.

Expr *Parser::foldRight(ArrayRef<Expr *> operands, ArrayRef<Token> operators) {
  Expr *rhs = operands.back();
  for (size_t i = operators.size(); i-- > 0;) {
    Token op = operators[i];
    Expr *lhs = operands[i];
    switch (op.kind) {
    case TokenKind::Plus:
    case TokenKind::Minus:
    case TokenKind::Star:
    case TokenKind::Slash: {
      rhs = makeOperator(ExprKind::Arith, op.getLoc(), lhs, rhs);
      if (rhs)
        rhs->arith = op.is(TokenKind::Plus)    ? tl::ArithKind::Add
                     : op.is(TokenKind::Minus) ? tl::ArithKind::Sub
                     : op.is(TokenKind::Star)  ? tl::ArithKind::Mul
                                               : tl::ArithKind::Div;
      break;
    }
    case TokenKind::Hash:
      rhs = makeOperator(ExprKind::Outer, op.getLoc(), lhs, rhs);
      break;
    case TokenKind::Dot:
    case TokenKind::Caret: {
      bool contract = op.is(TokenKind::Dot);
      if (!isIndexList(rhs)) {
        if (!contract) {
          emitError(op.getLoc())
              << "'^' expects a list of index pairs such as [[0 1]] on its "
                 "right (CFDlang's '^' binds tighter than '#': parenthesize "
                 "the transposition)";
          return nullptr;
        }
        rhs = makeOperator(ExprKind::MatrixProduct, op.getLoc(), lhs, rhs);
        break;
      }
      llvm::SmallVector<int64_t> pairs;
      if (failed(takeIndexPairs(rhs, op, pairs)))
        return nullptr;
      rhs = makeOperator(contract ? ExprKind::Contract : ExprKind::Transpose,
                         op.getLoc(), lhs, nullptr);
      if (rhs)
        rhs->pairs = std::move(pairs);
      break;
    }
    default:
      llvm_unreachable("not a CFDlang binary operator");
    }
    if (!rhs)
      return nullptr;
  }
  return rhs;
}

bool Parser::isIndexList(const Expr *expr) const {
  if (expr->kind != ExprKind::Stack)
    return false;
  return llvm::all_of(expr->elements, [](const Expr *list) {
    return list->kind == ExprKind::Stack &&
           llvm::all_of(list->elements, [](const Expr *index) {
             return index->kind == ExprKind::Literal &&
                    llvm::all_of(index->name, llvm::isDigit);
           });
  });
}

LogicalResult Parser::takeIndexPairs(const Expr *list, Token op,
                                     llvm::SmallVector<int64_t> &pairs) {
  for (const Expr *pair : list->elements) {
    if (pair->elements.size() != 2) {
      emitError(pair->loc) << "'" << op.text
                           << "' takes index pairs, got a list of "
                           << pair->elements.size() << " indices";
      return failure();
    }
    for (const Expr *index : pair->elements) {
      int64_t value;
      if (index->name.getAsInteger(10, value) || value < 0) {
        emitError(index->loc) << "integer " << index->name << " is too large";
        return failure();
      }
      pairs.push_back(value); // CFDlang's indices are 0-based, as the IR's
    }
  }
  return success();
}

Expr *Parser::parseRightAssociative(ArrayRef<TokenKind> operators,
                                    Expr *(Parser::*parseOperand)()) {
  llvm::SmallVector<Expr *> operands;
  llvm::SmallVector<Token> tokens;
  while (true) {
    Expr *operand = (this->*parseOperand)();
    if (!operand)
      return nullptr;
    operands.push_back(operand);
    if (!llvm::is_contained(operators, tok.kind))
      break;
    tokens.push_back(tok);
    consume();
  }
  return foldRight(operands, tokens);
}

Expr *Parser::parseCFDlangExpr() {
  return parseRightAssociative({TokenKind::Plus, TokenKind::Minus},
                               &Parser::parseCFDlangTerm);
}

Expr *Parser::parseCFDlangTerm() {
  return parseRightAssociative(
      {TokenKind::Star, TokenKind::Slash, TokenKind::Dot},
      &Parser::parseCFDlangFactor);
}

Expr *Parser::parseCFDlangFactor() {
  return parseRightAssociative({TokenKind::Hash, TokenKind::Caret},
                               &Parser::parseCFDlangAtom);
}

Expr *Parser::parseCFDlangAtom() {
  if (tok.is(TokenKind::Identifier)) {
    Expr *expr = program.makeExpr(ExprKind::Variable, tok.getLoc());
    expr->name = tok.text;
    consume();
    return expr;
  }
  if (tok.is(TokenKind::Integer) || tok.is(TokenKind::Real))
    return parseLiteral();
  bool bracket = tok.is(TokenKind::LSquare);
  if (!bracket && !tok.is(TokenKind::LParen)) {
    (void)expected("an expression (a variable, an integer, '(' or '[')");
    return nullptr;
  }
  llvm::SMLoc loc = tok.getLoc();
  if (parenNesting == kMaxParenNesting) {
    emitErrorHere() << "parentheses are nested too deeply (more than "
                    << kMaxParenNesting << " levels)";
    return nullptr;
  }
  consume();
  ++parenNesting;
  TokenKind close = bracket ? TokenKind::RSquare : TokenKind::RParen;
  llvm::SmallVector<Expr *, 4> elements;
  // A bracket juxtaposes any number of expressions (a stack, or an index
  // list); CFDlang skips stray commas, and so does this.
  while (!tok.is(close)) {
    if (bracket && tok.is(TokenKind::Comma)) {
      consume();
      continue;
    }
    if (!bracket && !elements.empty())
      break;
    Expr *element = parseCFDlangExpr();
    if (!element) {
      --parenNesting;
      return nullptr;
    }
    elements.push_back(element);
  }
  --parenNesting;
  if (!tok.is(close)) {
    (void)expected(bracket ? "']'" : "')'");
    return nullptr;
  }
  consume();
  if (!bracket) {
    if (elements.empty()) {
      emitError(loc) << "expected an expression inside '(' ')'";
      return nullptr;
    }
    return elements.front();
  }
  unsigned depth = 0;
  for (Expr *element : elements)
    depth = std::max(depth, element->depth);
  Expr *stack = program.makeExpr(ExprKind::Stack, loc);
  stack->elements = std::move(elements);
  stack->depth = depth + 1;
  return stack;
}

std::optional<Program> frontend::parseProgram(const llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context,
                                              SourceSyntax syntax) {
  return Parser(sourceMgr, context, syntax).parse();
}
