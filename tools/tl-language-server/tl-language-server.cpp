//===- tl-language-server.cpp - LSP server for TensorLang sources ---------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A Language Server Protocol server for `.tl` source files over stdin and
// stdout (editors/vscode starts it). `--lit-test` reads messages separated
// by `// -----` lines without Content-Length headers and pretty-prints the
// replies, as upstream's servers do for their tests.
//
//===----------------------------------------------------------------------===//

#include "LSPServer.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
namespace lsp = llvm::lsp;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::OptionCategory category("tl-language-server options");
  cl::opt<bool> litTest(
      "lit-test",
      cl::desc("Read messages separated by '// -----' without headers and "
               "pretty-print the replies (for tests)"),
      cl::init(false), cl::cat(category));
  cl::opt<lsp::Logger::Level> logLevel(
      "log", cl::desc("Verbosity of the log on stderr"),
      cl::values(
          clEnumValN(lsp::Logger::Level::Error, "error", "errors"),
          clEnumValN(lsp::Logger::Level::Info, "info",
                     "the messages exchanged"),
          clEnumValN(lsp::Logger::Level::Debug, "verbose", "everything")),
      cl::init(lsp::Logger::Level::Error), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "Language server for TensorLang sources (.tl), over stdio\n");
  lsp::Logger::setLogLevel(logLevel);
  llvm::sys::ChangeStdinToBinary();
  lsp::JSONTransport transport(stdin, llvm::outs(),
                               litTest ? lsp::JSONStreamStyle::Delimited
                                       : lsp::JSONStreamStyle::Standard,
                               /*PrettyOutput=*/litTest);
  return succeeded(tensorlang::runLanguageServer(transport)) ? 0 : 1;
}
