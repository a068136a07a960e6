//===- TLDialect.h - The tl dialect -----------------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLDIALECT_H
#define TENSORLANG_DIALECT_TL_IR_TLDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
// The helpers of the declared discardable attributes read and write them
// on operations.
#include "mlir/IR/Operation.h"

#include "tensorlang/Dialect/TL/IR/TLDialect.h.inc"

#endif // TENSORLANG_DIALECT_TL_IR_TLDIALECT_H
