//===- SemanticCheck.h - Check that passes keep the meaning -----*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The report formalizes the language so that transformations can be shown to
// keep a program's meaning. This checks it by testing: before and after every
// pass, each tl.program is run by the reference interpreter on the same
// seeded random inputs, and the first pass that changes a live-out
// variable's value (beyond a tolerance that allows for reassociated sums)
// or leaves non-zero padding is reported, with the program before it.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INTERPRETER_SEMANTICCHECK_H
#define TENSORLANG_INTERPRETER_SEMANTICCHECK_H

#include "mlir/Pass/PassManager.h"

#include <memory>

namespace tensorlang {

struct SemanticCheckOptions {
  /// Inputs are integers uniform in [-3, 3] (sums and products of them are
  /// exact; zeros exercise controlled division), drawn from this seed and
  /// each variable's name (so padded and unpadded programs get the same
  /// values).
  uint64_t seed = 1;
  /// |before - after| <= tolerance * (1 + max(|before|, |after|, m)), m the
  /// largest magnitude in the variable before the pass.
  double tolerance = 1e-9;
  /// Programs the interpreter estimates to need more element evaluations
  /// than this are not checked (a warning says so).
  double maxWork = 2e8;
};

/// Adds the check to `pm`. The returned flag becomes true when a pass
/// changed a program's meaning (an error diagnostic reports it).
std::shared_ptr<bool> addSemanticCheck(mlir::PassManager &pm,
                                       const SemanticCheckOptions &options = {});

} // namespace tensorlang

#endif // TENSORLANG_INTERPRETER_SEMANTICCHECK_H
