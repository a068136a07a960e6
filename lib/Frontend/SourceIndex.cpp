//===- SourceIndex.cpp - What an editor needs to know about a source ------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Frontend/SourceIndex.h"
#include "AST.h"
#include "Parser.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Frontend/MLIRGen.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::frontend;

static bool contains(llvm::SMRange range, llvm::SMLoc loc) {
  return range.Start.getPointer() <= loc.getPointer() &&
         loc.getPointer() < range.End.getPointer();
}

const SourceIndex::Symbol *SourceIndex::findSymbol(llvm::SMLoc loc) const {
  // (A statement's target is a use of its variable.)
  for (const Symbol &symbol : symbols)
    if (symbol.kind != SymbolKind::Statement && contains(symbol.nameRange, loc))
      return &symbol;
  for (const Reference &reference : references)
    if (contains(reference.range, loc))
      return &symbols[reference.symbol];
  return nullptr;
}

const SourceIndex::TypeAt *SourceIndex::findType(llvm::SMLoc loc) const {
  for (const TypeAt &type : types)
    if (contains(type.range, loc))
      return &type;
  return nullptr;
}

/// The token that begins at `loc`: a name or a number, else one character.
static llvm::SMRange tokenAt(llvm::SMLoc loc, StringRef buffer) {
  const char *begin = loc.getPointer(), *end = begin;
  auto inName = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; };
  while (end < buffer.end() && inName(*end) &&
         (*end != '.' || llvm::isDigit(*begin)))
    ++end;
  if (end == begin && begin < buffer.end())
    ++end;
  return {loc, llvm::SMLoc::getFromPointer(end)};
}

llvm::SMRange tensorlang::getTokenRange(const llvm::SourceMgr &sourceMgr,
                                        llvm::SMLoc loc) {
  return tokenAt(
      loc, sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer());
}

/// The line that `loc` is on, from `loc` to its end (comments excluded).
static llvm::SMRange restOfLine(llvm::SMLoc loc, StringRef buffer) {
  StringRef rest = buffer.drop_front(loc.getPointer() - buffer.begin());
  size_t end = std::min(rest.find('\n'), rest.find("//"));
  rest = rest.take_front(end).rtrim();
  return {loc, llvm::SMLoc::getFromPointer(rest.end())};
}

/// A declared shape in the report's notation, as the frontend's messages
/// write types.
static std::string formatShape(const Shape &shape, MLIRContext *context) {
  return tl::formatType(
      tl::getTensorType(getExtents(shape, context), Float64Type::get(context)));
}

namespace {
class Indexer {
public:
  Indexer(const llvm::SourceMgr &sourceMgr, MLIRContext *context,
          SourceIndex &index, SourceSyntax syntax)
      : sourceMgr(sourceMgr), context(context), index(index), syntax(syntax),
        buffer(
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
  }

  void run(const Program &program);

private:
  size_t addSymbol(SourceIndex::SymbolKind kind, StringRef name,
                   llvm::SMLoc loc, std::string detail) {
    index.symbols.push_back({kind, name.str(), tokenAt(loc, buffer),
                             restOfLine(loc, buffer), std::move(detail)});
    return index.symbols.size() - 1;
  }
  void addReference(StringRef name, llvm::SMLoc loc) {
    if (auto it = byName.find(name); it != byName.end())
      index.references.push_back({tokenAt(loc, buffer), it->second});
  }
  void addType(llvm::SMLoc loc, std::string type) {
    index.types.push_back({tokenAt(loc, buffer), std::move(type)});
  }
  /// The type of the value the op at `loc` computes, if the program
  /// imported (the outermost op there: the last one created).
  std::optional<std::string> typeAt(llvm::SMLoc loc) {
    auto [line, column] = sourceMgr.getLineAndColumn(loc);
    auto it = typesByPosition.find({line, column});
    if (it == typesByPosition.end())
      return std::nullopt;
    return it->second;
  }
  void indexExpr(const Expr &expr);

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  SourceIndex &index;
  SourceSyntax syntax;
  StringRef buffer;
  llvm::StringMap<size_t> byName;
  llvm::StringMap<std::string> declaredTypes;
  llvm::DenseMap<std::pair<unsigned, unsigned>, std::string> typesByPosition;
};
} // namespace

