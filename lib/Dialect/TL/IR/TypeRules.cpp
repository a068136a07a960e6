//===- TypeRules.cpp - The report's typing rules, once --------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

StringRef tl::getArithSymbol(ArithKind kind) {
  switch (kind) {
  case ArithKind::Add:
    return "+";
  case ArithKind::Sub:
    return "-";
  case ArithKind::Mul:
    return "*";
  case ArithKind::Div:
    return "/";
  case ArithKind::Min:
    return "min";
  case ArithKind::Max:
    return "max";
  }
  llvm_unreachable("unknown arithmetic kind");
}

StringRef tl::getUnarySymbol(UnaryKind kind) {
  switch (kind) {
  case UnaryKind::Neg:
    return "-";
  case UnaryKind::Sqrt:
    return "sqrt";
  case UnaryKind::Abs:
    return "abs";
  case UnaryKind::Exp:
    return "exp";
  case UnaryKind::Log:
    return "log";
  }
  llvm_unreachable("unknown unary kind");
}

SmallVector<Extent> tl::getExtents(RankedTensorType type) {
  auto sizes = dyn_cast_or_null<ArrayAttr>(type.getEncoding());
  SmallVector<Extent> extents;
  unsigned nextSize = 0;
  for (int64_t value : type.getShape()) {
    Extent extent{value, nullptr};
    if (ShapedType::isDynamic(value) && sizes && nextSize < sizes.size())
      extent.size = dyn_cast<FlatSymbolRefAttr>(sizes[nextSize++]);
    extents.push_back(extent);
  }
  return extents;
}

RankedTensorType tl::getTensorType(ArrayRef<Extent> extents, Type elementType) {
  SmallVector<int64_t> shape;
  SmallVector<Attribute> sizes;
  for (const Extent &extent : extents) {
    shape.push_back(extent.isSized() ? ShapedType::kDynamic : extent.value);
    if (extent.isSized())
      sizes.push_back(extent.size);
  }
  Attribute encoding;
  if (!sizes.empty())
    encoding = ArrayAttr::get(elementType.getContext(), sizes);
  return RankedTensorType::get(shape, elementType, encoding);
}

bool tl::isLanguageTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<Float32Type, Float64Type>(tensor.getElementType()))
    return false;
  Attribute encoding = tensor.getEncoding();
  if (!encoding)
    return tensor.hasStaticShape();
  auto sizes = dyn_cast<ArrayAttr>(encoding);
  return sizes && !sizes.empty() &&
         sizes.size() == size_t(tensor.getNumDynamicDims()) &&
         llvm::all_of(sizes, llvm::IsaPred<FlatSymbolRefAttr>);
}

RankedTensorType
tl::bindSizes(RankedTensorType type,
              function_ref<int64_t(FlatSymbolRefAttr)> valueOf) {
  if (!hasSizes(type))
    return type;
  SmallVector<int64_t> shape;
  for (const Extent &extent : getExtents(type))
    shape.push_back(extent.isSized() ? valueOf(extent.size) : extent.value);
  return RankedTensorType::get(shape, type.getElementType());
}

RankedTensorType tl::eraseSizeNames(RankedTensorType type) {
  return RankedTensorType::get(type.getShape(), type.getElementType());
}

std::string tl::formatExtent(const Extent &extent) {
  if (extent.isSized())
    return extent.size.getValue().str();
  return std::to_string(extent.value);
}

std::string tl::formatType(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleave(
      getExtents(type), os,
      [&](const Extent &extent) { os << formatExtent(extent); }, " ");
  os << ']';
  return text;
}

