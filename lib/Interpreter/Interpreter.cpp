//===- Interpreter.cpp - The reference interpreter ------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Interpreter/Interpreter.h"
#include "Plan.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <unistd.h>
#include <limits>

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::interp;

/// The report's controlled division (definition 5) on IEEE values, with NaN
/// as the undefined value: 0/0 = 0, 0/undef = 0, v/0 = undef for v != 0,
/// undef/w = undef.
template <typename T> static T controlledDivide(T dividend, T divisor) {
  if (dividend == T(0))
    return (divisor == T(0) || std::isnan(divisor)) ? T(0) : dividend / divisor;
  if (divisor == T(0))
    return std::numeric_limits<T>::quiet_NaN();
  return dividend / divisor;
}

/// IEEE 754-2019 minimum and maximum (arith.minimumf / maximumf): NaN if
/// either operand is NaN, and -0 below +0.
template <typename T> static T minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T> static T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// The unary functions; log 0 is undefined, like the report's v / 0.
template <typename T> static T applyUnary(tl::UnaryKind kind, T x) {
  switch (kind) {
  case tl::UnaryKind::Neg:
    return -x;
  case tl::UnaryKind::Sqrt:
    return std::sqrt(x);
  case tl::UnaryKind::Abs:
    return std::fabs(x);
  case tl::UnaryKind::Exp:
    return std::exp(x);
  case tl::UnaryKind::Log:
    return x == T(0) ? std::numeric_limits<T>::quiet_NaN() : std::log(x);
  }
  llvm_unreachable("unknown unary kind");
}

namespace {
template <typename T> class Evaluator {
public:
  Evaluator(llvm::ArrayRef<T *> buffers, int numVars)
      : buffers(buffers), vars(numVars, 0) {}

  void run(const Kernel &kernel) {
    T *out = buffers[kernel.outputBuffer];
    size_t rank = kernel.shape.size();
    for (int var : kernel.outputVars)
      vars[var] = 0;
    int64_t count = 1;
    for (int64_t extent : kernel.shape)
      count *= extent;
    for (int64_t flat = 0; flat < count; ++flat) {
      out[flat] = eval(kernel.root);
      // Advance the row-major odometer over the output's variables.
      for (size_t d = rank; d-- > 0;) {
        int64_t &index = vars[kernel.outputVars[d]];
        if (++index < kernel.shape[d])
          break;
        index = 0;
      }
    }
  }

private:
  int64_t offsetOf(const PlanNode *load) const {
    int64_t offset = 0;
    for (const Term &term : load->terms)
      offset += term.stride * vars[term.var];
    return offset;
  }

  T eval(const PlanNode *node) {
    switch (node->kind) {
    case PlanNode::Kind::Load:
      return buffers[node->buffer][offsetOf(node)];
    case PlanNode::Kind::Product: {
      T lhs = eval(node->lhs);
      return lhs * eval(node->rhs);
    }
    case PlanNode::Kind::Arith: {
      T lhs = eval(node->lhs);
      T rhs = eval(node->rhs);
      switch (node->arith) {
      case tl::ArithKind::Add:
        return lhs + rhs;
      case tl::ArithKind::Sub:
        return lhs - rhs;
      case tl::ArithKind::Mul:
        return lhs * rhs;
      case tl::ArithKind::Div:
        return controlledDivide(lhs, rhs);
      case tl::ArithKind::Min:
        return minimum(lhs, rhs);
      case tl::ArithKind::Max:
        return maximum(lhs, rhs);
      }
      llvm_unreachable("unknown arithmetic kind");
    }
    case PlanNode::Kind::Constant:
      return T(node->value);
    case PlanNode::Kind::Stack: {
      int64_t index = vars[node->stackVar];
      return index < int64_t(node->operands.size())
                 ? eval(node->operands[index])
                 : T(0);
    }
    case PlanNode::Kind::Unary:
      return applyUnary(node->unary, eval(node->lhs));
    case PlanNode::Kind::Contract:
      return sum(node, node->loops.size() - 1);
    case PlanNode::Kind::Mask:
      for (const Loop &bound : node->loops)
        if (vars[bound.var] >= bound.extent)
          return T(0);
      return eval(node->lhs);
    }
    llvm_unreachable("unknown plan node kind");
  }

  /// The sum over loop `level` and, nested inside it, the inner levels; each
  /// level has its own accumulator and runs in ascending order.
  T sum(const PlanNode *node, size_t level) {
    const Loop &loop = node->loops[level];
    T accumulator = 0;
    if (level == 0 && !node->chain.empty())
      return sumChain(node, loop);
    for (int64_t l = 0; l < loop.extent; ++l) {
      vars[loop.var] = l;
      accumulator += level == 0 ? eval(node->lhs) : sum(node, level - 1);
    }
    return accumulator;
  }

  /// The innermost sum of a product of loads, with the offsets advanced by
  /// their strides instead of recomputed: the same values in the same order.
  T sumChain(const PlanNode *node, const Loop &loop) {
    size_t n = node->chain.size();
    llvm::SmallVector<const T *, 4> pointers(n);
    llvm::SmallVector<int64_t, 4> strides(n, 0);
    vars[loop.var] = 0;
    for (size_t k = 0; k < n; ++k) {
      const PlanNode *load = node->chain[k];
      pointers[k] = buffers[load->buffer] + offsetOf(load);
      for (const Term &term : load->terms)
        if (term.var == loop.var)
          strides[k] += term.stride;
    }
    T accumulator = 0;
    if (n == 2) {
      const T *a = pointers[0], *b = pointers[1];
      int64_t sa = strides[0], sb = strides[1];
      for (int64_t l = 0; l < loop.extent; ++l)
        accumulator += a[l * sa] * b[l * sb];
      return accumulator;
    }
    for (int64_t l = 0; l < loop.extent; ++l) {
      T product = pointers[0][l * strides[0]];
      for (size_t k = 1; k < n; ++k)
        product *= pointers[k][l * strides[k]];
      accumulator += product;
    }
    return accumulator;
  }

  llvm::ArrayRef<T *> buffers;
  llvm::SmallVector<int64_t, 16> vars;
};
} // namespace

