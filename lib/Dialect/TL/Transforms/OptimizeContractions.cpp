//===- OptimizeContractions.cpp - Pairwise contraction order --------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A tree of contractions, outer products, transpositions and scalar products
// is one sum of products in index notation: every dimension of every leaf
// (factor) carries an index; a contracted pair binds two dimensions to one
// summed index, the root's dimensions are the free indices. The order in
// which the factors are multiplied and the indices summed decides the cost,
// not the value (up to rounding): the report's `u # A # A # A . [[2 6] [3 8]
// [4 10]]` is O(E p^6) as written and O(E p^4) as three pairwise
// contractions.
//
// This pass brings each such tree into that form, finds the pairwise order
// with the fewest multiply-adds (exact dynamic programming over subsets of
// factors up to `max-exact-factors`, greedy beyond), and rebuilds the tree
// as nested pairwise `contract(transpose(outer(l, r)))` whose intermediates
// the lowering materializes. An index is summed as soon as both its
// occurrences are in one intermediate. A tree is left alone when the best
// order is not cheaper than evaluating it as one loop nest.
//
// Reordering is exact in the report's semantics up to floating-point
// rounding: products and sums are distributive, and undefined (NaN) factors
// make every sum containing them undefined in either order.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/Analysis/IndexBinding.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

namespace tensorlang::tl {
#define GEN_PASS_DEF_TLOPTIMIZECONTRACTIONS
#include "tensorlang/Dialect/TL/Transforms/Passes.h.inc"
} // namespace tensorlang::tl

using namespace mlir;
using namespace tensorlang;
using namespace tensorlang::tl;

namespace {

using IndexSet = llvm::SmallBitVector;

/// A leaf of the tree and the index of each of its dimensions.
struct Factor {
  Value value;
  SmallVector<unsigned> indices;
};

/// A tree in index notation.
struct IndexForm {
  SmallVector<Factor> factors;
  SmallVector<int64_t> extents; // by index
  unsigned numFree = 0;         // indices 0..numFree-1 are the root's dims
  unsigned numContractions = 0; // contraction ops absorbed

