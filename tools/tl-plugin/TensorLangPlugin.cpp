//===- TensorLangPlugin.cpp - tl as a plugin of upstream mlir-opt ---------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   mlir-opt --load-dialect-plugin=TensorLangPlugin.so \
//            --load-pass-plugin=TensorLangPlugin.so \
//            --pass-pipeline="builtin.module(tl-to-llvm)" prog.mlir
//
// Works because Debian's mlir-opt and this plugin share one libMLIR.so.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TensorLang", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            tensorlang::registerTensorLangDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TensorLang", LLVM_VERSION_STRING,
          [] { tensorlang::registerTensorLangPasses(); }};
}
