//===- Plan.cpp - How the interpreter evaluates a statement ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::interp;

/// The plan of one statement may not grow beyond this many nodes. A tree
/// never comes near it; a DAG of shared values (after CSE) expands to a tree
/// and could otherwise grow exponentially.
static constexpr size_t kMaxNodesPerStatement = 1'000'000;

static llvm::ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static double numElements(Value value) {
  double count = 1;
  for (int64_t extent : shapeOf(value))
    count *= double(extent);
  return count;
}

/// Collects the loads of a left-deep product chain ((l0 * l1) * l2) ...
static bool collectChain(PlanNode *node,
                         llvm::SmallVectorImpl<PlanNode *> &chain) {
  if (node->kind == PlanNode::Kind::Load) {
    chain.push_back(node);
    return true;
  }
  if (node->kind != PlanNode::Kind::Product ||
      node->rhs->kind != PlanNode::Kind::Load || !collectChain(node->lhs, chain))
    return false;
  chain.push_back(node->rhs);
  return true;
}

namespace {
class StatementPlanner {
public:
  StatementPlanner(ProgramPlan &plan, StatementPlan &statement,
                   const llvm::StringMap<int> &variableIndex)
      : plan(plan), statement(statement), variableIndex(variableIndex) {}

  /// Plans a kernel computing `value` into a new temporary buffer.
  FailureOr<int> materialize(Value value);

private:
  PlanNode *newNode(PlanNode::Kind kind) {
    ++nodeCount;
    plan.nodes.emplace_back();
    plan.nodes.back().kind = kind;
    return &plan.nodes.back();
  }
  int newVar() { return statement.numVars++; }
  PlanNode *load(int buffer, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int> dimVars);
  /// Plans `value` with its dimensions bound to `dimVars`; `requests` is how
  /// many of its elements the consumers ask for in total.
  FailureOr<PlanNode *> build(Value value, llvm::ArrayRef<int> dimVars,
                              double requests, bool isKernelRoot = false);

  ProgramPlan &plan;
  StatementPlan &statement;
  const llvm::StringMap<int> &variableIndex;
  llvm::DenseMap<Value, int> materialized;
  size_t nodeCount = 0;
};
} // namespace

PlanNode *StatementPlanner::load(int buffer, llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<int> dimVars) {
  PlanNode *node = newNode(PlanNode::Kind::Load);
  node->buffer = buffer;
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    auto *same = llvm::find_if(node->terms,
                               [&](const Term &t) { return t.var == dimVars[d]; });
    if (same != node->terms.end())
      same->stride += stride; // a diagonal: both dimensions on one variable
    else
      node->terms.push_back({dimVars[d], stride});
    stride *= shape[d];
  }
  return node;
}

FailureOr<int> StatementPlanner::materialize(Value value) {
  if (auto it = materialized.find(value); it != materialized.end())
    return it->second;
  llvm::SmallVector<int, 4> vars;
  for (size_t d = 0; d < shapeOf(value).size(); ++d)
    vars.push_back(newVar());
  FailureOr<PlanNode *> root =
      build(value, vars, numElements(value), /*isKernelRoot=*/true);
  if (failed(root))
    return failure();
  int buffer = int(plan.variables.size() + statement.temporaries.size());
  statement.temporaries.emplace_back(shapeOf(value));
  statement.kernels.push_back(
      Kernel{buffer, llvm::SmallVector<int64_t, 4>(shapeOf(value)), vars, *root});
  materialized[value] = buffer;
  return buffer;
}

