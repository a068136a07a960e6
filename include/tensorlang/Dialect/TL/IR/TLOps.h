//===- TLOps.h - Operations of the tl dialect -------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLOPS_H
#define TENSORLANG_DIALECT_TL_IR_TLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tensorlang/Dialect/TL/IR/TLDialect.h"

namespace tensorlang::tl {
class VarOp;
class AssignOp;
} // namespace tensorlang::tl

#define GET_OP_CLASSES
#include "tensorlang/Dialect/TL/IR/TLOps.h.inc"

#endif // TENSORLANG_DIALECT_TL_IR_TLOPS_H
