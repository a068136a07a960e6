//===- TestPasses.cpp - Passes for testing the test machinery -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Deliberately wrong passes, registered in tl-opt only, so that tests can
// show that --tl-check-semantics catches a pass that changes a program's
// meaning.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace tensorlang;

namespace {
/// Turns the last tl.add of each program into a tl.sub.
struct TestBreakSemanticsPass
    : public PassWrapper<TestBreakSemanticsPass, OperationPass<tl::ProgramOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBreakSemanticsPass)
  StringRef getArgument() const final { return "test-tl-break-semantics"; }
  StringRef getDescription() const final {
    return "Replace the last tl.add by a tl.sub (a wrong pass, for tests)";
  }
  void runOnOperation() override {
    tl::AddOp last;
    getOperation().walk([&](tl::AddOp add) { last = add; });
    if (!last)
      return;
    OpBuilder builder(last);
    Value difference = tl::SubOp::create(builder, last.getLoc(), last.getLhs(),
                                         last.getRhs());
    last.getResult().replaceAllUsesWith(difference);
    last.erase();
  }
};
} // namespace

namespace tensorlang::test {
void registerTestPasses() { PassRegistration<TestBreakSemanticsPass>(); }
} // namespace tensorlang::test