FailureOr<PlanNode *> StatementPlanner::build(Value value,
                                              llvm::ArrayRef<int> dimVars,
                                              double requests,
                                              bool isKernelRoot) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return emitError(value.getLoc(),
                     "the interpreter cannot evaluate a block argument");
  if (nodeCount > kMaxNodesPerStatement)
    return op->emitError("expression is too large for the reference "
                         "interpreter (shared subexpressions expand to more "
                         "than ")
           << kMaxNodesPerStatement << " nodes)";

  if (auto use = dyn_cast<tl::UseOp>(op)) {
    statement.work += requests;
    return load(variableIndex.lookup(use.getVar()), shapeOf(value), dimVars);
  }

  // Cache a sum or an element-wise result whose elements are asked for more
  // often than it has elements. Outer products and transpositions are never
  // cached: an element of either costs at most one multiplication, and
  // building an outer product is exactly what the evaluation must avoid.
  if (!isKernelRoot &&
      !isa<tl::TransposeOp, tl::OuterOp, tl::ZeroPaddingOp, tl::ConstantOp,
           tl::StackOp>(op) &&
      requests > numElements(value)) {
    FailureOr<int> buffer = materialize(value);
    if (failed(buffer))
      return failure();
    statement.work += requests;
    return load(*buffer, shapeOf(value), dimVars);
  }

  if (auto transpose = dyn_cast<tl::TransposeOp>(op)) {
    // Result dimension i is operand dimension permutation[i].
    llvm::ArrayRef<int64_t> pairs = transpose.getPairs();
    llvm::SmallVector<int64_t, 4> permutation;
    for (size_t i = 0; i < dimVars.size(); ++i)
      permutation.push_back(i);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2)
      std::swap(permutation[pairs[i]], permutation[pairs[i + 1]]);
    llvm::SmallVector<int, 4> operandVars(dimVars.size());
    for (size_t i = 0; i < dimVars.size(); ++i)
      operandVars[permutation[i]] = dimVars[i];
    return build(transpose.getOperand(), operandVars, requests);
  }

  statement.work += requests;
  if (auto zero = dyn_cast<tl::ZeroPaddingOp>(op)) {
    FailureOr<PlanNode *> operand = build(zero.getOperand(), dimVars, requests);
    if (failed(operand))
      return failure();
    PlanNode *node = newNode(PlanNode::Kind::Mask);
    node->lhs = *operand;
    for (auto [var, real, extent] :
         llvm::zip(dimVars, zero.getRealShape(), shapeOf(value)))
      if (real < extent)
        node->loops.push_back({var, real});
    return node;
  }
  if (auto outer = dyn_cast<tl::OuterOp>(op)) {
    size_t lhsRank = shapeOf(outer.getLhs()).size();
    FailureOr<PlanNode *> lhs =
        build(outer.getLhs(), dimVars.take_front(lhsRank), requests);
    if (failed(lhs))
      return failure();
    FailureOr<PlanNode *> rhs =
        build(outer.getRhs(), dimVars.drop_front(lhsRank), requests);
    if (failed(rhs))
      return failure();
    PlanNode *node = newNode(PlanNode::Kind::Product);
    node->lhs = *lhs;
    node->rhs = *rhs;
    return node;
  }

  if (auto contract = dyn_cast<tl::ContractOp>(op)) {
    llvm::ArrayRef<int64_t> shape = shapeOf(contract.getOperand());
    llvm::ArrayRef<int64_t> pairs = contract.getPairs();
    llvm::SmallVector<int, 8> operandVars(shape.size(), -1);
    PlanNode *node = newNode(PlanNode::Kind::Contract);
    double summands = 1;
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      int var = newVar();
      operandVars[pairs[i]] = operandVars[pairs[i + 1]] = var;
      node->loops.push_back({var, shape[pairs[i]]});
      summands *= double(shape[pairs[i]]);
    }
    size_t next = 0;
    for (int &var : operandVars)
      if (var < 0)
        var = dimVars[next++];
    FailureOr<PlanNode *> summand =
        build(contract.getOperand(), operandVars, requests * summands);
    if (failed(summand))
      return failure();
    node->lhs = *summand;
    if (!collectChain(*summand, node->chain))
      node->chain.clear();
    return node;
  }

  if (auto stack = dyn_cast<tl::StackOp>(op)) {
    PlanNode *node = newNode(PlanNode::Kind::Stack);
    node->stackVar = dimVars.front();
    for (Value element : stack.getElements()) {
      FailureOr<PlanNode *> operand =
          build(element, dimVars.drop_front(), requests);
      if (failed(operand))
        return failure();
      node->operands.push_back(*operand);
    }
    return node;
  }
  if (auto constant = dyn_cast<tl::ConstantOp>(op)) {
    PlanNode *node = newNode(PlanNode::Kind::Constant);
    node->value = constant.getValue().convertToDouble();
    return node;
  }
  if (std::optional<tl::UnaryKind> unary = tl::getUnaryKind(op)) {
    FailureOr<PlanNode *> operand = build(op->getOperand(0), dimVars, requests);
    if (failed(operand))
      return failure();
    PlanNode *node = newNode(PlanNode::Kind::Unary);
    node->unary = *unary;
    node->lhs = *operand;
    return node;
  }
  std::optional<tl::ArithKind> arith = tl::getArithKind(op);
  if (!arith)
    return op->emitError() << "the reference interpreter does not support '"
                           << op->getName() << "'";
  Value lhsValue = op->getOperand(0), rhsValue = op->getOperand(1);
  // A scalar operand (rule t-scalar) has no dimensions to bind.
  auto varsOf = [&](Value operand) {
    return shapeOf(operand).empty() ? llvm::ArrayRef<int>() : dimVars;
  };
  FailureOr<PlanNode *> lhs = build(lhsValue, varsOf(lhsValue), requests);
  if (failed(lhs))
    return failure();
  FailureOr<PlanNode *> rhs = build(rhsValue, varsOf(rhsValue), requests);
  if (failed(rhs))
    return failure();
  PlanNode *node = newNode(PlanNode::Kind::Arith);
  node->arith = *arith;
  node->lhs = *lhs;
  node->rhs = *rhs;
  return node;
}

FailureOr<ProgramPlan> interp::planProgram(tl::ProgramOp program) {
  // The meaning of a program with sizes is that of the program bound to
  // their values, which the caller knows (the program API binds them from
  // the inputs' shapes).
  if (!program.getSizes().empty())
    return program.emitError(
        "the interpreter runs a program with sizes bound to their values "
        "(tl-bind-sizes; tl-run and the program API bind them from the "
        "inputs' shapes)");
  ProgramPlan plan;
  plan.kind = program.getElementType().isF32() ? ElementKind::F32
                                               : ElementKind::F64;
  llvm::StringMap<int> variableIndex;
  for (tl::VarOp var : program.getVars()) {
    variableIndex[var.getSymName()] = int(plan.variables.size());
    plan.variables.push_back(var.getSymName().str());
    plan.variableShapes.emplace_back(var.getType().getShape());
  }
  for (tl::AssignOp assign : program.getStatements()) {
    plan.statements.emplace_back();
    StatementPlan &statement = plan.statements.back();
    statement.target = variableIndex.lookup(assign.getTarget());
    if (failed(StatementPlanner(plan, statement, variableIndex)
                   .materialize(assign.getValue())))
      return failure();
    plan.work += statement.work;
  }
  return plan;
}
