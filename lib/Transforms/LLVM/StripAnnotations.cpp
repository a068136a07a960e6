//===- StripAnnotations.cpp - Remove tl.* attributes from functions -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace tensorlang {
#define GEN_PASS_DEF_STRIPANNOTATIONS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

static bool isAnnotation(NamedAttribute attribute) {
  return attribute.getName().getValue().starts_with("tl.");
}

namespace {
struct StripAnnotationsPass
    : public tensorlang::impl::StripAnnotationsBase<StripAnnotationsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      SmallVector<NamedAttribute> kept;
      for (NamedAttribute attribute : mlir::function_interface_impl::getArgAttrs(func, i))
        if (!isAnnotation(attribute))
          kept.push_back(attribute);
      func.setArgAttrs(i, kept);
    }
    SmallVector<StringAttr> names;
    for (NamedAttribute attribute : func->getDiscardableAttrs())
      if (isAnnotation(attribute))
        names.push_back(attribute.getName());
    for (StringAttr name : names)
      func->removeDiscardableAttr(name);
  }
};
} // namespace
