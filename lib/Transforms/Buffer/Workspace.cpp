//===- Workspace.cpp - Temporaries in a caller's workspace ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace tensorlang {
#define GEN_PASS_DEF_WORKSPACE
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using tensorlang::tl::kSizeArgAttrName;

/// Temporaries start at multiples of a cache line, as `memref.alloc
/// {alignment = 64}` places them.
static constexpr int64_t kAlignment = 64;

/// Marks a workspace variant (tl-strip-annotations removes it).
static constexpr llvm::StringLiteral kVariantAttrName = "tl.workspace_variant";

static int64_t alignUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// The allocation `value` is (a view of), or null.
static Operation *getAllocation(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (isa<memref::AllocOp>(op))
      return op;
    if (auto view = dyn_cast<ViewLikeOpInterface>(op))
      value = view.getViewSource();
    else if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op))
      value = metadata.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(op))
      value = cast.getSource();
    else
      return nullptr;
  }
  return nullptr;
}

/// Whether `value` can be computed from the program's sizes alone: a
/// constant, an argument of `func` that is one of `sizes` (by its
/// `tl.size` name), or a pure operation without regions of such values.
/// The workspace's size function recomputes it from the sizes.
static bool isComputableFromSizes(Value value, func::FuncOp func,
                                  const llvm::StringSet<> &sizes) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner() != &func.getBody().front())
      return false;
    auto name = func.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                  kSizeArgAttrName);
    return name && sizes.contains(name.getValue());
  }
  Operation *op = value.getDefiningOp();
  if (!op || !isPure(op) || op->getNumRegions() != 0 ||
      op->getParentRegion() != &func.getBody())
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isComputableFromSizes(operand, func, sizes);
  });
}

/// The top-level allocations of `func` of identity layout whose size is
/// static or computable from the sizes, and whose only deallocations are
/// top-level memref.dealloc ops of the allocation itself, with their
/// deallocations. None if some deallocation frees what cannot be traced to
/// its allocation.
static SmallVector<memref::AllocOp>
collectTemporaries(func::FuncOp func, const llvm::StringSet<> &sizes,
                   SmallVectorImpl<memref::DeallocOp> &deallocs) {
  Block &entry = func.getBody().front();
  llvm::SetVector<Operation *> candidates;
  for (memref::AllocOp alloc : entry.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    // (Whole bytes per element: an i1 is stored in a byte of its own.)
    if (type.getLayout().isIdentity() && !type.getMemorySpace() &&
        type.getElementType().isIntOrFloat() &&
        type.getElementTypeBitWidth() % 8 == 0 &&
        llvm::all_of(alloc.getDynamicSizes(), [&](Value size) {
          return isComputableFromSizes(size, func, sizes);
        }))
      candidates.insert(alloc);
  }
  bool traced = true;
  func.walk([&](memref::DeallocOp dealloc) {
    Operation *allocation = getAllocation(dealloc.getMemref());
    if (!allocation) {
      traced = false;
      return;
    }
    if (!candidates.contains(allocation))
      return;
    // (Freed as the base buffer of its metadata, where a run-time choice
    // yielded it.)
    Value freed = dealloc.getMemref();
    auto metadata = freed.getDefiningOp<memref::ExtractStridedMetadataOp>();
    bool freesAllocation = freed.getDefiningOp() == allocation ||
                           (metadata && metadata.getBaseBuffer() == freed &&
                            metadata.getSource().getDefiningOp() == allocation);
    if (dealloc->getBlock() != &entry || !freesAllocation)
      candidates.remove(allocation);
    else
      deallocs.push_back(dealloc);
  });
  SmallVector<memref::AllocOp> temporaries;
  if (!traced) {
    deallocs.clear();
    return temporaries;
  }
  // Those of static size first, at offsets known at compile time.
  for (bool isStatic : {true, false})
    for (Operation *op : candidates)
      if (cast<memref::AllocOp>(op).getType().hasStaticShape() == isStatic)
        temporaries.push_back(cast<memref::AllocOp>(op));
  llvm::erase_if(deallocs, [&](memref::DeallocOp dealloc) {
    return !candidates.contains(getAllocation(dealloc.getMemref()));
  });
  return temporaries;
}

