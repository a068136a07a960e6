//===- TLToLinalg.cpp - Lower tl programs to linalg on tensors ------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Not a dialect-conversion pattern set: lowering an expression is not local.
// A contraction absorbs the outer products, transpositions and contractions
// beneath it into one linalg.generic, which needs the whole tree under it.
// So each statement's tree is cut into groups, and each group becomes one
// generic:
//
//   - A contraction group is rooted at a tl.contract and extends through
//     tl.contract, tl.outer and tl.transpose, and through arithmetic that is
//     cheaper to recompute than to store (see joinsGroup). Its iteration
//     space is the result's dimensions (parallel) plus every contracted pair
//     (reduction); its body computes the summand and accumulates.
//   - An element-wise group is rooted at any other expression op and extends
//     through arithmetic, tl.outer and tl.transpose; all its dimensions are
//     parallel.
//
// Anything else beneath a group (a use of a variable, or the root of another
// group) is a leaf: an input of the generic, read through an indexing map
// that binds each of its dimensions to an iteration dimension. That binding
// is the report's index notation: transpositions permute it, contractions
// bind both dimensions of a pair to one reduction dimension.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Dialect/TL/Analysis/IndexBinding.h"
#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tensorlang {
#define GEN_PASS_DEF_CONVERTTLTOLINALG
#include "tensorlang/Conversion/Passes.h.inc"
} // namespace tensorlang

using namespace mlir;
using namespace tensorlang;

namespace {

/// The scalar computation of a group's body, over its leaves.
struct ScalarNode {
  enum class Kind { Leaf, Constant, Multiply, Arith, Unary, Select };
  Kind kind;
  unsigned leaf = 0;                     // Leaf: index into Group::leaves
  double value = 0;                      // Constant
  int lhs = -1, rhs = -1;                // Multiply, Arith: node indices;
                                         // Unary: lhs
  tl::ArithKind arith = tl::ArithKind::Add;
  tl::UnaryKind unary = tl::UnaryKind::Neg;
  // Select (a stack): operand i where iteration dimension `dim` is i, and
  // zero beyond the operands when `zeroBeyond` (a padded stack).
  unsigned dim = 0;
  SmallVector<int, 4> operands = {};
  bool zeroBeyond = false;
};

struct Leaf {
  Value tensor;
  /// The iteration dimension (by id) of each of the tensor's dimensions.
  SmallVector<unsigned> dims;
};

/// One linalg.generic being assembled.
struct Group {
  bool isContraction = false;
  /// The element type of the program (f64 or f32).
  Type elementType;
  /// The dimensions of the value (ids 0 to numOutputDims - 1).
  unsigned numOutputDims = 0;
  /// The result's dimensions in order: the value's, and the batch
  /// dimension (id numOutputDims) first or last in a batched group.
  SmallVector<unsigned> outputDims;
  /// Ids of reduction dimensions; output dimension d has id d.
  SmallVector<unsigned> reductionDims;
  unsigned numDims = 0;
  /// The extent of each dimension id.
  SmallVector<int64_t> extents;
  SmallVector<Leaf> leaves;
  SmallVector<ScalarNode> nodes;
  int root = -1;
  /// The node of each value collected so far, by the dimensions it was read
  /// along and whether under arithmetic: a value shared in the statement's
  /// expression (tl-fuse-statements substitutes one value for every use of
  /// a variable) is computed once per element, not once per path to it,
  /// which would grow exponentially with the depth of the sharing.
  DenseMap<Value, SmallVector<std::tuple<SmallVector<unsigned>, bool, int>, 1>>
      collected;
  /// The loop position of each dimension id, once the loop order is set.
  SmallVector<unsigned> positions;
};

/// The batch of a batch program, as the lowering sees it: batched values
/// carry one more dimension, of `extent`, first or `last`; within a group
/// it is one more parallel dimension, which the leaves that are not
/// batched do not read.
struct Batch {
  tl::ProgramOp program;
  int64_t extent = 0;
  bool last = false;
  llvm::StringSet<> variables;

  /// `items` with `batchItem` inserted at the batch's position.
  template <typename T>
  SmallVector<T> insert(ArrayRef<T> items, T batchItem) const {
    SmallVector<T> result(items);
    result.insert(last ? result.end() : result.begin(), batchItem);
    return result;
  }
};

} // namespace

/// The values of the program's sizes in the function being built (its
/// `index` arguments), by name.
using SizeValues = llvm::StringMap<Value>;

/// The extents of `type` (a tl type, whose encoding names its sizes) as
/// the function being built knows them.
static SmallVector<OpFoldResult> getMixedExtents(OpBuilder &builder,
                                                 RankedTensorType type,
                                                 const SizeValues &sizes) {
  SmallVector<OpFoldResult> extents;
  for (const tl::Extent &extent : tl::getExtents(type))
    extents.push_back(extent.isSized()
                          ? OpFoldResult(sizes.lookup(extent.size.getValue()))
                          : OpFoldResult(builder.getIndexAttr(extent.value)));
  return extents;
}

/// A tensor.empty of tl type `type`: its sized extents from `sizes`.
static Value createEmpty(OpBuilder &builder, Location loc,
                         RankedTensorType type, const SizeValues &sizes) {
  return tensor::EmptyOp::create(builder, loc,
                                 getMixedExtents(builder, type, sizes),
                                 type.getElementType());
}

namespace {
class StatementLowering {
public:
  StatementLowering(OpBuilder &builder, llvm::StringMap<Value> &current,
                    const std::optional<Batch> &batch, const SizeValues &sizes)
      : builder(builder), current(current), batch(batch), sizes(sizes) {}

  /// Lowers `value` to a tensor. `target` names the variable the statement
  /// assigns, for the in-place decision at the root. Sets `inPlace` when the
  /// result was computed into the target's current tensor.
  Value lowerStatement(Value value, StringRef target, bool mayWriteTarget,
                       bool &inPlace);