/// Checks the limits of `type`, naming `rule` (the rule that produced the
/// type, or empty for a declared type) in the message. An expression's
/// value (`isExpression`) has the looser limits of one that may never be
/// stored.
static LogicalResult checkLimits(RankedTensorType type, StringRef rule,
                                 EmitErrorFn emitError,
                                 bool isExpression = false) {
  auto ruleSuffix = [&]() -> std::string {
    return rule.empty() ? std::string() : (" (rule " + rule + ")").str();
  };
  int64_t maxRank = isExpression ? kMaxExpressionRank : kMaxRank;
  if (type.getRank() > maxRank) {
    emitError() << "type " << formatType(type) << " has rank " << type.getRank()
                << ", above the limit of " << maxRank << ruleSuffix();
    return failure();
  }
  // A size's value is checked when it is bound; the fixed extents alone
  // must fit.
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  for (int64_t extent : type.getShape()) {
    if (ShapedType::isDynamic(extent))
      continue;
    // 0 is the extent of a size bound to 0 (an empty partition); the
    // source's own extents are positive (the parser says so).
    if (extent < 0) {
      emitError() << "type " << formatType(type) << " has a negative extent"
                  << ruleSuffix();
      return failure();
    }
    if (!isExpression && llvm::MulOverflow(bytes, extent, bytes)) {
      emitError() << "type " << formatType(type)
                  << " is too large: its size in bytes overflows int64"
                  << ruleSuffix();
      return failure();
    }
  }
  return success();
}

LogicalResult tl::verifyTensorLimits(RankedTensorType type,
                                     EmitErrorFn emitError) {
  return checkLimits(type, "", emitError);
}

FailureOr<RankedTensorType> tl::inferOuterProductType(RankedTensorType lhs,
                                                      RankedTensorType rhs,
                                                      EmitErrorFn emitError) {
  if (lhs.getElementType() != rhs.getElementType()) {
    emitError() << "operands of '#' have different element types "
                << lhs.getElementType() << " and " << rhs.getElementType()
                << " (rule t-prod)";
    return failure();
  }
  SmallVector<Extent> extents = getExtents(lhs);
  llvm::append_range(extents, getExtents(rhs));
  RankedTensorType result = getTensorType(extents, lhs.getElementType());
  if (failed(checkLimits(result, "t-prod", emitError, /*isExpression=*/true)))
    return failure();
  return result;
}

LogicalResult tl::checkLiteral(double value, FloatType elementType,
                               StringRef spelling, EmitErrorFn emitError) {
  if (!std::isfinite(value)) {
    emitError() << "number " << spelling << " is not finite (rule t-lit)";
    return failure();
  }
  if (elementType.isF32() && std::fabs(value) > double(FLT_MAX)) {
    emitError() << "number " << spelling
                << " is out of the range of f32 (rule t-lit)";
    return failure();
  }
  return success();
}

FailureOr<RankedTensorType>
tl::inferStackType(ArrayRef<RankedTensorType> operands,
                   std::optional<int64_t> paddedExtent, EmitErrorFn emitError) {
  if (operands.empty()) {
    emitError() << "a stack needs at least one element (rule t-stack)";
    return failure();
  }
  RankedTensorType first = operands.front();
  for (auto [index, operand] : llvm::enumerate(operands)) {
    if (operand == first)
      continue;
    emitError() << "elements of a stack must have one type, but element 1 "
                   "has type "
                << formatType(first) << " and element " << index + 1
                << " has type " << formatType(operand) << " (rule t-stack)";
    return failure();
  }
  auto count = static_cast<int64_t>(operands.size());
  if (paddedExtent && *paddedExtent < count) {
    emitError() << "padded extent " << *paddedExtent
                << " of a stack is below its " << count << " elements";
    return failure();
  }
  SmallVector<Extent> extents{Extent{paddedExtent.value_or(count), nullptr}};
  llvm::append_range(extents, getExtents(first));
  RankedTensorType result = getTensorType(extents, first.getElementType());
  if (failed(checkLimits(result, "t-stack", emitError, /*isExpression=*/true)))
    return failure();
  return result;
}

/// Checks that `pairs` is a non-empty list of index pairs within the rank of
/// `operand`. `symbol` and `rule` name the operator in messages.
static LogicalResult checkIndexPairs(RankedTensorType operand,
                                     ArrayRef<int64_t> pairs, IndexBase base,
                                     StringRef symbol, StringRef rule,
                                     EmitErrorFn emitError) {
  if (pairs.empty() || pairs.size() % 2 != 0) {
    emitError() << "'" << symbol
                << "' expects a non-empty list of index pairs, got "
                << pairs.size() << " indices (rule " << rule << ")";
    return failure();
  }
  int64_t offset = static_cast<int64_t>(base);
  for (int64_t index : pairs) {
    if (index < 0 || index >= operand.getRank()) {
      InFlightDiagnostic diag = emitError();
      diag << "dimension index " << index + offset << " of '" << symbol
           << "' is out of range for type " << formatType(operand);
      if (operand.getRank() == 0)
        diag << ", which has no dimensions";
      else
        diag << " (valid indices are " << offset << " to "
             << operand.getRank() - 1 + offset << ")";
      diag << " (rule " << rule << ")";
      return failure();
    }
  }
  return success();
}