  unsigned newIndex(int64_t extent) {
    extents.push_back(extent);
    return extents.size() - 1;
  }
  bool isFree(unsigned index) const { return index < numFree; }
};

/// A step of a plan: a factor, or the pairwise product of two steps.
struct Step {
  int factor = -1;    // a leaf, or
  int lhs = -1, rhs = -1; // a product of two steps
  IndexSet kept;      // the step's result's indices
  double cost = 0;    // multiply-adds of the steps beneath, this one included
};

struct Plan {
  SmallVector<Step> steps;
  int root = -1;
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();
} // namespace

static bool isScalarProduct(Operation *op) {
  auto mul = dyn_cast<MulOp>(op);
  return mul && getShapeOf(mul.getLhs()).empty() &&
         !getShapeOf(mul.getRhs()).empty();
}

/// Whether `op` is an inner node of a contraction tree.
static bool isTreeNode(Operation *op) {
  return op && (isa<ContractOp, OuterOp, TransposeOp>(op) || isScalarProduct(op));
}

/// Appends the factors of the tree at `value`, whose dimensions carry
/// `indices`.
static void collect(Value value, ArrayRef<unsigned> indices, IndexForm &form) {
  Operation *op = value.getDefiningOp();
  if (auto transpose = dyn_cast_or_null<TransposeOp>(op))
    return collect(transpose.getOperand(),
                   bindTransposeOperand(transpose, indices), form);
  if (auto outer = dyn_cast_or_null<OuterOp>(op)) {
    auto [lhsIndices, rhsIndices] = bindOuterOperands(outer, indices);
    collect(outer.getLhs(), lhsIndices, form);
    return collect(outer.getRhs(), rhsIndices, form);
  }
  if (op && isScalarProduct(op)) {
    collect(op->getOperand(0), {}, form);
    return collect(op->getOperand(1), indices, form);
  }
  if (auto contract = dyn_cast_or_null<ContractOp>(op)) {
    ++form.numContractions;
    return collect(contract.getOperand(),
                   bindContractOperand(
                       contract, indices,
                       [&](int64_t extent) { return form.newIndex(extent); }),
                   form);
  }
  form.factors.push_back({value, SmallVector<unsigned>(indices)});
}

static double product(const IndexForm &form, const IndexSet &indices) {
  double result = 1;
  for (unsigned index : indices.set_bits())
    result *= getPlanningExtent(form.extents[index]);
  return result;
}

/// The indices of the product of two intermediates: an index in both is
/// summed there (it occurs exactly twice in the tree) unless it is free.
static IndexSet combine(const IndexForm &form, const IndexSet &lhs,
                        const IndexSet &rhs) {
  IndexSet both = lhs;
  both &= rhs;
  IndexSet result = lhs;
  result |= rhs;
  for (unsigned index : both.set_bits())
    if (!form.isFree(index))
      result.reset(index);
  return result;
}

/// The number of elements of a factor, in floating point: a factor may be
/// an expression too large to exist (only the types of stored tensors are
/// bounded), and int64 would overflow.
static double factorElements(const IndexForm &form, const Factor &factor) {
  double elements = 1;
  for (unsigned index : factor.indices)
    elements *= getPlanningExtent(form.extents[index]);
  return elements;
}

/// The indices a factor keeps after summing the pairs within itself.
static IndexSet keptIndices(const IndexForm &form, const Factor &factor) {
  IndexSet kept(form.extents.size());
  for (unsigned index : factor.indices)
    kept.flip(index);
  return kept;
}

/// The cost of multiplying two intermediates: one multiply-add per point
/// of the iteration space over all their indices.
static double stepCost(const IndexForm &form, const IndexSet &lhs,
                       const IndexSet &rhs) {
  IndexSet all = lhs;
  all |= rhs;
  return product(form, all);
}

/// The cheapest plan by dynamic programming over subsets of factors.
static Plan planExactly(const IndexForm &form, double maxIntermediate) {
  unsigned n = form.factors.size();
  unsigned full = (1u << n) - 1;
  SmallVector<Step> best(full + 1);
  SmallVector<int> bestSplit(full + 1, 0);
  for (unsigned mask = 1; mask <= full; ++mask) {
    Step &step = best[mask];
    if (llvm::popcount(mask) == 1) {
      step.factor = llvm::countr_zero(mask);
      step.kept = keptIndices(form, form.factors[step.factor]);
      continue;
    }
    unsigned low = mask & -mask;
    step.kept = combine(form, best[low].kept, best[mask ^ low].kept);
    step.cost = kInfinity;
    if (mask != full && product(form, step.kept) > maxIntermediate)
      continue;
    // Each split once: the part holding the lowest factor is the left one.
    for (unsigned part = (mask - 1) & mask; part; part = (part - 1) & mask) {
      if (!(part & low))
        continue;
      const Step &lhs = best[part], &rhs = best[mask ^ part];
      double cost = lhs.cost + rhs.cost + stepCost(form, lhs.kept, rhs.kept);
      if (cost < step.cost) {
        step.cost = cost;
        bestSplit[mask] = part;
      }
    }
  }
  // Number the chosen steps.
  Plan plan;
  std::function<int(unsigned)> build = [&](unsigned mask) -> int {
    Step step = best[mask];
    if (step.factor < 0) {
      step.lhs = build(bestSplit[mask]);
      step.rhs = build(mask ^ bestSplit[mask]);
    }
    plan.steps.push_back(step);
    return plan.steps.size() - 1;
  };
  if (best[full].cost == kInfinity)
    return plan;
  plan.root = build(full);
  return plan;
}

/// A greedy plan, as opt_einsum's: repeatedly multiply the two
/// intermediates that share an index (any two if none do) whose product
/// shrinks the data most (result size minus operand sizes), ties broken by
/// fewer multiply-adds.
static Plan planGreedily(const IndexForm &form, double maxIntermediate) {
  Plan plan;
  SmallVector<int> live;
  for (auto [index, factor] : llvm::enumerate(form.factors)) {
    Step step;
    step.factor = index;
    step.kept = keptIndices(form, factor);
    plan.steps.push_back(step);
    live.push_back(plan.steps.size() - 1);
  }
  while (live.size() > 1) {
    bool bestShares = false;
    double bestGrowth = kInfinity, bestCost = kInfinity;
    size_t bestI = 0, bestJ = 0;
    for (size_t i = 0; i < live.size(); ++i)
      for (size_t j = i + 1; j < live.size(); ++j) {
        const Step &lhs = plan.steps[live[i]], &rhs = plan.steps[live[j]];
        double size = product(form, combine(form, lhs.kept, rhs.kept));
        if (live.size() > 2 && size > maxIntermediate)
          continue;
        bool shares = lhs.kept.anyCommon(rhs.kept);
        double growth =
            size - product(form, lhs.kept) - product(form, rhs.kept);
        double cost = stepCost(form, lhs.kept, rhs.kept);
        if (std::make_tuple(!shares, growth, cost) <
            std::make_tuple(!bestShares, bestGrowth, bestCost)) {
          bestShares = shares;
          bestGrowth = growth;
          bestCost = cost;
          bestI = i;
          bestJ = j;
        }
      }
    if (bestCost == kInfinity)
      return Plan();
    Step step;
    step.lhs = live[bestI];
    step.rhs = live[bestJ];
    const Step &lhs = plan.steps[step.lhs], &rhs = plan.steps[step.rhs];
    step.kept = combine(form, lhs.kept, rhs.kept);
    step.cost = lhs.cost + rhs.cost + bestCost;
    plan.steps.push_back(step);
    live.erase(live.begin() + bestJ);
    live[bestI] = plan.steps.size() - 1;
  }
  plan.root = live.front();
  return plan;
}

namespace {
/// An intermediate built from a plan: its value and the index of each of
/// its dimensions.
struct Built {
  Value value;
  SmallVector<unsigned> indices;
};

class PlanBuilder {
public:
  PlanBuilder(OpBuilder &builder, Location loc, const IndexForm &form,
              const Plan &plan)
      : builder(builder), loc(loc), form(form), plan(plan) {}

