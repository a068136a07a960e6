//===- TLAttributes.cpp - Attributes of the tl dialect --------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

/// A contraction plan's optional fields, each printed only where it is not
/// its default: `, sized_panels = [1, 0]` and `, thread_columns = 1016`, in
/// that order. (Two optional groups of the declarative format that both
/// start with a comma cannot tell each other apart.)
static ParseResult
parseOptionalPlanFields(AsmParser &parser,
                        SmallVector<int64_t> &sizedPanelInputs,
                        int64_t &threadColumns) {
  sizedPanelInputs.clear();
  threadColumns = 0;
  // The fields still allowed: each at most once, in order.
  unsigned next = 0;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef field;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&field) || parser.parseEqual())
      return failure();
    if (field == "sized_panels" && next == 0) {
      next = 1;
      if (parser.parseLSquare() || parser.parseCommaSeparatedList([&] {
            return parser.parseInteger(sizedPanelInputs.emplace_back());
          }) ||
          parser.parseRSquare())
        return failure();
      continue;
    }
    if (field == "thread_columns" && next <= 1) {
      next = 2;
      if (parser.parseInteger(threadColumns))
        return failure();
      continue;
    }
    return parser.emitError(loc)
           << "expected 'sized_panels' or 'thread_columns', in that order";
  }
  return success();
}

static void printOptionalPlanFields(AsmPrinter &printer,
                                    ArrayRef<int64_t> sizedPanelInputs,
                                    int64_t threadColumns) {
  if (!sizedPanelInputs.empty()) {
    printer << ", sized_panels = [";
    llvm::interleaveComma(sizedPanelInputs, printer);
    printer << ']';
  }
  if (threadColumns != 0)
    printer << ", thread_columns = " << threadColumns;
}

#define GET_ATTRDEF_CLASSES
#include "tensorlang/Dialect/TL/IR/TLAttributes.cpp.inc"

void TLDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tensorlang/Dialect/TL/IR/TLAttributes.cpp.inc"
      >();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef triple, StringRef cpu,
                                 StringRef features, int64_t vectorBits,
                                 bool scalableVectors, int64_t vectorRegisters,
                                 int64_t l1CacheBytes, int64_t l2CacheBytes,
                                 int64_t l3CacheBytes, int64_t cacheLineBytes,
                                 bool vectorMathLibrary, bool x86Sfence,
                                 bool hugePages, StringRef gpuChip) {
  llvm::Triple parsed(triple);
  if (parsed.getArch() == llvm::Triple::UnknownArch)
    return emitError() << "unknown target triple '" << triple << "'";
  if (cpu.empty())
    return emitError() << "the target needs a CPU name";
  auto positive = [&](StringRef name, int64_t value) -> LogicalResult {
    if (value > 0)
      return success();
    return emitError() << name << " must be positive, got " << value;
  };
  if (failed(positive("vector_bits", vectorBits)) ||
      failed(positive("vector_registers", vectorRegisters)) ||
      failed(positive("l1_cache_bytes", l1CacheBytes)) ||
      failed(positive("l2_cache_bytes", l2CacheBytes)) ||
      failed(positive("cache_line_bytes", cacheLineBytes)))
    return failure();
  if (l3CacheBytes < 0)
    return emitError() << "l3_cache_bytes must not be negative, got "
                       << l3CacheBytes;
  if (!llvm::isPowerOf2_64(cacheLineBytes))
    return emitError() << "cache_line_bytes must be a power of two, got "
                       << cacheLineBytes;
  if (scalableVectors && (!parsed.isAArch64() || vectorBits % 128 != 0))
    return emitError() << "scalable vectors are AArch64's SVE, a multiple of "
                          "128 bits; got "
                       << vectorBits << " bits on '" << triple << "'";
  unsigned smVersion;
  if (!gpuChip.empty() && (!gpuChip.starts_with("sm_") ||
                           gpuChip.drop_front(3).getAsInteger(10, smVersion)))
    return emitError() << "unknown GPU chip '" << gpuChip
                       << "' (expected sm_NN, such as sm_90)";
  if (x86Sfence && !parsed.isX86())
    return emitError() << "x86_sfence on the non-x86 target '" << triple << "'";
  return success();
}

TargetAttr TargetAttr::get(MLIRContext *context,
                           const TargetDescription &target) {
  return get(context, target.triple, target.cpu, target.features,
             target.vectorBits, target.scalableVectors, target.vectorRegisters,
             target.l1CacheBytes, target.l2CacheBytes, target.l3CacheBytes,
             target.cacheLineBytes, target.vectorMathLibrary, target.x86Sfence,
             target.hugePages, target.gpuChip);
}

