//===- ProgramOptions.h - The options of a program, in one table -*- C++
//-*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every option of loading, compiling and running a program, and the one
// table that names, documents and validates them. tl-run and tl-compile
// register a flag per row (API/CommandLine.h), the C API and Python hand
// their fields and keywords to setProgramOption by name: a bad value gets
// the same message from every interface, and each limit lives here once.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_API_PROGRAMOPTIONS_H
#define TENSORLANG_API_PROGRAMOPTIONS_H

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Frontend/SourceSyntax.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tensorlang {

/// Which engine runs a program.
enum class Engine {
  /// Native code compiled in this process (the JIT).
  Jit,
  /// The reference interpreter, the report's semantics literally.
  Reference,
};

/// Every option of loading, compiling and running a program. tl-run,
/// tl-compile, the Python module and the C API fill this one struct,
/// through setProgramOption.
struct ProgramOptions {
  /// The element type of a source program. An IR program carries its own;
  /// when this is set, it must agree.
  std::optional<ElementKind> elementType;
  /// Pad every extent to a multiple of this (0: no padding).
  unsigned pad = 0;
  /// Report a source program's warnings (unused statements and inputs) as
  /// errors.
  bool warningsAreErrors = false;
  /// The language of source text: loadText reads this language's (unset:
  /// this language's own), loadFile too where it is set, and otherwise
  /// decides by the extension (.tl or .cfd).
  std::optional<SourceSyntax> syntax;
  Engine engine = Engine::Jit;
  /// Lowering and code generation (the JIT and ahead-of-time).
  CompileOptions compile;
  /// The reference engine.
  InterpreterOptions interpreter;
  /// The order of every variable's elements in the caller's buffers
  /// (TensorView, results, compiled functions' arguments). Column-major
  /// runs the program rewritten by tl-column-major.
  Layout layout = Layout::RowMajor;
  /// Values of the program's sizes, by name. A size that an input's shape
  /// fixes need not be given; if it is, the shape must agree.
  std::vector<std::pair<std::string, int64_t>> sizes;
};

/// What an option's value is, which decides how a command line takes it.
enum class OptionKind {
  /// On or off: `--name` alone on a command line; "true" or "false" (also
  /// "1" or "0") by name.
  Flag,
  /// A value of its own: a number, a name or one of a few choices.
  Value,
  /// A value that may be given several times, each adding one (`--size`).
  List,
};

/// Where an option applies.
enum class OptionScope {
  /// Every interface.
  All,
  /// Where a program runs in this process (tl-run, the C API, Python), not
  /// tl-compile.
  Run,
};

/// One row of the table of program options.
struct ProgramOptionInfo {
  /// The option's name: tl-run's and tl-compile's flag (`--name`), the name
  /// setProgramOption takes, and (with `_` for `-`) Python's keyword.
  llvm::StringLiteral name;
  OptionKind kind;
  OptionScope scope;
  /// What the value looks like, for help: "N", "TRIPLE", "row-major|...".
  llvm::StringLiteral valueName;
  llvm::StringLiteral help;
  /// Only for testing: left out of the tools' help.
  bool hidden;
  /// Checks `value` and sets the option (setProgramOption's work).
  llvm::Error (*set)(ProgramOptions &options, llvm::StringRef value);
};

/// The options, in the order the tools' help lists them.
llvm::ArrayRef<ProgramOptionInfo> getProgramOptionTable();

/// The row of option `name`, or null.
const ProgramOptionInfo *lookupProgramOption(llvm::StringRef name);

/// Sets option `name` of `options` from its text, `value`, after checking
/// it: the one place each option's limits are checked. The error is the
/// message every interface reports, as "threads must be a number from 1 to
/// 1024, got '0'" or "unknown syntax 'x' (tensorlang, tl, cfdlang)".
llvm::Error setProgramOption(ProgramOptions &options, llvm::StringRef name,
                             llvm::StringRef value);

/// The error of a program to be run in this process (tl-run, the C API,
/// Python) whose target is neither this machine nor its GPU: the JIT runs
/// code for this machine only.
llvm::Error checkJitTarget(const ProgramOptions &options);

} // namespace tensorlang

#endif // TENSORLANG_API_PROGRAMOPTIONS_H
