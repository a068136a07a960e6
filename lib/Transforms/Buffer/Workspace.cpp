//===- Workspace.cpp - Temporaries in a caller's workspace ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace tensorlang {
#define GEN_PASS_DEF_WORKSPACE
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

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

/// The top-level allocations of `func` of static size and identity layout
/// whose only deallocations are top-level memref.dealloc ops of the
/// allocation itself, with their deallocations. None if some deallocation
/// frees what cannot be traced to its allocation.
static SmallVector<memref::AllocOp>
collectTemporaries(func::FuncOp func,
                   SmallVectorImpl<memref::DeallocOp> &deallocs) {
  Block &entry = func.getBody().front();
  llvm::SetVector<Operation *> candidates;
  for (memref::AllocOp alloc : entry.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    // (Whole bytes per element: an i1 is stored in a byte of its own.)
    if (type.hasStaticShape() && type.getLayout().isIdentity() &&
        !type.getMemorySpace() && type.getElementType().isIntOrFloat() &&
        type.getElementTypeBitWidth() % 8 == 0)
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
    if (dealloc->getBlock() != &entry ||
        dealloc.getMemref().getDefiningOp() != allocation)
      candidates.remove(allocation);
    else
      deallocs.push_back(dealloc);
  });
  SmallVector<memref::AllocOp> temporaries;
  if (!traced) {
    deallocs.clear();
    return temporaries;
  }
  for (Operation *op : candidates)
    temporaries.push_back(cast<memref::AllocOp>(op));
  llvm::erase_if(deallocs, [&](memref::DeallocOp dealloc) {
    return !candidates.contains(dealloc.getMemref().getDefiningOp());
  });
  return temporaries;
}

static int64_t getByteSize(MemRefType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

namespace {
/// The temporaries of one function and where they go.
struct FunctionTemporaries {
  func::FuncOp func;
  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
  /// Each allocation's offset, from the function's first byte.
  SmallVector<int64_t> offsets;
  int64_t bytes = 0;
};
} // namespace

static FunctionTemporaries planTemporaries(func::FuncOp func) {
  FunctionTemporaries plan;
  plan.func = func;
  plan.allocs = collectTemporaries(func, plan.deallocs);
  for (memref::AllocOp alloc : plan.allocs) {
    plan.offsets.push_back(plan.bytes);
    plan.bytes += alignUp(getByteSize(alloc.getType()));
  }
  return plan;
}

/// Replaces the planned temporaries of `plan.func` by views of `workspace`
/// from byte `base` on.
static void placeTemporaries(FunctionTemporaries &plan, Value workspace,
                             int64_t base) {
  for (auto [alloc, offset] : llvm::zip(plan.allocs, plan.offsets)) {
    OpBuilder builder(alloc);
    Value shift =
        arith::ConstantIndexOp::create(builder, alloc.getLoc(), base + offset);
    Value view =
        memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                               workspace, shift, ValueRange());
    alloc.replaceAllUsesWith(view);
  }
  for (memref::DeallocOp dealloc : plan.deallocs)
    dealloc.erase();
  for (memref::AllocOp alloc : plan.allocs)
    alloc.erase();
}

/// Makes `entry` the workspace variant `<name>_ws`, and adds `<name>`
/// (which allocates a workspace around a call of it) and
/// `<name>_workspace_size`.
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
  FunctionTemporaries own = planTemporaries(entry);
  SmallVector<FunctionTemporaries> statements;
  int64_t statementBytes = 0;
  for (func::FuncOp callee : callees) {
    statements.push_back(planTemporaries(callee));
    statementBytes = std::max(statementBytes, statements.back().bytes);
  }
  int64_t total = own.bytes + statementBytes;
  MLIRContext *context = module.getContext();
  auto workspaceType = MemRefType::get({total}, IntegerType::get(context, 8));

  // The statement functions take the workspace last; their temporaries
  // share the bytes after the program function's.
  for (FunctionTemporaries &statement : statements) {
    func::FuncOp callee = statement.func;
    unsigned index = callee.getNumArguments();
    (void)callee.insertArgument(index, workspaceType, {}, callee.getLoc());
    placeTemporaries(statement, callee.getArgument(index), own.bytes);
  }
  std::string name = entry.getSymName().str();
  unsigned workspaceIndex = entry.getNumArguments();
  FunctionType plainType = entry.getFunctionType();
  (void)entry.insertArgument(workspaceIndex, workspaceType, {}, entry.getLoc());
  Value workspace = entry.getArgument(workspaceIndex);
  entry.walk([&](func::CallOp call) {
    if (llvm::any_of(callees, [&](func::FuncOp callee) {
          return callee.getSymName() == call.getCallee();
        }))
      call.getOperandsMutable().append(workspace);
  });
  placeTemporaries(own, workspace, 0);
  entry.setSymName(name + "_ws");
  entry->setAttr(kVariantAttrName, UnitAttr::get(context));

  OpBuilder builder(context);
  builder.setInsertionPointAfter(entry);
  Location loc = entry.getLoc();
  auto plain = func::FuncOp::create(builder, loc, name, plainType);
  for (unsigned i = 0; i < plainType.getNumInputs(); ++i)
    plain.setArgAttrs(i, entry.getArgAttrDict(i));
  Block *body = plain.addEntryBlock();
  OpBuilder inside = OpBuilder::atBlockBegin(body);
  // (No temporaries: nothing to allocate, an empty block on the stack.)
  Value block =
      total == 0
          ? memref::AllocaOp::create(inside, loc, workspaceType).getResult()
          : memref::AllocOp::create(inside, loc, workspaceType,
                                    inside.getI64IntegerAttr(kAlignment))
                .getResult();
  SmallVector<Value> arguments(body->getArguments());
  arguments.push_back(block);
  func::CallOp::create(inside, loc, entry, arguments);
  if (total != 0)
    memref::DeallocOp::create(inside, loc, block);
  func::ReturnOp::create(inside, loc);

  auto size =
      func::FuncOp::create(builder, loc, name + "_workspace_size",
                           builder.getFunctionType({}, {builder.getI64Type()}));
  OpBuilder sizeBody = OpBuilder::atBlockBegin(size.addEntryBlock());
  func::ReturnOp::create(
      sizeBody, loc,
      ValueRange{arith::ConstantIntOp::create(sizeBody, loc, total, 64)});
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