/// The bytes of `type`'s static dimensions (all of them for a static type).
static int64_t getStaticByteSize(MemRefType type) {
  int64_t elements = 1;
  for (int64_t extent : type.getShape())
    if (!ShapedType::isDynamic(extent))
      elements *= extent;
  return elements * type.getElementTypeBitWidth() / 8;
}

namespace {
/// The temporaries of one function and where they go: those of static size
/// at `offsets` from the function's first byte, then those whose size is
/// computed from the sizes one after another.
struct FunctionTemporaries {
  func::FuncOp func;
  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
  /// The offsets of the static temporaries (the first of `allocs`).
  SmallVector<int64_t> offsets;
  /// The bytes of the static temporaries.
  int64_t bytes = 0;

  ArrayRef<memref::AllocOp> getSizedAllocs() const {
    return ArrayRef(allocs).drop_front(offsets.size());
  }
  bool isSized() const { return !getSizedAllocs().empty(); }
};
} // namespace

/// The positions of the results of `yield` that are (views of) `alloc`.
static SmallVector<unsigned> getYieldedPositions(memref::AllocOp alloc,
                                                 scf::YieldOp yield) {
  SmallVector<unsigned> positions;
  for (auto [position, value] : llvm::enumerate(yield.getOperands()))
    if (getAllocation(value) == alloc.getOperation())
      positions.push_back(position);
  return positions;
}

namespace {
/// An allocation of one branch of a choice that could move out of it.
struct BranchAllocation {
  memref::AllocOp alloc;
  SmallVector<memref::DeallocOp> deallocs;
  /// The results of the choice the branch yields the allocation as.
  SmallVector<unsigned> yieldedAt;
};
} // namespace

/// The allocations of `branch` of `choice` whose extents are defined
/// before it and whose deallocations are in the branch.
static SmallVector<BranchAllocation> getMovableAllocations(scf::IfOp choice,
                                                           Region &branch) {
  SmallVector<BranchAllocation> movable;
  if (branch.empty())
    return movable;
  Block &block = branch.front();
  auto yield = cast<scf::YieldOp>(block.getTerminator());
  for (auto alloc : block.getOps<memref::AllocOp>()) {
    if (llvm::any_of(alloc->getOperands(), [&](Value operand) {
          return choice->isAncestor(operand.getParentRegion()->getParentOp());
        }))
      continue;
    BranchAllocation entry{alloc, {}, getYieldedPositions(alloc, yield)};
    bool freedInBranch = true;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        freedInBranch &= dealloc->getBlock() == &block;
        entry.deallocs.push_back(dealloc);
      }
    if (freedInBranch)
      movable.push_back(std::move(entry));
  }
  return movable;
}

/// Moves the allocations of the branches of `choice` whose extents are
/// defined before it out, before it, with their deallocations in the same
/// branch after it; an allocation of the other branch of the same type and
/// extents becomes the same one, as only one branch runs. The versions of
/// a contraction chosen at run time (plans for short sizes, a transposition
/// folded or kept) each allocated their temporaries inside, where they
/// would take no place in the workspace (sized TCCG K5L ran at 0.65x the
/// one-version program). An allocation the choice yields moves out only
/// with one the other branch yields in the same place: whatever frees the
/// choice's result after it frees it only where that branch ran. Inner
/// choices first.
static void hoistAllocationsOutOfChoice(scf::IfOp choice) {
  for (Region &region : choice->getRegions())
    for (Block &block : region)
      for (auto inner : llvm::make_early_inc_range(block.getOps<scf::IfOp>()))
        hoistAllocationsOutOfChoice(inner);
  SmallVector<BranchAllocation> fromThen =
      getMovableAllocations(choice, choice.getThenRegion());
  SmallVector<BranchAllocation> fromElse =
      getMovableAllocations(choice, choice.getElseRegion());
  auto isSameAllocation = [](BranchAllocation &one, BranchAllocation &other) {
    return one.alloc.getType() == other.alloc.getType() &&
           one.alloc.getOperands() == other.alloc.getOperands() &&
           one.alloc.getAlignment() == other.alloc.getAlignment() &&
           one.yieldedAt == other.yieldedAt;
  };
  auto moveOut = [&](BranchAllocation &entry) {
    for (memref::DeallocOp dealloc : entry.deallocs)
      dealloc->moveAfter(choice);
    entry.alloc->moveBefore(choice);
  };
  // (Each allocation moved out serves one of each branch.)
  llvm::SmallDenseSet<Operation *> merged;
  for (BranchAllocation &entry : fromThen) {
    auto *same = llvm::find_if(fromElse, [&](BranchAllocation &other) {
      return !merged.contains(other.alloc) && isSameAllocation(entry, other);
    });
    if (same == fromElse.end()) {
      if (entry.yieldedAt.empty())
        moveOut(entry);
      continue;
    }
    merged.insert(same->alloc);
    moveOut(entry);
    for (memref::DeallocOp dealloc : same->deallocs)
      dealloc.erase();
    same->alloc.replaceAllUsesWith(entry.alloc.getResult());
    same->alloc.erase();
  }
  for (BranchAllocation &entry : fromElse)
    if (!merged.contains(entry.alloc) && entry.yieldedAt.empty())
      moveOut(entry);
  // A result both branches yield from before the choice is that value.
  if (choice.getNumResults() == 0 || choice.getElseRegion().empty())
    return;
  for (auto [result, fromThen, fromElse] :
       llvm::zip_equal(choice.getResults(), choice.thenYield().getOperands(),
                       choice.elseYield().getOperands()))
    if (fromThen == fromElse &&
        !choice->isAncestor(fromThen.getParentRegion()->getParentOp()))
      result.replaceAllUsesWith(fromThen);
}

