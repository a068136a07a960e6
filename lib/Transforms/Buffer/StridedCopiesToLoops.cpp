//===- StridedCopiesToLoops.cpp - memref.copy of views as linalg.copy -----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tensorlang {
#define GEN_PASS_DEF_STRIDEDCOPIESTOLOOPS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

static bool hasIdentityLayout(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && type.getLayout().isIdentity();
}

/// Whether `value` is a buffer with a dynamic extent that is not defined
/// at the top level of its function (whose extents affine loops cannot
/// take as bounds).
static bool isSizedViewInRegion(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && !type.hasStaticShape() && !affine::isTopLevelValue(value);
}

namespace {
struct StridedCopiesToLoopsPass
    : public tensorlang::impl::StridedCopiesToLoopsBase<
          StridedCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!hasIdentityLayout(copy.getSource()) ||
          !hasIdentityLayout(copy.getTarget()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      // The edge of a sized contraction's tile, inside scf loops: its
      // extents are no affine symbols, so the copy is scf loops already.
      bool sizedInLoops =
          copy->getParentOfType<scf::ForOp>() &&
          !cast<MemRefType>(copy.getTarget().getType()).hasStaticShape();
      rewriter.setInsertionPoint(copy);
      auto linalgCopy = rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, copy.getSource(), copy.getTarget());
      if (sizedInLoops &&
          succeeded(linalg::linalgOpToLoops(rewriter, linalgCopy)))
        rewriter.eraseOp(linalgCopy);
    }
    // In a version of a contraction chosen at run time (an scf.if), a view
    // made in the version has extents that are no affine symbols there:
    // the statements over such views become scf loops.
    // So have the statements over views made in the loops of a sized
    // contraction's tiles: the starts of the accumulators of its register
    // tiles at its edges (fillInFirstDepthBlock), the copies of its blocks
    // into panels.
    SmallVector<linalg::LinalgOp> inVersions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if ((op->getParentOfType<scf::IfOp>() ||
           op->getParentOfType<scf::ForOp>()) &&
          llvm::any_of(op->getOperands(), isSizedViewInRegion))
        inVersions.push_back(op);
    });
    for (linalg::LinalgOp op : inVersions) {
      rewriter.setInsertionPoint(op);
      if (succeeded(linalg::linalgOpToLoops(rewriter, op)))
        rewriter.eraseOp(op);
    }
  }
};
} // namespace