  /// Whether the statement reads the variable it assigns. If not, a stack
  /// at its root computes each element straight into its slice of the
  /// target.
  bool targetIsRead = true;

  /// Whether `value` differs from element to element of the batch: it
  /// reads a batched variable.
  bool isBatched(Value value);

  /// Set when a temporary would exceed the limits of stored tensors (an
  /// error has been reported).
  bool exceededLimits = false;

private:
  /// Lowers `value` into a fresh tensor (or reads a variable).
  Value lower(Value value);
  /// Computes each element of `stack` into its slice of `target`.
  Value lowerStackInto(tl::StackOp stack, Value target);
  /// Cuts the group rooted at `value` out of the tree, lowering the groups
  /// beneath it (its leaves) on the way.
  Group collectGroup(Value value);
  int collect(Group &group, Value value, ArrayRef<unsigned> dims,
              double requests, bool underArith);
  int collectUnshared(Group &group, Value value, ArrayRef<unsigned> dims,
                      double requests, bool underArith);
  int addNode(Group &group, ScalarNode node) {
    group.nodes.push_back(node);
    return group.nodes.size() - 1;
  }
  /// Adds a leaf read along `dims`, and along the group's batch dimension
  /// if it is `batched`.
  /// A tensor read twice along the same dimensions is one leaf (one
  /// operand of the linalg.generic), whichever use reads it.
  int addLeaf(Group &group, Value tensor, ArrayRef<unsigned> dims,
              bool batched) {
    SmallVector<unsigned> leafDims(dims);
    if (batched)
      leafDims = batch->insert(dims, group.numOutputDims);
    ScalarNode node{ScalarNode::Kind::Leaf};
    const Leaf *same = llvm::find_if(group.leaves, [&](const Leaf &leaf) {
      return leaf.tensor == tensor && leaf.dims == leafDims;
    });
    node.leaf = same - group.leaves.begin();
    if (same == group.leaves.end())
      group.leaves.push_back({tensor, std::move(leafDims)});
    return addNode(group, node);
  }
  Value emit(Group &group, Location loc, RankedTensorType type, Value init);
  /// The scalar value of `node`, emitted once (`emitted`, by node index).
  Value emitScalar(OpBuilder &b, Location loc, const Group &group, int node,
                   ValueRange leafValues, SmallVectorImpl<Value> &emitted);
  Value emitScalarOnce(OpBuilder &b, Location loc, const Group &group, int node,
                       ValueRange leafValues, SmallVectorImpl<Value> &emitted);
  /// The tensor of `zero`'s operand with its padding set to zero.
  Value zeroPaddingOf(tl::ZeroPaddingOp zero, Value tensor);
  /// The type of `value` as a tensor: with the batch dimension if batched.
  RankedTensorType storedType(Value value);

  OpBuilder &builder;
  llvm::StringMap<Value> &current;
  const std::optional<Batch> &batch;
  const SizeValues &sizes;
  DenseMap<Value, bool> batched;
  /// The temporaries already computed in this statement: a value that
  /// tl-fuse-statements made shared (`x = e; y = x * x + x`) is stored once.
  DenseMap<Value, Value> temporaries;
};
} // namespace

/// Whether `op` computes each element from the same element of its operands
/// (a binary operation, a function or a negation).
static bool isArith(Operation *op) {
  return tl::getArithKind(op) || tl::getUnaryKind(op);
}

static double numElements(Value value) {
  double count = 1;
  for (int64_t extent : tl::getShapeOf(value))
    count *= tl::getPlanningExtent(extent);
  return count;
}

/// The number of terms of each sum a contraction computes.
static double summandsOf(tl::ContractOp contract) {
  ArrayRef<int64_t> pairs = contract.getPairs();
  ArrayRef<int64_t> shape = tl::getShapeOf(contract.getOperand());
  double summands = 1;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    summands *= tl::getPlanningExtent(shape[pairs[i]]);
  return summands;
}

bool StatementLowering::isBatched(Value value) {
  if (!batch)
    return false;
  // Iterative, memoized: expression trees may be deep.
  SmallVector<Value> stack = {value};
  while (!stack.empty()) {
    Value top = stack.back();
    if (batched.count(top)) {
      stack.pop_back();
      continue;
    }
    Operation *op = top.getDefiningOp();
    if (auto use = dyn_cast<tl::UseOp>(op)) {
      batched[top] = batch->variables.contains(use.getVar());
      stack.pop_back();
      continue;
    }
    bool pending = false, any = false;
    for (Value operand : op->getOperands()) {
      auto it = batched.find(operand);
      if (it == batched.end()) {
        stack.push_back(operand);
        pending = true;
      } else {
        any |= it->second;
      }
    }
    if (!pending) {
      batched[top] = any;
      stack.pop_back();
    }
  }
  return batched.lookup(value);
}

RankedTensorType StatementLowering::storedType(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!isBatched(value))
    return type;
  tl::ProgramOp program = batch->program; // (op accessors are not const)
  return program.getStoredType(type);
}