/// Replaces each extent read back from a `memref.reinterpret_cast` (the
/// view of a sized variable) by the extent it was given, so that the
/// temporaries sized from it are computable from the sizes.
static void forwardExtentsOfReinterpretCasts(func::FuncOp func) {
  func.walk([](memref::DimOp dim) {
    auto cast = dim.getSource().getDefiningOp<memref::ReinterpretCastOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!cast || !index || *index < 0 ||
        *index >= int64_t(cast.getMixedSizes().size()))
      return;
    OpFoldResult extent = cast.getMixedSizes()[*index];
    OpBuilder builder(dim);
    Value value =
        getValueOrCreateConstantIndexOp(builder, dim.getLoc(), extent);
    dim.replaceAllUsesWith(value);
    dim.erase();
  });
}

static FunctionTemporaries planTemporaries(func::FuncOp func,
                                           const llvm::StringSet<> &sizes) {
  forwardExtentsOfReinterpretCasts(func);
  for (auto choice :
       llvm::make_early_inc_range(func.getBody().front().getOps<scf::IfOp>()))
    hoistAllocationsOutOfChoice(choice);
  FunctionTemporaries plan;
  plan.func = func;
  plan.allocs = collectTemporaries(func, sizes, plan.deallocs);
  for (memref::AllocOp alloc : plan.allocs) {
    if (!alloc.getType().hasStaticShape())
      break;
    plan.offsets.push_back(plan.bytes);
    plan.bytes += alignUp(getStaticByteSize(alloc.getType()));
  }
  return plan;
}

/// Builds `value`, computable from the sizes (isComputableFromSizes), at
/// `builder`'s insertion point: `mapping` gives the sizes' values there,
/// and the operations between are cloned.
static Value cloneFromSizes(OpBuilder &builder, Value value,
                            IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *op = value.getDefiningOp();
  for (Value operand : op->getOperands())
    (void)cloneFromSizes(builder, operand, mapping);
  builder.clone(*op, mapping);
  return mapping.lookup(value);
}

/// The bytes, aligned, that the sized temporaries of `plan` take, built at
/// `builder`'s insertion point (an index; `mapping` as in cloneFromSizes):
/// each one's offset after the static ones, and their total.
static std::pair<SmallVector<Value>, Value>
buildSizedOffsets(OpBuilder &builder, Location loc,
                  const FunctionTemporaries &plan, IRMapping &mapping) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  SmallVector<Value> offsets;
  Value total = constant(0);
  for (memref::AllocOp alloc : plan.getSizedAllocs()) {
    offsets.push_back(total);
    Value bytes = constant(getStaticByteSize(alloc.getType()));
    for (Value size : alloc.getDynamicSizes())
      bytes = arith::MulIOp::create(builder, loc, bytes,
                                    cloneFromSizes(builder, size, mapping));
    Value rounded = arith::MulIOp::create(
        builder, loc,
        arith::CeilDivUIOp::create(builder, loc, bytes, constant(kAlignment)),
        constant(kAlignment));
    total = arith::AddIOp::create(builder, loc, total, rounded);
  }
  return {offsets, total};
}

