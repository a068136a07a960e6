//===- CommandLine.cpp - The tools' flags for ProgramOptions --------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/CommandLine.h"

#include <optional>

using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
/// The flags of the table's options, constructed when a tool registers them
/// (a library must not register global options merely by being linked).
/// Each keeps its value as text, for setProgramOption to check.
struct ProgramCLOptions {
  ProgramCLOptions(cl::OptionCategory &category, bool withRunFlags) {
    for (const ProgramOptionInfo &info : getProgramOptionTable()) {
      // libMLIR.so has a global option of that name (takeThreadsFlag).
      if (info.name == "threads") {
        threadsHelp = ("\n  --threads=<N>  " + info.help + "\n").str();
        extraHelp.emplace(threadsHelp);
        continue;
      }
      if (info.scope == OptionScope::Run && !withRunFlags)
        continue;
      cl::OptionHidden hidden = info.hidden ? cl::Hidden : cl::NotHidden;
      switch (info.kind) {
      case OptionKind::Flag:
        flags.push_back(std::make_unique<cl::opt<bool>>(
            llvm::StringRef(info.name), cl::desc(info.help), hidden,
            cl::cat(category)));
        flagInfos.push_back(&info);
        break;
      case OptionKind::Value:
        values.push_back(std::make_unique<cl::opt<std::string>>(
            llvm::StringRef(info.name), cl::desc(info.help),
            cl::value_desc(info.valueName), hidden, cl::cat(category)));
        valueInfos.push_back(&info);
        break;
      case OptionKind::List:
        lists.push_back(std::make_unique<cl::list<std::string>>(
            llvm::StringRef(info.name), cl::desc(info.help),
            cl::value_desc(info.valueName), cl::ZeroOrMore, hidden,
            cl::cat(category)));
        listInfos.push_back(&info);
        break;
      }
    }
  }

  /// The options the flags give, each value checked by the table.
  llvm::Expected<ProgramOptions> getOptions() const {
    ProgramOptions options;
    for (auto [flag, info] : llvm::zip(flags, flagInfos))
      if (flag->getNumOccurrences())
        if (llvm::Error error =
                setProgramOption(options, info->name, *flag ? "true" : "false"))
          return std::move(error);
    for (auto [value, info] : llvm::zip(values, valueInfos))
      if (value->getNumOccurrences())
        if (llvm::Error error = setProgramOption(options, info->name, *value))
          return std::move(error);
    for (auto [list, info] : llvm::zip(lists, listInfos))
      for (const std::string &value : *list)
        if (llvm::Error error = setProgramOption(options, info->name, value))
          return std::move(error);
    if (threads)
      if (llvm::Error error = setProgramOption(options, "threads", *threads))
        return std::move(error);
    return options;
  }

  std::vector<std::unique_ptr<cl::opt<bool>>> flags;
  std::vector<const ProgramOptionInfo *> flagInfos;
  std::vector<std::unique_ptr<cl::opt<std::string>>> values;
  std::vector<const ProgramOptionInfo *> valueInfos;
  std::vector<std::unique_ptr<cl::list<std::string>>> lists;
  std::vector<const ProgramOptionInfo *> listInfos;
  std::string threadsHelp;
  std::optional<cl::extrahelp> extraHelp;
  /// The last --threads value takeThreadsFlag took out of argv.
  std::optional<std::string> threads;
};
} // namespace

MachineErrorHandler::MachineErrorHandler(
    mlir::MLIRContext &context, std::function<void(const std::string &)> report)
    : ScopedDiagnosticHandler(
          &context, [report = std::move(report)](mlir::Diagnostic &diagnostic) {
            if (!mlir::isa<mlir::UnknownLoc>(diagnostic.getLocation()) ||
                diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error)
              return mlir::failure();
            report(diagnostic.str());
            return mlir::success();
          }) {}

static std::unique_ptr<ProgramCLOptions> programFlags;

void tensorlang::registerProgramCLOptions(cl::OptionCategory &category,
                                          bool withRunFlags) {
  programFlags = std::make_unique<ProgramCLOptions>(category, withRunFlags);
}

llvm::Error tensorlang::takeThreadsFlag(int &argc, char **argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    llvm::StringRef value;
    if (arg == "--threads" || arg == "-threads") {
      if (i + 1 >= argc)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "--threads expects a number of "
                                       "threads");
      value = argv[++i];
    } else if (arg.consume_front("--threads=") ||
               arg.consume_front("-threads=")) {
      value = arg;
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    if (programFlags)
      programFlags->threads = value.str();
  }
  argc = kept;
  argv[argc] = nullptr;
  return llvm::Error::success();
}

llvm::Expected<ProgramOptions> tensorlang::getProgramOptionsFromCL() {
  if (!programFlags)
    return ProgramOptions();
  return programFlags->getOptions();
}