/// Whether `value` joins the group being collected rather than being one of
/// its leaves; `requests` is how many of its elements the group asks for.
/// Outer products and transpositions always join. Arithmetic joins a
/// contraction group when the group asks for no more of its elements than
/// it has (it is then cheaper to recompute than to store: the diagonal of
/// `a # a + a # a` needs n of its n^2 elements); otherwise it is computed
/// once into its own tensor.
///
/// A nested contraction of k summands joins a contraction group (its sum
/// flattens into the group's) when recomputing it, k multiply-adds per
/// request, is no dearer than computing it once (k per element) and
/// reading it per request: the trace of a product flattens into one O(n^2)
/// loop nest, while the pairwise steps that --tl-optimize-contractions
/// builds, each reused by many elements of the next, stay separate. It
/// never joins when arithmetic lies between, where flattening would change
/// the value: sum_l (sum_k f + g) is not sum_{l,k} (f + g).
static bool joinsGroup(Value value, bool isContraction, double requests,
                       bool underArith) {
  Operation *op = value.getDefiningOp();
  if (isa<tl::OuterOp, tl::TransposeOp, tl::StackOp>(op))
    return true;
  if (!isContraction)
    return isArith(op);
  if (auto contract = dyn_cast<tl::ContractOp>(op)) {
    double summands = summandsOf(contract);
    return !underArith &&
           requests * summands <= numElements(value) * summands + requests;
  }
  return isArith(op) && requests <= numElements(value);
}

int StatementLowering::collect(Group &group, Value value,
                               ArrayRef<unsigned> dims, double requests,
                               bool underArith) {
  if (auto seen = group.collected.find(value); seen != group.collected.end())
    for (const auto &[seenDims, seenUnderArith, node] : seen->second)
      if (ArrayRef<unsigned>(seenDims) == dims && seenUnderArith == underArith)
        return node;
  // A value whose sums joined the group is not shared: each of its paths
  // sums over reduction dimensions of its own (the two factors of
  // `(a . [[1]]) # (a . [[1]])` sum independently).
  size_t numReductions = group.reductionDims.size();
  int node = collectUnshared(group, value, dims, requests, underArith);
  if (group.reductionDims.size() == numReductions)
    group.collected[value].emplace_back(SmallVector<unsigned>(dims), underArith,
                                        node);
  return node;
}

int StatementLowering::collectUnshared(Group &group, Value value,
                                       ArrayRef<unsigned> dims, double requests,
                                       bool underArith) {
  Operation *op = value.getDefiningOp();
  if (auto use = dyn_cast<tl::UseOp>(op))
    return addLeaf(group, current.lookup(use.getVar()), dims, isBatched(value));
  // A literal is a constant in the loop body, never a tensor.
  if (auto constant = dyn_cast<tl::ConstantOp>(op)) {
    ScalarNode node{ScalarNode::Kind::Constant};
    node.value = constant.getValue().convertToDouble();
    return addNode(group, node);
  }
  // A shared value inside a batched group is requested once per element of
  // the batch: recomputing it there can cost the batch's extent times more
  // than storing it once.
  bool groupIsBatched = group.outputDims.size() > group.numOutputDims;
  double allRequests = groupIsBatched && !isBatched(value)
                           ? requests * double(batch->extent)
                           : requests;
  if (!joinsGroup(value, group.isContraction, allRequests, underArith))
    return addLeaf(group, lower(value), dims, isBatched(value));

  if (auto transpose = dyn_cast<tl::TransposeOp>(op)) {
    return collect(group, transpose.getOperand(),
                   tl::bindTransposeOperand(transpose, dims), requests,
                   underArith);
  }
  if (auto stack = dyn_cast<tl::StackOp>(op)) {
    // Never stored: each element selects one operand by its first index.
    ScalarNode node{ScalarNode::Kind::Select};
    node.dim = dims.front();
    node.zeroBeyond =
        tl::getShapeOf(value).front() != int64_t(stack.getElements().size());
    // As under arithmetic, a nested sum must not flatten into the group's
    // sums: the other operands do not depend on its index.
    for (Value element : stack.getElements())
      node.operands.push_back(collect(group, element, dims.drop_front(),
                                      requests, /*underArith=*/true));
    return addNode(group, node);
  }
  if (auto outer = dyn_cast<tl::OuterOp>(op)) {
    auto [lhsDims, rhsDims] = tl::bindOuterOperands(outer, dims);
    ScalarNode node{ScalarNode::Kind::Multiply};
    node.lhs = collect(group, outer.getLhs(), lhsDims, requests, underArith);
    node.rhs = collect(group, outer.getRhs(), rhsDims, requests, underArith);
    return addNode(group, node);
  }
  if (auto contract = dyn_cast<tl::ContractOp>(op)) {
    double summands = 1;
    SmallVector<unsigned> operandDims =
        tl::bindContractOperand(contract, dims, [&](int64_t extent) {
          unsigned dim = group.numDims++;
          group.extents.push_back(extent);
          group.reductionDims.push_back(dim);
          summands *= tl::getPlanningExtent(extent);
          return dim;
        });
    return collect(group, contract.getOperand(), operandDims,
                   requests * summands, underArith);
  }
  if (std::optional<tl::UnaryKind> unary = tl::getUnaryKind(op)) {
    ScalarNode node{ScalarNode::Kind::Unary};
    node.unary = *unary;
    node.lhs = collect(group, op->getOperand(0), dims, requests,
                       /*underArith=*/true);
    return addNode(group, node);
  }
  ScalarNode node{ScalarNode::Kind::Arith};
  node.arith = *tl::getArithKind(op);
  // A scalar operand (rule t-scalar) is read at no index.
  auto dimsOf = [&](Value operand) {
    return tl::getShapeOf(operand).empty() ? ArrayRef<unsigned>() : dims;
  };
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  node.lhs = collect(group, lhs, dimsOf(lhs), requests, /*underArith=*/true);
  node.rhs = collect(group, rhs, dimsOf(rhs), requests, /*underArith=*/true);
  return addNode(group, node);
}