void Indexer::indexExpr(const Expr &expr) {
  if (expr.kind == ExprKind::Variable)
    addReference(expr.name, expr.loc);
  if (std::optional<std::string> type = typeAt(expr.loc))
    addType(expr.loc, *type);
  else if (expr.kind == ExprKind::Variable && declaredTypes.count(expr.name))
    addType(expr.loc, declaredTypes.lookup(expr.name));
  else if (expr.kind == ExprKind::Literal)
    addType(expr.loc, "[]");
  for (const Expr *operand : {expr.lhs, expr.rhs})
    if (operand)
      indexExpr(*operand);
  for (const Expr *element : expr.elements)
    indexExpr(*element);
}

void Indexer::run(const Program &program) {
  // The types the program's statements compute, by source position.
  ImportOptions options;
  options.syntax = syntax;
  if (OwningOpRef<ModuleOp> module = importSource(sourceMgr, context, options))
    module->walk([&](Operation *op) {
      auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
      if (!loc || op->getNumResults() != 1 ||
          !op->getParentOfType<tl::AssignOp>())
        return;
      if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
        typesByPosition[{loc.getLine(), loc.getColumn()}] =
            tl::formatType(type);
    });

  for (const SizeDecl &size : program.sizes) {
    byName[size.name] =
        addSymbol(SourceIndex::SymbolKind::Size, size.name, size.loc, "size");
    addType(size.loc, "size");
  }
  for (const TypeAliasDecl &alias : program.aliases) {
    std::string type = formatShape(alias.shape, context);
    byName[alias.name] = addSymbol(SourceIndex::SymbolKind::TypeAlias,
                                   alias.name, alias.loc, type);
    addType(alias.loc, type);
  }
  for (const TypeNameUse &use : program.typeNameUses) {
    addReference(use.name, use.loc);
    if (auto it = byName.find(use.name); it != byName.end())
      addType(use.loc, index.symbols[it->second].detail);
  }
  for (const Decl &decl : program.decls) {
    std::string type = formatShape(decl.shape, context);
    std::string qualifiers = std::string(decl.input ? "input " : "") +
                             (decl.output ? "output " : "");
    // A name declared twice is an error; the first declaration counts.
    size_t symbol = addSymbol(SourceIndex::SymbolKind::Variable, decl.name,
                              decl.loc, qualifiers + type);
    byName.try_emplace(decl.name, symbol);
    declaredTypes.try_emplace(decl.name, type);
    addType(decl.loc, type);
  }
  if (program.batch)
    for (const auto &[name, loc] : program.batch->vars)
      addReference(name, loc);
  for (const Stmt &stmt : program.stmts) {
    std::optional<std::string> type =
        stmt.value ? typeAt(stmt.value->loc) : std::nullopt;
    addSymbol(SourceIndex::SymbolKind::Statement, stmt.target, stmt.loc,
              type.value_or(""));
    addReference(stmt.target, stmt.loc);
    if (declaredTypes.count(stmt.target))
      addType(stmt.loc, declaredTypes.lookup(stmt.target));
    if (stmt.value)
      indexExpr(*stmt.value);
  }
}

SourceIndex tensorlang::indexSource(const llvm::SourceMgr &sourceMgr,
                                    MLIRContext *context, SourceSyntax syntax) {
  SourceIndex index;
  // The diagnostics are importSource's to report, once.
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  context->loadDialect<tl::TLDialect>();
  std::optional<Program> program = parseProgram(sourceMgr, context, syntax);
  if (!program)
    return index;
  Indexer(sourceMgr, context, index, syntax).run(*program);
  return index;
}
