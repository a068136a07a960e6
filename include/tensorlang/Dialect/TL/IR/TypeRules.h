//===- TypeRules.h - The report's typing rules, once ------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each expression typing rule of the report (figure "Expression typing") is
// implemented here exactly once. The op verifiers (through
// InferTypeOpInterface) and the source frontend both call these functions, so
// a program the frontend accepts is one the verifier accepts, with the same
// message when it is not.
//
// Dimension indices are 0-based. Messages print them in the caller's
// numbering (`IndexBase::One` for source programs) and print types in the
// report's notation, `[4 4]`.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TYPERULES_H
#define TENSORLANG_DIALECT_TL_IR_TYPERULES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include <optional>
#include <string>

namespace tensorlang::tl {

/// The largest rank of a tensor that exists: a variable's, or a temporary
/// the compiler stores.
constexpr int64_t kMaxRank = 16;
/// The largest rank of an expression's value. Outer products and stacks
/// that a contraction consumes are never stored (a 6-D interpolation
/// `u # A # A # A # A # A # A . [...]` has rank 18 and needs no tensor of
/// that rank), so only this looser bound, which keeps loop nests and index
/// maps small, applies to them, and their size in bytes is not bounded.
constexpr int64_t kMaxExpressionRank = 64;

/// Produces the diagnostic a failing rule writes its message into.
using EmitErrorFn = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// How messages number dimensions: as the IR does, or as the source does.
enum class IndexBase { Zero = 0, One = 1 };

/// The binary element-wise operations: the four operators of rule t-elem
/// (and t-smul, t-sdiv), and the functions min and max (extension).
enum class ArithKind { Add, Sub, Mul, Div, Min, Max };

/// The operation in the source language: "+", "-", "*", "/", "min", "max".
llvm::StringRef getArithSymbol(ArithKind kind);

/// Whether the source writes the operation as a function call, `min(a, b)`,
/// rather than as an infix operator.
inline bool isArithFunction(ArithKind kind) {
  return kind == ArithKind::Min || kind == ArithKind::Max;
}

/// The unary element-wise operations (extension): negation `-e` and the
/// functions sqrt, abs, exp and log. They keep their operand's type.
enum class UnaryKind { Neg, Sqrt, Abs, Exp, Log };

/// The operation in the source language: "-", "sqrt", "abs", "exp", "log".
llvm::StringRef getUnarySymbol(UnaryKind kind);

//===----------------------------------------------------------------------===//
// Sizes: extents known at run time
//===----------------------------------------------------------------------===//
//
// A dimension's extent is a number, or a size the program declares
// (`size E`, `tl.size @E`) whose value is known only at run time. A sized
// dimension is a dynamic dimension of the tensor type, and the type's
// encoding lists, for its dynamic dimensions in order, the sizes they stand
// for: `tensor<?x11xf64, [@E]>`. So type equality is the extended rules'
// syntactic comparison of extents: `E` matches `E`, never `11` nor `F`.

/// The extent of one dimension: a fixed number, or a size (`value` is then
/// mlir::ShapedType::kDynamic).
struct Extent {
  int64_t value = 0;
  mlir::FlatSymbolRefAttr size;