/// The report's controlled division: 0/0 = 0, 0/undef = 0, v/0 = undef for
/// v != 0, undef/w = undef, with NaN as undefined. IEEE division already
/// gives undef/w and v/undef; two selects fix the rest (a zero numerator
/// wins over the denominator). Element-wise loops are bound by memory, but
/// every extra vector op holds back the loads in flight, so this stays
/// minimal.
static Value emitControlledDivision(OpBuilder &b, Location loc, Value lhs,
                                    Value rhs) {
  auto type = cast<FloatType>(lhs.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  Value nan = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(type, APFloat::getQNaN(type.getFloatSemantics())));
  Value quotient = arith::DivFOp::create(b, loc, lhs, rhs);
  Value rhsZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rhs, zero);
  Value lhsZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lhs, zero);
  Value ifLhsNonZero = arith::SelectOp::create(b, loc, rhsZero, nan, quotient);
  return arith::SelectOp::create(b, loc, lhsZero, zero, ifLhsNonZero);
}

/// The unary functions; `log 0` is undefined, like the report's `v / 0`
/// (libm's log gives -inf there), so one select fixes it.
static Value emitUnary(OpBuilder &b, Location loc, tl::UnaryKind kind,
                       Value operand) {
  switch (kind) {
  case tl::UnaryKind::Neg:
    return arith::NegFOp::create(b, loc, operand);
  case tl::UnaryKind::Sqrt:
    return math::SqrtOp::create(b, loc, operand);
  case tl::UnaryKind::Abs:
    return math::AbsFOp::create(b, loc, operand);
  case tl::UnaryKind::Exp:
    return math::ExpOp::create(b, loc, operand);
  case tl::UnaryKind::Log: {
    auto type = cast<FloatType>(operand.getType());
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
    Value nan = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(type, APFloat::getQNaN(type.getFloatSemantics())));
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, operand, zero);
    Value log = math::LogOp::create(b, loc, operand);
    return arith::SelectOp::create(b, loc, isZero, nan, log);
  }
  }
  llvm_unreachable("unknown unary kind");
}

Value StatementLowering::emitScalar(OpBuilder &b, Location loc,
                                    const Group &group, int index,
                                    ValueRange leafValues,
                                    SmallVectorImpl<Value> &emitted) {
  if (!emitted[index])
    emitted[index] = emitScalarOnce(b, loc, group, index, leafValues, emitted);
  return emitted[index];
}

Value StatementLowering::emitScalarOnce(OpBuilder &b, Location loc,
                                        const Group &group, int index,
                                        ValueRange leafValues,
                                        SmallVectorImpl<Value> &emitted) {
  const ScalarNode &node = group.nodes[index];
  if (node.kind == ScalarNode::Kind::Leaf)
    return leafValues[node.leaf];
  if (node.kind == ScalarNode::Kind::Constant)
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(group.elementType, node.value));
  if (node.kind == ScalarNode::Kind::Select) {
    Value index = linalg::IndexOp::create(b, loc, group.positions[node.dim]);
    SmallVector<Value> values;
    for (int operand : node.operands)
      values.push_back(emitScalar(b, loc, group, operand, leafValues, emitted));
    Value result = node.zeroBeyond
                       ? arith::ConstantOp::create(
                             b, loc, b.getFloatAttr(group.elementType, 0.0))
                             .getResult()
                       : values.pop_back_val();
    for (size_t i = values.size(); i-- > 0;) {
      Value position = arith::ConstantIndexOp::create(b, loc, i);
      Value isThis = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           index, position);
      result = arith::SelectOp::create(b, loc, isThis, values[i], result);
    }
    return result;
  }
  Value lhs = emitScalar(b, loc, group, node.lhs, leafValues, emitted);
  if (node.kind == ScalarNode::Kind::Unary)
    return emitUnary(b, loc, node.unary, lhs);
  Value rhs = emitScalar(b, loc, group, node.rhs, leafValues, emitted);
  if (node.kind == ScalarNode::Kind::Multiply)
    return arith::MulFOp::create(b, loc, lhs, rhs);
  switch (node.arith) {
  case tl::ArithKind::Add:
    return arith::AddFOp::create(b, loc, lhs, rhs);
  case tl::ArithKind::Sub:
    return arith::SubFOp::create(b, loc, lhs, rhs);
  case tl::ArithKind::Mul:
    return arith::MulFOp::create(b, loc, lhs, rhs);
  case tl::ArithKind::Div:
    return emitControlledDivision(b, loc, lhs, rhs);
  case tl::ArithKind::Min:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case tl::ArithKind::Max:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown arithmetic kind");
}

Value StatementLowering::emit(Group &group, Location loc,
                              RankedTensorType type, Value init) {
  MLIRContext *context = builder.getContext();
  // Loop order: the result's dimensions but the last, the reductions, then
  // the result's last dimension, so that the innermost loop runs along
  // contiguous memory of the result (and vectorizes) whenever it can.
  SmallVector<unsigned> position(group.numDims);
  SmallVector<utils::IteratorType> iterators;
  unsigned next = 0;
  ArrayRef<unsigned> outputDims = group.outputDims;
  for (unsigned d : outputDims.drop_back(outputDims.empty() ? 0 : 1)) {
    position[d] = next++;
    iterators.push_back(utils::IteratorType::parallel);
  }
  for (unsigned d : group.reductionDims) {
    position[d] = next++;
    iterators.push_back(utils::IteratorType::reduction);
  }
  if (!outputDims.empty()) {
    position[outputDims.back()] = next++;
    iterators.push_back(utils::IteratorType::parallel);
  }

  group.positions = position;
  auto mapOf = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> results;
    for (unsigned d : dims)
      results.push_back(getAffineDimExpr(position[d], context));
    return AffineMap::get(group.numDims, 0, results, context);
  };
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (const Leaf &leaf : group.leaves) {
    inputs.push_back(leaf.tensor);
    maps.push_back(mapOf(leaf.dims));
  }
  // linalg derives each loop's range from an operand read along it. A
  // summed stack dimension is read by no operand (each element selects
  // among operands that lack it): an unread tensor.empty of its extent
  // carries the range.
  llvm::SmallBitVector read(group.numDims);
  for (const Leaf &leaf : group.leaves)
    for (unsigned d : leaf.dims)
      read.set(d);
  for (unsigned d : outputDims)
    read.set(d);
  for (unsigned d = 0; d < group.numDims; ++d) {
    if (read.test(d))
      continue;
    inputs.push_back(tensor::EmptyOp::create(builder, loc, {group.extents[d]},
                                             type.getElementType()));
    maps.push_back(mapOf({d}));
  }
  maps.push_back(mapOf(outputDims));

  if (!init)
    init = createEmpty(builder, loc, type, sizes);
  type = tl::eraseSizeNames(type);
  if (group.isContraction) {
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(type.getElementType(), 0.0));
    init = linalg::FillOp::create(builder, loc, zero, init).getResult(0);
  }
  auto generic = linalg::GenericOp::create(
      builder, loc, type, inputs, init, maps, iterators,
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        SmallVector<Value> emitted(group.nodes.size());
        Value value = emitScalar(b, bodyLoc, group, group.root,
                                 args.drop_back(), emitted);
        if (group.isContraction)
          value = arith::AddFOp::create(b, bodyLoc, args.back(), value);
        linalg::YieldOp::create(b, bodyLoc, value);
      });
  return generic.getResult(0);
}

