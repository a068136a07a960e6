//===- TLOps.cpp - Operations of the tl dialect ---------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

//===----------------------------------------------------------------------===//
// Index pairs: `[[0, 1], [2, 3]]` printed from a flat array attribute.
//===----------------------------------------------------------------------===//

static ParseResult parseIndexPairs(OpAsmParser &parser,
                                   DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> indices;
  auto parsePair = [&]() -> ParseResult {
    int64_t first, second;
    if (parser.parseLSquare() || parser.parseInteger(first) ||
        parser.parseComma() || parser.parseInteger(second) ||
        parser.parseRSquare())
      return failure();
    indices.push_back(first);
    indices.push_back(second);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parsePair, " in index pair list"))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(indices);
  return success();
}

static void printIndexPairs(OpAsmPrinter &printer, Operation *,
                            DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> indices = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < indices.size(); i += 2) {
    if (i != 0)
      printer << ", ";
    printer << '[' << indices[i] << ", " << indices[i + 1] << ']';
  }
  // An odd trailing index cannot be printed as a pair; show it so the
  // verifier's complaint about it can be understood.
  if (indices.size() % 2 != 0)
    printer << (indices.size() > 1 ? ", " : "") << '[' << indices.back()
            << ']';
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Real shapes: `[5, 11]`, with `?` for a sized dimension's (never padded).
//===----------------------------------------------------------------------===//

static ParseResult parseRealShape(OpAsmParser &parser,
                                  DenseI64ArrayAttr &realShape) {
  SmallVector<int64_t> extents;
  auto parseExtent = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalQuestion())) {
      extents.push_back(ShapedType::kDynamic);
      return success();
    }
    return parser.parseInteger(extents.emplace_back());
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseExtent, " in real shape"))
    return failure();
  realShape = parser.getBuilder().getDenseI64ArrayAttr(extents);
  return success();
}

static void printRealShape(OpAsmPrinter &printer, Operation *,
                           DenseI64ArrayAttr realShape) {
  printer << '[';
  llvm::interleaveComma(realShape.asArrayRef(), printer, [&](int64_t extent) {
    if (ShapedType::isDynamic(extent))
      printer << '?';
    else
      printer << extent;
  });
  printer << ']';
}

#define GET_OP_CLASSES
#include "tensorlang/Dialect/TL/IR/TLOps.cpp.inc"

/// The error emitter of an InferTypeOpInterface hook: silent when the caller
/// only asks whether inference succeeds.
static auto makeEmitter(std::optional<Location> location) {
  return [location]() {
    return location ? mlir::emitError(*location) : InFlightDiagnostic();
  };
}

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &builder, OperationState &state,
                      StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addRegion()->emplaceBlock();
}

llvm::iterator_range<Block::op_iterator<VarOp>> ProgramOp::getVars() {
  return getBody()->getOps<VarOp>();
}

llvm::iterator_range<Block::op_iterator<SizeOp>> ProgramOp::getSizes() {
  return getBody()->getOps<SizeOp>();
}

llvm::iterator_range<Block::op_iterator<AssignOp>> ProgramOp::getStatements() {
  return getBody()->getOps<AssignOp>();
}

VarOp ProgramOp::lookupVar(StringRef name) {
  return lookupSymbol<VarOp>(name);
}

FloatType ProgramOp::getElementType() {
  for (VarOp var : getVars())
    return cast<FloatType>(var.getType().getElementType());
  return Float64Type::get(getContext());
}

RankedTensorType ProgramOp::getStoredType(RankedTensorType valueType) {
  SmallVector<Extent> extents = getExtents(valueType);
  extents.insert(getBatchLast() ? extents.end() : extents.begin(),
                 Extent{int64_t(getBatch().value()), nullptr});
  return getTensorType(extents, valueType.getElementType());
}

bool ProgramOp::hasQualifiers() {
  return llvm::any_of(getVars(), [](VarOp var) {
    return var.getInput() || var.getOutput();
  });
}

