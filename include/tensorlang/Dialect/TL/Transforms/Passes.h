//===- Passes.h - Passes of the tl dialect ----------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_H
#define TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_H

#include "tensorlang/Dialect/TL/Analysis/Definitions.h"
#include "tensorlang/Dialect/TL/Analysis/ZeroPadding.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

namespace tensorlang::tl {

#define GEN_PASS_DECL
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"

/// Pads `program` in place to multiples of `multiple` (see --tl-pad). With
/// `zeroPadding` false, statements are not followed by tl.zero_padding: the
/// report's rules as written, which can leave undefined values in padding.
mlir::LogicalResult padProgram(ProgramOp program, int64_t multiple,
                               bool zeroPadding = true);

/// Replaces every size of `program` by its value in `values` (see
/// --tl-bind-sizes), in place. Fails, with an error on the program, when a
/// size has no value, a value is not positive, or a variable becomes too
/// large. Values of names that are not sizes of the program are ignored.
mlir::LogicalResult bindSizes(ProgramOp program,
                              const llvm::StringMap<int64_t> &values);

/// Checks that `program` can run with the indices of `size` split over
/// processes and marks it (see --tl-distribute): `tl.distributed` on the
/// program, `tl.allreduce` on the statements whose targets the processes
/// sum. Errors at the statements that cannot.
mlir::LogicalResult distributeProgram(ProgramOp program, llvm::StringRef size);

/// Rewrites `program` in place to run on variables stored in column-major
/// (Fortran) order, and marks it `tl.column_major` (see --tl-column-major).
mlir::LogicalResult storeColumnMajor(ProgramOp program);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_TRANSFORMS_PASSES_H
