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
// lowering flags with the same defaults and help.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_API_COMMANDLINE_H
#define TENSORLANG_API_COMMANDLINE_H

#include "tensorlang/API/Program.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace tensorlang {

/// Registers the flags of ProgramOptions in `category`: --element-type,
/// --pad, --size, --distribute, --cpu, --vector-bits, --opt-level,
/// --no-optimize, --no-tile,
/// --fuse-min-bytes, --stream-min-bytes and, with `runFlags`, --engine and
/// --max-work. Call before llvm::cl::ParseCommandLineOptions.
void registerProgramCLOptions(llvm::cl::OptionCategory &category,
                              bool runFlags);

/// The options the flags give, or an error naming a bad flag; `threads`
/// comes from takeThreadsFlag.
llvm::Expected<ProgramOptions> getProgramOptionsFromCL(unsigned threads);

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