LogicalResult ProgramOp::verifyRegions() {
  Operation *firstStatement = nullptr;
  VarOp firstVar;
  for (Operation &op : *getBody()) {
    if (auto size = dyn_cast<SizeOp>(op)) {
      if (firstStatement || firstVar) {
        InFlightDiagnostic diag = size.emitOpError(
            "sizes must precede the variables and statements of the program");
        diag.attachNote(
            (firstVar ? firstVar.getOperation() : firstStatement)->getLoc())
            << "first declaration or statement is here";
        return diag;
      }
      continue;
    }
    if (auto var = dyn_cast<VarOp>(op)) {
      if (firstStatement) {
        InFlightDiagnostic diag = var.emitOpError(
            "declarations must precede all statements of the program");
        diag.attachNote(firstStatement->getLoc()) << "first statement is here";
        return diag;
      }
      if (!firstVar) {
        firstVar = var;
      } else if (var.getType().getElementType() !=
                 firstVar.getType().getElementType()) {
        InFlightDiagnostic diag = var.emitOpError()
                                  << "has element type "
                                  << var.getType().getElementType()
                                  << " but the program's variables are "
                                  << firstVar.getType().getElementType();
        diag.attachNote(firstVar.getLoc()) << "first declaration is here";
        return diag;
      }
      continue;
    }
    if (isa<AssignOp>(op)) {
      if (!firstStatement)
        firstStatement = &op;
      continue;
    }
    return op.emitOpError("cannot appear in a tl.program, which holds only "
                          "tl.size and tl.var declarations and tl.assign "
                          "statements");
  }
  // Statement types derive from the variables' (rule t-var), so checking
  // the declarations checks every size a type names.
  for (VarOp var : getVars())
    for (const Extent &extent : getExtents(var.getType()))
      if (extent.isSized() && !lookupSymbol<SizeOp>(extent.size.getAttr()))
        return var.emitOpError()
               << "has extent " << extent.size
               << ", which is not a size of the program (no tl.size "
               << extent.size << ")";
  return verifyBatchRules();
}

