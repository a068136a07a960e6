//===- ThreadsFlag.h - The --threads flag of the tools ----------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libMLIR.so already registers a global command-line option named `threads`,
// so a tool cannot declare its own `cl::opt` of that name. tl-run and
// tl-compile take `--threads N` out of argv before LLVM parses the rest.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_THREADSFLAG_H
#define TENSORLANG_SUPPORT_THREADSFLAG_H

#include <string>

namespace tensorlang {

/// The help text of the flag, for cl::extrahelp.
extern const char *const kThreadsFlagHelp;

/// Removes every `--threads N`, `--threads=N` (or with one dash) from argv,
/// setting `threads` to the last value. Fails with `error` set when a value
/// is missing, not a number, or outside 1..1024.
bool takeThreadsFlag(int &argc, char **argv, unsigned &threads,
                     std::string &error);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_THREADSFLAG_H
