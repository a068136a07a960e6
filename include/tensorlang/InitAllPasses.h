//===- InitAllPasses.h - Register TensorLang's passes -----------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Inline, as CIRCT's InitAllPasses.h: whoever calls it links the pass
// libraries it names (TensorLangPipelines brings them all).
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INITALLPASSES_H
#define TENSORLANG_INITALLPASSES_H

#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Pipelines/Pipelines.h"
#include "tensorlang/Transforms/Passes.h"

namespace tensorlang {

/// Registers every tl pass, conversion, codegen pass and pipeline in the
/// global pass registry (for tl-opt, the plugin and embedding tools).
inline void registerTensorLangPasses() {
  tl::registerTLPasses();
  registerConversionPasses();
  registerTransformsPasses();
  registerTensorLangPipelines();
}

} // namespace tensorlang

#endif // TENSORLANG_INITALLPASSES_H