/// The rules of the batch form. With them, the elements of a batch are
/// independent (each writes its own slice of the batched variables), and a
/// statement that reads no batched variable computes the same value for
/// every element, so the compiler may run it once.
LogicalResult ProgramOp::verifyBatchRules() {
  if (!getBatch()) {
    if (getBatchLast())
      return emitOpError("has `last` but no batch");
    return success();
  }
  llvm::StringSet<> assignedShared;
  for (AssignOp assign : getStatements())
    if (VarOp target = lookupVar(assign.getTarget());
        target && !target.getBatched())
      assignedShared.insert(target.getSymName());

  llvm::StringSet<> assignedSoFar;
  for (AssignOp assign : getStatements()) {
    VarOp target = lookupVar(assign.getTarget());
    if (!target)
      continue; // The statement's own verifier reports it.
    for (StringAttr name : assign.getReadVariables()) {
      VarOp read = lookupVar(name);
      if (!read)
        continue;
      // Rule t-batch: one element's value goes to one element's slice.
      if (read.getBatched() && !target.getBatched()) {
        InFlightDiagnostic diag =
            mlir::emitError(assign.getLoc())
            << "the value assigned to '" << target.getSymName()
            << "' differs from element to element (it reads the batched "
               "variable '"
            << read.getSymName() << "'), but '" << target.getSymName()
            << "' is not batched (rule t-batch)";
        diag.attachNote(target.getLoc())
            << "'" << target.getSymName()
            << "' is declared here; list it in the batch";
        return diag;
      }
      // Rule t-batch-shared: otherwise an element would read what the
      // element before it left.
      if (!read.getBatched() && assignedShared.contains(name) &&
          !assignedSoFar.contains(name)) {
        InFlightDiagnostic diag =
            mlir::emitError(assign.getLoc())
            << "the shared (unbatched) variable '" << read.getSymName()
            << "' is read before the program assigns it, so each element "
               "would read the value the element before it left (rule "
               "t-batch-shared)";
        for (AssignOp other : getStatements())
          if (other.getTarget() == name.getValue()) {
            diag.attachNote(other.getLoc())
                << "'" << read.getSymName() << "' is assigned here";
            break;
          }
        return diag;
      }
    }
    assignedSoFar.insert(target.getSymName());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// VarOp
//===----------------------------------------------------------------------===//

/// Checks that `real` fits in `type`: same rank, extents from 1 up to the
/// type's.
static LogicalResult verifyRealShape(RankedTensorType type,
                                     ArrayRef<int64_t> real,
                                     EmitErrorFn emitError) {
  if (real.size() != size_t(type.getRank()))
    return emitError() << "real shape has " << real.size()
                       << " extents but the type " << formatType(type)
                       << " has rank " << type.getRank();
  for (auto [extent, padded] : llvm::zip(real, type.getShape())) {
    // A size is never padded: the real extent is the size too.
    if (ShapedType::isDynamic(padded)) {
      if (!ShapedType::isDynamic(extent))
        return emitError() << "real extent " << extent
                           << " is given for a sized dimension of "
                           << formatType(type);
      continue;
    }
    if (ShapedType::isDynamic(extent))
      return emitError() << "a size's real extent is given for the fixed "
                            "extent "
                         << padded << " of " << formatType(type);
    // An empty dimension (a size bound to 0) pads to 0 and is 0.
    if (extent < (padded == 0 ? 0 : 1) || extent > padded)
      return emitError() << "real extent " << extent
                         << " is not between 1 and the padded extent "
                         << padded << " of " << formatType(type);
  }
  return success();
}

std::optional<unsigned> VarOp::getBatchDim() {
  if (!getBatched())
    return std::nullopt;
  return cast<ProgramOp>((*this)->getParentOp())
      .getBatchDim(getType().getRank());
}

RankedTensorType VarOp::getValueType() {
  std::optional<unsigned> batchDim = getBatchDim();
  RankedTensorType type = getType();
  if (!batchDim || type.getRank() == 0)
    return type;
  SmallVector<Extent> extents = getExtents(type);
  extents.erase(extents.begin() + *batchDim);
  return tl::getTensorType(extents, type.getElementType());
}

SmallVector<int64_t> VarOp::getRealValueShape() {
  SmallVector<int64_t> shape(getRealShapeOrShape());
  if (std::optional<unsigned> batchDim = getBatchDim();
      batchDim && !shape.empty())
    shape.erase(shape.begin() + *batchDim);
  return shape;
}

bool VarOp::isDefinedOnEntry() {
  return getInput() || !cast<ProgramOp>((*this)->getParentOp()).hasQualifiers();
}

bool VarOp::isLiveOut() {
  return getOutput() || !cast<ProgramOp>((*this)->getParentOp()).hasQualifiers();
}

LogicalResult VarOp::verify() {
  auto emit = [&] { return emitOpError(); };
  if (failed(verifyTensorLimits(getType(), emit)))
    return failure();
  if (auto real = getRealShapeAttr();
      real && failed(verifyRealShape(getType(), real.asArrayRef(), emit)))
    return failure();
  if (getBatched()) {
    auto program = cast<ProgramOp>((*this)->getParentOp());
    if (!program.getBatch())
      return emitOpError("is batched but its program has no batch");
    int64_t rank = getType().getRank();
    if (rank == 0)
      return emitOpError("is batched but its type has no batch dimension");
    unsigned dim = program.getBatchDim(rank);
    if (getType().getDimSize(dim) != int64_t(*program.getBatch()))
      return emitOpError() << "has extent "
                           << formatExtent(getExtents(getType())[dim])
                           << " in its batch dimension (" << dim + 1
                           << ") but the program's batch has "
                           << *program.getBatch() << " elements";
    if (auto real = getRealShapeAttr();
        real && real.asArrayRef()[dim] != getType().getDimSize(dim))
      return emitOpError("has a padded batch dimension; only an element's "
                         "dimensions are padded");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AssignOp
//===----------------------------------------------------------------------===//

Value AssignOp::getValue() {
  return cast<YieldOp>(getBody()->getTerminator()).getValue();
}

SmallVector<StringAttr> AssignOp::getReadVariables() {
  SmallVector<StringAttr> names;
  getBody()->walk([&](UseOp use) {
    StringAttr name = use.getVarAttr().getAttr();
    if (!llvm::is_contained(names, name))
      names.push_back(name);
  });
  return names;
}

LogicalResult AssignOp::verifyRegions() {
  if (getBody()->empty() || !isa<YieldOp>(getBody()->back()))
    return emitOpError("body must end with a tl.yield of the assigned value");
  return success();
}

LogicalResult AssignOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto var =
      symbolTable.lookupNearestSymbolFrom<VarOp>(*this, getTargetAttr());
  if (!var)
    return emitOpError() << "assigns to undeclared variable " << getTargetAttr()
                         << " (rule ok-stmt)";
  RankedTensorType valueType = tensorType(getValue());
  RankedTensorType varType = var.getValueType();
  if (valueType != varType) {
    InFlightDiagnostic diag =
        emitOpError() << "assigns a value of type " << formatType(valueType)
                      << " (" << valueType << ") to variable "
                      << getTargetAttr() << " of type " << formatType(varType)
                      << " (" << varType << ") (rule ok-stmt)";
    diag.attachNote(var.getLoc()) << "variable declared here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// UseOp
//===----------------------------------------------------------------------===//

LogicalResult UseOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto var = symbolTable.lookupNearestSymbolFrom<VarOp>(*this, getVarAttr());
  if (!var)
    return emitOpError() << "uses undeclared variable " << getVarAttr()
                         << " (rule t-var)";
  if (getType() != var.getValueType()) {
    InFlightDiagnostic diag =
        emitOpError() << "result type " << getType()
                      << " differs from the type " << var.getValueType()
                      << " of variable " << getVarAttr() << " (rule t-var)";
    diag.attachNote(var.getLoc()) << "variable declared here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Expression ops: each forwards to its typing rule.
//===----------------------------------------------------------------------===//

/// The type of an expression operand, or failure when it is not a value of
/// the language. Inference runs while parsing, before the operand type
/// constraints are verified, so it must not assume them.
static FailureOr<RankedTensorType>
operandType(Value operand, std::optional<Location> location) {
  if (isLanguageTensorType(operand.getType()))
    return cast<RankedTensorType>(operand.getType());
  return emitOptionalError(location, "operand type ", operand.getType(),
                           " is not a tensor of f32 or f64 whose dynamic "
                           "dimensions are sizes");
}

static LogicalResult pushInferred(FailureOr<RankedTensorType> type,
                                  SmallVectorImpl<Type> &inferred) {
  if (failed(type))
    return failure();
  inferred.push_back(*type);
  return success();
}

LogicalResult OuterOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> lhs = operandType(adaptor.getLhs(), location);
  FailureOr<RankedTensorType> rhs = operandType(adaptor.getRhs(), location);
  if (failed(lhs) || failed(rhs))
    return failure();
  return pushInferred(
      inferOuterProductType(*lhs, *rhs, makeEmitter(location)), inferred);
}

LogicalResult StackOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  SmallVector<RankedTensorType> types;
  for (Value element : adaptor.getElements()) {
    FailureOr<RankedTensorType> type = operandType(element, location);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  std::optional<int64_t> padded;
  if (IntegerAttr attr = adaptor.getPaddedExtentAttr())
    padded = attr.getInt();
  return pushInferred(inferStackType(types, padded, makeEmitter(location)),
                      inferred);
}

LogicalResult ContractOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> type = operandType(adaptor.getOperand(), location);
  if (failed(type))
    return failure();
  return pushInferred(inferContractionType(*type, adaptor.getPairs(),
                                           IndexBase::Zero,
                                           makeEmitter(location)),
                      inferred);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> type = operandType(adaptor.getOperand(), location);
  if (failed(type))
    return failure();
  return pushInferred(inferTranspositionType(*type, adaptor.getPairs(),
                                             IndexBase::Zero,
                                             makeEmitter(location)),
                      inferred);
}

LogicalResult ZeroPaddingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> type = operandType(adaptor.getOperand(), location);
  if (failed(type))
    return failure();
  if (failed(verifyRealShape(*type, adaptor.getRealShape(),
                             makeEmitter(location))))
    return failure();
  inferred.push_back(*type);
  return success();
}

static LogicalResult inferArithmetic(ArithKind kind, Value lhsValue,
                                     Value rhsValue,
                                     std::optional<Location> location,
                                     SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> lhs = operandType(lhsValue, location);
  FailureOr<RankedTensorType> rhs = operandType(rhsValue, location);
  if (failed(lhs) || failed(rhs))
    return failure();
  return pushInferred(
      inferArithmeticType(kind, *lhs, *rhs, makeEmitter(location)), inferred);
}

#define TL_DEFINE_ARITH_INFERENCE(OpClass, Kind)                               \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *, std::optional<Location> location, Adaptor adaptor,        \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferArithmetic(ArithKind::Kind, adaptor.getLhs(),                  \
                           adaptor.getRhs(), location, inferred);              \
  }
TL_DEFINE_ARITH_INFERENCE(AddOp, Add)
TL_DEFINE_ARITH_INFERENCE(SubOp, Sub)
TL_DEFINE_ARITH_INFERENCE(MulOp, Mul)
TL_DEFINE_ARITH_INFERENCE(DivOp, Div)
TL_DEFINE_ARITH_INFERENCE(MinOp, Min)
TL_DEFINE_ARITH_INFERENCE(MaxOp, Max)
#undef TL_DEFINE_ARITH_INFERENCE

// Rule t-fun: a unary element-wise operation keeps its operand's type.
#define TL_DEFINE_UNARY_INFERENCE(OpClass)                                     \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *, std::optional<Location> location, Adaptor adaptor,        \
      SmallVectorImpl<Type> &inferred) {                                       \
    FailureOr<RankedTensorType> type =                                         \
        operandType(adaptor.getOperand(), location);                           \
    if (failed(type))                                                          \
      return failure();                                                        \
    inferred.push_back(*type);                                                 \
    return success();                                                          \
  }
