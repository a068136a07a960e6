//===- ColumnMajor.cpp - Store every variable in column-major order -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A variable of type [a b c] stored in column-major (Fortran) order holds
// element (i, j, k) at i + a*j + a*b*k: exactly where a variable of type
// [c b a] in row-major order holds element (k, j, i). So a program over
// column-major storage is the program over the reversed variables, each
// read transposed back and each value transposed before it is stored. The
// rest of the compiler (and the reference interpreter) sees an ordinary
// row-major program; the transpositions fold into the index maps of the
// statements' loop nests.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLCOLUMNMAJOR
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

/// `type` with its dimensions in reverse order (sizes included).
static RankedTensorType reverse(RankedTensorType type) {
  SmallVector<Extent> extents = getExtents(type);
  std::reverse(extents.begin(), extents.end());
  return getTensorType(extents, type.getElementType());
}

/// The swaps that reverse the dimensions of a value of rank `rank`.
static SmallVector<int64_t> reversalPairs(int64_t rank) {
  SmallVector<int64_t> pairs;
  for (int64_t dim = 0; dim < rank / 2; ++dim) {
    pairs.push_back(dim);
    pairs.push_back(rank - 1 - dim);
  }
  return pairs;
}

LogicalResult tl::storeColumnMajor(ProgramOp program) {
  TLDialect::ColumnMajorAttrHelper columnMajor(program.getContext());
  if (columnMajor.isAttrPresent(program))
    return program.emitError("the program is already column-major");
  if (TLDialect::DistributedAttrHelper(program.getContext())
          .isAttrPresent(program))
    return program.emitError(
        "a distributed program cannot be made column-major: distribution "
        "splits row-major blocks");
  for (VarOp var : program.getVars()) {
    var.setTensorType(reverse(var.getType()));
    if (DenseI64ArrayAttr real = var.getRealShapeAttr()) {
      SmallVector<int64_t> extents(llvm::reverse(real.asArrayRef()));
      var.setRealShapeAttr(
          DenseI64ArrayAttr::get(program.getContext(), extents));
    }
  }
  // The batch dimension of a batched variable moves to the other end.
  if (program.getBatch())
    program.setBatchLast(!program.getBatchLast());

  // Reads: the stored (reversed) value, transposed back.
  program.walk([&](UseOp use) {
    auto type = cast<RankedTensorType>(use.getType());
    if (type.getRank() < 2)
      return;
    OpBuilder builder(use->getContext());
    builder.setInsertionPointAfter(use);
    use.getResult().setType(reverse(type));
    auto back = TransposeOp::create(builder, use.getLoc(), use.getResult(),
                                    reversalPairs(type.getRank()));
    use.getResult().replaceAllUsesExcept(back.getResult(), back);
  });
  // Writes: the value, reversed.
  for (AssignOp assign : program.getStatements()) {
    auto yield = cast<YieldOp>(assign.getBodyRegion().front().getTerminator());
    auto type = cast<RankedTensorType>(yield.getValue().getType());
    if (type.getRank() < 2)
      continue;
    OpBuilder builder(yield);
    yield.getValueMutable().assign(
        TransposeOp::create(builder, yield.getLoc(), yield.getValue(),
                            reversalPairs(type.getRank())));
  }
  columnMajor.setAttr(program, UnitAttr::get(program.getContext()));
  return success();
}

namespace {
struct TLColumnMajorPass
    : public tl::impl::TLColumnMajorBase<TLColumnMajorPass> {
  void runOnOperation() override {
    if (failed(tl::storeColumnMajor(getOperation())))
      signalPassFailure();
  }
};
} // namespace
