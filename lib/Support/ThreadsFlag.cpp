//===- ThreadsFlag.cpp - The --threads flag of the tools ------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/ThreadsFlag.h"

#include "llvm/ADT/StringRef.h"

using namespace tensorlang;

const char *const tensorlang::kThreadsFlagHelp =
    "\n  --threads=<N>  Run the outermost parallel loop of each loop nest on "
    "N threads\n                 (OpenMP; default 1)\n";

bool tensorlang::takeThreadsFlag(int &argc, char **argv, unsigned &threads,
                                 std::string &error) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    llvm::StringRef value;
    if (arg == "--threads" || arg == "-threads") {
      if (i + 1 >= argc) {
        error = "--threads expects a number of threads";
        return false;
      }
      value = argv[++i];
    } else if (arg.consume_front("--threads=") ||
               arg.consume_front("-threads=")) {
      value = arg;
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    unsigned parsed;
    if (value.getAsInteger(10, parsed) || parsed < 1 || parsed > 1024) {
      error = "--threads must be a number from 1 to 1024, got '" +
              value.str() + "'";
      return false;
    }
    threads = parsed;
  }
  argc = kept;
  argv[argc] = nullptr;
  return true;
}