Group StatementLowering::collectGroup(Value value) {
  Group group;
  group.isContraction = isa<tl::ContractOp>(value.getDefiningOp());
  group.elementType = cast<RankedTensorType>(value.getType()).getElementType();
  group.numOutputDims = tl::getShapeOf(value).size();
  group.numDims = group.numOutputDims;
  llvm::append_range(group.extents, tl::getShapeOf(value));
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < group.numOutputDims; ++d)
    dims.push_back(d);
  group.outputDims = dims;
  if (isBatched(value)) {
    group.outputDims = batch->insert<unsigned>(dims, group.numDims++);
    group.extents.push_back(batch->extent);
  }
  group.root = collect(group, value, dims, numElements(value),
                       /*underArith=*/false);
  return group;
}

/// `tensor` with every element outside `realShape` set to zero: one slab
/// of zeros per padded dimension, written in place into the tensor.
static Value zeroPadding(OpBuilder &builder, Location loc, Value tensor,
                         ArrayRef<int64_t> realShape) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value zero = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(type.getElementType(), 0.0));
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  for (auto [dim, real] : llvm::enumerate(realShape)) {
    int64_t extent = type.getDimSize(dim);
    // A size is never padded.
    if (ShapedType::isDynamic(extent) || real >= extent)
      continue;
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(builder, loc, tensor);
    offsets[dim] = builder.getIndexAttr(real);
    sizes[dim] = builder.getIndexAttr(extent - real);
    Value slab = tensor::ExtractSliceOp::create(builder, loc, tensor, offsets,
                                                sizes, strides);
    Value zeros = linalg::FillOp::create(builder, loc, zero, slab).getResult(0);
    tensor = tensor::InsertSliceOp::create(builder, loc, zeros, tensor, offsets,
                                           sizes, strides);
  }
  return tensor;
}

Value StatementLowering::zeroPaddingOf(tl::ZeroPaddingOp zero, Value tensor) {
  ArrayRef<int64_t> real = zero.getRealShape();
  if (!isBatched(zero.getOperand()))
    return zeroPadding(builder, zero.getLoc(), tensor, real);
  return zeroPadding(builder, zero.getLoc(), tensor,
                     batch->insert(real, batch->extent));
}

Value StatementLowering::lower(Value value) {
  if (auto use = dyn_cast<tl::UseOp>(value.getDefiningOp()))
    return current.lookup(use.getVar());
  if (auto zero = dyn_cast<tl::ZeroPaddingOp>(value.getDefiningOp()))
    return zeroPaddingOf(zero, lower(zero.getOperand()));
  // The value is stored as a temporary: now it exists, and the limits of
  // stored tensors apply (an outer product the contraction above absorbs
  // never gets here).
  RankedTensorType type = storedType(value);
  if (failed(tl::verifyTensorLimits(type, [&] {
        return emitError(value.getLoc())
               << "the value of this expression would be stored as a "
                  "temporary, but ";
      })))
    exceededLimits = true;
  if (Value temporary = temporaries.lookup(value))
    return temporary;
  Group group = collectGroup(value);
  Value temporary = emit(group, value.getLoc(), type, Value());
  temporaries[value] = temporary;
  return temporary;
}

/// Whether `group` may write into `target` (a tensor) while it runs: it
/// must read the target only at the element it writes, and a contraction,
/// which first zeroes its result, must not read it at all. Groups below the
/// root are its leaves; they finish before it starts and may read the target
/// freely.
static bool canWriteInPlace(const Group &group, Value target) {
  for (const Leaf &leaf : group.leaves)
    if (leaf.tensor == target &&
        (group.isContraction || leaf.dims != group.outputDims))
      return false;
  return true;
}

