//===- InitAll.h - Register everything TensorLang provides ------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The public entry points a tool or an embedding compiler calls once at
// start-up.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INITALL_H
#define TENSORLANG_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tensorlang {

/// Adds the tl dialect to `registry`.
void registerTensorLangDialects(mlir::DialectRegistry &registry);

/// Registers the tl passes (`--convert-tl-to-linalg`, ...) and the lowering
/// pipelines (`--tl-to-llvm`, ...).
void registerTensorLangPasses();

/// Registers the `--import-tl` and `--export-tl` translations (and their
/// `--element-type` and `--program-name` options) for mlir-translate-like
/// tools.
void registerTensorLangTranslations();

} // namespace tensorlang

#endif // TENSORLANG_INITALL_H
