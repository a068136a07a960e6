//===- MLIRGen.cpp - Import source programs into the tl dialect -----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Builds the tl IR of a parsed program, applying the report's typing rules
// (through TypeRules.h, shared with the op verifiers) as it goes, so that
// errors point at the source rather than at the IR.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Frontend/MLIRGen.h"
#include "Parser.h"
#include "tensorlang/Dialect/TL/Analysis/Definitions.h"
#include "tensorlang/Dialect/TL/Analysis/UnusedValues.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::frontend;

namespace {
class MLIRGen {
public:
  MLIRGen(const llvm::SourceMgr &sourceMgr, MLIRContext *context,
          const ImportOptions &options)
      : sourceMgr(sourceMgr), context(context), builder(context),
        options(options) {}

  OwningOpRef<ModuleOp> generate(const Program &program);

private:
  /// How messages number dimensions: as the source does.
  tl::IndexBase indexBase() const {
    return options.syntax == SourceSyntax::CFDlang ? tl::IndexBase::Zero
                                                   : tl::IndexBase::One;
  }
  Location loc(llvm::SMLoc pos) {
    return getLocation(context, sourceMgr, pos);
  }
  RankedTensorType tensorType(const Shape &shape) {
    Type element = options.elementType == ElementKind::F32
                       ? Type(builder.getF32Type())
                       : Type(builder.getF64Type());
    return tl::getTensorType(getExtents(shape, context), element);
  }
  /// An error at `location` with a note at the declaration of each size
  /// that `types` name, since the message compares them.
  InFlightDiagnostic emitErrorNamingSizes(Location location,
                                          ArrayRef<RankedTensorType> types);
  LogicalResult declare(const Decl &decl);
  /// Makes `programOp` a batch program and its listed variables batched.
  LogicalResult declareBatch(tl::ProgramOp programOp, const Program &program,
                             const BatchDecl &batch);
  LogicalResult assign(const Stmt &stmt);
  /// Emits the ops computing `expr` at the builder's insertion point.
  FailureOr<Value> generate(const Expr &expr);
  /// A tl.constant of `value`, written as the literal `expr`.
  FailureOr<Value> literal(const Expr &expr, double value);

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  OpBuilder builder;
  const ImportOptions &options;
  llvm::StringMap<tl::VarOp> vars;
  llvm::StringMap<tl::SizeOp> sizes;
};
} // namespace

InFlightDiagnostic
MLIRGen::emitErrorNamingSizes(Location location,
                              ArrayRef<RankedTensorType> types) {
  InFlightDiagnostic diag = emitError(location);
  SmallVector<StringRef> named;
  for (RankedTensorType type : types)
    for (const tl::Extent &extent : tl::getExtents(type)) {
      if (!extent.isSized() ||
          llvm::is_contained(named, extent.size.getValue()))
        continue;
      named.push_back(extent.size.getValue());
      if (tl::SizeOp size = sizes.lookup(extent.size.getValue()))
        diag.attachNote(size.getLoc())
            << "size '" << extent.size.getValue() << "' declared here";
    }
  return diag;
}

LogicalResult MLIRGen::declare(const Decl &decl) {
  if (auto it = vars.find(decl.name); it != vars.end()) {
    InFlightDiagnostic diag = emitError(loc(decl.loc))
                              << "redeclaration of variable '" << decl.name
                              << "' (rule s-var)";
    diag.attachNote(it->second.getLoc()) << "previous declaration is here";
    return failure();
  }
  RankedTensorType type = tensorType(decl.shape);
  if (failed(tl::verifyTensorLimits(
          type, [&] { return emitError(loc(decl.typeLoc)); })))
    return failure();
  auto var = tl::VarOp::create(builder, loc(decl.loc), decl.name, type,
                               decl.input, decl.output, /*batched=*/false,
                               /*real_shape=*/nullptr);
  vars[decl.name] = var;
  return success();
}

/// Appends the variables `expr` reads to `names`.
static void collectReads(const Expr &expr, llvm::StringSet<> &names) {
  SmallVector<const Expr *> pending = {&expr};
  while (!pending.empty()) {
    const Expr *node = pending.pop_back_val();
    if (node->kind == ExprKind::Variable)
      names.insert(node->name);
    for (const Expr *child : {node->lhs, node->rhs})
      if (child)
        pending.push_back(child);
    llvm::append_range(pending, node->elements);
  }
}

