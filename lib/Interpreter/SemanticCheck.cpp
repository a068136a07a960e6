//===- SemanticCheck.cpp - Check that passes keep the meaning -------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Interpreter/SemanticCheck.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Interpreter/Interpreter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <mutex>
#include <random>

using namespace mlir;
using namespace tensorlang;

namespace {
/// A program as it was before a pass.
struct Snapshot {
  std::string name;
  Operation *clone;
};

class SemanticCheck : public PassInstrumentation {
public:
  SemanticCheck(const SemanticCheckOptions &options,
                std::shared_ptr<bool> broken)
      : options(options), broken(std::move(broken)) {}
  ~SemanticCheck() override {
    for (auto &entry : snapshots)
      for (Snapshot &snapshot : entry.second)
        snapshot.clone->erase();
  }

  void runBeforePass(Pass *pass, Operation *op) override;
  void runAfterPass(Pass *pass, Operation *op) override;
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    drop(op);
  }

private:
  void drop(Operation *op) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = snapshots.find(op);
    if (it == snapshots.end())
      return;
    for (Snapshot &snapshot : it->second)
      snapshot.clone->erase();
    snapshots.erase(it);
  }
  void compare(Pass *pass, tl::ProgramOp before, tl::ProgramOp after);
  FailureOr<Store> run(tl::ProgramOp program, std::string &error);

  /// The value every size of a program has when it is checked: one that
  /// no fixed extent of the random tests divides, and small.
  static constexpr int64_t kSizeValue = 5;

  SemanticCheckOptions options;
  std::shared_ptr<bool> broken;
  // Passes on different programs may run in parallel.
  std::mutex mutex;
  DenseMap<Operation *, std::vector<Snapshot>> snapshots;
};
} // namespace

/// Pass managers' adaptors (which run nested pipelines) have no argument;
/// the passes they run are checked themselves.
static bool isChecked(Pass *pass) { return !pass->getArgument().empty(); }

static SmallVector<tl::ProgramOp> programsIn(Operation *op) {
  SmallVector<tl::ProgramOp> programs;
  if (auto program = dyn_cast<tl::ProgramOp>(op))
    programs.push_back(program);
  else
    op->walk([&](tl::ProgramOp program) { programs.push_back(program); });
  return programs;
}

void SemanticCheck::runBeforePass(Pass *pass, Operation *op) {
  if (!isChecked(pass))
    return;
  std::vector<Snapshot> taken;
  for (tl::ProgramOp program : programsIn(op))
    taken.push_back({program.getSymName().str(), program->clone()});
  if (taken.empty())
    return;
  std::lock_guard<std::mutex> lock(mutex);
  snapshots[op] = std::move(taken);
}

void SemanticCheck::runAfterPass(Pass *pass, Operation *op) {
  std::vector<Snapshot> taken;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = snapshots.find(op);
    if (it == snapshots.end())
      return;
    taken = std::move(it->second);
    snapshots.erase(it);
  }
  SmallVector<tl::ProgramOp> now = programsIn(op);
  for (Snapshot &snapshot : taken) {
    for (tl::ProgramOp program : now)
      if (program.getSymName() == snapshot.name)
        compare(pass, cast<tl::ProgramOp>(snapshot.clone), program);
    snapshot.clone->erase();
  }
}

/// Visits the row-major offset, within `shape`, of every index of the
/// region `real` (each extent at most shape's).
static void forEachRealElement(ArrayRef<int64_t> shape, ArrayRef<int64_t> real,
                               llvm::function_ref<void(int64_t)> visit) {
  int64_t count = 1;
  for (int64_t extent : real)
    count *= extent;
  SmallVector<int64_t> index(real.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset = offset * shape[d] + index[d];
    visit(offset);
    for (int64_t d = int64_t(real.size()) - 1; d >= 0; --d) {
      if (++index[d] < real[d])
        break;
      index[d] = 0;
    }
  }
}

/// `program` bound to kSizeValue for each of its sizes (its meaning there,
/// tl-bind-sizes), or null if it has no sizes.
static OwningOpRef<tl::ProgramOp> bindForCheck(tl::ProgramOp program,
                                               int64_t value) {
  if (program.getSizes().empty())
    return {};
  OwningOpRef<tl::ProgramOp> bound(program.clone());
  llvm::StringMap<int64_t> values;
  for (tl::SizeOp size : program.getSizes())
    values[size.getSymName()] = value;
  if (failed(tl::bindSizes(*bound, values)))
    return {};
  return bound;
}