FailureOr<RankedTensorType>
tl::inferContractionType(RankedTensorType operand, ArrayRef<int64_t> pairs,
                         IndexBase base, EmitErrorFn emitError) {
  if (failed(checkIndexPairs(operand, pairs, base, ".", "t-contr", emitError)))
    return failure();
  int64_t offset = static_cast<int64_t>(base);
  SmallVector<Extent> extents = getExtents(operand);
  llvm::SmallBitVector contracted(operand.getRank());
  for (size_t i = 0; i < pairs.size(); i += 2) {
    int64_t m = pairs[i], n = pairs[i + 1];
    if (m == n) {
      emitError() << "cannot contract dimension " << m + offset
                  << " with itself (rule t-contr)";
      return failure();
    }
    for (int64_t index : {m, n}) {
      if (contracted.test(index)) {
        emitError() << "dimension " << index + offset
                    << " is contracted more than once (rule t-contr)";
        return failure();
      }
      contracted.set(index);
    }
    if (extents[m] != extents[n]) {
      emitError() << "contracted dimensions " << m + offset << " and "
                  << n + offset << " of type " << formatType(operand)
                  << " have different extents " << formatExtent(extents[m])
                  << " and " << formatExtent(extents[n]) << " (rule t-contr)";
      return failure();
    }
  }
  SmallVector<Extent> resultExtents;
  for (auto [index, extent] : llvm::enumerate(extents))
    if (!contracted.test(index))
      resultExtents.push_back(extent);
  return getTensorType(resultExtents, operand.getElementType());
}

FailureOr<RankedTensorType>
tl::inferTranspositionType(RankedTensorType operand, ArrayRef<int64_t> pairs,
                           IndexBase base, EmitErrorFn emitError) {
  if (failed(checkIndexPairs(operand, pairs, base, "^", "t-trans", emitError)))
    return failure();
  SmallVector<Extent> extents = getExtents(operand);
  for (size_t i = 0; i < pairs.size(); i += 2)
    std::swap(extents[pairs[i]], extents[pairs[i + 1]]);
  return getTensorType(extents, operand.getElementType());
}

FailureOr<RankedTensorType> tl::inferArithmeticType(ArithKind kind,
                                                    RankedTensorType lhs,
                                                    RankedTensorType rhs,
                                                    EmitErrorFn emitError) {
  StringRef symbol = getArithSymbol(kind);
  if (lhs.getElementType() != rhs.getElementType()) {
    emitError() << "operands of '" << symbol
                << "' have different element types " << lhs.getElementType()
                << " and " << rhs.getElementType() << " (rule t-elem)";
    return failure();
  }
  if (lhs == rhs)
    return lhs;
  // Rule t-scalar: the scalar applies to every element of the tensor.
  if (lhs.getRank() == 0)
    return rhs;
  if (rhs.getRank() == 0)
    return lhs;
  emitError() << "operands of '" << symbol << "' must have the same type, got "
              << formatType(lhs) << " and " << formatType(rhs)
              << " (rule t-elem)";
  return failure();
}

SmallVector<int64_t> tl::getTranspositionPermutation(ArrayRef<int64_t> pairs,
                                                     int64_t rank) {
  SmallVector<int64_t> permutation;
  for (int64_t i = 0; i < rank; ++i)
    permutation.push_back(i);
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    std::swap(permutation[pairs[i]], permutation[pairs[i + 1]]);
  return permutation;
}

SmallVector<int64_t>
tl::getTranspositionPairs(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> current;
  for (size_t i = 0; i < permutation.size(); ++i)
    current.push_back(i);
  SmallVector<int64_t> pairs;
  for (size_t i = 0; i < current.size(); ++i) {
    if (current[i] == permutation[i])
      continue;
    size_t j = llvm::find(current, permutation[i]) - current.begin();
    std::swap(current[i], current[j]);
    pairs.push_back(i);
    pairs.push_back(j);
  }
  return pairs;
}
