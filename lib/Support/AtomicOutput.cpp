//===- AtomicOutput.cpp - Replace output files only on success ------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;

int tensorlang::runWithAtomicOutput(int argc, char **argv,
                                    function_ref<int(int, char **)> toolMain) {
  std::vector<std::string> args(argv, argv + argc);
  // Find the output file: `-o F`, `--o F`, `-o=F`, `--o=F` (the last wins,
  // as in llvm::cl).
  size_t valueIndex = 0;
  std::string prefix;
  for (size_t i = 1; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--")
      break;
    if ((arg == "-o" || arg == "--o") && i + 1 < args.size()) {
      valueIndex = i + 1;
      prefix.clear();
      ++i;
    } else if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      valueIndex = i;
      prefix = arg.substr(0, arg.find('=') + 1).str();
    }
  }

  auto run = [&](std::vector<std::string> &arguments) {
    std::vector<char *> pointers;
    for (std::string &argument : arguments)
      pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    return toolMain(static_cast<int>(arguments.size()), pointers.data());
  };

  std::string output =
      valueIndex ? args[valueIndex].substr(prefix.size()) : std::string("-");
  if (output == "-" || output.empty())
    return run(args);

  // A name only: the tool creates the file itself, so nothing is left
  // behind if it exits early (for example on --help).
  SmallString<256> temporary;
  sys::fs::createUniquePath(output + ".tmp-%%%%%%%%", temporary,
                            /*MakeAbsolute=*/false);
  args[valueIndex] = prefix + std::string(temporary.str());
  int status = run(args);
  if (status != 0) {
    (void)sys::fs::remove(temporary);
    return status;
  }
  if (!sys::fs::exists(temporary))
    return status;
  if (std::error_code error = sys::fs::rename(temporary, output)) {
    errs() << "error: cannot write output file '" << output
           << "': " << error.message() << "\n";
    (void)sys::fs::remove(temporary);
    return 1;
  }
  return status;
}

Error tensorlang::writeFileAtomically(
    StringRef path, function_ref<Error(raw_pwrite_stream &)> write) {
  auto fail = [&](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), path + ": " + message);
  };
  SmallString<256> temporary;
  int fd;
  if (std::error_code error =
          sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temporary))
    return fail("cannot create output file: " + error.message());
  {
    raw_fd_ostream out(fd, /*shouldClose=*/true);
    if (Error error = write(out)) {
      out.close();
      out.clear_error();
      (void)sys::fs::remove(temporary);
      return error;
    }
    out.close();
    if (out.has_error()) {
      std::string message = out.error().message();
      out.clear_error();
      (void)sys::fs::remove(temporary);
      return fail("cannot write file: " + message);
    }
  }
  if (std::error_code error = sys::fs::rename(temporary, path)) {
    (void)sys::fs::remove(temporary);
    return fail("cannot write file: " + error.message());
  }
  return Error::success();
}
