//===- GPUDeviceMemory.cpp - A GPU program's buffers in device memory -----===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The caller of a compiled program hands it host buffers (the C interface of
// every target); the kernels need device memory. Copying each variable in
// once and out once per call keeps every statement's kernel on device
// memory, whatever the order of the statements.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

namespace tensorlang {
#define GEN_PASS_DEF_GPUDROPHOSTSHAREDMEMORY
#define GEN_PASS_DEF_GPUDYNAMICSHAREDMEMORY
#define GEN_PASS_DEF_GPUDEVICEMEMORY
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

/// The number of elements of the variable whose base pointer `argument` (a
/// rank-0 memref) is, if it has sizes: the product of the extents of the
/// view a called function makes of it (tl-to-linalg's viewArgument), its
/// size arguments mapped back to the caller's values, computed at the
/// builder's insertion point. Null for a scalar variable; failure for a
/// view whose extents do not come from the caller.
static FailureOr<Value> getSizedElementCount(OpBuilder &builder,
                                             BlockArgument argument,
                                             SymbolTable &symbols) {
  for (OpOperand &use : argument.getUses()) {
    auto call = dyn_cast<func::CallOp>(use.getOwner());
    auto callee =
        call ? symbols.lookup<func::FuncOp>(call.getCallee()) : nullptr;
    if (!callee || callee.isExternal())
      continue;
    for (Operation *user :
         callee.getArgument(use.getOperandNumber()).getUsers()) {
      auto view = dyn_cast<memref::ReinterpretCastOp>(user);
      if (!view || view.getType().getRank() == 0)
        continue;
      Location loc = argument.getLoc();
      Value count = arith::ConstantIndexOp::create(builder, loc, 1);
      bool mapped = true;
      for (OpFoldResult extent : view.getMixedSizes()) {
        Value factor;
        if (std::optional<int64_t> constant = getConstantIntValue(extent)) {
          factor = arith::ConstantIndexOp::create(builder, loc, *constant);
        } else if (auto size = dyn_cast<BlockArgument>(cast<Value>(extent));
                   size && size.getOwner() == &callee.getBody().front()) {
          factor = call.getOperand(size.getArgNumber());
        } else {
          mapped = false;
          break;
        }
        count = arith::MulIOp::create(builder, loc, count, factor);
      }
      if (!mapped)
        return failure();
      return count;
    }
  }
  return Value();
}

/// Views `buffer` as `type` (a rank-0 base pointer, or a vector of
/// `count` elements).
static Value reinterpret(OpBuilder &builder, Location loc, Value buffer,
                         MemRefType type, Value count) {
  SmallVector<OpFoldResult> sizes, strides;
  if (type.getRank() == 1) {
    sizes.push_back(count);
    strides.push_back(builder.getIndexAttr(1));
  }
  return memref::ReinterpretCastOp::create(
      builder, loc, type, buffer, builder.getIndexAttr(0), sizes, strides);
}

/// A buffer argument's copy in device memory.
struct DeviceCopy {
  /// The caller's buffer, viewed as `device` is.
  Value host;
  /// The device buffer, to copy to and from and to free.
  Value device;
  /// What the function uses in place of the argument.
  Value replacement;
  Operation *copyIn;
};

/// Allocates `argument`'s copy in device memory and copies it in: a buffer
/// of its static shape, or of its element count for a variable with sizes
/// (passed as a rank-0 base pointer).
static FailureOr<DeviceCopy>
copyToDevice(OpBuilder &builder, BlockArgument argument, SymbolTable &symbols) {
  Location loc = argument.getLoc();
  auto type = cast<MemRefType>(argument.getType());
  DeviceCopy copy;
  copy.host = argument;
  if (type.getRank() == 0) {
    FailureOr<Value> count = getSizedElementCount(builder, argument, symbols);
    if (failed(count))
      return failure();
    if (*count) {
      auto flat =
          MemRefType::get({ShapedType::kDynamic}, type.getElementType());
      copy.host = reinterpret(builder, loc, argument, flat, *count);
      copy.device = gpu::AllocOp::create(builder, loc, flat, Type(),
                                         ValueRange(), ValueRange{*count},
                                         ValueRange(), /*hostShared=*/false)
                        .getMemref();
      copy.replacement = reinterpret(builder, loc, copy.device, type, Value());
    }
  }
  if (!copy.device) {
    copy.device =
        gpu::AllocOp::create(builder, loc, type, Type(), ValueRange(),
                             ValueRange(), ValueRange(), /*hostShared=*/false)
            .getMemref();
    copy.replacement = copy.device;
  }
  copy.copyIn = gpu::MemcpyOp::create(builder, loc, Type(), ValueRange(),
                                      copy.device, copy.host);
  return copy;
}

/// Whether anything stores into `buffer`: through views of it, and through
/// the functions it is passed to (whose arguments `written` caches).
static bool isWritten(Value buffer, SymbolTable &symbols,
                      DenseMap<BlockArgument, bool> &written,
                      Operation *ignored = nullptr) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (user == ignored)
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (store.getMemref() == buffer)
        return true;
    } else if (isa<ViewLikeOpInterface>(user)) {
      if (isWritten(user->getResult(0), symbols, written))
        return true;
    } else if (auto call = dyn_cast<func::CallOp>(user)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return true;
      BlockArgument argument = callee.getArgument(use.getOperandNumber());
      auto [it, inserted] = written.try_emplace(argument, false);
      if (inserted)
        it->second = isWritten(argument, symbols, written);
      if (it->second)
        return true;
    } else if (!isa<memref::LoadOp, memref::DimOp, gpu::DeallocOp>(user)) {
      // Anything else (a copy, a kernel launch): assume it writes.
      return true;
    }
  }
  return false;
}