FailureOr<Store> SemanticCheck::run(tl::ProgramOp program, std::string &error) {
  // The interpreter's own errors (too much work, no memory) mean "not
  // checked", not a wrong pass: collect them instead of reporting them.
  ScopedDiagnosticHandler handler(program.getContext(), [&](Diagnostic &diag) {
    if (error.empty())
      error = diag.str();
    return success();
  });
  FailureOr<double> work = estimateWork(program);
  if (failed(work))
    return failure();
  if (*work > options.maxWork) {
    error = "the interpreter would need " + std::to_string(*work) +
            " element evaluations";
    return failure();
  }
  FailureOr<Store> store = makeUndefinedStore(program);
  if (failed(store))
    return failure();
  for (tl::VarOp var : program.getVars()) {
    if (!var.isDefinedOnEntry())
      continue;
    HostTensor &tensor = (*store)[var.getSymName()];
    std::mt19937_64 random(llvm::hash_combine(options.seed, var.getSymName()));
    std::uniform_int_distribution<int> uniform(-3, 3);
    forEachRealElement(tensor.getShape(), var.getRealShapeOrShape(),
                       [&](int64_t offset) {
                         double value = uniform(random);
                         if (tensor.getKind() == ElementKind::F32)
                           tensor.data<float>()[offset] = float(value);
                         else
                           tensor.data<double>()[offset] = value;
                       });
  }
  InterpreterOptions interpreterOptions;
  interpreterOptions.maxWork = options.maxWork;
  if (failed(interpret(program, *store, interpreterOptions)))
    return failure();
  return store;
}

static bool same(double a, double b, double scale, double tolerance) {
  if (a == b)
    return true;
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <=
         tolerance * (1 + std::max({std::abs(a), std::abs(b), scale}));
}

void SemanticCheck::compare(Pass *pass, tl::ProgramOp before,
                            tl::ProgramOp after) {
  // A program with sizes is checked at one value of them, the same before
  // and after the pass.
  OwningOpRef<tl::ProgramOp> boundBefore = bindForCheck(before, kSizeValue);
  OwningOpRef<tl::ProgramOp> boundAfter = bindForCheck(after, kSizeValue);
  if (boundBefore)
    before = *boundBefore;
  if (boundAfter)
    after = *boundAfter;
  std::string errorBefore, errorAfter;
  FailureOr<Store> expected = run(before, errorBefore);
  FailureOr<Store> actual = failure();
  if (succeeded(expected))
    actual = run(after, errorAfter);
  if (failed(expected) || failed(actual)) {
    after.emitWarning() << "semantic check of pass '" << pass->getArgument()
                        << "' skipped: "
                        << (errorBefore.empty() ? errorAfter : errorBefore);
    return;
  }
  auto report = [&](tl::VarOp var, StringRef what) {
    *broken = true;
    InFlightDiagnostic diag = after.emitError()
                              << "semantic check: pass '"
                              << pass->getArgument() << "' " << what;
    std::string text;
    llvm::raw_string_ostream os(text);
    before->print(os);
    diag.attachNote(var.getLoc())
        << "inputs: integers uniform in [-3, 3] from seed " << options.seed
        << "; the program before the pass:\n"
        << text;
  };
  for (tl::VarOp var : before.getVars()) {
    tl::VarOp now = after.lookupVar(var.getSymName());
    if (!var.isLiveOut() || !now)
      continue;
    const HostTensor &old = expected->find(var.getSymName())->second;
    const HostTensor &result = actual->find(var.getSymName())->second;
    ArrayRef<int64_t> real = var.getRealShapeOrShape();
    if (real != now.getRealShapeOrShape()) {
      report(now, "changed the shape of variable '" +
                      var.getSymName().str() + "'");
      return;
    }
    // Compare element by element over the real region: offsets differ when
    // one program is padded.
    SmallVector<int64_t> oldOffsets, newOffsets;
    forEachRealElement(old.getShape(), real,
                       [&](int64_t offset) { oldOffsets.push_back(offset); });
    forEachRealElement(result.getShape(), real,
                       [&](int64_t offset) { newOffsets.push_back(offset); });
    // Reassociated sums round differently: errors are relative to the
    // variable's largest element.
    double scale = 0;
    for (int64_t offset : oldOffsets)
      if (std::isfinite(old.getAsDouble(offset)))
        scale = std::max(scale, std::abs(old.getAsDouble(offset)));
    for (size_t i = 0; i < oldOffsets.size(); ++i) {
      double a = old.getAsDouble(oldOffsets[i]);
      double b = result.getAsDouble(newOffsets[i]);
      if (same(a, b, scale, options.tolerance))
        continue;
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "changed variable '" << var.getSymName() << "': element "
         << i << " (row-major) is " << a << " before and " << b << " after";
      report(now, message);
      return;
    }
    // A padded program keeps its padding zero.
    SmallVector<bool> inReal(result.getNumElements(), false);
    for (int64_t offset : newOffsets)
      inReal[offset] = true;
    for (int64_t offset = 0; offset < result.getNumElements(); ++offset)
      if (!inReal[offset] && result.getAsDouble(offset) != 0.0) {
        report(now, "left a non-zero value in the padding of variable '" +
                        var.getSymName().str() + "'");
        return;
      }
  }
}

std::shared_ptr<bool>
tensorlang::addSemanticCheck(PassManager &pm,
                             const SemanticCheckOptions &options) {
  auto broken = std::make_shared<bool>(false);
  pm.addInstrumentation(std::make_unique<SemanticCheck>(options, broken));
  return broken;
}
