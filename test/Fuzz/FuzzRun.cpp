//===- FuzzRun.cpp - Source to results: reference against JIT -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tl-run's path on small programs: import, store with deterministic values,
// reference interpreter and JIT, and the two must agree (same NaN pattern,
// values within a relative tolerance), unpadded and padded.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include <cmath>

using namespace tensorlang;

static void fill(tl::ProgramOp program, Store &store) {
  int k = 0;
  for (tl::VarOp var : program.getVars()) {
    HostTensor &tensor = store[var.getSymName()];
    llvm::ArrayRef<int64_t> real = var.getRealShapeOrShape();
    std::optional<HostTensor> values =
        HostTensor::allocateZero(ElementKind::F64, real);
    if (!values)
      return;
    for (int64_t i = 0; i < values->getNumElements(); ++i, ++k)
      values->data<double>()[i] = (k % 7 == 3) ? NAN : double(k % 5) - 2.0;
    copyIntoCorner(*values, tensor);
  }
}

static bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 512)
    return 0;
  fuzz::Session session(data, size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importSource(session.sourceMgr, &session.context);
  if (!module)
    return 0;
  tl::ProgramOp program = *module->getOps<tl::ProgramOp>().begin();
  int64_t elements = 0;
  for (tl::VarOp var : program.getVars())
    elements += var.getType().getNumElements();
  mlir::FailureOr<double> work = estimateWork(program);
  if (elements > 2048 || mlir::failed(work) || *work > 1e5)
    return 0;

  for (int pad : {0, 4}) {
    if (pad && mlir::failed(tl::padProgram(program, pad)))
      return 0;
    // Padding grows every extent: a rank-15 store of one element becomes
    // 4^15 elements (8 GB). Keep padded stores small too (found by this
    // harness as an out-of-memory; the input is in the seed corpus).
    int64_t padded = 0;
    for (tl::VarOp var : program.getVars())
      padded += var.getType().getNumElements();
    if (padded > 16 * 2048)
      return 0;
    mlir::FailureOr<Store> reference = makeUndefinedStore(program);
    mlir::FailureOr<Store> compiled = makeUndefinedStore(program);
    if (mlir::failed(reference) || mlir::failed(compiled))
      return 0;
    fill(program, *reference);
    fill(program, *compiled);
    if (mlir::failed(interpret(program, *reference)))
      return 0;
    mlir::FailureOr<std::unique_ptr<JitProgram>> jit =
        JitProgram::compile(program);
    if (mlir::failed(jit))
      fuzz::fail("a program the interpreter runs does not compile");
    if (mlir::failed((*jit)->run(*compiled)))
      fuzz::fail("compiled code refused to run");
    // Compiled code computes what the caller sees: with qualifiers, dead
    // statements are removed and only outputs are defined.
    for (tl::VarOp var : program.getVars()) {
      if (!var.isLiveOut())
        continue;
      const HostTensor &a = (*reference)[var.getSymName()];
      const HostTensor &b = (*compiled)[var.getSymName()];
      for (int64_t i = 0; i < a.getNumElements(); ++i)
        if (!same(a.getAsDouble(i), b.getAsDouble(i)))
          fuzz::fail("the JIT and the reference interpreter disagree");
    }
  }
  return 0;
}