/// CFDlang declares the variables it assigns inside the element loop (its
/// temporaries), so one that is assigned a value read from a listed
/// variable holds one value per element: here it is batched too.
static SmallVector<std::pair<StringRef, llvm::SMLoc>>
withCFDlangTemporaries(const Program &program, const BatchDecl &batch) {
  SmallVector<std::pair<StringRef, llvm::SMLoc>> vars(batch.vars);
  llvm::StringSet<> batched;
  for (auto &[name, nameLoc] : vars)
    batched.insert(name);
  SmallVector<llvm::StringSet<>> reads(program.stmts.size());
  for (auto [stmt, names] : llvm::zip(program.stmts, reads))
    collectReads(*stmt.value, names);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [stmt, names] : llvm::zip(program.stmts, reads)) {
      if (batched.contains(stmt.target) ||
          llvm::none_of(names.keys(),
                        [&](StringRef name) { return batched.contains(name); }))
        continue;
      // A statement about an undeclared target is reported later.
      StringRef target = stmt.target;
      auto decl = llvm::find_if(
          program.decls, [&](const Decl &decl) { return decl.name == target; });
      if (decl == program.decls.end())
        continue;
      batched.insert(stmt.target);
      vars.push_back({stmt.target, decl->loc});
      changed = true;
    }
  }
  return vars;
}

LogicalResult MLIRGen::declareBatch(tl::ProgramOp programOp,
                                    const Program &program,
                                    const BatchDecl &batch) {
  programOp.setBatch(batch.extent);
  programOp.setBatchLast(batch.last);
  SmallVector<std::pair<StringRef, llvm::SMLoc>> listed =
      options.syntax == SourceSyntax::CFDlang
          ? withCFDlangTemporaries(program, batch)
          : batch.vars;
  for (auto &listedVar : listed) {
    StringRef name = listedVar.first;
    llvm::SMLoc nameLoc = listedVar.second;
    tl::VarOp var = vars.lookup(name);
    RankedTensorType batched = programOp.getStoredType(var.getType());
    // The stored tensor is the one that counts against the limits.
    if (failed(tl::verifyTensorLimits(batched,
                                      [&] { return emitError(loc(nameLoc)); })))
      return failure();
    var.setTensorType(batched);
    var.setBatched(true);
  }
  return success();
}

FailureOr<Value> MLIRGen::generate(const Expr &expr) {
  Location location = loc(expr.loc);
  auto emitHere = [&] { return emitError(location); };

  if (expr.kind == ExprKind::Variable) {
    auto it = vars.find(expr.name);
    if (it == vars.end()) {
      if (tl::SizeOp size = sizes.lookup(expr.name)) {
        InFlightDiagnostic diag = emitHere()
                                  << "'" << expr.name
                                  << "' is a size, which only extents of "
                                     "types may name, not a value (rule t-var)";
        diag.attachNote(size.getLoc()) << "size declared here";
        return failure();
      }
      emitHere() << "use of undeclared variable '" << expr.name
                 << "' (rule t-var)";
      return failure();
    }
    return tl::UseOp::create(builder, location, it->second.getValueType(),
                             expr.name)
        .getResult();
  }

  if (expr.kind == ExprKind::Literal)
    return literal(expr, expr.value);
  if (expr.kind == ExprKind::Stack) {
    SmallVector<Value> elements;
    SmallVector<RankedTensorType> types;
    for (const Expr *element : expr.elements) {
      FailureOr<Value> value = generate(*element);
      if (failed(value))
        return failure();
      elements.push_back(*value);
      types.push_back(cast<RankedTensorType>(value->getType()));
    }
    FailureOr<RankedTensorType> type =
        tl::inferStackType(types, std::nullopt, [&] {
          return emitErrorNamingSizes(location, types);
        });
    if (failed(type))
      return failure();
    return tl::StackOp::create(builder, location, *type, elements,
                               /*padded_extent=*/nullptr)
        .getResult();
  }
  // `-2` is the literal -2, not the negation of 2.
  if (expr.kind == ExprKind::Unary && expr.unary == tl::UnaryKind::Neg &&
      expr.lhs->kind == ExprKind::Literal)
    return literal(*expr.lhs, -expr.lhs->value);

  FailureOr<Value> lhs = generate(*expr.lhs);
  if (failed(lhs))
    return failure();
  auto lhsType = cast<RankedTensorType>(lhs->getType());
  if (expr.kind == ExprKind::Unary)
    return tl::createUnary(builder, location, expr.unary, *lhs);
  auto emitAboutLhs = [&] { return emitErrorNamingSizes(location, {lhsType}); };
  if (expr.kind == ExprKind::Contract || expr.kind == ExprKind::Transpose) {
    bool contract = expr.kind == ExprKind::Contract;
    FailureOr<RankedTensorType> type =
        contract ? tl::inferContractionType(lhsType, expr.pairs, indexBase(),
                                            emitAboutLhs)
                 : tl::inferTranspositionType(lhsType, expr.pairs, indexBase(),
                                              emitHere);
    if (failed(type))
      return failure();
    if (contract)
      return tl::ContractOp::create(builder, location, *type, *lhs,
                                    expr.pairs)
          .getResult();
    return tl::TransposeOp::create(builder, location, *type, *lhs, expr.pairs)
        .getResult();
  }

  FailureOr<Value> rhs = generate(*expr.rhs);
  if (failed(rhs))
    return failure();
  auto rhsType = cast<RankedTensorType>(rhs->getType());
  auto emitAboutOperands = [&] {
    return emitErrorNamingSizes(location, {lhsType, rhsType});
  };
  if (expr.kind == ExprKind::MatrixProduct) {
    // CFDlang's `E . F`: the last index of E with the first of F.
    if (lhsType.getRank() == 0 || rhsType.getRank() == 0) {
      emitHere() << "'.' without an index list contracts the last index of "
                    "its left operand with the first of its right one, but "
                 << (lhsType.getRank() == 0 ? "the left" : "the right")
                 << " operand is a scalar";
      return failure();
    }
    FailureOr<RankedTensorType> outerType =
        tl::inferOuterProductType(lhsType, rhsType, emitHere);
    if (failed(outerType))
      return failure();
    int64_t last = lhsType.getRank() - 1;
    SmallVector<int64_t> pairs{last, last + 1};
    FailureOr<RankedTensorType> type = tl::inferContractionType(
        *outerType, pairs, indexBase(), emitAboutOperands);
    if (failed(type))
      return failure();
    Value outer =
        tl::OuterOp::create(builder, location, *outerType, *lhs, *rhs);
    return tl::ContractOp::create(builder, location, *type, outer, pairs)
        .getResult();
  }
  if (expr.kind == ExprKind::Outer) {
    FailureOr<RankedTensorType> type =
        tl::inferOuterProductType(lhsType, rhsType, emitHere);
    if (failed(type))
      return failure();
    return tl::OuterOp::create(builder, location, *type, *lhs, *rhs)
        .getResult();
  }

  if (failed(tl::inferArithmeticType(expr.arith, lhsType, rhsType,
                                     emitAboutOperands)))
    return failure();
  return tl::createArith(builder, location, expr.arith, *lhs, *rhs);
}

