//===- Export.cpp - Print tl programs as source text ----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Frontend/Export.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "Parser.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace tensorlang;

namespace {
/// Binding strength of an expression form, as in the parser.
enum Precedence {
  Additive = 1,
  Multiplicative = 2,
  Negation = 3,
  Tensor = 4,
  Primary = 5
};

class Exporter {
public:
  explicit Exporter(llvm::raw_ostream &os) : os(os) {}
  LogicalResult exportProgram(tl::ProgramOp program);

private:
  /// Writes `value` as an expression; parenthesized when it binds less
  /// tightly than `minPrecedence` requires.
  LogicalResult print(Value value, int minPrecedence, unsigned depth);
  void printPairs(ArrayRef<int64_t> pairs);

  llvm::raw_ostream &os;
  /// Shared subexpressions are printed once per use; this bounds the text
  /// (a chain of n shared values would otherwise print 2^n operators).
  uint64_t budget = 50'000'000;
};
} // namespace

static int precedenceOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, int>(op)
      .Case<tl::AddOp, tl::SubOp>([](auto) { return Additive; })
      .Case<tl::MulOp, tl::DivOp>([](auto) { return Multiplicative; })
      .Case<tl::NegOp>([](auto) { return Negation; })
      .Case([](tl::ConstantOp constant) {
        return constant.getValue().isNegative() ? Negation : Primary;
      })
      .Case<tl::OuterOp, tl::ContractOp, tl::TransposeOp>(
          [](auto) { return Tensor; })
      .Default([](Operation *) { return Primary; });
}

/// The shortest decimal text that reads back as exactly `value`; whole
/// numbers below 10^15 without an exponent (`10`, not `1e+01`).
static std::string formatLiteral(double value) {
  char text[32];
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    snprintf(text, sizeof(text), "%.0f", value);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  return text;
}

void Exporter::printPairs(ArrayRef<int64_t> pairs) {
  auto printPair = [&](size_t i) {
    os << '[' << pairs[i] + 1 << ' ' << pairs[i + 1] + 1 << ']';
  };
  if (pairs.size() == 2)
    return printPair(0);
  os << '[';
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    if (i)
      os << ' ';
    printPair(i);
  }
  os << ']';
}

LogicalResult Exporter::print(Value value, int minPrecedence, unsigned depth) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return emitError(value.getLoc(),
                     "cannot export a value that no tl operation defines");
  if (depth > frontend::kMaxExprDepth || budget-- == 0)
    return op->emitError("expression is too large to export as source text");

  int precedence = precedenceOf(op);
  bool parenthesize = precedence < minPrecedence;
  if (parenthesize)
    os << '(';
  // Left-associative: the left operand may bind as loosely as the operator,
  // the right one must bind more tightly.
  auto binary = [&](Value lhs, Value rhs, StringRef symbol) {
    if (failed(print(lhs, precedence, depth + 1)))
      return failure();
    os << ' ' << symbol << ' ';
    return print(rhs, precedence + 1, depth + 1);
  };
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](tl::UseOp use) {
            os << use.getVar();
            return success();
          })
          .Case([&](tl::OuterOp outer) {
            return binary(outer.getLhs(), outer.getRhs(), "#");
          })
          .Case([&](tl::AddOp add) {
            return binary(add.getLhs(), add.getRhs(), "+");
          })
          .Case([&](tl::SubOp sub) {
            return binary(sub.getLhs(), sub.getRhs(), "-");
          })
          .Case([&](tl::MulOp mul) {
            return binary(mul.getLhs(), mul.getRhs(), "*");
          })
          .Case([&](tl::DivOp div) {
            return binary(div.getLhs(), div.getRhs(), "/");
          })
          .Case<tl::MinOp, tl::MaxOp>([&](auto minOrMax) {
            os << tl::getArithSymbol(*tl::getArithKind(op)) << '(';
            if (failed(print(minOrMax.getLhs(), Additive, depth + 1)))
              return failure();
            os << ", ";
            if (failed(print(minOrMax.getRhs(), Additive, depth + 1)))
              return failure();
            os << ')';
            return success();
          })
          .Case([&](tl::NegOp neg) {
            // `- -x` would read back, but `-(-x)` is clearer.
            os << '-';
            return print(neg.getOperand(), Negation + 1, depth + 1);
          })
          .Case<tl::SqrtOp, tl::AbsOp, tl::ExpOp, tl::LogOp>([&](auto unary) {
            os << tl::getUnarySymbol(*tl::getUnaryKind(op)) << '(';
            if (failed(print(unary.getOperand(), Additive, depth + 1)))
              return failure();
            os << ')';
            return success();
          })
          .Case([&](tl::StackOp stack) {
            os << '[';
            for (auto [index, element] : llvm::enumerate(stack.getElements())) {
              if (index)
                os << ", ";
              if (failed(print(element, Additive, depth + 1)))
                return failure();
            }
            os << ']';
            return success();
          })
          .Case([&](tl::ConstantOp constant) {
            os << formatLiteral(constant.getValue().convertToDouble());
            return success();
          })
          .Case<tl::ContractOp, tl::TransposeOp>([&](auto indexed) {
            if (failed(print(indexed.getOperand(), precedence, depth + 1)))
              return failure();
            os << (isa<tl::ContractOp>(op) ? " . " : " ^ ");
            printPairs(indexed.getPairs());
            return success();
          })
          .Default([&](Operation *other) {
            return other->emitError()
                   << "'" << other->getName()
                   << "' has no equivalent in the source language";
          });
  if (parenthesize)
    os << ')';
  return result;
}

LogicalResult Exporter::exportProgram(tl::ProgramOp program) {
  for (tl::SizeOp size : program.getSizes())
    os << "size " << size.getSymName() << '\n';
  for (tl::VarOp var : program.getVars()) {
    os << "var ";
    if (var.getInput())
      os << "input ";
    if (var.getOutput())
      os << "output ";
    os << var.getSymName() << " : " << tl::formatType(var.getValueType())
       << '\n';
  }
  if (std::optional<uint64_t> batch = program.getBatch()) {
    os << "batch [";
    llvm::interleave(
        llvm::make_filter_range(program.getVars(),
                                [](tl::VarOp var) { return var.getBatched(); }),
        os, [&](tl::VarOp var) { os << var.getSymName(); }, " ");
    os << "] " << *batch << (program.getBatchLast() ? " last" : "") << '\n';
  }
  bool first = true;
  for (tl::AssignOp assign : program.getStatements()) {
    if (first)
      os << '\n';
    first = false;
    os << assign.getTarget() << " = ";
    if (failed(print(assign.getValue(), Additive, 0)))
      return failure();
    os << '\n';
  }
  return success();
}

LogicalResult tensorlang::exportSource(Operation *op, llvm::raw_ostream &os) {
  tl::ProgramOp program = dyn_cast<tl::ProgramOp>(op);
  if (!program) {
    SmallVector<tl::ProgramOp> programs;
    op->walk([&](tl::ProgramOp nested) { programs.push_back(nested); });
    if (programs.size() != 1)
      return op->emitError() << "expected exactly one tl.program to export, "
                                "found "
                             << programs.size();
    program = programs.front();
  }
  if (program.getElementType().isF32())
    os << "// element type: f32 (import with --element-type=f32)\n";
  return Exporter(os).exportProgram(program);
}