/// Maps the sizes of `func` (its arguments named by `tl.size`) to the
/// values of the same names in `sizes`.
static IRMapping mapSizes(func::FuncOp func,
                          const llvm::StringMap<Value> &sizes) {
  IRMapping mapping;
  for (BlockArgument argument : func.getArguments())
    if (auto name = func.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                      kSizeArgAttrName))
      if (Value size = sizes.lookup(name.getValue()))
        mapping.map(argument, size);
  return mapping;
}

/// Replaces the planned temporaries of `plan.func` by views of `workspace`
/// from byte `base` on: the static temporaries at their offsets, the sized
/// ones after them (their offsets computed at the function's start). A
/// sized program's workspace comes as a pointer (`memref<i8>`, as its
/// sized variables do): it is viewed as bytes at the function's start, and
/// the value `buildSizedBase` builds there (the program function's: the
/// largest statement's bytes) adds to `base`.
static void placeTemporaries(
    FunctionTemporaries &plan, Value workspace, int64_t base,
    llvm::function_ref<Value(OpBuilder &)> buildSizedBase = nullptr) {
  Location loc = plan.func.getLoc();
  SmallVector<Value> sizedOffsets;
  Value sizedBase;
  if (cast<MemRefType>(workspace.getType()).getRank() == 0) {
    OpBuilder builder = OpBuilder::atBlockBegin(&plan.func.getBody().front());
    IRMapping identity;
    for (BlockArgument argument : plan.func.getArguments())
      identity.map(argument, argument);
    Value sizedTotal;
    std::tie(sizedOffsets, sizedTotal) =
        buildSizedOffsets(builder, loc, plan, identity);
    sizedBase = buildSizedBase
                    ? buildSizedBase(builder)
                    : arith::ConstantIndexOp::create(builder, loc, 0);
    Value bytes = arith::AddIOp::create(
        builder, loc, sizedBase,
        arith::AddIOp::create(
            builder, loc,
            arith::ConstantIndexOp::create(builder, loc, base + plan.bytes),
            sizedTotal));
    workspace = memref::ReinterpretCastOp::create(
        builder, loc,
        MemRefType::get({ShapedType::kDynamic}, builder.getI8Type()), workspace,
        /*offset=*/builder.getIndexAttr(0), /*sizes=*/{OpFoldResult(bytes)},
        /*strides=*/{builder.getIndexAttr(1)});
  }
  for (auto [index, alloc] : llvm::enumerate(plan.allocs)) {
    OpBuilder builder(alloc);
    Location at = alloc.getLoc();
    bool isStatic = index < plan.offsets.size();
    Value shift = arith::ConstantIndexOp::create(
        builder, at, base + (isStatic ? plan.offsets[index] : plan.bytes));
    if (!isStatic)
      shift = arith::AddIOp::create(builder, at, shift,
                                    sizedOffsets[index - plan.offsets.size()]);
    if (sizedBase)
      shift = arith::AddIOp::create(builder, at, sizedBase, shift);
    Value view = memref::ViewOp::create(builder, at, alloc.getType(), workspace,
                                        shift, alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view);
  }
  for (memref::DeallocOp dealloc : plan.deallocs)
    dealloc.erase();
  for (memref::AllocOp alloc : plan.allocs)
    alloc.erase();
}

