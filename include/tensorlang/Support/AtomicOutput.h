//===- AtomicOutput.h - Replace output files only on success ----*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_ATOMICOUTPUT_H
#define TENSORLANG_SUPPORT_ATOMICOUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace tensorlang {

/// Runs an MLIR tool's main function so that its `-o FILE` output replaces
/// FILE only if the tool succeeds. Upstream drivers truncate the output file
/// before they start and delete it when they fail, losing whatever FILE held;
/// here the tool writes a temporary file next to FILE instead, which is
/// renamed over FILE on success and removed on failure.
int runWithAtomicOutput(int argc, char **argv,
                        llvm::function_ref<int(int, char **)> toolMain);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_ATOMICOUTPUT_H
