//===- CheckDefinitions.cpp - The --tl-check-definitions pass -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/Definitions.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLCHECKDEFINITIONS
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

namespace {
struct TLCheckDefinitionsPass
    : public tl::impl::TLCheckDefinitionsBase<TLCheckDefinitionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(
            checkDefinitions(getOperation(), /*warnWithoutQualifiers=*/true)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
