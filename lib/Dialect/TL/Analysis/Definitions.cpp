//===- Definitions.cpp - Reads of undefined variables ---------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reaching definitions without control flow: a variable read by a statement
// holds the value of the last earlier statement that assigned it, or, if
// none did, the value it had on entry, which only the caller can give
// (rule d-in-var). With qualifiers that is an `input` variable; reading any
// other variable before assigning it reads the undefined value of rule
// d-var, which is an error. Without qualifiers every variable comes from the
// caller, and such a read is worth a warning only.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/Definitions.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

LogicalResult tl::checkDefinitions(ProgramOp program,
                                   bool warnWithoutQualifiers) {
  bool qualified = program.hasQualifiers();
  if (!qualified && !warnWithoutQualifiers)
    return success();
  llvm::StringSet<> defined;
  for (VarOp var : program.getVars())
    if (var.getInput())
      defined.insert(var.getSymName());
  // Each variable is reported at its first undefined read only.
  llvm::StringSet<> reported;
  bool ok = true;
  for (AssignOp assign : program.getStatements()) {
    assign.getBody()->walk([&](UseOp use) {
      StringRef name = use.getVar();
      if (defined.contains(name) || !reported.insert(name).second)
        return;
      VarOp var = program.lookupVar(name);
      InFlightDiagnostic diag = qualified ? use.emitError() : use.emitWarning();
      diag << "variable '" << name << "' is read before it is assigned";
      if (qualified) {
        diag << " and is not an input: its value is undefined (rules d-var, "
                "d-in-var)";
        ok = false;
      } else {
        diag << "; without qualifiers its value is the caller's";
      }
      if (var)
        diag.attachNote(var.getLoc()) << "variable declared here";
    });
    defined.insert(assign.getTarget());
  }
  return success(ok);
}
