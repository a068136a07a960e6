//===- UnusedValues.cpp - Statements and inputs no one observes -----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One backward walk over the statements, as liveness analysis does: a
// variable is live before a statement if that statement reads it, or if it
// is live after the statement and the statement does not assign it.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/UnusedValues.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

LogicalResult tl::checkUnusedValues(ProgramOp program, bool asErrors) {
  auto report = [&](Location loc) {
    return asErrors ? emitError(loc) : emitWarning(loc);
  };
  llvm::DenseSet<StringAttr> live, everRead;
  for (VarOp var : program.getVars())
    if (var.isLiveOut())
      live.insert(var.getSymNameAttr());
  // Each unused statement, with the statement that next assigns its
  // variable (or null), found backwards and reported in source order.
  SmallVector<std::pair<AssignOp, AssignOp>> unused;
  llvm::DenseMap<StringAttr, AssignOp> nextAssignment;
  SmallVector<AssignOp> statements(program.getStatements());
  for (AssignOp assign : llvm::reverse(statements)) {
    StringAttr target = assign.getTargetAttr().getAttr();
    if (!live.contains(target))
      unused.push_back({assign, nextAssignment.lookup(target)});
    live.erase(target);
    nextAssignment[target] = assign;
    for (StringAttr read : assign.getReadVariables()) {
      live.insert(read);
      everRead.insert(read);
    }
  }

  bool reported = false;
  for (VarOp var : program.getVars()) {
    if (!var.getInput() || var.getOutput() ||
        everRead.contains(var.getSymNameAttr()))
      continue;
    reported = true;
    report(var.getLoc()) << "input variable '" << var.getSymName()
                         << "' is never read";
  }
  for (auto [assign, next] : llvm::reverse(unused)) {
    reported = true;
    StringRef target = assign.getTarget();
    InFlightDiagnostic diag = report(assign.getLoc());
    diag << "the value assigned to '" << target << "' is never used";
    if (next) {
      diag << ": it is assigned again before it is read";
      diag.attachNote(next.getLoc()) << "assigned again here";
    } else {
      diag << ": '" << target
           << "' is not an output and no later statement reads it";
    }
  }
  return success(!(asErrors && reported));
}
