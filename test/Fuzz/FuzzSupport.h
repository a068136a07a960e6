//===- FuzzSupport.h - Shared set-up of the libFuzzer harnesses -*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TEST_FUZZ_FUZZSUPPORT_H
#define TENSORLANG_TEST_FUZZ_FUZZSUPPORT_H

#include "tensorlang/Dialect/TL/IR/TLDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace tensorlang::fuzz {

/// A fresh single-threaded context per input, with the tl dialect and a
/// handler that swallows diagnostics (errors are expected answers; only
/// crashes, hangs and sanitizer reports are findings).
struct Session {
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  llvm::SourceMgr sourceMgr;
  mlir::ScopedDiagnosticHandler handler{
      &context, [](mlir::Diagnostic &) { return mlir::success(); }};

  Session(const uint8_t *data, size_t size, const char *name = "fuzz.tl") {
    context.loadDialect<tl::TLDialect>();
    context.printOpOnDiagnostic(false);
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(
            llvm::StringRef(reinterpret_cast<const char *>(data), size), name),
        llvm::SMLoc());
  }
};

/// Reports a broken invariant as a crash libFuzzer records.
[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

} // namespace tensorlang::fuzz

#endif // TENSORLANG_TEST_FUZZ_FUZZSUPPORT_H