template <typename T>
static LogicalResult runStatement(tl::AssignOp assign, const ProgramPlan &plan,
                                  const StatementPlan &statement,
                                  Store &store) {
  llvm::SmallVector<HostTensor, 4> temporaries;
  for (const auto &shape : statement.temporaries) {
    std::optional<HostTensor> tensor =
        HostTensor::allocateUndefined(plan.kind, shape);
    if (!tensor)
      return assign.emitError("out of memory allocating a temporary of ")
             << shape.size() << "-dimensional shape for this statement";
    temporaries.push_back(std::move(*tensor));
  }
  llvm::SmallVector<T *, 16> buffers;
  for (const std::string &name : plan.variables)
    buffers.push_back(store[name].template data<T>());
  for (HostTensor &tensor : temporaries)
    buffers.push_back(tensor.data<T>());

  Evaluator<T> evaluator(buffers, statement.numVars);
  for (const Kernel &kernel : statement.kernels)
    evaluator.run(kernel);
  // The last kernel's buffer holds the right-hand side, computed entirely
  // from the old store; only now does the variable change (rule ev-stmt).
  std::swap(store[plan.variables[statement.target]], temporaries.back());
  return success();
}

/// Copies element `e` of the batched `storage` (batch dimension first or
/// `last`) into `element`, or back when `out`.
template <typename T>
static void copyBatchElement(HostTensor &storage, HostTensor &element,
                             int64_t e, bool last, bool out) {
  T *whole = storage.data<T>();
  T *part = element.data<T>();
  int64_t count = element.getNumElements();
  if (count == 0)
    return; // An element slice of a size bound to 0 holds nothing.
  int64_t extent = storage.getNumElements() / count;
  for (int64_t i = 0; i < count; ++i) {
    T &slot = last ? whole[i * extent + e] : whole[e * count + i];
    if (out)
      slot = part[i];
    else
      part[i] = slot;
  }
}

/// The batch form, literally: the statements run once per element, in
/// order of elements, on a store in which each batched variable holds that
/// element's slice and the shared variables are the program's own.
template <typename T>
static LogicalResult runBatch(tl::ProgramOp program, const ProgramPlan &plan,
                              Store &store) {
  int64_t extent = int64_t(*program.getBatch());
  bool last = program.getBatchLast();
  SmallVector<tl::VarOp> batched;
  Store element;
  for (tl::VarOp var : program.getVars()) {
    StringRef name = var.getSymName();
    if (!var.getBatched()) {
      element[name] = std::move(store[name]);
      continue;
    }
    batched.push_back(var);
    std::optional<HostTensor> slice =
        HostTensor::allocateUndefined(plan.kind, var.getValueType().getShape());
    if (!slice)
      return var.emitError("out of memory allocating an element of '")
             << name << "'";
    element[name] = std::move(*slice);
  }
  LogicalResult result = success();
  for (int64_t e = 0; e < extent && succeeded(result); ++e) {
    for (tl::VarOp var : batched)
      copyBatchElement<T>(store[var.getSymName()], element[var.getSymName()], e,
                          last, /*out=*/false);
    for (auto [assign, statement] :
         llvm::zip(program.getStatements(), plan.statements))
      if (failed(runStatement<T>(assign, plan, statement, element))) {
        result = failure();
        break;
      }
    for (tl::VarOp var : batched)
      copyBatchElement<T>(store[var.getSymName()], element[var.getSymName()], e,
                          last, /*out=*/true);
  }
  for (tl::VarOp var : program.getVars())
    if (!var.getBatched())
      store[var.getSymName()] = std::move(element[var.getSymName()]);
  return result;
}

static std::string formatCount(double count) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.3g", count);
  return text;
}