FailureOr<Value> MLIRGen::literal(const Expr &expr, double value) {
  RankedTensorType type = tensorType(Shape{});
  if (failed(tl::checkLiteral(value, cast<FloatType>(type.getElementType()),
                              expr.name,
                              [&] { return emitError(loc(expr.loc)); })))
    return failure();
  return tl::ConstantOp::create(builder, loc(expr.loc), type,
                                builder.getF64FloatAttr(value))
      .getResult();
}

LogicalResult MLIRGen::assign(const Stmt &stmt) {
  auto it = vars.find(stmt.target);
  if (it == vars.end()) {
    emitError(loc(stmt.loc)) << "assignment to undeclared variable '"
                             << stmt.target << "' (rule ok-stmt)";
    return failure();
  }
  tl::VarOp var = it->second;
  auto assign =
      tl::AssignOp::create(builder, loc(stmt.loc), stmt.target);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&assign.getBodyRegion().emplaceBlock());
  FailureOr<Value> value = generate(*stmt.value);
  if (failed(value))
    return failure();
  auto valueType = cast<RankedTensorType>(value->getType());
  if (valueType != var.getValueType()) {
    InFlightDiagnostic diag =
        emitErrorNamingSizes(loc(stmt.loc), {valueType, var.getValueType()})
        << "cannot assign a value of type " << tl::formatType(valueType)
        << " to variable '" << stmt.target << "' of type "
        << tl::formatType(var.getValueType())
        << (var.getBatched() ? " (one element of the batch)" : "")
        << " (rule ok-stmt)";
    diag.attachNote(var.getLoc()) << "'" << stmt.target << "' declared here";
    return failure();
  }
  tl::YieldOp::create(builder, value->getLoc(), *value);
  return success();
}

OwningOpRef<ModuleOp> MLIRGen::generate(const Program &program) {
  Location fileLoc = loc(llvm::SMLoc::getFromPointer(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
          ->getBufferStart()));
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  auto programOp = tl::ProgramOp::create(builder, fileLoc,
                                         options.programName);
  builder.setInsertionPointToEnd(programOp.getBody());

  // Report every erroneous declaration and statement, not only the first;
  // each statement is checked on its own.
  bool ok = true;
  for (const SizeDecl &size : program.sizes)
    sizes[size.name] = tl::SizeOp::create(builder, loc(size.loc), size.name);
  for (const Decl &decl : program.decls)
    ok &= succeeded(declare(decl));
  if (!ok)
    return nullptr;
  if (program.batch && failed(declareBatch(programOp, program, *program.batch)))
    return nullptr;
  for (const Stmt &stmt : program.stmts)
    ok &= succeeded(assign(stmt));
  if (!ok)
    return nullptr;
  if (failed(verify(*module)))
    return nullptr;
  // With qualifiers, reading a variable that is neither an input nor
  // assigned earlier is an error (rules d-var, d-in-var).
  if (failed(tl::checkDefinitions(programOp, /*warnWithoutQualifiers=*/false)))
    return nullptr;
  if (failed(tl::checkUnusedValues(programOp, options.warningsAreErrors)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> tensorlang::importSource(const llvm::SourceMgr &sourceMgr,
                                               MLIRContext *context,
                                               const ImportOptions &options) {
  context->loadDialect<tl::TLDialect>();
  std::optional<Program> program =
      parseProgram(sourceMgr, context, options.syntax);
  if (!program)
    return nullptr;
  return MLIRGen(sourceMgr, context, options).generate(*program);
}
