//===- Distribute.cpp - Split a size of a program over processes ----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A process runs the program with the distributed size equal to the number
// of indices of its block. What that computes is the statement's value on
// the block, except where a statement sums over the distributed size: there
// each process has a partial sum, which adds up to the whole sum when the
// statement's value is linear in it. This pass checks exactly that and
// marks the statements whose target the processes then sum.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLDISTRIBUTE
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

/// How many dimensions of `value`'s type are `size`.
static unsigned countSized(Type type, FlatSymbolRefAttr size) {
  return llvm::count_if(
      getExtents(cast<RankedTensorType>(type)),
      [&](const Extent &extent) { return extent.size == size; });
}

/// Whether `contract` pairs the distributed size with itself.
static bool sumsOver(ContractOp contract, FlatSymbolRefAttr size) {
  SmallVector<Extent> extents = getExtents(contract.getOperand().getType());
  ArrayRef<int64_t> pairs = contract.getPairs();
  for (size_t i = 0; i < pairs.size(); i += 2)
    if (extents[pairs[i]].size == size)
      return true;
  return false;
}

/// Whether `user`'s value is linear in its operand `operand` (the partial
/// sum), the other operands being the same on every process: then the
/// partial values add up to the whole one.
static bool isLinearIn(Operation *user, Value operand, FlatSymbolRefAttr size) {
  if (isa<ContractOp, TransposeOp, YieldOp>(user))
    return true;
  if (isa<OuterOp, MulOp>(user))
    return llvm::all_of(user->getOperands(),
                        [&](Value other) {
                          return other == operand ||
                                 countSized(other.getType(), size) == 0;
                        }) &&
           user->getOperand(0) != user->getOperand(1);
  return false;
}

static LogicalResult checkStatement(AssignOp assign, FlatSymbolRefAttr size,
                                    bool &sums) {
  sums = false;
  SmallVector<ContractOp> sumOps;
  assign.getBody()->walk([&](ContractOp contract) {
    if (sumsOver(contract, size))
      sumOps.push_back(contract);
  });
  if (sumOps.empty())
    return success();
  auto explain = [&](Operation *op) {
    InFlightDiagnostic diag = op->emitError() << "cannot distribute '"
                                              << size.getValue() << "': ";
    return diag;
  };
  if (sumOps.size() > 1)
    return explain(sumOps[1])
           << "a second sum over '" << size.getValue()
           << "' in one statement; the processes' partial sums would "
              "multiply; assign each sum to a variable of its own";
  ContractOp sum = sumOps.front();
  if (countSized(sum.getType(), size) != 0)
    return explain(sum) << "the sum over '" << size.getValue()
                        << "' still has '" << size.getValue()
                        << "' in its type, so it is neither local nor "
                           "replicated";
  // From the sum up to the statement's value, every operation must be
  // linear in the partial sum.
  for (Value value = sum.getResult();;) {
    if (!value.hasOneUse())
      return explain(sum) << "the sum over '" << size.getValue()
                          << "' is used more than once; assign it to a "
                             "variable first";
    Operation *user = *value.getUsers().begin();
    if (!isLinearIn(user, value, size))
      return explain(user) << "this operation of the sum over '"
                           << size.getValue()
                           << "' would combine the processes' partial sums "
                              "wrongly; assign the sum to a variable first";
    if (isa<YieldOp>(user))
      break;
    value = user->getResult(0);
  }
  sums = true;
  return success();
}

LogicalResult tl::distributeProgram(ProgramOp program, StringRef sizeName) {
  auto size = FlatSymbolRefAttr::get(program.getContext(), sizeName);
  if (!program.lookupSymbol<SizeOp>(sizeName))
    return program.emitError() << "cannot distribute '" << sizeName
                               << "': the program has no such size";
  for (VarOp var : program.getVars())
    if (countSized(var.getType(), size) > 1)
      return var.emitError() << "cannot distribute '" << sizeName
                             << "': variable '" << var.getSymName()
                             << "' has it in more than one dimension, so "
                                "no block of it is one process's";
  TLDialect::AllreduceAttrHelper allreduce(program.getContext());
  bool ok = true;
  for (AssignOp assign : program.getStatements()) {
    bool sums = false;
    if (failed(checkStatement(assign, size, sums))) {
      ok = false;
      continue;
    }
    if (sums)
      allreduce.setAttr(assign, UnitAttr::get(program.getContext()));
    else if (allreduce.isAttrPresent(assign))
      allreduce.removeAttr(assign);
  }
  if (!ok)
    return failure();
  TLDialect::DistributedAttrHelper(program.getContext()).setAttr(program, size);
  return success();
}

namespace {
struct TLDistributePass : public tl::impl::TLDistributeBase<TLDistributePass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(distributeProgram(getOperation(), size)))
      signalPassFailure();
  }
};
} // namespace
