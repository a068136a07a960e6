//===- VectorMathLibrary.cpp - Call libmvec for vector exp and log --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace tensorlang {
#define GEN_PASS_DEF_VECTORMATHLIBRARY
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// The x86-64 vector function ABI name of `function` on `type`:
/// _ZGV<isa>N<lanes>v_<function>[f], or none for a vector libmvec lacks.
static std::optional<std::string> getVectorFunctionName(StringRef function,
                                                        VectorType type) {
  if (type.getRank() != 1 || type.isScalable())
    return std::nullopt;
  Type element = type.getElementType();
  if (!element.isF64() && !element.isF32())
    return std::nullopt;
  int64_t bits = type.getNumElements() * element.getIntOrFloatBitWidth();
  char isa = bits == 128 ? 'b' : bits == 256 ? 'd' : bits == 512 ? 'e' : 0;
  if (!isa)
    return std::nullopt;
  return ("_ZGV" + Twine(isa) + "N" + Twine(type.getNumElements()) + "v_" +
          function + (element.isF32() ? "f" : ""))
      .str();
}

namespace {
struct VectorMathLibraryPass
    : public tensorlang::impl::VectorMathLibraryBase<VectorMathLibraryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only glibc on x86-64 has libmvec: elsewhere LLVM lowers the vector
    // calls itself, one element at a time.
    if (!tensorlang::tl::getTargetDescription(module).vectorMathLibrary)
      return;
    SymbolTable symbols(module);
    SmallVector<Operation *> calls;
    module.walk([&](Operation *op) {
      if (isa<math::ExpOp, math::LogOp>(op) &&
          isa<VectorType>(op->getResult(0).getType()))
        calls.push_back(op);
    });
    for (Operation *op : calls) {
      auto type = cast<VectorType>(op->getResult(0).getType());
      std::optional<std::string> name =
          getVectorFunctionName(isa<math::ExpOp>(op) ? "exp" : "log", type);
      if (!name)
        continue;
      auto callee = symbols.lookup<func::FuncOp>(*name);
      if (!callee) {
        OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
        callee = func::FuncOp::create(builder, module.getLoc(), *name,
                                      builder.getFunctionType({type}, {type}));
        callee.setPrivate();
        symbols.insert(callee);
      }
      OpBuilder builder(op);
      auto call = func::CallOp::create(builder, op->getLoc(), callee,
                                       op->getOperands());
      op->replaceAllUsesWith(call.getResults());
      op->erase();
    }
  }
};
} // namespace
