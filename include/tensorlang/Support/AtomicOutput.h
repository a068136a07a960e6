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
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tensorlang {

/// Runs an MLIR tool's main function so that its `-o FILE` output replaces
/// FILE only if the tool succeeds. Upstream drivers truncate the output file
/// before they start and delete it when they fail, losing whatever FILE held;
/// here the tool writes a temporary file next to FILE instead, which is
/// renamed over FILE on success and removed on failure.
int runWithAtomicOutput(int argc, char **argv,
                        llvm::function_ref<int(int, char **)> toolMain);

/// Writes a file through `write`: into a temporary next to `path`, renamed
/// over `path` only when `write` succeeds and every byte reached the disk.
/// A failure leaves `path` as it was. Errors name `path`.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<llvm::Error(llvm::raw_pwrite_stream &)> write);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_ATOMICOUTPUT_H
