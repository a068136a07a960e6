//===- TLAttributes.h - Attributes of the tl dialect ------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_H
#define TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_H

#include "tensorlang/Transforms/TargetDescription.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#define GET_ATTRDEF_CLASSES
#include "tensorlang/Dialect/TL/IR/TLAttributes.h.inc"

namespace tensorlang::tl {

/// The module attribute that holds a module's TargetAttr.
inline constexpr llvm::StringLiteral kTargetAttrName = "tl.target";

/// The attribute of a linalg.generic that holds its ContractionPlanAttr
/// between the passes of tl-tile-contractions.
inline constexpr llvm::StringLiteral kContractionPlanAttrName =
    "tl.contraction_plan";

/// The attribute that names an argument of a program's functions as one of
/// its sizes (--convert-tl-to-linalg puts it; tl-workspace reads it).
inline constexpr llvm::StringLiteral kSizeArgAttrName = "tl.size";

/// The TargetAttr of the module that holds `op` (or of `op`, a module);
/// null where there is none.
TargetAttr getTargetAttr(mlir::Operation *op);

/// What the code generator knows of the target of `op`'s module: its
/// `tl.target`, else the reference target (TargetDescription's defaults).
TargetDescription getTargetDescription(mlir::Operation *op);

/// Puts `target` on `module` as its `tl.target`.
void setTargetDescription(mlir::Operation *module,
                          const TargetDescription &target);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_H
