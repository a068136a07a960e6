//===- MaskOddWidthTransfers.cpp - Odd-width rows as masked vectors -------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An in-bounds transfer of a vector whose length is not a power of two
// (a register tile's row of 11 or 3) becomes a masked load or store of the
// next power of two on AVX-512: one instruction, where LLVM splits the
// odd vector into pieces and joins them with shuffles.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/TargetParser/Triple.h"

namespace tensorlang {
#define GEN_PASS_DEF_MASKODDWIDTHTRANSFERS
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// The masked vector type that replaces `transfer`'s vector, if it moves an
/// odd-width row in bounds along the unit-stride last dimension of a memref
/// and the power of two above it fits a register of `registerBits`.
template <typename TransferOp>
static std::optional<VectorType> getMaskedType(TransferOp transfer,
                                               int64_t registerBits) {
  VectorType type = transfer.getVectorType();
  auto memref = dyn_cast<MemRefType>(transfer.getBase().getType());
  if (!memref || type.getRank() != 1 || type.isScalable() ||
      transfer.getMask() || !transfer.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(transfer.getInBoundsValues(), [](bool b) { return b; }) ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t length = type.getDimSize(0);
  int64_t width = int64_t(llvm::PowerOf2Ceil(uint64_t(length)));
  if (length < 3 || width == length ||
      width * type.getElementTypeBitWidth() > registerBits)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (memref.getRank() == 0 ||
      failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return std::nullopt;
  return VectorType::get({width}, type.getElementType());
}

/// The mask of the first `length` lanes of `type`, and a vector of zeros
/// of it (the masked lanes' values).
static std::pair<Value, Value> createMaskAndZeros(OpBuilder &builder,
                                                  Location loc, VectorType type,
                                                  int64_t length) {
  Value mask = vector::ConstantMaskOp::create(
      builder, loc, VectorType::get(type.getShape(), builder.getI1Type()),
      ArrayRef<int64_t>{length});
  Value zeros =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  return {mask, zeros};
}

namespace {
struct MaskOddWidthTransfersPass
    : public tensorlang::impl::MaskOddWidthTransfersBase<
          MaskOddWidthTransfersPass> {
  using MaskOddWidthTransfersBase::MaskOddWidthTransfersBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Masked loads and stores are single instructions with AVX-512; with
    // AVX2 they are slower, and NEON has none.
    tensorlang::TargetDescription target =
        tensorlang::tl::getTargetDescription(func);
    if (!force && (!llvm::Triple(target.triple).isX86() ||
                   target.vectorBits < 512 || target.scalableVectors))
      return;
    int64_t registerBits = target.vectorBits;
    SmallVector<Operation *> transfers;
    func.walk([&](Operation *op) {
      if (isa<vector::TransferReadOp, vector::TransferWriteOp>(op))
        transfers.push_back(op);
    });
    for (Operation *op : transfers) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
        std::optional<VectorType> masked = getMaskedType(read, registerBits);
        if (!masked)
          continue;
        int64_t length = read.getVectorType().getDimSize(0);
        auto [mask, passThrough] =
            createMaskAndZeros(builder, loc, *masked, length);
        Value wide =
            vector::MaskedLoadOp::create(builder, loc, *masked, read.getBase(),
                                         read.getIndices(), mask, passThrough);
        Value row = vector::ExtractStridedSliceOp::create(
            builder, loc, wide, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{length},
            ArrayRef<int64_t>{1});
        read.getResult().replaceAllUsesWith(row);
        read.erase();
        continue;
      }
      auto write = cast<vector::TransferWriteOp>(op);
      std::optional<VectorType> masked = getMaskedType(write, registerBits);
      if (!masked)
        continue;
      int64_t length = write.getVectorType().getDimSize(0);
      auto [mask, zeros] = createMaskAndZeros(builder, loc, *masked, length);
      Value wide = vector::InsertStridedSliceOp::create(
          builder, loc, write.getVector(), zeros, ArrayRef<int64_t>{0},
          ArrayRef<int64_t>{1});
      vector::MaskedStoreOp::create(builder, loc, write.getBase(),
                                    write.getIndices(), mask, wide);
      write.erase();
    }
  }
};
} // namespace