  Built build(int step, bool isRoot);

private:
  /// `value` (dimensions carrying `indices`) rearranged so that its
  /// dimensions carry `order` followed by the summed pairs, then contracted.
  Built arrange(Value value, ArrayRef<unsigned> indices,
                ArrayRef<unsigned> order);

  OpBuilder &builder;
  Location loc;
  const IndexForm &form;
  const Plan &plan;
};
} // namespace

Built PlanBuilder::arrange(Value value, ArrayRef<unsigned> indices,
                           ArrayRef<unsigned> order) {
  // A contraction keeps the other dimensions in order: when they already
  // come in `order`, no transposition is needed.
  SmallVector<unsigned> keptInPlace;
  SmallVector<int64_t> pairsInPlace;
  for (unsigned i = 0; i < indices.size(); ++i) {
    if (llvm::is_contained(order, indices[i])) {
      keptInPlace.push_back(indices[i]);
      continue;
    }
    for (unsigned j = i + 1; j < indices.size(); ++j)
      if (indices[j] == indices[i]) {
        pairsInPlace.push_back(i);
        pairsInPlace.push_back(j);
      }
  }
  if (ArrayRef<unsigned>(keptInPlace) == order) {
    if (!pairsInPlace.empty())
      value = ContractOp::create(builder, loc, value, pairsInPlace);
    return {value, SmallVector<unsigned>(order)};
  }

  // The wanted position of each dimension: kept ones in `order`, then each
  // summed index's two dimensions side by side.
  SmallVector<unsigned> wanted;
  for (unsigned index : order)
    wanted.push_back(llvm::find(indices, index) - indices.begin());
  SmallVector<bool> placed(indices.size(), false);
  for (unsigned position : wanted)
    placed[position] = true;
  for (unsigned i = 0; i < indices.size(); ++i) {
    if (placed[i])
      continue;
    for (unsigned j = i + 1; j < indices.size(); ++j)
      if (!placed[j] && indices[j] == indices[i]) {
        wanted.push_back(i);
        wanted.push_back(j);
        placed[i] = placed[j] = true;
        break;
      }
  }
  SmallVector<int64_t> swaps =
      getTranspositionPairs(SmallVector<int64_t>(wanted.begin(), wanted.end()));
  if (!swaps.empty())
    value = TransposeOp::create(builder, loc, value, swaps);
  SmallVector<int64_t> pairs;
  for (unsigned i = order.size(); i < indices.size(); ++i)
    pairs.push_back(i);
  if (!pairs.empty())
    value = ContractOp::create(builder, loc, value, pairs);
  return {value, SmallVector<unsigned>(order)};
}

/// The layout of the product of two intermediates: the larger one's
/// dimensions in their order, with the smaller one's kept indices in the
/// place of the first index summed away (appended if none is). A step like
/// `t[e,a,b,c] A[k,c]` gives `[e,a,b,k]`: the large operand's last,
/// unit-stride dimension stays last in the result wherever it is kept, so
/// that the tiled contraction reads and writes whole vectors of it
/// (tl-tile-contractions), and a chain of such steps keeps one layout.
static SmallVector<unsigned> substitutedOrder(const Built &lhs,
                                              const Built &rhs,
                                              const IndexSet &kept,
                                              ArrayRef<int64_t> lhsShape,
                                              ArrayRef<int64_t> rhsShape) {
  auto volume = [](ArrayRef<int64_t> shape) {
    double elements = 1;
    for (int64_t extent : shape)
      elements *= getPlanningExtent(extent);
    return elements;
  };
  bool lhsIsLarger = volume(lhsShape) >= volume(rhsShape);
  const Built &large = lhsIsLarger ? lhs : rhs;
  const Built &small = lhsIsLarger ? rhs : lhs;
  SmallVector<unsigned> order;
  auto add = [&](unsigned index) {
    if (kept.test(index) && !llvm::is_contained(order, index))
      order.push_back(index);
  };
  bool substituted = false;
  for (unsigned index : large.indices) {
    if (kept.test(index)) {
      add(index);
      continue;
    }
    if (!substituted) {
      for (unsigned other : small.indices)
        add(other);
      substituted = true;
    }
  }
  for (unsigned other : small.indices)
    add(other);
  return order;
}

Built PlanBuilder::build(int stepIndex, bool isRoot) {
  const Step &step = plan.steps[stepIndex];
  SmallVector<unsigned> indices;
  Value value;
  if (step.factor >= 0) {
    const Factor &factor = form.factors[step.factor];
    value = factor.value;
    indices = factor.indices;
    // A factor without pairs of its own is used as it is: its consumer
    // reads it through any permutation.
    if (!isRoot && step.kept.count() == indices.size())
      return {value, indices};
  } else {
    Built lhs = build(step.lhs, false);
    Built rhs = build(step.rhs, false);
    value = OuterOp::create(builder, loc, lhs.value, rhs.value);
    indices = lhs.indices;
    indices.append(rhs.indices);
    if (!isRoot)
      return arrange(value, indices,
                     substitutedOrder(lhs, rhs, step.kept,
                                      getShapeOf(lhs.value),
                                      getShapeOf(rhs.value)));
  }
  // The root's dimensions are the free indices in order. A factor used as
  // an intermediate (it sums pairs of its own) keeps its other dimensions
  // in their order.
  SmallVector<unsigned> order;
  if (isRoot) {
    for (unsigned index = 0; index < form.numFree; ++index)
      if (step.kept.test(index))
        order.push_back(index);
  } else {
    for (unsigned index : indices)
      if (step.kept.test(index) && !llvm::is_contained(order, index))
        order.push_back(index);
  }
  return arrange(value, indices, order);
}

/// A readable form of a plan, e.g. `((u A) A) A`.
static std::string describe(const IndexForm &form, const Plan &plan,
                            int stepIndex) {
  const Step &step = plan.steps[stepIndex];
  if (step.factor >= 0) {
    Value value = form.factors[step.factor].value;
    if (auto use = value.getDefiningOp<UseOp>())
      return use.getVar().str();
    return "(" + value.getDefiningOp()->getName().stripDialect().str() + ")";
  }
  return "(" + describe(form, plan, step.lhs) + " " +
         describe(form, plan, step.rhs) + ")";
}

namespace {
struct OptimizeContractionsPass
    : public tl::impl::TLOptimizeContractionsBase<OptimizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override;
  /// Rewrites the tree rooted at `root`; returns whether it did.
  void optimizeTree(Operation *root);
};
} // namespace

