//===- NonTemporalFence.h - Ordering non-temporal stores --------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The fence after non-temporal stores, which are weakly ordered: it makes
// them visible like ordinary stores before other threads or the caller read
// the buffer.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_TRANSFORMS_NONTEMPORALFENCE_H
#define TENSORLANG_LIB_TRANSFORMS_NONTEMPORALFENCE_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tensorlang {

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

} // namespace tensorlang

#endif // TENSORLANG_LIB_TRANSFORMS_NONTEMPORALFENCE_H
