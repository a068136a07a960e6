//===- BindSizes.cpp - Replace each size of a program by its value --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLBINDSIZES
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

/// `real` (a padded program's real extents of a value now of type
/// `bound`) with each sized entry replaced by the bound extent: a size is
/// never padded.
static DenseI64ArrayAttr bindRealShape(DenseI64ArrayAttr real,
                                       RankedTensorType bound) {
  SmallVector<int64_t> extents(real.asArrayRef());
  for (auto [extent, value] : llvm::zip(extents, bound.getShape()))
    if (ShapedType::isDynamic(extent))
      extent = value;
  return DenseI64ArrayAttr::get(real.getContext(), extents);
}

LogicalResult tl::bindSizes(ProgramOp program,
                            const llvm::StringMap<int64_t> &values) {
  for (SizeOp size : program.getSizes()) {
    auto it = values.find(size.getSymName());
    if (it == values.end())
      return size.emitError()
             << "size '" << size.getSymName() << "' has no value";
    if (it->second < 0)
      return size.emitError()
             << "size '" << size.getSymName() << "' has the value "
             << it->second << ", which is negative";
  }
  auto valueOf = [&](FlatSymbolRefAttr size) {
    return values.lookup(size.getValue());
  };
  for (VarOp var : program.getVars()) {
    RankedTensorType bound = tl::bindSizes(var.getType(), valueOf);
    if (failed(verifyTensorLimits(bound, [&] {
          return var.emitError() << "with the sizes' values, variable '"
                                 << var.getSymName() << "': ";
        })))
      return failure();
    if (DenseI64ArrayAttr real = var.getRealShapeAttr())
      var.setRealShapeAttr(bindRealShape(real, bound));
    var.setTensorType(bound);
  }
  program.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (auto type = dyn_cast<RankedTensorType>(result.getType()))
        result.setType(tl::bindSizes(type, valueOf));
    if (auto zero = dyn_cast<ZeroPaddingOp>(op))
      zero.setRealShapeAttr(
          bindRealShape(zero.getRealShapeAttr(), zero.getType()));
  });
  for (SizeOp size : llvm::make_early_inc_range(program.getSizes()))
    size.erase();
  // The distributed size is gone with the others (its value now one
  // process's extent), and the mark may not name a size that is not there.
  TLDialect::DistributedAttrHelper distributed(program.getContext());
  if (distributed.isAttrPresent(program))
    distributed.removeAttr(program);
  return success();
}

namespace {
struct TLBindSizesPass : public tl::impl::TLBindSizesBase<TLBindSizesPass> {
  using Base::Base;
  void runOnOperation() override {
    llvm::StringMap<int64_t> values;
    for (const std::string &binding : sizes) {
      auto [name, text] = StringRef(binding).split('=');
      int64_t value;
      if (name.empty() || text.getAsInteger(10, value)) {
        getOperation().emitError()
            << "expected NAME=VALUE in the sizes option, got '" << binding
            << "'";
        return signalPassFailure();
      }
      if (!values.try_emplace(name, value).second) {
        getOperation().emitError()
            << "size '" << name << "' is given more than once";
        return signalPassFailure();
      }
    }
    if (failed(tl::bindSizes(getOperation(), values)))
      signalPassFailure();
  }
};
} // namespace