Value StatementLowering::lowerStackInto(tl::StackOp stack, Value target) {
  Location loc = stack.getLoc();
  auto type = cast<RankedTensorType>(target.getType());
  int64_t rank = type.getRank();
  // The stack's new dimension: the first, after the batch's if it leads.
  unsigned stackDim = isBatched(stack) && !batch->last ? 1 : 0;
  SmallVector<int64_t> elementShape(type.getShape());
  elementShape.erase(elementShape.begin() + stackDim);
  auto elementType = RankedTensorType::get(elementShape, type.getElementType());
  SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
  SmallVector<OpFoldResult> targetSizes =
      tensor::getMixedSizes(builder, loc, target);
  auto slab = [&](int64_t offset, int64_t rows) {
    SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes(targetSizes);
    offsets[stackDim] = builder.getIndexAttr(offset);
    sizes[stackDim] = builder.getIndexAttr(rows);
    return std::make_pair(offsets, sizes);
  };
  for (auto [index, element] : llvm::enumerate(stack.getElements())) {
    auto [offsets, sizes] = slab(index, 1);
    Value computed;
    if (isa<tl::UseOp>(element.getDefiningOp())) {
      computed = lower(element);
    } else {
      Value slice = tensor::ExtractSliceOp::create(
          builder, loc, elementType, target, offsets, sizes, strides);
      Group group = collectGroup(element);
      computed = emit(group, element.getLoc(), elementType, slice);
    }
    target = tensor::InsertSliceOp::create(builder, loc, computed, target,
                                           offsets, sizes, strides);
  }
  // A padded stack's rows beyond its elements are zero.
  auto count = static_cast<int64_t>(stack.getElements().size());
  if (type.getDimSize(stackDim) > count) {
    auto [offsets, sizes] = slab(count, type.getDimSize(stackDim) - count);
    Value rows = tensor::ExtractSliceOp::create(builder, loc, target, offsets,
                                                sizes, strides);
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(type.getElementType(), 0.0));
    Value zeros = linalg::FillOp::create(builder, loc, zero, rows).getResult(0);
    target = tensor::InsertSliceOp::create(builder, loc, zeros, target, offsets,
                                           sizes, strides);
  }
  return target;
}

Value StatementLowering::lowerStatement(Value value, StringRef target,
                                        bool mayWriteTarget, bool &inPlace) {
  inPlace = false;
  // Zeroing the padding is done on the statement's result, where it is.
  if (auto zero = dyn_cast<tl::ZeroPaddingOp>(value.getDefiningOp()))
    return zeroPaddingOf(zero, lowerStatement(zero.getOperand(), target,
                                              mayWriteTarget, inPlace));
  if (isa<tl::UseOp>(value.getDefiningOp()))
    return lower(value);
  Value targetTensor = current.lookup(target);
  // Each element into its slice, unless the elements of a batched stack
  // are not all batched (those would need a broadcast each).
  if (auto stack = dyn_cast<tl::StackOp>(value.getDefiningOp());
      stack && mayWriteTarget && !targetIsRead &&
      llvm::all_of(stack.getElements(), [&](Value element) {
        return isBatched(element) == isBatched(stack);
      })) {
    inPlace = true;
    return lowerStackInto(stack, targetTensor);
  }
  Group group = collectGroup(value);
  inPlace = mayWriteTarget && canWriteInPlace(group, targetTensor);
  return emit(group, value.getLoc(), storedType(value),
              inPlace ? targetTensor : Value());
}

