//===- CommonSubexpressions.cpp - Reuse values of earlier statements ------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Within a statement, MLIR's `cse` does the work: expression ops are Pure
// and every tl.use in a statement reads the same store. Across statements
// the store changes, which is what this pass accounts for: after `x = e`,
// the value of e is available as `x` until a statement assigns x or any
// variable e reads (and never when e reads x itself). A later statement
// computing e again reads x instead. Trees are compared by structure
// (op, attributes, types, operands), through a hash.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringMap.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLCOMMONSUBEXPRESSIONS
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

namespace {
/// A statement's value, available as its target variable.
struct Available {
  Operation *root;
  StringAttr target;
  bool valid = true;
};

class StructuralHash {
public:
  llvm::hash_code get(Operation *op) {
    auto it = memo.find(op);
    if (it != memo.end())
      return it->second;
    llvm::hash_code hash = OperationEquivalence::computeHash(
        op,
        /*hashOperands=*/
        [&](Value operand) -> llvm::hash_code {
          if (Operation *def = operand.getDefiningOp())
            return get(def);
          return hash_value(operand);
        },
        /*hashResults=*/OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
    memo[op] = hash;
    return hash;
  }

  void forget(Operation *op) { memo.erase(op); }

private:
  DenseMap<Operation *, llvm::hash_code> memo;
};
} // namespace

/// Whether the trees at `lhs` and `rhs` compute the same value from the same
/// store.
static bool sameTree(Operation *lhs, Operation *rhs) {
  if (lhs == rhs)
    return true;
  return OperationEquivalence::isEquivalentTo(
      lhs, rhs,
      [](Value a, Value b) {
        Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
        return success(defA && defB && sameTree(defA, defB));
      },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

namespace {
struct TLCommonSubexpressionsPass
    : public tl::impl::TLCommonSubexpressionsBase<TLCommonSubexpressionsPass> {
  void runOnOperation() override;
};
} // namespace

void TLCommonSubexpressionsPass::runOnOperation() {
  ProgramOp program = getOperation();
  StructuralHash hashes;
  std::vector<Available> available;
  DenseMap<llvm::hash_code, SmallVector<unsigned>> byHash;
  // For each variable, the available values that assigning it invalidates.
  llvm::StringMap<SmallVector<unsigned>> dependents;

  for (AssignOp assign : program.getStatements()) {
    // In a batch program, a value held by a batched variable may serve only
    // statements that assign batched variables (rule t-batch).
    VarOp targetVar = program.lookupVar(assign.getTarget());
    bool targetIsShared = targetVar && !targetVar.getBatched();
    // Users before their operands, so that the largest tree is replaced.
    SmallVector<Operation *> ops;
    // A literal stays a literal: reading it from a variable costs a load.
    for (Operation &op : *assign.getBody())
      if (!isa<UseOp, YieldOp, ConstantOp>(op))
        ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (op->use_empty())
        continue;
      auto candidates = byHash.find(hashes.get(op));
      if (candidates == byHash.end())
        continue;
      for (unsigned index : candidates->second) {
        const Available &value = available[index];
        if (!value.valid || !sameTree(value.root, op))
          continue;
        if (VarOp holder = program.lookupVar(value.target);
            targetIsShared && holder && holder.getBatched())
          continue;
        OpBuilder builder(op);
        auto use = UseOp::create(builder, op->getLoc(),
                                 op->getResult(0).getType(),
                                 FlatSymbolRefAttr::get(value.target));
        op->getResult(0).replaceAllUsesWith(use.getResult());
        break;
      }
    }
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(*assign.getBody())))
      if (op.use_empty() && !isa<YieldOp>(op)) {
        hashes.forget(&op);
        op.erase();
      }

    // The statement overwrites its target: values that read it or live in
    // it are gone.
    StringAttr target = assign.getTargetAttr().getAttr();
    for (unsigned index : dependents[target.getValue()])
      available[index].valid = false;
    dependents[target.getValue()].clear();

    Operation *root = assign.getValue().getDefiningOp();
    SmallVector<StringAttr> reads = assign.getReadVariables();
    if (isa<UseOp, ConstantOp>(root) || llvm::is_contained(reads, target))
      continue;
    unsigned index = available.size();
    available.push_back({root, target});
    byHash[hashes.get(root)].push_back(index);
    dependents[target.getValue()].push_back(index);
    for (StringAttr name : reads)
      dependents[name.getValue()].push_back(index);
  }
}