ElementKind tensorlang::getElementKind(tl::ProgramOp program) {
  return program.getElementType().isF32() ? ElementKind::F32
                                          : ElementKind::F64;
}

/// Physical memory, or 0 if unknown.
static double physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? double(pages) * double(pageSize) : 0;
}

FailureOr<Store> tensorlang::makeUndefinedStore(
    tl::ProgramOp program,
    llvm::function_ref<int64_t(FlatSymbolRefAttr)> sizeValue,
    llvm::function_ref<bool(StringRef)> overwritten) {
  if (!program.getSizes().empty() && !sizeValue)
    return program.emitError("a store needs the values of the program's "
                             "sizes: bind them first (tl-bind-sizes)");
  // Each variable's extents, and its real ones (a size is never padded).
  SmallVector<std::pair<RankedTensorType, SmallVector<int64_t>>> shapes;
  for (tl::VarOp var : program.getVars()) {
    RankedTensorType type = var.getType();
    if (sizeValue)
      type = tl::bindSizes(type, sizeValue);
    // (A process of a distributed run may hold no index of the distributed
    // size: a zero extent, which the limits, made for declared types,
    // refuse.)
    SmallVector<int64_t> nonEmpty(type.getShape());
    for (int64_t &extent : nonEmpty)
      extent = std::max<int64_t>(extent, 1);
    if (failed(tl::verifyTensorLimits(
            RankedTensorType::get(nonEmpty, type.getElementType()), [&] {
              return var.emitError()
                     << "variable '" << var.getSymName() << "': ";
            })))
      return failure();
    SmallVector<int64_t> real(var.getRealShapeOrShape());
    for (auto [extent, bound] : llvm::zip(real, type.getShape()))
      if (ShapedType::isDynamic(extent))
        extent = bound;
    shapes.push_back({type, std::move(real)});
  }
  // Refuse up front rather than let the system swap or kill the process
  // while the store is filled.
  double bytes = 0;
  for (auto &[type, real] : shapes)
    bytes += double(type.getNumElements()) *
             double(getElementSize(getElementKind(program)));
  double available = physicalMemoryBytes();
  if (available > 0 && bytes > available)
    return program.emitError()
           << "the program's variables need " << formatCount(bytes)
           << " bytes, more than this machine's memory ("
           << formatCount(available) << " bytes)";
  Store store;
  for (auto [var, shape] : llvm::zip(program.getVars(), shapes)) {
    // Rules d-var and d-pad-var: the real region is undefined, the padding
    // (if the program is padded) is zero.
    // An unpadded variable's real region is all of it: nothing to zero.
    bool padded = ArrayRef<int64_t>(shape.second) != shape.first.getShape();
    std::optional<HostTensor> tensor =
        padded ? HostTensor::allocateZero(getElementKind(program),
                                          shape.first.getShape())
               : HostTensor::allocateUninitialized(getElementKind(program),
                                                   shape.first.getShape());
    if (!tensor)
      return var.emitError("out of memory allocating variable '")
             << var.getSymName() << "'";
    if (!overwritten || !overwritten(var.getSymName()))
      fillCornerUndefined(*tensor, shape.second);
    store[var.getSymName()] = std::move(*tensor);
  }
  return store;
}

FailureOr<double> tensorlang::estimateWork(tl::ProgramOp program) {
  FailureOr<ProgramPlan> plan = planProgram(program);
  if (failed(plan))
    return failure();
  return plan->work * double(program.getBatch().value_or(1));
}

LogicalResult tensorlang::interpret(tl::ProgramOp program, Store &store,
                                    const InterpreterOptions &options) {
  FailureOr<ProgramPlan> plan = planProgram(program);
  if (failed(plan))
    return failure();
  double work = plan->work * double(program.getBatch().value_or(1));
  if (work > options.maxWork)
    return program.emitError()
           << "the program needs about " << formatCount(work)
           << " element evaluations, more than the reference interpreter "
              "handles ("
           << formatCount(options.maxWork) << "); run it compiled instead";

  // The store must match the declarations.
  for (auto [index, name] : llvm::enumerate(plan->variables)) {
    auto it = store.find(name);
    if (it == store.end())
      return program.emitError() << "the store has no value for variable '"
                                 << name << "'";
    if (it->second.getKind() != plan->kind ||
        it->second.getShape() !=
            llvm::ArrayRef<int64_t>(plan->variableShapes[index]))
      return program.emitError()
             << "the store's value for variable '" << name
             << "' does not have the declared shape and element type";
  }

  if (program.getBatch())
    return plan->kind == ElementKind::F32
               ? runBatch<float>(program, *plan, store)
               : runBatch<double>(program, *plan, store);
  for (auto [assign, statement] :
       llvm::zip(program.getStatements(), plan->statements)) {
    LogicalResult result =
        plan->kind == ElementKind::F32
            ? runStatement<float>(assign, *plan, statement, store)
            : runStatement<double>(assign, *plan, statement, store);
    if (failed(result))
      return failure();
  }
  return success();
}