/// The type of `var`'s argument: a buffer of its extents, or, for a
/// variable with sizes, its base pointer as a rank-0 memref (the
/// bare-pointer calling convention of the lowered functions needs static
/// shapes), viewed with its extents in the function (viewArgument).
static MemRefType getArgumentType(tl::VarOp var) {
  RankedTensorType type = var.getType();
  if (tl::hasSizes(type))
    return MemRefType::get({}, type.getElementType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

static OpFoldResult multiply(OpBuilder &builder, Location loc, OpFoldResult a,
                             OpFoldResult b) {
  std::optional<int64_t> lhs = getConstantIntValue(a),
                         rhs = getConstantIntValue(b);
  if (lhs && rhs)
    return builder.getIndexAttr(*lhs * *rhs);
  return arith::MulIOp::create(builder, loc,
                               getValueOrCreateConstantIndexOp(builder, loc, a),
                               getValueOrCreateConstantIndexOp(builder, loc, b))
      .getResult();
}

/// `var`'s buffer with its extents: `argument` itself, or the row-major
/// view of the base pointer of a variable with sizes.
static Value viewArgument(OpBuilder &builder, Location loc, tl::VarOp var,
                          Value argument, const SizeValues &sizes) {
  RankedTensorType type = var.getType();
  if (!tl::hasSizes(type))
    return argument;
  SmallVector<OpFoldResult> extents = getMixedExtents(builder, type, sizes);
  SmallVector<OpFoldResult> strides(type.getRank());
  OpFoldResult stride = builder.getIndexAttr(1);
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    stride = multiply(builder, loc, stride, extents[dim]);
  }
  return memref::ReinterpretCastOp::create(
      builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
      argument, builder.getIndexAttr(0), extents, strides);
}

/// The leading arguments of every lowered function: the program's sizes,
/// in order of declaration, as `index` values.
static void addSizeArguments(OpBuilder &builder, tl::ProgramOp program,
                             SmallVectorImpl<Type> &types) {
  types.append(llvm::range_size(program.getSizes()), builder.getIndexType());
}

/// Names the size arguments of `func`, from argument `first` on, and maps
/// the sizes to them.
static SizeValues bindSizeArguments(OpBuilder &builder, tl::ProgramOp program,
                                    func::FuncOp func, unsigned first = 0) {
  SizeValues sizes;
  for (auto [index, size] : llvm::enumerate(program.getSizes())) {
    func.setArgAttr(first + index, tl::kSizeArgAttrName, size.getSymNameAttr());
    sizes[size.getSymName()] = func.getArgument(first + index);
  }
  return sizes;
}

/// Lowers `assign` into a function over the variables it mentions (its
/// target and what it reads), in declaration order: it reads their
/// arguments as tensors, computes the right-hand side and writes the value
/// into the target's argument. One function per statement keeps
/// bufferization's alias analysis to one statement at a time: over one
/// function holding every statement it grows superlinearly (a 1,000-statement
/// program took minutes), and so does LLVM when the statements are inlined
/// into one function.
static FailureOr<func::FuncOp>
lowerStatement(OpBuilder &builder, tl::ProgramOp program,
               const std::optional<Batch> &batch, tl::AssignOp assign,
               unsigned index, SmallVectorImpl<tl::VarOp> &parameters) {
  StringRef target = assign.getTarget();
  llvm::StringSet<> mentioned;
  mentioned.insert(target);
  bool mentionsTargetAsRead = false;
  for (StringAttr name : assign.getReadVariables()) {
    mentioned.insert(name.getValue());
    mentionsTargetAsRead |= name.getValue() == target;
  }
  SmallVector<Type> types;
  addSizeArguments(builder, program, types);
  unsigned numSizes = types.size();
  for (tl::VarOp var : program.getVars()) {
    if (!mentioned.contains(var.getSymName()))
      continue;
    parameters.push_back(var);
    types.push_back(getArgumentType(var));
  }
  Location loc = assign.getLoc();
  auto func = func::FuncOp::create(
      builder, loc, (program.getSymName() + ".s" + Twine(index)).str(),
      builder.getFunctionType(types, {}));
  // Internal to the object file, whatever lowers it (func-to-llvm reads
  // this attribute).
  func.setPrivate();
  func->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                    builder.getContext(), LLVM::Linkage::Internal));
  // Each statement is optimized and compiled on its own: inlining them all
  // into one function makes LLVM's -O3 superlinear in program size, and a
  // call per statement costs nothing next to its loop nest.
  // (func-to-llvm passes `passthrough` on to the LLVM function.)
  func->setAttr("passthrough",
                builder.getArrayAttr({builder.getStringAttr("noinline")}));
  Block *entry = func.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  SizeValues sizes = bindSizeArguments(body, program, func);

  // The store, as tensors. Only the target's argument may be written; the
  // others must keep their values.
  llvm::StringMap<Value> current;
  Value targetArgument;
  for (auto [var, argument] :
       llvm::zip(parameters, entry->getArguments().drop_front(numSizes))) {
    func.setArgAttr(argument.getArgNumber(), "tl.name", var.getSymNameAttr());
    bool isTarget = var.getSymName() == target;
    Value buffer = viewArgument(body, var.getLoc(), var, argument, sizes);
    current[var.getSymName()] = bufferization::ToTensorOp::create(
        body, var.getLoc(), tl::eraseSizeNames(var.getType()), buffer,
        /*restrict=*/true, /*writable=*/isTarget);
    if (isTarget)
      targetArgument = buffer;
  }
  StatementLowering lowering(body, current, batch, sizes);
  lowering.targetIsRead = mentionsTargetAsRead;
  bool inPlace;
  // A batched variable assigned the same value for every element (rule
  // t-batch allows it): the value once, then broadcast along the batch.
  bool broadcasts = batch && batch->variables.contains(target) &&
                    !lowering.isBatched(assign.getValue());
  Value value =
      lowering.lowerStatement(assign.getValue(), target,
                              /*mayWriteTarget=*/!broadcasts, inPlace);
  if (broadcasts) {
    Value init =
        createEmpty(body, loc, program.lookupVar(target).getType(), sizes);
    auto valueRank = cast<RankedTensorType>(value.getType()).getRank();
    int64_t batchDim = batch->last ? valueRank : 0;
    value = linalg::BroadcastOp::create(body, loc, value, init, {batchDim})
                .getResult()
                .front();
  }
  // Not `restrict`: the argument is also read through its to_tensor, and
  // bufferization must know that writing it can clobber what is read
  // (A = A ^ [1 2]).
  auto materialize = bufferization::MaterializeInDestinationOp::create(
      body, loc, TypeRange(), value, targetArgument);
  materialize.setWritable(true);
  func::ReturnOp::create(body, loc);
  if (lowering.exceededLimits)
    return failure();
  return func;
}

/// The name of the runtime function that sums a buffer over the processes
/// of a distributed program, in place (lib/Runtime/MPIRuntime.c).
static StringRef getAllreduceFunctionName(Type elementType) {
  return elementType.isF32() ? "tensorlang_allreduce_sum_f32"
                             : "tensorlang_allreduce_sum_f64";
}

/// Sums `var`'s buffer `argument` over the processes of `communicator`
/// (tl-distribute's `allreduce` statements): a call of the runtime with the
/// communicator, the buffer's address and its number of elements.
static void emitAllreduce(OpBuilder &builder, Location loc, tl::VarOp var,
                          Value argument, Value communicator,
                          const SizeValues &sizes) {
  auto module =
      argument.getParentBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Type i64 = builder.getI64Type();
  StringRef name = getAllreduceFunctionName(var.getType().getElementType());
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        builder, loc, name,
        builder.getFunctionType({builder.getI32Type(), i64, i64}, {}));
    callee.setPrivate();
  }
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, argument);
  Value count = arith::ConstantIndexOp::create(builder, loc, 1);
  for (OpFoldResult extent : getMixedExtents(builder, var.getType(), sizes))
    count = arith::MulIOp::create(
        builder, loc, count,
        getValueOrCreateConstantIndexOp(builder, loc, extent));
  func::CallOp::create(
      builder, loc, callee,
      ValueRange{communicator,
                 arith::IndexCastOp::create(builder, loc, i64, address),
                 arith::IndexCastOp::create(builder, loc, i64, count)});
}

