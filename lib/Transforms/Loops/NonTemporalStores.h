//===- NonTemporalStores.h - Streaming stores' fence and checks -*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the passes that write with non-temporal stores share: the fence
// after them, which are weakly ordered (it makes them visible like ordinary
// stores before other threads or the caller read the buffer), and the
// run-time check that a buffer of run-time extents is large and starts
// every row on a line.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_TRANSFORMS_NONTEMPORALSTORES_H
#define TENSORLANG_LIB_TRANSFORMS_NONTEMPORALSTORES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tensorlang {

/// Bytes of a cache line: what a non-temporal store writes whole, and the
/// alignment of its address.
inline constexpr int64_t kNonTemporalLineBytes = 64;

/// Whether tl-streaming-stores streams a buffer of `type` whose rows a nest
/// writes whole, where it is aligned: static, of at least `minBytes`, its
/// rows whole lines.
inline bool hasStreamableRows(mlir::ShapedType type, int64_t minBytes) {
  if (!type.hasStaticShape() || type.getRank() == 0 ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return false;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  return type.getNumElements() * elementBytes >= minBytes &&
         (type.getShape().back() * elementBytes) % kNonTemporalLineBytes == 0;
}

/// sfence as inline assembly where `x86Sfence`, else `llvm.fence seq_cst`.
/// Unlike an intrinsic call or llvm.fence, the inline assembly declares its
/// memory effects, so convert-scf-to-openmp does not wrap a parallel body
/// that holds it in a memref.alloca_scope (which could not hold the body's
/// loops once they become blocks).
inline void createNonTemporalFence(mlir::OpBuilder &builder, mlir::Location loc,
                                   bool x86Sfence) {
  if (x86Sfence)
    mlir::LLVM::InlineAsmOp::create(
        builder, loc, mlir::TypeRange{}, mlir::ValueRange{}, "sfence",
        "~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        mlir::LLVM::TailCallKind::None, mlir::LLVM::AsmDialectAttr(),
        mlir::ArrayAttr());
  else
    mlir::LLVM::FenceOp::create(builder, loc,
                                mlir::LLVM::AtomicOrdering::seq_cst);
}

/// `value % of == 0`, built at the builder's insertion point.
inline mlir::Value buildIsMultipleOf(mlir::OpBuilder &builder,
                                     mlir::Location loc, mlir::Value value,
                                     int64_t of) {
  mlir::Value rest = mlir::arith::RemUIOp::create(
      builder, loc, value,
      mlir::arith::ConstantIndexOp::create(builder, loc, of));
  return mlir::arith::CmpIOp::create(
      builder, loc, mlir::arith::CmpIPredicate::eq, rest,
      mlir::arith::ConstantIndexOp::create(builder, loc, 0));
}

/// Whether `buffer` holds at least `minBytes` and each of its rows starts
/// on a line: its aligned pointer and offset, and every stride but the
/// last (which must be 1), are multiples of a line. Built at the builder's
/// insertion point, which `buffer` must dominate.
inline mlir::Value buildStreamableBufferCheck(mlir::OpBuilder &builder,
                                              mlir::Location loc,
                                              mlir::Value buffer,
                                              int64_t minBytes) {
  auto type = llvm::cast<mlir::MemRefType>(buffer.getType());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  int64_t lineElements = kNonTemporalLineBytes / elementBytes;
  auto isMultiple = [&](mlir::Value value, int64_t of) {
    return buildIsMultipleOf(builder, loc, value, of);
  };
  auto metadata =
      mlir::memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
  mlir::Value pointer = mlir::memref::ExtractAlignedPointerAsIndexOp::create(
      builder, loc, buffer);
  mlir::Value condition = mlir::arith::AndIOp::create(
      builder, loc, isMultiple(pointer, kNonTemporalLineBytes),
      isMultiple(metadata.getOffset(), lineElements));
  for (mlir::Value stride : metadata.getStrides().drop_back())
    condition = mlir::arith::AndIOp::create(builder, loc, condition,
                                            isMultiple(stride, lineElements));
  mlir::Value bytes =
      mlir::arith::ConstantIndexOp::create(builder, loc, elementBytes);
  for (mlir::Value size : metadata.getSizes())
    bytes = mlir::arith::MulIOp::create(builder, loc, bytes, size);
  mlir::Value large = mlir::arith::CmpIOp::create(
      builder, loc, mlir::arith::CmpIPredicate::uge, bytes,
      mlir::arith::ConstantIndexOp::create(builder, loc, minBytes));
  return mlir::arith::AndIOp::create(builder, loc, condition, large);
}

} // namespace tensorlang

#endif // TENSORLANG_LIB_TRANSFORMS_NONTEMPORALSTORES_H
