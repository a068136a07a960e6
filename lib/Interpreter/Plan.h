//===- Plan.h - How the interpreter evaluates a statement -------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The interpreter binds indices with its own walk on purpose, not with the
// one the linalg lowering and the contraction optimizer use: it is the
// oracle compiled code is tested against, so it shares no index logic with
// that code.
//
// A statement's right-hand side becomes a tree of plan nodes over integer
// loop variables. Every dimension of every subexpression is bound to a
// variable: the result's dimensions to its own, a contracted pair to a fresh
// one. Transpositions only rebind variables, so they leave no node; an
// element of a stored tensor is a Load at an affine offset in the variables.
// Evaluating the root at every assignment of its variables is the report's
// `eval`, applied to every element of the result.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_INTERPRETER_PLAN_H
#define TENSORLANG_LIB_INTERPRETER_PLAN_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Support/HostTensor.h"

#include <deque>
#include <string>
#include <vector>

namespace tensorlang::interp {

struct Term {
  int var;
  int64_t stride;
};

struct Loop {
  int var;
  int64_t extent;
};

struct PlanNode {
  enum class Kind {
    Load,
    Constant,
    Product,
    Contract,
    Arith,
    Unary,
    Mask,
    Stack
  };
  Kind kind;
  // Constant: the literal's value (rounded to the element type when read).
  double value = 0;
  // Load: element `sum(stride * vars[var])` of buffer `buffer`.
  int buffer = -1;
  llvm::SmallVector<Term, 4> terms;
  // Product: lhs * rhs. Arith: lhs op rhs. Unary: op lhs. Contract: lhs is
  // the summand. Mask: lhs where every variable in `loops` is below its
  // extent, else 0.
  PlanNode *lhs = nullptr;
  PlanNode *rhs = nullptr;
  tl::ArithKind arith = tl::ArithKind::Add;
  tl::UnaryKind unary = tl::UnaryKind::Neg;
  // Stack: operand i where variable `stackVar` is i; 0 beyond them (a
  // padded stack).
  int stackVar = -1;
  llvm::SmallVector<PlanNode *, 4> operands;
  // Contract: the summation loops, innermost first. Mask: the bounds.
  llvm::SmallVector<Loop, 2> loops;
  // Contract: when the summand is a left-deep product of loads
  // ((l0 * l1) * l2) ..., those loads, for the innermost loop's fast path.
  llvm::SmallVector<PlanNode *, 4> chain;
};

/// Fills one buffer: evaluates `root` at every element of `shape`, binding
/// dimension d to `outputVars[d]`.
struct Kernel {
  int outputBuffer;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int, 4> outputVars;
  PlanNode *root;
};

struct StatementPlan {
  /// The assigned variable's buffer index.
  int target;
  int numVars = 0;
  /// Temporaries first, in the order they are needed; the last kernel
  /// computes the statement's value.
  std::vector<Kernel> kernels;
  /// Shapes of the statement's temporaries: buffer numProgramVars + i.
  std::vector<llvm::SmallVector<int64_t, 4>> temporaries;
  double work = 0;
};

struct ProgramPlan {
  ElementKind kind;
  /// Buffer i < variables.size() is the variable variables[i].
  std::vector<std::string> variables;
  std::vector<llvm::SmallVector<int64_t, 4>> variableShapes;
  std::vector<StatementPlan> statements;
  double work = 0;
  std::deque<PlanNode> nodes;
};

/// Plans every statement of `program`; reports unsupported IR on its ops.
mlir::FailureOr<ProgramPlan> planProgram(tl::ProgramOp program);

} // namespace tensorlang::interp

#endif // TENSORLANG_LIB_INTERPRETER_PLAN_H