/// A buffer for the intermediate `var`, allocated in the program's
/// function, as a statement function takes it (getArgumentType). The
/// buffer-deallocation pipeline frees it after its last use. A padded
/// variable's padding starts zero (rule d-pad-var), as the caller's does.
static Value allocateIntermediate(OpBuilder &builder, tl::VarOp var,
                                  const SizeValues &sizes) {
  Location loc = var.getLoc();
  RankedTensorType type = var.getType();
  SmallVector<OpFoldResult> extents = getMixedExtents(builder, type, sizes);
  SmallVector<Value> dynamicExtents;
  for (OpFoldResult extent : extents)
    if (auto value = dyn_cast<Value>(extent))
      dynamicExtents.push_back(value);
  auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::AllocOp::create(
      builder, loc, bufferType, dynamicExtents, builder.getI64IntegerAttr(64));
  if (type.getShape() != var.getRealShapeOrShape()) {
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getZeroAttr(type.getElementType()));
    linalg::FillOp::create(builder, loc, zero, buffer);
  }
  if (!tl::hasSizes(type))
    return buffer;
  return memref::ReinterpretCastOp::create(
      builder, loc, getArgumentType(var), buffer, builder.getIndexAttr(0),
      ArrayRef<OpFoldResult>{}, ArrayRef<OpFoldResult>{});
}

/// Replaces `program` with a function over its interface variables
/// (tl::VarOp::isInterface) that calls one function per statement, in
/// order. Intermediates are buffers of its own.
static LogicalResult lowerProgram(tl::ProgramOp program) {
  OpBuilder builder(program);
  Location loc = program.getLoc();
  // A distributed program (tl-distribute) takes the communicator first,
  // as MPI's Fortran handle (an int whatever the implementation), and its
  // function is `<name>_mpi` (the C header wraps it as `<name>(MPI_Comm,
  // ...)`).
  bool distributed = tl::TLDialect::DistributedAttrHelper(program.getContext())
                         .isAttrPresent(program);
  SmallVector<Type> argumentTypes;
  if (distributed)
    argumentTypes.push_back(builder.getI32Type());
  unsigned firstSize = argumentTypes.size();
  addSizeArguments(builder, program, argumentTypes);
  unsigned numSizes = argumentTypes.size() - firstSize;
  SmallVector<tl::VarOp> vars(program.getVars());
  SmallVector<tl::VarOp> interface;
  for (tl::VarOp var : vars) {
    if (!var.isInterface())
      continue;
    interface.push_back(var);
    argumentTypes.push_back(getArgumentType(var));
  }
  std::optional<Batch> batch;
  if (std::optional<uint64_t> extent = program.getBatch()) {
    batch.emplace();
    batch->program = program;
    batch->extent = int64_t(*extent);
    batch->last = program.getBatchLast();
    for (tl::VarOp var : vars)
      if (var.getBatched())
        batch->variables.insert(var.getSymName());
  }
  SmallVector<std::pair<func::FuncOp, SmallVector<tl::VarOp>>> statements;
  // The target of each statement whose value the processes sum
  // (tl-distribute), or null.
  SmallVector<tl::VarOp> summedTargets;
  tl::TLDialect::AllreduceAttrHelper allreduce(program.getContext());
  for (auto [index, assign] : llvm::enumerate(program.getStatements())) {
    SmallVector<tl::VarOp> parameters;
    FailureOr<func::FuncOp> statement =
        lowerStatement(builder, program, batch, assign, index, parameters);
    if (failed(statement))
      return failure();
    statements.push_back({*statement, std::move(parameters)});
    summedTargets.push_back(allreduce.isAttrPresent(assign)
                                ? program.lookupVar(assign.getTarget())
                                : tl::VarOp());
  }

  auto func =
      func::FuncOp::create(builder, loc,
                           distributed ? (program.getSymName() + "_mpi").str()
                                       : program.getSymName().str(),
                           builder.getFunctionType(argumentTypes, {}));
  if (distributed)
    func.setArgAttr(0, "tl.comm", builder.getUnitAttr());
  for (auto [index, var] : llvm::enumerate(interface)) {
    unsigned argument = firstSize + numSizes + index;
    func.setArgAttr(argument, "tl.name", var.getSymNameAttr());
    if (var.getInput())
      func.setArgAttr(argument, "tl.input", builder.getUnitAttr());
    if (var.getOutput())
      func.setArgAttr(argument, "tl.output", builder.getUnitAttr());
  }
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  SizeValues sizes = bindSizeArguments(builder, program, func, firstSize);
  DenseMap<Operation *, Value> buffers;
  for (auto [index, var] : llvm::enumerate(interface))
    buffers[var] = entry->getArgument(firstSize + numSizes + index);
  for (tl::VarOp var : vars)
    if (!var.isInterface())
      buffers[var] = allocateIntermediate(builder, var, sizes);
  for (auto [entryStatement, summed] : llvm::zip(statements, summedTargets)) {
    auto &[statement, parameters] = entryStatement;
    SmallVector<Value> arguments(
        entry->getArguments().slice(firstSize, numSizes));
    for (tl::VarOp var : parameters)
      arguments.push_back(buffers[var]);
    func::CallOp::create(builder, statement.getLoc(), statement, arguments);
    if (summed && distributed)
      emitAllreduce(builder, statement.getLoc(), summed, buffers[summed],
                    entry->getArgument(0), sizes);
  }
  func::ReturnOp::create(builder, loc);
  program.erase();
  return success();
}

namespace {
struct ConvertTLToLinalgPass
    : public tensorlang::impl::ConvertTLToLinalgBase<ConvertTLToLinalgPass> {
  void runOnOperation() override {
    SmallVector<tl::ProgramOp> programs(
        getOperation().getOps<tl::ProgramOp>());
    for (tl::ProgramOp program : programs) {
      // Only a size bound to 0 makes an empty variable, and compiled code
      // takes such a size at run time instead (the tiles divide extents).
      for (tl::VarOp var : program.getVars())
        if (llvm::is_contained(var.getType().getShape(), 0)) {
          var.emitError("variable '")
              << var.getSymName()
              << "' has an extent of 0: compiled code takes a size that "
                 "is 0 at run time; leave it unbound";
          return signalPassFailure();
        }
      if (failed(lowerProgram(program)))
        return signalPassFailure();
    }
  }
};
} // namespace
