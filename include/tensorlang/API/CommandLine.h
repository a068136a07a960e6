//===- CommandLine.h - The tools' flags for ProgramOptions ------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The flags that fill ProgramOptions, registered once for every tool (as
// CIRCT's registerFirtoolCLOptions): tl-run and tl-compile accept the same
// flags, one per row of the table of program options (ProgramOptions.h),
// with its help, and report a bad value with its message.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_API_COMMANDLINE_H
#define TENSORLANG_API_COMMANDLINE_H

#include "tensorlang/API/Program.h"
#include "tensorlang/API/ProgramOptions.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace tensorlang {

/// Registers a flag in `category` for each option of the table
/// (getProgramOptionTable), those of OptionScope::Run only `withRunFlags`,
/// and the help of --threads. Call before takeThreadsFlag and
/// llvm::cl::ParseCommandLineOptions.
void registerProgramCLOptions(llvm::cl::OptionCategory &category,
                              bool withRunFlags);

/// libMLIR.so registers a global option named `threads`, so no tool can
/// declare a flag of that name: this takes every `--threads N`,
/// `--threads=N` (or with one dash) out of argv, keeping the last value
/// for getProgramOptionsFromCL. Fails only where a value is missing.
llvm::Error takeThreadsFlag(int &argc, char **argv);

/// The options the flags give, or the error of the first bad value (the
/// table's message).
llvm::Expected<ProgramOptions> getProgramOptionsFromCL();

/// While alive, hands the errors of `context` that have no place in a
/// program (no CUDA driver, say) to `report`, as one line each, before the
/// tool's source manager handler would print them as `<unknown>:0:`.
/// Construct it after that handler.
class MachineErrorHandler : public mlir::ScopedDiagnosticHandler {
public:
  MachineErrorHandler(mlir::MLIRContext &context,
                      std::function<void(const std::string &)> report);
};

} // namespace tensorlang

#endif // TENSORLANG_API_COMMANDLINE_H
