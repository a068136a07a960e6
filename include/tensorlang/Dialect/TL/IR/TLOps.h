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
class SizeOp;
class AssignOp;
} // namespace tensorlang::tl

#define GET_OP_CLASSES
#include "tensorlang/Dialect/TL/IR/TLOps.h.inc"

#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include <optional>

namespace tensorlang::tl {

/// The kind of a binary element-wise op (tl.add ... tl.max), or none.
std::optional<ArithKind> getArithKind(mlir::Operation *op);
/// The kind of a unary element-wise op (tl.neg ... tl.log), or none.
std::optional<UnaryKind> getUnaryKind(mlir::Operation *op);

/// Creates the binary element-wise op of `kind`; its type is inferred.
mlir::Value createArith(mlir::OpBuilder &builder, mlir::Location loc,
                        ArithKind kind, mlir::Value lhs, mlir::Value rhs);
/// Creates the unary element-wise op of `kind`.
mlir::Value createUnary(mlir::OpBuilder &builder, mlir::Location loc,
                        UnaryKind kind, mlir::Value operand);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_IR_TLOPS_H