/// Makes `entry` the workspace variant `<name>_ws`, and adds `<name>`
/// (which allocates a workspace around a call of it) and
/// `<name>_workspace_size`, which takes the program's sizes.
static void addWorkspace(ModuleOp module, func::FuncOp entry) {
  // The statement functions the program's function calls, each once: the
  // private functions with a body that nothing else uses.
  llvm::SetVector<func::FuncOp> callees;
  entry.walk([&](func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || callee.isDeclaration() || !callee.isPrivate())
      return;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(callee, module);
    if (uses && llvm::all_of(*uses, [&](const SymbolTable::SymbolUse &use) {
          return use.getUser()->getParentOfType<func::FuncOp>() == entry;
        }))
      callees.insert(callee);
  });
  // The program's sizes: its function's arguments so named, in order.
  SmallVector<unsigned> sizeArguments;
  llvm::StringSet<> sizeNames;
  for (BlockArgument argument : entry.getArguments())
    if (auto sizeName = entry.getArgAttrOfType<StringAttr>(
            argument.getArgNumber(), kSizeArgAttrName)) {
      sizeArguments.push_back(argument.getArgNumber());
      sizeNames.insert(sizeName.getValue());
    }
  FunctionTemporaries own = planTemporaries(entry, sizeNames);
  SmallVector<FunctionTemporaries> statements;
  int64_t statementBytes = 0;
  bool sized = own.isSized();
  // A statement's sizes are the program's where every call passes the
  // program function's size of the same name for each; otherwise (a
  // statement given a value computed from a size, say) its temporaries of
  // run-time extent stay allocations.
  auto getSizesPassedOn = [&](func::FuncOp callee) {
    bool passedOn = true;
    entry.walk([&](func::CallOp call) {
      if (call.getCallee() != callee.getSymName())
        return;
      for (auto [index, operand] : llvm::enumerate(call.getOperands())) {
        auto name =
            callee.getArgAttrOfType<StringAttr>(index, kSizeArgAttrName);
        if (!name)
          continue;
        auto argument = dyn_cast<BlockArgument>(operand);
        auto passed =
            argument && argument.getOwner() == &entry.getBody().front()
                ? entry.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                     kSizeArgAttrName)
                : StringAttr();
        passedOn &= passed == name;
      }
    });
    return passedOn ? sizeNames : llvm::StringSet<>();
  };
  for (func::FuncOp callee : callees) {
    statements.push_back(planTemporaries(callee, getSizesPassedOn(callee)));
    statementBytes = std::max(statementBytes, statements.back().bytes);
    sized |= statements.back().isSized();
  }
  MLIRContext *context = module.getContext();
  std::string name = entry.getSymName().str();
  Location loc = entry.getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(entry);

  // The size function: one index per size of the program, in its order.
  auto size = func::FuncOp::create(
      builder, loc, name + "_workspace_size",
      builder.getFunctionType(
          SmallVector<Type>(sizeArguments.size(), builder.getIndexType()),
          {builder.getI64Type()}));
  OpBuilder sizeBody = OpBuilder::atBlockBegin(size.addEntryBlock());
  llvm::StringMap<Value> sizeValues;
  for (auto [index, argument] : llvm::enumerate(sizeArguments)) {
    NamedAttribute attr(kSizeArgAttrName,
                        entry.getArgAttr(argument, kSizeArgAttrName));
    size.setArgAttrs(index, DictionaryAttr::get(context, {attr}));
    sizeValues[cast<StringAttr>(attr.getValue()).getValue()] =
        size.getArgument(index);
  }
  // The bytes of the largest statement's temporaries, from the sizes'
  // values `sizes` (by name).
  auto buildLargestStatement = [&](OpBuilder &builder,
                                   const llvm::StringMap<Value> &sizes) {
    Value largest = arith::ConstantIndexOp::create(builder, loc, 0);
    for (FunctionTemporaries &statement : statements) {
      IRMapping mapping = mapSizes(statement.func, sizes);
      Value bytes = arith::AddIOp::create(
          builder, loc,
          arith::ConstantIndexOp::create(builder, loc, statement.bytes),
          buildSizedOffsets(builder, loc, statement, mapping).second);
      largest = arith::MaxUIOp::create(builder, loc, largest, bytes);
    }
    return largest;
  };
  int64_t fixedTotal = own.bytes + statementBytes;
  if (!sized) {
    func::ReturnOp::create(
        sizeBody, loc,
        ValueRange{arith::ConstantIntOp::create(sizeBody, loc, fixedTotal,
                                                /*width=*/64)});
  } else {
    // The largest statement's temporaries, then the program function's.
    IRMapping ownMapping = mapSizes(entry, sizeValues);
    Value total = arith::AddIOp::create(
        sizeBody, loc, arith::ConstantIndexOp::create(sizeBody, loc, own.bytes),
        buildSizedOffsets(sizeBody, loc, own, ownMapping).second);
    Value largest = buildLargestStatement(sizeBody, sizeValues);
    total = arith::AddIOp::create(sizeBody, loc, total, largest);
    func::ReturnOp::create(sizeBody, loc,
                           ValueRange{arith::IndexCastOp::create(
                               sizeBody, loc, sizeBody.getI64Type(), total)});
  }

  // A sized program's workspace is a pointer, as its sized variables are
  // (a bare pointer, as the C function takes it); the statements'
  // temporaries come first in it, the program function's after the
  // largest statement's. Otherwise the program function's come first.
  auto workspaceType =
      sized ? MemRefType::get({}, IntegerType::get(context, 8))
            : MemRefType::get({fixedTotal}, IntegerType::get(context, 8));
  unsigned workspaceIndex = entry.getNumArguments();
  FunctionType plainType = entry.getFunctionType();
  (void)entry.insertArgument(workspaceIndex, workspaceType, {}, loc);
  Value workspace = entry.getArgument(workspaceIndex);
  entry.walk([&](func::CallOp call) {
    if (llvm::any_of(callees, [&](func::FuncOp callee) {
          return callee.getSymName() == call.getCallee();
        }))
      call.getOperandsMutable().append(workspace);
  });
  llvm::StringMap<Value> entrySizes;
  for (unsigned argument : sizeArguments)
    entrySizes[entry.getArgAttrOfType<StringAttr>(argument, kSizeArgAttrName)
                   .getValue()] = entry.getArgument(argument);
  placeTemporaries(own, workspace, 0, [&](OpBuilder &builder) {
    return buildLargestStatement(builder, entrySizes);
  });
  // The statement functions take the workspace last. (After the program
  // function's placement, which reads their allocations' sizes.)
  for (FunctionTemporaries &statement : statements) {
    func::FuncOp callee = statement.func;
    unsigned index = callee.getNumArguments();
    (void)callee.insertArgument(index, workspaceType, {}, callee.getLoc());
    placeTemporaries(statement, callee.getArgument(index),
                     sized ? 0 : own.bytes);
  }
  entry.setSymName(name + "_ws");
  entry->setAttr(kVariantAttrName, UnitAttr::get(context));

  builder.setInsertionPoint(size);
  auto plain = func::FuncOp::create(builder, loc, name, plainType);
  for (unsigned i = 0; i < plainType.getNumInputs(); ++i)
    plain.setArgAttrs(i, entry.getArgAttrDict(i));
  Block *body = plain.addEntryBlock();
  OpBuilder inside = OpBuilder::atBlockBegin(body);
  // The workspace passed on, and the allocation to free after the call.
  Value block, freed;
  if (!sized && fixedTotal == 0) {
    // (No temporaries: nothing to allocate, an empty block on the stack.)
    block = memref::AllocaOp::create(inside, loc, workspaceType);
  } else if (!sized) {
    block = memref::AllocOp::create(inside, loc, workspaceType,
                                    inside.getI64IntegerAttr(kAlignment));
    freed = block;
  } else {
    SmallVector<Value> sizes;
    for (unsigned argument : sizeArguments)
      sizes.push_back(body->getArgument(argument));
    Value bytes = func::CallOp::create(inside, loc, size, sizes).getResult(0);
    Value extent =
        arith::IndexCastOp::create(inside, loc, inside.getIndexType(), bytes);
    Value bytesBlock = memref::AllocOp::create(
        inside, loc,
        MemRefType::get({ShapedType::kDynamic}, inside.getI8Type()), extent,
        inside.getI64IntegerAttr(kAlignment));
    block = memref::ReinterpretCastOp::create(
        inside, loc, workspaceType, bytesBlock,
        /*offset=*/inside.getIndexAttr(0), /*sizes=*/{}, /*strides=*/{});
    freed = bytesBlock;
  }
  SmallVector<Value> arguments(body->getArguments());
  arguments.push_back(block);
  func::CallOp::create(inside, loc, entry, arguments);
  if (freed)
    memref::DeallocOp::create(inside, loc, freed);
  func::ReturnOp::create(inside, loc);
}

namespace {
struct WorkspacePass : public tensorlang::impl::WorkspaceBase<WorkspacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    // (What an earlier run made is left alone: the variant is marked, the
    // wrapper has a size function.)
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isDeclaration() &&
          !func->hasAttr(kVariantAttrName) &&
          !func.getSymName().ends_with("_workspace_size") &&
          !module.lookupSymbol(func.getSymName().str() + "_workspace_size"))
        entries.push_back(func);
    for (func::FuncOp entry : entries)
      addWorkspace(module, entry);
  }
};
} // namespace