  bool isSized() const { return static_cast<bool>(size); }
  bool operator==(const Extent &other) const {
    return value == other.value && size == other.size;
  }
  bool operator!=(const Extent &other) const { return !(*this == other); }
};

/// The extents of `type`, one per dimension.
llvm::SmallVector<Extent> getExtents(mlir::RankedTensorType type);
/// The tensor type of `extents` and `elementType`, its sizes in the
/// encoding.
mlir::RankedTensorType getTensorType(llvm::ArrayRef<Extent> extents,
                                     mlir::Type elementType);
/// Whether `type` is a value of the language: f32 or f64 elements, every
/// dynamic dimension named by a size of the encoding, no other encoding.
bool isLanguageTensorType(mlir::Type type);
/// Whether any dimension of `type` is a size.
inline bool hasSizes(mlir::RankedTensorType type) {
  return !type.hasStaticShape();
}
/// `type` with every size replaced by its value, as `valueOf` gives it.
mlir::RankedTensorType
bindSizes(mlir::RankedTensorType type,
          llvm::function_ref<int64_t(mlir::FlatSymbolRefAttr)> valueOf);
/// `type` without the sizes' names: its sized dimensions stay dynamic. The
/// tensors of the lowering have such types.
mlir::RankedTensorType eraseSizeNames(mlir::RankedTensorType type);

/// The value cost models assume for a size, unknown until run time. Sizes
/// stand for numbers of elements or mesh points, which dominate the fixed
/// extents of a kernel, so a plan that keeps sized indices out of its
/// costly steps wins whatever the value turns out to be.
constexpr int64_t kAssumedSizeValue = 1024;
/// An extent as cost models count it: the number, or kAssumedSizeValue
/// for a dynamic (sized) extent.
inline double getPlanningExtent(int64_t extent) {
  return mlir::ShapedType::isDynamic(extent) ? double(kAssumedSizeValue)
                                             : double(extent);
}

/// An extent as the source writes it: `11` or `E`.
std::string formatExtent(const Extent &extent);

/// A type in the report's notation: `[4 4]`, `[]` for a scalar, `[E 4]`
/// with a size.
std::string formatType(mlir::RankedTensorType type);

/// Checks the limits every tensor that exists must respect: extents of 0
/// or more (0 only where a size is bound to 0: the source's extents are
/// positive), rank at most kMaxRank, and a byte size that fits in int64.
mlir::LogicalResult verifyTensorLimits(mlir::RankedTensorType type,
                                       EmitErrorFn emitError);

/// Rule t-prod: the outer product's type concatenates the operand types.
mlir::FailureOr<mlir::RankedTensorType>
inferOuterProductType(mlir::RankedTensorType lhs, mlir::RankedTensorType rhs,
                      EmitErrorFn emitError);

/// Rule t-contr, for one or more pairs `(pairs[2k], pairs[2k+1])` contracted
/// at once: every index in range and distinct, equal extents per pair; the
/// result drops all named dimensions.
mlir::FailureOr<mlir::RankedTensorType>
inferContractionType(mlir::RankedTensorType operand,
                     llvm::ArrayRef<int64_t> pairs, IndexBase base,
                     EmitErrorFn emitError);

/// Rule t-lit (extension): a literal is a finite number within the range of
/// the element type. `spelling` is how messages show it.
mlir::LogicalResult checkLiteral(double value, mlir::FloatType elementType,
                                 llvm::StringRef spelling,
                                 EmitErrorFn emitError);

/// Rule t-stack (extension): `[e1 ... ek]` of operands of one type T has
/// type [k T]; `paddedExtent`, when the program is padded, replaces k.
mlir::FailureOr<mlir::RankedTensorType>
inferStackType(llvm::ArrayRef<mlir::RankedTensorType> operands,
               std::optional<int64_t> paddedExtent, EmitErrorFn emitError);

/// Rule t-trans, for one or more swaps applied from left to right.
mlir::FailureOr<mlir::RankedTensorType>
inferTranspositionType(mlir::RankedTensorType operand,
                       llvm::ArrayRef<int64_t> pairs, IndexBase base,
                       EmitErrorFn emitError);

/// Rule t-elem (operands of the same type) and its extension t-scalar: a
/// scalar with a tensor of any type, on either side, for every binary
/// element-wise operation; it generalizes the report's t-smul (`s * e`) and
/// t-sdiv (`e / s`).
mlir::FailureOr<mlir::RankedTensorType>
inferArithmeticType(ArithKind kind, mlir::RankedTensorType lhs,
                    mlir::RankedTensorType rhs, EmitErrorFn emitError);

/// The permutation a transposition's `pairs` (0-based) apply: result
/// dimension i is operand dimension permutation[i]. The pairs swap entries
/// of the identity, left to right.
llvm::SmallVector<int64_t> getTranspositionPermutation(
    llvm::ArrayRef<int64_t> pairs, int64_t rank);

/// The fewest swaps, as tl.transpose pairs, whose permutation is
/// `permutation` (empty for the identity).
llvm::SmallVector<int64_t>
getTranspositionPairs(llvm::ArrayRef<int64_t> permutation);

} // namespace tensorlang::tl

#endif // TENSORLANG_DIALECT_TL_IR_TYPERULES_H