TL_DEFINE_UNARY_INFERENCE(NegOp)
TL_DEFINE_UNARY_INFERENCE(SqrtOp)
TL_DEFINE_UNARY_INFERENCE(AbsOp)
TL_DEFINE_UNARY_INFERENCE(ExpOp)
TL_DEFINE_UNARY_INFERENCE(LogOp)
#undef TL_DEFINE_UNARY_INFERENCE

std::optional<ArithKind> tl::getArithKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ArithKind>>(op)
      .Case([](AddOp) { return ArithKind::Add; })
      .Case([](SubOp) { return ArithKind::Sub; })
      .Case([](MulOp) { return ArithKind::Mul; })
      .Case([](DivOp) { return ArithKind::Div; })
      .Case([](MinOp) { return ArithKind::Min; })
      .Case([](MaxOp) { return ArithKind::Max; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<UnaryKind> tl::getUnaryKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<UnaryKind>>(op)
      .Case([](NegOp) { return UnaryKind::Neg; })
      .Case([](SqrtOp) { return UnaryKind::Sqrt; })
      .Case([](AbsOp) { return UnaryKind::Abs; })
      .Case([](ExpOp) { return UnaryKind::Exp; })
      .Case([](LogOp) { return UnaryKind::Log; })
      .Default([](Operation *) { return std::nullopt; });
}

Value tl::createArith(OpBuilder &builder, Location loc, ArithKind kind,
                      Value lhs, Value rhs) {
  switch (kind) {
  case ArithKind::Add:
    return AddOp::create(builder, loc, lhs, rhs);
  case ArithKind::Sub:
    return SubOp::create(builder, loc, lhs, rhs);
  case ArithKind::Mul:
    return MulOp::create(builder, loc, lhs, rhs);
  case ArithKind::Div:
    return DivOp::create(builder, loc, lhs, rhs);
  case ArithKind::Min:
    return MinOp::create(builder, loc, lhs, rhs);
  case ArithKind::Max:
    return MaxOp::create(builder, loc, lhs, rhs);
  }
  llvm_unreachable("unknown arithmetic kind");
}

Value tl::createUnary(OpBuilder &builder, Location loc, UnaryKind kind,
                      Value operand) {
  switch (kind) {
  case UnaryKind::Neg:
    return NegOp::create(builder, loc, operand);
  case UnaryKind::Sqrt:
    return SqrtOp::create(builder, loc, operand);
  case UnaryKind::Abs:
    return AbsOp::create(builder, loc, operand);
  case UnaryKind::Exp:
    return ExpOp::create(builder, loc, operand);
  case UnaryKind::Log:
    return LogOp::create(builder, loc, operand);
  }
  llvm_unreachable("unknown unary kind");
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  double value = getValue().convertToDouble();
  return checkLiteral(value, cast<FloatType>(getType().getElementType()),
                      llvm::formatv("{0:e}", value).str(),
                      [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// TransposeOp folding
//===----------------------------------------------------------------------===//

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  // t(t(x, p), q) is t(x, p ++ q): the swaps compose left to right.
  SmallVector<int64_t> pairs;
  Value operand = getOperand();
  auto inner = operand.getDefiningOp<TransposeOp>();
  if (inner) {
    llvm::append_range(pairs, inner.getPairs());
    operand = inner.getOperand();
  }
  llvm::append_range(pairs, getPairs());
  SmallVector<int64_t> swaps = getTranspositionPairs(getTranspositionPermutation(
      pairs, cast<RankedTensorType>(getType()).getRank()));
  if (swaps.empty())
    return operand;
  if (!inner && ArrayRef<int64_t>(swaps) == getPairs())
    return {};
  getOperandMutable().assign(operand);
  setPairs(swaps);
  return getResult();
}