/// The alignment of each buffer in a kernel's shared memory, a global of
/// its own or in dynamic shared memory (tl-gpu-map-loops' staged tiles
/// load 16-byte vectors).
static constexpr int64_t kSharedMemoryAlignment = 16;

static bool isWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

namespace {
struct GPUDeviceMemoryPass
    : public tensorlang::impl::GPUDeviceMemoryBase<GPUDeviceMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());

    // Kernels are named after their functions, and PTX names have no '.'
    // (statement functions are `p.s0`).
    SymbolTable symbols(module);
    for (func::FuncOp func :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!func.getSymName().contains('.'))
        continue;
      std::string name = func.getSymName().str();
      llvm::replace(name, '.', '_');
      while (symbols.lookup(name))
        name += "_";
      if (failed(symbols.rename(func, rewriter.getStringAttr(name)))) {
        func.emitError("tl-gpu-device-memory: cannot rename for PTX");
        return signalPassFailure();
      }
    }

    // A block's own buffers (tl-gpu-map-loops, in shared memory) are
    // globals of the workgroup address space, which each kernel module
    // gets a copy of when the kernels are outlined.
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    module.walk([&](memref::AllocOp op) {
      if (isWorkgroupMemory(op.getType()))
        allocs.push_back(op);
    });
    for (memref::AllocOp alloc : allocs) {
      OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
      auto global = memref::GlobalOp::create(
          builder, alloc.getLoc(), "__tl_shared",
          builder.getStringAttr("private"), alloc.getType(), Attribute(),
          /*constant=*/false,
          builder.getI64IntegerAttr(kSharedMemoryAlignment));
      symbols.insert(global);
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<memref::GetGlobalOp>(alloc, alloc.getType(),
                                                       global.getSymName());
    }
    allocs.clear();

    // Temporaries first, so that the copies below stay host allocations'
    // only users of the arguments.
    module.walk([&](memref::AllocOp op) { allocs.push_back(op); });
    module.walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::AllocOp alloc : allocs) {
      rewriter.setInsertionPoint(alloc);
      auto device = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), Type(), ValueRange(),
          alloc.getDynamicSizes(), alloc.getSymbolOperands(),
          /*hostShared=*/false);
      rewriter.replaceOp(alloc, device.getMemref());
    }
    for (memref::DeallocOp dealloc : deallocs) {
      rewriter.setInsertionPoint(dealloc);
      gpu::DeallocOp::create(rewriter, dealloc.getLoc(), Type(), ValueRange(),
                             dealloc.getMemref());
      rewriter.eraseOp(dealloc);
    }

    DenseMap<BlockArgument, bool> written;
    SmallVector<func::FuncOp> interfaces;
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func.isPrivate())
        interfaces.push_back(func);
    for (func::FuncOp func : interfaces) {
      if (!func.getBody().hasOneBlock()) {
        func.emitError("tl-gpu-device-memory: an interface function of more "
                       "than one block");
        return signalPassFailure();
      }
      // (The buffers are copied, and the statements moved, as buffers:
      // tensors or results would be left dangling.)
      if (func.getNumResults() != 0 ||
          llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<TensorType>)) {
        func.emitError("tl-gpu-device-memory: expected a bufferized "
                       "interface function (buffer arguments, no results)");
        return signalPassFailure();
      }
      if (failed(splitDeviceFunction(rewriter, func, symbols, written)))
        return signalPassFailure();
    }
  }

  /// Makes `func` (host buffers) a function on device memory, `<name>_device`
  /// with a stream as its last argument, and a host function of the old
  /// name that copies to device memory, calls it and copies back.
  LogicalResult splitDeviceFunction(IRRewriter &rewriter, func::FuncOp func,
                                    SymbolTable &symbols,
                                    DenseMap<BlockArgument, bool> &written) {
    MLIRContext *context = func.getContext();
    Location loc = func.getLoc();
    Type stream = LLVM::LLVMPointerType::get(context);
    func::FuncOp enter = getRuntimeFunction(symbols, "tensorlang_cuda_enter",
                                            {stream}, {}),
                 leave = getRuntimeFunction(symbols, "tensorlang_cuda_leave",
                                            {}, {}),
                 begin = getRuntimeFunction(
                     symbols, "tensorlang_cuda_stream_begin", {}, {stream}),
                 end = getRuntimeFunction(symbols, "tensorlang_cuda_stream_end",
                                          {stream}, {});

    // The device function: the statements on the caller's device buffers,
    // queued on the caller's stream.
    rewriter.setInsertionPointAfter(func);
    auto device = cast<func::FuncOp>(rewriter.clone(*func));
    std::string name = func.getSymName().str() + "_device";
    while (symbols.lookup(name))
      name += "_";
    device.setSymName(name);
    symbols.insert(device);
    unsigned streamIndex = device.getNumArguments();
    if (failed(
            device.insertArgument(streamIndex, stream, DictionaryAttr(), loc)))
      return device.emitError("tl-gpu-device-memory: cannot add the stream");
    rewriter.setInsertionPointToStart(&device.getBody().front());
    func::CallOp::create(rewriter, loc, enter,
                         ValueRange{device.getArgument(streamIndex)});
    device.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      func::CallOp::create(rewriter, ret.getLoc(), leave, ValueRange());
    });

    // The host function: copies in, the device function, copies back.
    Block &entry = func.getBody().front();
    Operation *firstStatement = &entry.front();
    rewriter.setInsertionPointToStart(&entry);
    Value hostStream =
        func::CallOp::create(rewriter, loc, begin, ValueRange()).getResult(0);
    SmallVector<DeviceCopy> copies;
    SmallVector<Value> deviceArguments;
    for (BlockArgument argument : entry.getArguments()) {
      if (!isa<MemRefType>(argument.getType())) {
        deviceArguments.push_back(argument);
        continue;
      }
      SmallPtrSet<Operation *, 4> users(argument.getUsers().begin(),
                                        argument.getUsers().end());
      FailureOr<DeviceCopy> copied = copyToDevice(rewriter, argument, symbols);
      if (failed(copied))
        return func.emitError("tl-gpu-device-memory: the extents of argument ")
               << argument.getArgNumber() << " come from no size of the caller";
      DeviceCopy copy = *copied;
      argument.replaceUsesWithIf(copy.replacement, [&](OpOperand &use) {
        return users.contains(use.getOwner());
      });
      copies.push_back(copy);
      deviceArguments.push_back(copy.replacement);
    }
    // Only the buffers the program writes are copied back.
    SmallVector<bool> copyBack;
    for (DeviceCopy &copy : copies)
      copyBack.push_back(
          isWritten(copy.replacement, symbols, written, copy.copyIn));
    // The statements now run in the device function.
    Operation *terminator = entry.getTerminator();
    SmallVector<Operation *> statements;
    for (Operation &op : llvm::make_range(firstStatement->getIterator(),
                                          terminator->getIterator()))
      statements.push_back(&op);
    for (Operation *op : llvm::reverse(statements))
      rewriter.eraseOp(op);
    rewriter.setInsertionPoint(terminator);
    deviceArguments.push_back(hostStream);
    func::CallOp::create(rewriter, loc, device, deviceArguments);
    for (auto [copy, back] : llvm::zip(copies, copyBack)) {
      if (back)
        gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange(), copy.host,
                              copy.device);
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange(), copy.device);
    }
    func::CallOp::create(rewriter, loc, end, ValueRange{hostStream});
    return success();
  }

  /// The runtime's `name` (tensorlang-c/CUDARuntime.h), declared once.
  static func::FuncOp getRuntimeFunction(SymbolTable &symbols, StringRef name,
                                         TypeRange arguments,
                                         TypeRange results) {
    if (auto existing = symbols.lookup<func::FuncOp>(name))
      return existing;
    auto module = cast<ModuleOp>(symbols.getOp());
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto declaration =
        func::FuncOp::create(builder, module.getLoc(), name,
                             builder.getFunctionType(arguments, results));
    declaration.setPrivate();
    symbols.insert(declaration);
    return declaration;
  }
};
} // namespace

