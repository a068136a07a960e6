//===- FuseStatements.cpp - Forward-substitute single-use locals ----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `x = e; y = f(x)`, where x's value is not needed after the second
// statement, becomes `y = f(e)`: one statement whose expression the lowering
// fuses (element-wise chains into one loop nest, contractions into one tree
// that --tl-optimize-contractions orders), and x is never written. Sound
// because the statements are adjacent: the only difference between the
// stores they read is x itself, and with the first statement gone the second
// reads the store the first one read.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLFUSESTATEMENTS
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

/// Whether the value `name` has after `statement` is read later: by a
/// statement before the next assignment of `name`, or on exit.
static bool isReadAfter(ProgramOp program, AssignOp statement, StringRef name) {
  for (Operation *op = statement->getNextNode(); op; op = op->getNextNode()) {
    auto later = cast<AssignOp>(op);
    if (llvm::any_of(later.getReadVariables(),
                     [&](StringAttr read) { return read.getValue() == name; }))
      return true;
    if (later.getTarget() == name)
      return false;
  }
  return program.lookupVar(name).isLiveOut();
}

/// Whether every element of `value` reaches the statement's value through
/// element-wise arithmetic of its own type only: then the fused statement
/// asks for each element of the substituted expression once, and fusing
/// recomputes nothing (an outer product or a broadcast scalar would ask for
/// each many times).
static bool reachesRootElementwise(Value value) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    if (isa<YieldOp>(user))
      return true;
    if (!(getArithKind(user) || getUnaryKind(user)) ||
        user->getResult(0).getType() != value.getType())
      return false;
    return reachesRootElementwise(user->getResult(0));
  });
}

/// Whether the lowering computes `value` into a temporary of its own
/// wherever it is used: a contraction's sums are never recomputed, so the
/// consumer may read it any way (the inverse Helmholtz operator's
/// `t = u # S # S # S . [...]; v = (D * t) # S # S # S . [...]` becomes
/// one statement, which tl-fuse-batches computes one element at a time).
static bool isComputedIntoTemporary(Value value) {
  return isa_and_present<ContractOp>(value.getDefiningOp());
}

namespace {
struct TLFuseStatementsPass
    : public tl::impl::TLFuseStatementsBase<TLFuseStatementsPass> {
  using TLFuseStatementsBase::TLFuseStatementsBase;
  void runOnOperation() override;
};
} // namespace

void TLFuseStatementsPass::runOnOperation() {
  ProgramOp program = getOperation();
  SmallVector<AssignOp> statements(program.getStatements());
  TLDialect::AllreduceAttrHelper allreduce(program.getContext());
  for (size_t i = 0; i + 1 < statements.size(); ++i) {
    AssignOp producer = statements[i], consumer = statements[i + 1];
    StringRef name = producer.getTarget();
    SmallVector<UseOp> uses;
    consumer.getBody()->walk([&](UseOp use) {
      if (use.getVar() == name)
        uses.push_back(use);
    });
    // A producer whose value nobody reads is dead code, not ours; one read
    // after the consumer must stay (unless the consumer overwrites it).
    // Nor does a sum over a distributed size move (tl-distribute marks
    // it): the processes sum its target, which the consumer then reads.
    if (uses.empty() || allreduce.isAttrPresent(producer) ||
        (consumer.getTarget() != name &&
         isReadAfter(program, consumer, name)) ||
        !((contractions && isComputedIntoTemporary(producer.getValue())) ||
          llvm::all_of(uses, [](UseOp use) {
            return reachesRootElementwise(use.getResult());
          })))
      continue;
    // Clone the producer's expression into the consumer, once.
    OpBuilder builder(uses.front());
    builder.setInsertionPointToStart(consumer.getBody());
    IRMapping mapping;
    for (Operation &op : producer.getBody()->without_terminator())
      builder.clone(op, mapping);
    Value value = mapping.lookup(producer.getValue());
    for (UseOp use : uses) {
      use.getResult().replaceAllUsesWith(value);
      use.erase();
    }
    producer.erase();
  }
}
