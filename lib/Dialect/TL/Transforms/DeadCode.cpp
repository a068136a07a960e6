//===- DeadCode.cpp - Statements that cannot affect the result ------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Liveness backwards over the statements (no control flow): on exit the
// live-out variables are live; a statement `x = e` is dead when x is not live
// after it, and otherwise makes x dead and every variable e reads live
// before it.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLDEADCODEELIMINATION
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

namespace {
struct TLDeadCodeEliminationPass
    : public tl::impl::TLDeadCodeEliminationBase<TLDeadCodeEliminationPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TLDeadCodeEliminationPass::runOnOperation() {
  ProgramOp program = getOperation();
  llvm::StringSet<> live;
  for (VarOp var : program.getVars())
    if (var.isLiveOut())
      live.insert(var.getSymName());
  SmallVector<AssignOp> statements(program.getStatements());
  for (AssignOp assign : llvm::reverse(statements)) {
    if (!live.erase(assign.getTarget())) {
      assign.erase();
      continue;
    }
    for (StringAttr name : assign.getReadVariables())
      live.insert(name.getValue());
  }
  if (!removeUnusedVariables)
    return;
  // Variables that are not part of the interface and that no statement
  // mentions any more need no storage.
  llvm::StringSet<> mentioned;
  for (AssignOp assign : program.getStatements()) {
    mentioned.insert(assign.getTarget());
    for (StringAttr name : assign.getReadVariables())
      mentioned.insert(name.getValue());
  }
  for (VarOp var : llvm::make_early_inc_range(program.getVars()))
    if (!var.isDefinedOnEntry() && !var.isLiveOut() &&
        !mentioned.contains(var.getSymName()))
      var.erase();
}