namespace {
struct GPUDynamicSharedMemoryPass
    : public tensorlang::impl::GPUDynamicSharedMemoryBase<
          GPUDynamicSharedMemoryPass> {
  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (launch.getDynamicSharedMemorySize())
        return;
      // The globals the launch uses, in the order first used, and where.
      llvm::MapVector<memref::GlobalOp, SmallVector<memref::GetGlobalOp>>
          globals;
      launch.getBody().walk([&](memref::GetGlobalOp use) {
        auto global = symbols.lookup<memref::GlobalOp>(use.getName());
        if (global && isWorkgroupMemory(global.getType()))
          globals[global].push_back(use);
      });
      SmallVector<int64_t> offsets;
      int64_t bytes = 0;
      for (auto &[global, uses] : globals) {
        MemRefType type = global.getType();
        bytes = llvm::alignTo(bytes, kSharedMemoryAlignment);
        offsets.push_back(bytes);
        bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
      }
      if (bytes <= tensorlang::kGPUSharedMemoryBytes)
        return;
      MLIRContext *context = &getContext();
      OpBuilder builder = OpBuilder::atBlockBegin(&launch.getBody().front());
      Location loc = launch.getLoc();
      auto workgroup =
          gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
      Value dynamic = gpu::DynamicSharedMemoryOp::create(
          builder, loc,
          MemRefType::get({ShapedType::kDynamic}, builder.getI8Type(),
                          AffineMap(), workgroup));
      for (auto [entry, offset] : llvm::zip(globals, offsets)) {
        for (memref::GetGlobalOp use : entry.second) {
          builder.setInsertionPoint(use);
          Value start = arith::ConstantIndexOp::create(builder, loc, offset);
          Value view =
              memref::ViewOp::create(builder, use.getLoc(), use.getType(),
                                     dynamic, start, ValueRange{});
          use.replaceAllUsesWith(view);
          use.erase();
        }
      }
      builder.setInsertionPoint(launch);
      Value size = arith::ConstantIntOp::create(builder, loc, bytes, 32);
      launch.getDynamicSharedMemorySizeMutable().assign(size);
    });
  }
};

struct GPUDropHostSharedMemoryPass
    : public tensorlang::impl::GPUDropHostSharedMemoryBase<
          GPUDropHostSharedMemoryPass> {
  void runOnOperation() override {
    // Each gpu.module has its own copy now; the host cannot lower them.
    for (memref::GlobalOp global :
         llvm::make_early_inc_range(getOperation().getOps<memref::GlobalOp>()))
      if (isWorkgroupMemory(global.getType()))
        global.erase();
  }
};
} // namespace