void OptimizeContractionsPass::optimizeTree(Operation *root) {
  Value rootValue = root->getResult(0);
  IndexForm form;
  form.numFree = getShapeOf(rootValue).size();
  SmallVector<unsigned> freeIndices;
  for (int64_t extent : getShapeOf(rootValue))
    freeIndices.push_back(form.newIndex(extent));
  collect(rootValue, freeIndices, form);
  if (form.numContractions == 0 || form.factors.size() < 3)
    return;
  IndexSet all(form.extents.size(), true);
  double asWritten = product(form, all);

  unsigned exactLimit = std::min<unsigned>(maxExactFactors, 20);
  double bound = double(maxIntermediateElements);
  Plan plan = form.factors.size() <= exactLimit ? planExactly(form, bound)
                                                 : planGreedily(form, bound);
  if (plan.root < 0)
    return;
  // Summing pairs within one factor costs the factor's size, in any plan.
  double cost = plan.steps[plan.root].cost;
  for (const Factor &factor : form.factors)
    if (keptIndices(form, factor).count() < factor.indices.size())
      cost += factorElements(form, factor);
  if (report)
    root->emitRemark() << llvm::formatv(
        "{0} factors: {1:e2} multiply-adds as written, {2:e2} as {3}",
        form.factors.size(), asWritten, cost,
        describe(form, plan, plan.root));
  if (!(cost < asWritten))
    return;
  OpBuilder builder(root);
  Built result = PlanBuilder(builder, root->getLoc(), form, plan)
                     .build(plan.root, /*isRoot=*/true);
  rootValue.replaceAllUsesWith(result.value);
}

void OptimizeContractionsPass::runOnOperation() {
  for (AssignOp assign : getOperation().getStatements()) {
    // Roots: tree nodes used outside any tree.
    SmallVector<Operation *> roots;
    for (Operation &op : *assign.getBody())
      if (isTreeNode(&op) && llvm::any_of(op.getUsers(), [](Operation *user) {
            return !isTreeNode(user);
          }))
        roots.push_back(&op);
    for (Operation *root : roots)
      optimizeTree(root);
    // The old trees are dead now.
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(*assign.getBody())))
      if (isPure(&op) && op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>())
        op.erase();
  }
}