TargetDescription TargetAttr::getDescription() const {
  TargetDescription target;
  target.triple = getTriple().str();
  target.cpu = getCpu().str();
  target.features = getFeatures().str();
  target.vectorBits = getVectorBits();
  target.scalableVectors = getScalableVectors();
  target.vectorRegisters = getVectorRegisters();
  target.l1CacheBytes = getL1CacheBytes();
  target.l2CacheBytes = getL2CacheBytes();
  target.l3CacheBytes = getL3CacheBytes();
  target.cacheLineBytes = getCacheLineBytes();
  target.vectorMathLibrary = getVectorMathLibrary();
  target.x86Sfence = getX86Sfence();
  target.hugePages = getHugePages();
  target.gpuChip = getGpuChip().str();
  return target;
}

TargetAttr tl::getTargetAttr(Operation *op) {
  for (; op; op = op->getParentOp())
    if (isa<ModuleOp>(op))
      if (auto target = op->getAttrOfType<TargetAttr>(kTargetAttrName))
        return target;
  return nullptr;
}

TargetDescription tl::getTargetDescription(Operation *op) {
  if (TargetAttr target = getTargetAttr(op))
    return target.getDescription();
  return TargetDescription();
}

void tl::setTargetDescription(Operation *module,
                              const TargetDescription &target) {
  module->setAttr(kTargetAttrName,
                  TargetAttr::get(module->getContext(), target));
}

LogicalResult ContractionPlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t rows, int64_t columns,
    int64_t depth, ArrayRef<int64_t> cacheTiles,
    ArrayRef<int64_t> registerTiles, ArrayRef<int64_t> cacheOrder,
    ArrayRef<int64_t> registerOrder, int64_t copiedBlockInput,
    int64_t packedInput, int64_t packedDim, int64_t panelInput,
    int64_t rowPanelInput, ArrayRef<int64_t> sizedPanelInputs,
    int64_t threadColumns) {
  int64_t loops = cacheTiles.size();
  auto isLoop = [&](int64_t dim) { return dim >= 0 && dim < loops; };
  if (registerTiles.size() != cacheTiles.size())
    return emitError() << "a contraction plan needs a cache and a register "
                          "tile per loop";
  if ((rows != -1 && !isLoop(rows)) || !isLoop(columns) || !isLoop(depth) ||
      !llvm::all_of(cacheOrder, isLoop) || !llvm::all_of(registerOrder, isLoop))
    return emitError() << "a contraction plan names a loop beyond its "
                       << loops;
  if (llvm::any_of(cacheTiles, [](int64_t tile) { return tile < 0; }) ||
      llvm::any_of(registerTiles, [](int64_t tile) { return tile < 0; }))
    return emitError() << "a contraction plan's tiles must not be negative";
  if (packedInput >= 0 && !isLoop(packedDim))
    return emitError() << "a contraction plan packs along no loop";
  if (!sizedPanelInputs.empty() && sizedPanelInputs.size() != 2)
    return emitError() << "a contraction plan's sized panels name an input "
                          "for the columns and one for the rows";
  // -1: computed at run time (kThreadColumnsAtRunTime).
  if (threadColumns < -1 || (threadColumns > 0 && registerTiles[columns] > 0 &&
                             threadColumns % registerTiles[columns] != 0))
    return emitError() << "a contraction plan's thread columns must be whole "
                          "register tiles, or -1 (at run time), got "
                       << threadColumns;
  return success();
}

/// Checks the dialect's attributes on other ops: the target, the plan of
/// a contraction, and the marks of the passes (TLDialect.td's
/// discardableAttrs: a unit attribute, or a size reference, on the one op
/// that it describes).
LogicalResult TLDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  Attribute value = attribute.getValue();
  auto fail = [&](StringRef what) {
    return op->emitError() << "'" << name.getValue() << "' " << what;
  };
  auto unitMark = [&](bool onItsOp, StringRef itsOp) -> LogicalResult {
    if (!isa<UnitAttr>(value))
      return fail("must be a unit attribute");
    if (!onItsOp)
      return fail(("belongs on a " + itsOp).str());
    return success();
  };
  if (name == kTargetAttrName) {
    if (!isa<TargetAttr>(value))
      return fail("must be a #tl.target attribute");
    if (!isa<ModuleOp>(op))
      return fail("belongs on a builtin.module");
    return success();
  }
  if (name == getAllreduceAttrHelper().getName())
    return unitMark(isa<AssignOp>(op), "tl.assign");
  if (name == getColumnMajorAttrHelper().getName())
    return unitMark(isa<ProgramOp>(op), "tl.program");
  if (name == kContractionPlanAttrName) {
    if (!isa<ContractionPlanAttr>(value))
      return fail("must be a #tl.contraction_plan attribute");
    return success();
  }
  if (name == getDistributedAttrHelper().getName()) {
    auto size = dyn_cast<FlatSymbolRefAttr>(value);
    if (!size)
      return fail("must name a size of the program (a flat symbol "
                  "reference)");
    auto program = dyn_cast<ProgramOp>(op);
    if (!program)
      return fail("belongs on a tl.program");
    // The compiled code takes the process's block extent as this size's
    // value, so it must be one.
    if (!program.lookupSymbol<SizeOp>(size.getAttr()))
      return op->emitError() << "'" << name.getValue() << "' names " << size
                             << ", which is not a size of the program";
    return success();
  }
  return success();
}
