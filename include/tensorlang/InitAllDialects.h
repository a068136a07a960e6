//===- InitAllDialects.h - Register TensorLang's dialects -------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Inline, as CIRCT's InitAllDialects.h: a tool that only needs the dialect
// (a language server, a translator) links only TensorLangTLDialect.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INITALLDIALECTS_H
#define TENSORLANG_INITALLDIALECTS_H

#include "tensorlang/Dialect/TL/IR/TLDialect.h"

#include "mlir/IR/DialectRegistry.h"

namespace tensorlang {

/// Adds the tl dialect to `registry`.
inline void registerTensorLangDialects(mlir::DialectRegistry &registry) {
  registry.insert<tl::TLDialect>();
}

} // namespace tensorlang

#endif // TENSORLANG_INITALLDIALECTS_H
