//===- HugePageTemporaries.cpp - madvise large temporaries ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Redirects the malloc calls of lowered allocations to a helper that asks
// for transparent huge pages on large blocks (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace tensorlang {
#define GEN_PASS_DEF_HUGEPAGETEMPORARIES
#include "tensorlang/Transforms/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;

static constexpr llvm::StringLiteral kHelperName = "tl.malloc_huge_pages";
/// Linux's MADV_HUGEPAGE.
static constexpr int32_t kAdviseHugePages = 14;
static constexpr int64_t kPageBytes = 4096;

/// `llvm.func @name(args) -> result` (external), unless the module has it.
static LLVM::LLVMFuncOp lookupOrDeclare(OpBuilder &builder, ModuleOp module,
                                        StringRef name,
                                        LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, module.getLoc(), name, type);
}

/// Defines the helper: p = malloc(size); for size >= minBytes and p not
/// null, madvise(p rounded up to a page, the rest of the block, HUGEPAGE);
/// return p.
static LLVM::LLVMFuncOp defineHelper(OpBuilder &builder, ModuleOp module,
                                     LLVM::LLVMFuncOp malloc,
                                     int64_t minBytes) {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = builder.getI64Type();
  auto i32 = builder.getI32Type();
  LLVM::LLVMFuncOp madvise = lookupOrDeclare(
      builder, module, "madvise",
      LLVM::LLVMFunctionType::get(i32, {ptr, i64, i32}));

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  auto helper = LLVM::LLVMFuncOp::create(
      builder, loc, kHelperName, LLVM::LLVMFunctionType::get(ptr, {i64}),
      LLVM::Linkage::Internal);
  Block *entry = helper.addEntryBlock(builder);
  Block *advise = helper.addBlock();
  Block *done = helper.addBlock();

  builder.setInsertionPointToStart(entry);
  Value size = entry->getArgument(0);
  Value block =
      LLVM::CallOp::create(builder, loc, malloc, ValueRange{size}).getResult();
  auto constant = [&](Type type, int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type,
                                    builder.getIntegerAttr(type, value));
  };
  Value large = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::uge,
                                     size, constant(i64, minBytes));
  Value null = LLVM::ZeroOp::create(builder, loc, ptr);
  Value allocated =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, block, null);
  Value both = LLVM::AndOp::create(builder, loc, large, allocated);
  LLVM::CondBrOp::create(builder, loc, both, advise, done);

  builder.setInsertionPointToStart(advise);
  Value address = LLVM::PtrToIntOp::create(builder, loc, i64, block);
  Value rounded = LLVM::AndOp::create(
      builder, loc,
      LLVM::AddOp::create(builder, loc, address,
                          constant(i64, kPageBytes - 1)),
      constant(i64, ~(kPageBytes - 1)));
  Value skipped = LLVM::SubOp::create(builder, loc, rounded, address);
  Value length = LLVM::SubOp::create(builder, loc, size, skipped);
  Value start = LLVM::IntToPtrOp::create(builder, loc, ptr, rounded);
  LLVM::CallOp::create(
      builder, loc, madvise,
      ValueRange{start, length, constant(i32, kAdviseHugePages)});
  LLVM::BrOp::create(builder, loc, done);

  builder.setInsertionPointToStart(done);
  LLVM::ReturnOp::create(builder, loc, block);
  return helper;
}

namespace {
struct HugePageTemporariesPass
    : public tensorlang::impl::HugePageTemporariesBase<
          HugePageTemporariesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (minBytes < 1) {
      module.emitError("tl-huge-page-temporaries: min-bytes must be "
                       "positive");
      return signalPassFailure();
    }
    // madvise(MADV_HUGEPAGE) is Linux's.
    if (!tensorlang::tl::getTargetDescription(module).hugePages)
      return;
    // Calls of malloc whose size may reach minBytes.
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || *callee != "malloc" || call.getNumOperands() != 1 ||
          call->getParentOfType<LLVM::LLVMFuncOp>().getName() == kHelperName)
        return;
      APInt size;
      if (matchPattern(call.getOperand(0), m_ConstantInt(&size)) &&
          size.getZExtValue() < static_cast<uint64_t>(minBytes))
        return;
      calls.push_back(call);
    });
    if (calls.empty())
      return;
    auto malloc = module.lookupSymbol<LLVM::LLVMFuncOp>("malloc");
    if (!malloc || module.lookupSymbol(kHelperName))
      return;
    OpBuilder builder(module.getContext());
    LLVM::LLVMFuncOp helper = defineHelper(builder, module, malloc, minBytes);
    for (LLVM::CallOp call : calls)
      call.setCallee(helper.getName());
  }
};
} // namespace
