//===- ContractionPlan.cpp - Where the loops of a contraction go ----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The cost model of tl-tile-contractions. Two levels of tiles (Goto's GEMM):
// a cache tile whose operand blocks stay in L1/L2 while it runs, and inside
// it a register tile of the result, rows x columns, that accumulates in
// vector registers over the whole reduction.
//
// The "columns" are the result's last dimension, which must also be the
// last (unit-stride) dimension of every operand that uses it (small or much
// reused operands are transposed to make it so); the "rows" a result
// dimension that only the other operand uses (else the result's
// second-to-last); the "depth" a long reduction (depthFor). Every other result
// dimension is a loop of single steps around the tiles. Tile sizes divide
// the extents where a divisor is near the preferred size; elsewhere (a
// prime) they do not, and the rewrite peels the last, partial tile off
// each loop into a static tile of its own (tileSize). Only columns whose
// rest is no whole vector are split into two contractions first, each
// part planned again.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Transforms/ContractionPlan.h"

#include "ContractionUtils.h"
#include "Divisors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <numeric>

using namespace mlir;
using namespace tensorlang;

/// The largest power of two at most `value` (1 for anything below 2).
static int64_t powerOfTwoAtMost(int64_t value) {
  return value < 2 ? 1 : int64_t(1) << llvm::Log2_64(uint64_t(value));
}

/// The lanes, registers and register tile of the `cpu` planner.
static TileContractionsConfig
deriveRegisterTile(const TargetDescription &target, int64_t elementBytes) {
  elementBytes = std::max<int64_t>(1, elementBytes);
  TileContractionsConfig config;
  config.vectorLanes = target.lanes(elementBytes);
  config.vectorRegisters = target.vectorRegisters;
  // Two vectors per row: each broadcast of the rows' operand feeds two
  // FMAs. Rows: what the registers hold beside two vectors of the columns'
  // operand and two spare (addresses, a broadcast in flight). Past 8 rows
  // the loads per FMA barely fall (rows x 2 / (rows + 2): 1.6 at 8, 1.75 at
  // 14), while fewer extents divide.
  config.registerColumns = 2 * config.vectorLanes;
  config.registerRows = std::clamp<int64_t>((target.vectorRegisters - 4) / 2, 1,
                                            config.maxRegisterRows);
  return config;
}

/// The cache tiles and byte thresholds of `config` for its register tile on
/// `target`.
static void deriveCacheTiles(const TargetDescription &target,
                             int64_t elementBytes,
                             TileContractionsConfig &config) {
  elementBytes = std::max<int64_t>(1, elementBytes);
  // The rows' sliver over a depth block is read again by every register
  // tile of columns in the cache tile: it takes at most half of L1. The
  // columns' sliver, read once per register tile from panels in L2,
  // streams through; asking it to fit L1 as well (BLIS's rule) halves the
  // depth, and each depth block costs every register tile a load and a
  // store of its accumulators. Longer blocks than 256 gain nothing
  // (bench/README.md, "The planner's thresholds").
  config.cacheDepth = std::clamp<int64_t>(
      powerOfTwoAtMost(target.l1CacheBytes / 2 /
                       (config.registerRows * elementBytes)),
      32, 256);
  int64_t depthBytes = config.cacheDepth * elementBytes;
  // The block of the columns' operand (depth x cache columns) stays in
  // half of L2 while the row blocks go past it; the rows' block takes an
  // eighth.
  config.cacheColumns =
      std::max(config.registerColumns,
               powerOfTwoAtMost(target.l2CacheBytes / 2 / depthBytes));
  config.cacheRows =
      std::max(config.registerRows,
               powerOfTwoAtMost(target.l2CacheBytes / 8 / depthBytes));
  config.wholeDepthPanelBytes = target.l2CacheBytes / 4;
  config.maxShortSize = 2 * config.cacheDepth;
  config.maxTransposedElements = target.l2CacheBytes / 4 / elementBytes;
  config.cacheLineBytes = target.cacheLineBytes;
  // Packed and panelled blocks: half of L2, as the columns' block. The
  // description has no associativity: 16 ways, the common one of server
  // L2s, give the period of its sets.
  config.l2BlockBytes = target.l2CacheBytes / 2;
  config.l2SetPeriodBytes = std::max<int64_t>(1, target.l2CacheBytes / 16);
  // With an L3 (BLIS's blocks): the columns' block, which every row block
  // reads again, takes half of one core's share of L3, and the rows' block
  // beside such a block half of L2 (cacheRowsFor). The rows' operand is then
  // copied into panels of rows (the column tiles of a block are many) and the
  // columns' into panels (the rows of a block are many): every register tile
  // streams both from contiguous panels, and the rows' operand is read from
  // memory once per column block, of thousands of columns rather than a
  // hundred. That pays only where the L2 rule's column block is too narrow
  // for the rows' panels (fewer register tiles of columns than
  // minRowPanelReuse: 512 KiB and 1 MiB L2s): where it is wide enough (a
  // 2 MiB L2), every register tile would read its columns' sliver from L3
  // rather than L2, and it measured slower (bench/README.md, "L3 blocks
  // on a 2 MiB L2").
  if (target.l3CacheBytes > 0 &&
      config.cacheColumns < config.minRowPanelReuse * config.registerColumns) {
    config.l3BlockBytes = target.l3CacheBytes / 2;
    config.cacheColumns =
        std::max(config.cacheColumns,
                 powerOfTwoAtMost(config.l3BlockBytes / depthBytes));
    config.l3CacheRows =
        std::max(config.cacheRows,
                 powerOfTwoAtMost(target.l2CacheBytes / 2 / depthBytes));
  }
}

TileContractionsConfig
tensorlang::deriveTileContractionsConfig(const TargetDescription &target,
                                         int64_t elementBytes) {
  TileContractionsConfig config = deriveRegisterTile(target, elementBytes);
  deriveCacheTiles(target, elementBytes, config);
  return config;
}

bool tensorlang::isMultiplyAccumulate(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || &body.front() != mul.getOperation() ||
      body.getOperations().size() != 3)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

std::optional<SmallVector<int64_t>>
tensorlang::staticLoopExtents(linalg::GenericOp op) {
  return ContractionShape::get(op).getStaticLoopExtents();
}

int64_t tensorlang::productOfExtents(linalg::GenericOp op,
                                     ArrayRef<int64_t> extents,
                                     bool reductionsOnly) {
  return ContractionShape::get(op).productOfExtents(extents, reductionsOnly);
}

std::optional<SmallVector<int64_t>>
tensorlang::planningLoopExtents(linalg::GenericOp op) {
  std::optional<ContractionShape> planned =
      ContractionShape::get(op).withPlanningExtents();
  if (!planned)
    return std::nullopt;
  return planned->getStaticLoopExtents();
}

bool tensorlang::sumsManyTermsOverSeveralReductions(
    const ContractionShape &shape, int64_t manyTerms) {
  std::optional<ContractionShape> planned = shape.withPlanningExtents();
  std::optional<SmallVector<int64_t>> extents =
      planned ? planned->getStaticLoopExtents() : std::nullopt;
  return extents && shape.getNumReductionLoops() >= 2 &&
         planned->productOfExtents(*extents, /*reductionsOnly=*/true) >=
             manyTerms;
}

bool tensorlang::sumsManyTermsOverSeveralReductions(linalg::GenericOp op,
                                                    int64_t manyTerms) {
  return sumsManyTermsOverSeveralReductions(ContractionShape::get(op),
                                            manyTerms);
}

int64_t tensorlang::usesPerElement(const ContractionShape &planned,
                                   int64_t iterations, unsigned input) {
  return iterations / std::max<int64_t>(1, planned.getInputElements(input));
}

/// Whether `dims` appear in `map` one after the other, in this order.
static bool isRunOf(AffineMap map, ArrayRef<unsigned> dims) {
  std::optional<unsigned> first =
      map.getResultPosition(getAffineDimExpr(dims.front(), map.getContext()));
  if (!first || *first + dims.size() > map.getNumResults())
    return false;
  return llvm::all_of(llvm::enumerate(dims), [&](auto dim) {
    return map.getDimPosition(*first + dim.index()) == dim.value();
  });
}

/// The runs of result dimensions (two or more) that one input reads and
/// the other does not, and that follow each other in that input as in the
/// result: each is one dimension of a matrix product's rows or columns,
/// and collapses into one loop.
static SmallVector<ReassociationIndices>
collapsibleFreeRuns(ArrayRef<AffineMap> maps) {
  AffineMap result = maps.back();
  auto soleReader = [&](unsigned dim) -> std::optional<AffineMap> {
    std::optional<AffineMap> reader;
    for (AffineMap map : maps.drop_back()) {
      if (!map.isFunctionOfDim(dim))
        continue;
      if (reader)
        return std::nullopt;
      reader = map;
    }
    return reader;
  };
  SmallVector<ReassociationIndices> runs;
  ReassociationIndices run;
  std::optional<AffineMap> runReader;
  auto close = [&] {
    if (run.size() > 1)
      runs.push_back(run);
    run.clear();
  };
  for (unsigned i = 0; i < result.getNumResults(); ++i) {
    unsigned dim = result.getDimPosition(i);
    std::optional<AffineMap> reader = soleReader(dim);
    bool extends = !run.empty() && reader && runReader &&
                   *reader == *runReader &&
                   isRunOf(*reader, {unsigned(run.back()), dim});
    if (!extends)
      close();
    if (reader) {
      run.push_back(dim);
      runReader = reader;
    }
  }
  close();
  return runs;
}

// The operands are copied so that the reductions are adjacent, in loop
// order (the columns, where an operand has them last, stay last). The
// copies are read once; the contraction then tiles like a matrix product,
// with one depth of cache blocks, instead of running every register tile
// through blocks of the second reduction (TCCG ccsd6 at 72: two reductions
// of 72, 5184 terms per element; Eigen does the same shuffle to a GEMM).
FailureOr<ReductionCollapse>
tensorlang::planReductionCollapse(const ContractionShape &shape,
                                  const TileContractionsConfig &config,
                                  std::string *whyNot) {
  auto refuse = [&](const Twine &reason) {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  if (!shape.multiplyAccumulate)
    return refuse("not a multiply-accumulate");
  if (!sumsManyTermsOverSeveralReductions(shape, config.manyUses))
    return refuse("too few terms per element over several reductions");
  // (Planned and static: sumsManyTermsOverSeveralReductions planned it.)
  ContractionShape planned = *shape.withPlanningExtents();
  SmallVector<int64_t> extents = *planned.getStaticLoopExtents();
  SmallVector<unsigned> reductions = shape.getReductionDims();
  bool consecutive = true;
  for (size_t i = 1; i < reductions.size(); ++i)
    consecutive &= reductions[i] == reductions[i - 1] + 1;
  if (!consecutive)
    return refuse("reductions not consecutive");
  AffineMap result = shape.getResultMap();
  if (result.getNumResults() == 0)
    return refuse("the result is a scalar");
  unsigned columnDim = result.getDimPosition(result.getNumResults() - 1);
  // A copy pays only where each element is used many times (not in the
  // trace of a product: once).
  int64_t iterations =
      planned.productOfExtents(extents, /*reductionsOnly=*/false);
  for (unsigned input = 0; input < shape.getNumInputs(); ++input)
    if (usesPerElement(planned, iterations, input) < config.manyUses)
      return refuse("an operand is used too little");
  // Every input reads all the reductions (or none of them).
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    unsigned count = llvm::count_if(
        reductions, [&](unsigned dim) { return map.isFunctionOfDim(dim); });
    if (count != 0 && count != reductions.size())
      return refuse("an input reads only some reductions");
  }

  ReductionCollapse collapse;
  collapse.maps.assign(shape.indexingMaps.begin(), shape.indexingMaps.end());
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = collapse.maps[input];
    if (!map.isFunctionOfDim(reductions.front()))
      continue;
    unsigned rank = map.getNumResults();
    auto positionOf = [&](unsigned dim) {
      unsigned position = 0;
      while (map.getDimPosition(position) != dim)
        ++position;
      return position;
    };
    // The operand's dimensions other than the reductions, in its order.
    SmallVector<unsigned> others;
    for (unsigned i = 0; i < rank; ++i)
      if (!llvm::is_contained(reductions, map.getDimPosition(i)))
        others.push_back(map.getDimPosition(i));
    // Result dimension i of the copy is operand dimension perm[i]: the
    // other dimensions in their order, the reductions, then the columns
    // where the operand has them last.
    auto permutation = [&](bool columnsLast) {
      SmallVector<int64_t> perm;
      for (unsigned dim : others)
        if (!columnsLast || dim != columnDim)
          perm.push_back(positionOf(dim));
      for (unsigned dim : reductions)
        perm.push_back(positionOf(dim));
      if (columnsLast)
        perm.push_back(positionOf(columnDim));
      return perm;
    };
    auto isIdentity = [&](ArrayRef<int64_t> perm) {
      return llvm::equal(perm, llvm::seq<int64_t>(0, rank));
    };
    bool columnsLast = map.getDimPosition(rank - 1) == columnDim;
    SmallVector<int64_t> perm;
    if (others.size() > 1 && others.back() == columnDim &&
        isRunOf(result, others)) {
      // Where its other dimensions end the result, in the result's order,
      // the reductions go first: those dimensions then collapse into one
      // long run of columns, as in a matrix product's [k][n] (TCCG ccsd6
      // at 71: B[e][c][d][f] to [e][f][c][d], 5041 columns rather than
      // 71, whose last tile of 7 is half idle). Also from an operand that
      // the reductions alone would not copy (B[c][f][e][d]): the copy reads
      // each element once, the product uses each many times.
      for (unsigned dim : reductions)
        perm.push_back(positionOf(dim));
      for (unsigned dim : others)
        perm.push_back(positionOf(dim));
    } else {
      perm = permutation(columnsLast);
      // An operand that is copied anyway gets its columns last in the same
      // copy, instead of in a second one for the register tiles
      // (transposeForColumns; TCCG ab-cad-dcb: B[b][c][d], 230 MB, copied
      // once to [d][c][b] rather than to [b][d][c] and then to [d][c][b]).
      if (!isIdentity(perm) && !columnsLast && map.isFunctionOfDim(columnDim))
        perm = permutation(/*columnsLast=*/true);
    }
    // An operand in the layout chosen already is not copied.
    if (isIdentity(perm))
      continue;
    collapse.maps[input] = permutedOperandMap(map, perm);
    collapse.copies.push_back({input, std::move(perm)});
  }
  collapse.groups.push_back(
      ReassociationIndices(reductions.begin(), reductions.end()));
  llvm::append_range(collapse.groups, collapsibleFreeRuns(collapse.maps));
  if (!linalg::areDimSequencesPreserved(collapse.maps, collapse.groups))
    return refuse("the loops to collapse are not adjacent in every operand");
  return collapse;
}

/// The loop that each of `numLoops` loops becomes once `collapse` merges
/// its groups, and in `leads` whether it is the first of its group: the
/// loops of a group after its first disappear, and the others keep their
/// order (linalg::collapseOpIterationDims numbers them so).
static SmallVector<unsigned> collapsedLoopOf(unsigned numLoops,
                                             const ReductionCollapse &collapse,
                                             SmallVectorImpl<bool> &leads) {
  leads.assign(numLoops, true);
  for (const ReassociationIndices &group : collapse.groups)
    for (int64_t dim : llvm::drop_begin(group))
      leads[dim] = false;
  SmallVector<unsigned> collapsedDim(numLoops, 0);
  unsigned next = 0;
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (leads[dim])
      collapsedDim[dim] = next++;
  for (const ReassociationIndices &group : collapse.groups)
    for (int64_t dim : llvm::drop_begin(group))
      collapsedDim[dim] = collapsedDim[group.front()];
  return collapsedDim;
}

ContractionShape tensorlang::collapsedShape(const ContractionShape &shape,
                                            const ReductionCollapse &collapse) {
  // Loop d becomes loop collapsedDim[d].
  unsigned numLoops = shape.getNumLoops();
  SmallVector<bool> leads;
  SmallVector<unsigned> collapsedDim =
      collapsedLoopOf(numLoops, collapse, leads);
  ContractionShape collapsed = shape;
  collapsed.iteratorTypes.clear();
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (leads[dim])
      collapsed.iteratorTypes.push_back(shape.iteratorTypes[dim]);
  MLIRContext *context = shape.getResultMap().getContext();
  for (auto [index, map] : llvm::enumerate(collapse.maps)) {
    SmallVector<int64_t> permutedShape;
    ArrayRef<int64_t> operandShape = shape.operandShapes[index];
    AffineMap original = shape.indexingMaps[index];
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      unsigned dim = map.getDimPosition(position);
      permutedShape.push_back(operandShape[*original.getResultPosition(
          getAffineDimExpr(dim, context))]);
    }
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> operandExtents;
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      unsigned dim = map.getDimPosition(position);
      int64_t extent = permutedShape[position];
      if (!leads[dim]) {
        int64_t &last = operandExtents.back();
        last = ShapedType::isDynamic(last) || ShapedType::isDynamic(extent)
                   ? ShapedType::kDynamic
                   : last * extent;
        continue;
      }
      results.push_back(getAffineDimExpr(collapsedDim[dim], context));
      operandExtents.push_back(extent);
    }
    collapsed.indexingMaps[index] =
        AffineMap::get(collapsed.iteratorTypes.size(), 0, results, context);
    collapsed.operandShapes[index] = std::move(operandExtents);
  }
  return collapsed;
}

/// The largest multiple of `step` that divides `extent` and is at most
/// `preferred`; `step` where none does.
static int64_t largestMultipleDividing(int64_t extent, int64_t step,
                                       int64_t preferred) {
  int64_t best = step;
  for (int64_t size = step; size <= std::min(extent, preferred); size += step)
    if (extent % size == 0)
      best = size;
  return best;
}

/// The register tile's width along the columns: the preferred width; or,
/// where that is two vector registers of `lanes`, three that divide the
/// extent; or the widest power of two down to a quarter of the preferred
/// width that divides it; all of an extent shorter than half of it (one
/// vector, p = 5 or 7); 0 where the extent has to be split first.
static int64_t columnWidth(int64_t columns, int64_t preferred,
                           int64_t lanes) {
  if (columns % preferred == 0)
    return preferred;
  // 72 = 3 x 24 rather than 64 + 8 (a second pass over the operand without
  // the columns, and a part of one vector per row: as many broadcasts as
  // FMAs); 24 = 24 rather than 3 x 8. Rows of three registers still leave
  // room for the broadcasts among AVX-512's 32 at three quarters of
  // register-rows (6; see registerRowsFor); tl-lower-contraction-vectors
  // unrolls them to one register each.
  if (lanes > 1 && preferred == 2 * lanes && columns % (3 * lanes) == 0)
    return 3 * lanes;
  // Above the preferred width, the bulk gets the preferred width (split
  // off first: 72 = 64 + 8 rather than nine tiles of 8, which halves the
  // FMAs per broadcast).
  if (columns > preferred)
    return 0;
  for (int64_t width = preferred / 2;
       width >= std::max<int64_t>(1, preferred / 4); width /= 2)
    if (columns % width == 0 && (width & (width - 1)) == 0)
      return width;
  if (columns <= std::max<int64_t>(1, preferred / 2))
    return columns;
  return 0;
}

/// Result dimensions read by exactly one input, an input without the
/// columns: each register tile is then an outer product of a column of
/// that input (its rows) with a row of the other (its columns).
static llvm::SmallDenseSet<unsigned>
rowCandidates(const ContractionShape &shape, unsigned columnDim) {
  auto readsColumns = [&](unsigned input) {
    return shape.getInputMap(input).isFunctionOfDim(columnDim);
  };
  llvm::SmallDenseSet<unsigned> candidates;
  // m: the dimensions only the first input reads, n: only the second.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(shape.indexingMaps);
  if (succeeded(dims)) {
    if (!readsColumns(0))
      candidates.insert(dims->m.begin(), dims->m.end());
    if (!readsColumns(1))
      candidates.insert(dims->n.begin(), dims->n.end());
    return candidates;
  }
  // inferContractionDims wants m, n and k all present; the same rule by
  // hand where one is missing (a reduction only one input reads).
  AffineMap result = shape.getResultMap();
  for (AffineExpr expr : result.getResults()) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    SmallVector<unsigned> users;
    for (unsigned input = 0; input < 2; ++input)
      if (shape.getInputMap(input).isFunctionOfDim(dim))
        users.push_back(input);
    if (users.size() == 1 && !readsColumns(users.front()))
      candidates.insert(dim);
  }
  return candidates;
}

/// Vector registers per row of a register tile `registerColumns` wide
/// (lanes unknown: `config.registerColumns` is two).
static int64_t registerVectors(int64_t registerColumns,
                               const TileContractionsConfig &config) {
  int64_t lanes = config.vectorLanes > 0
                      ? config.vectorLanes
                      : std::max<int64_t>(1, config.registerColumns / 2);
  return std::max<int64_t>(1, llvm::divideCeil(registerColumns, lanes));
}

/// The most rows of a register tile `registerColumns` wide whose
/// accumulators fit the vector registers beside one vector of the columns'
/// operand per register of a row and one broadcast.
static int64_t rowsInRegisters(int64_t registerColumns,
                               const TileContractionsConfig &config) {
  int64_t vectors = registerVectors(registerColumns, config);
  return std::max<int64_t>(1, (config.vectorRegisters - vectors - 1) / vectors);
}

/// The most rows of a register tile `registerColumns` wide: rows of three
/// vectors leave room for the broadcasts at three quarters of
/// `registerRows` (6 of AVX-512's 32 registers, 4 of AVX2's 16).
static int64_t maxRegisterRows(int64_t registerColumns,
                               const TileContractionsConfig &config) {
  int64_t rows = registerColumns > config.registerColumns
                     ? std::max<int64_t>(1, config.registerRows * 3 / 4)
                     : config.registerRows;
  return std::min(rows, rowsInRegisters(registerColumns, config));
}

/// Register rows: a divisor of the extent, or all of a short odd extent
/// while its accumulators fit the registers (p = 11 rows of two vectors
/// fit AVX-512's 32; rows of three vectors, or AVX2's 16, do not).
static int64_t registerRowsFor(int64_t rows, int64_t registerColumns,
                               const TileContractionsConfig &config) {
  int64_t maxRows = maxRegisterRows(registerColumns, config);
  bool threeVectors = registerColumns > config.registerColumns;
  int64_t allRowsUpTo =
      threeVectors
          ? maxRows
          : std::min(maxRows * 3 / 2, rowsInRegisters(registerColumns, config));
  return rows <= allRowsUpTo ? rows : largestDivisorAtMost(rows, maxRows);
}

/// Elements between consecutive steps of `dim` in the input `input`
/// (saturated), or none where the input does not read it.
static std::optional<int64_t> strideOf(const ContractionShape &shape,
                                       ArrayRef<int64_t> extents,
                                       unsigned input, unsigned dim) {
  AffineMap map = shape.getInputMap(input);
  std::optional<unsigned> position =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  if (!position)
    return std::nullopt;
  int64_t stride = 1;
  for (unsigned later = *position + 1; later < map.getNumResults(); ++later)
    if (llvm::MulOverflow(stride, extents[map.getDimPosition(later)], stride))
      return std::numeric_limits<int64_t>::max();
  return stride;
}

/// The depth: of the reductions at least half as long as the longest, the
/// one whose steps are closest together in the rows' operand (the first
/// input with the rows and not the columns, which each register tile reads
/// in place, an element per row and step, unless row panels copy it); the
/// longest of those, the first of equals. Steps far apart take a line,
/// and a page, per step: TCCG abc-adec-ebd sums d and e, 72 each, over
/// A[c][e][d][a], whose e steps are 41 KB apart and d steps 576 B. A
/// reduction the rows' operand does not read counts as the farthest. A
/// much shorter reduction would cost each register tile a load and a store
/// of its accumulators every few steps.
static unsigned depthFor(const ContractionShape &shape,
                         ArrayRef<int64_t> extents,
                         const ContractionTilingPlan &plan) {
  SmallVector<unsigned> reductions = shape.getReductionDims();
  int64_t longest = 0;
  for (unsigned dim : reductions)
    longest = std::max(longest, extents[dim]);
  std::optional<unsigned> rowsInput;
  for (unsigned input = 0;
       input < shape.getNumInputs() && plan.hasRows && !rowsInput; ++input)
    if (shape.getInputMap(input).isFunctionOfDim(plan.rowDim) &&
        !shape.getInputMap(input).isFunctionOfDim(plan.columnDim))
      rowsInput = input;
  auto stride = [&](unsigned dim) {
    std::optional<int64_t> inRows =
        rowsInput ? strideOf(shape, extents, *rowsInput, dim) : std::nullopt;
    return inRows.value_or(std::numeric_limits<int64_t>::max());
  };
  auto isLongEnough = [&](unsigned dim) { return 2 * extents[dim] >= longest; };
  unsigned depth = reductions.front();
  for (unsigned dim : reductions) {
    if (!isLongEnough(dim))
      continue;
    if (!isLongEnough(depth) || stride(dim) < stride(depth) ||
        (stride(dim) == stride(depth) && extents[dim] > extents[depth]))
      depth = dim;
  }
  return depth;
}

/// Whether the loops of cache tiles start with a dimension other than the
/// columns, rows and depth (a batch, another reduction): threads share that
/// one rather than the column blocks.
static bool hasBatchDims(const ContractionShape &shape,
                         const ContractionTilingPlan &plan) {
  for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim)
    if (dim != plan.columnDim && dim != plan.depthDim &&
        !(plan.hasRows && dim == plan.rowDim))
      return true;
  return false;
}

/// Whether a result dimension other than the rows and the columns (a
/// batch) stays whole at the cache level, so that the register tiles of
/// each block of rows run through all of its steps. Blocks of rows then
/// keep nothing in cache for one another: with the depth whole, each reads
/// the whole operand without the rows again.
static bool iteratesBatchesInsideRowBlocks(const ContractionShape &shape,
                                           ArrayRef<int64_t> extents,
                                           const ContractionTilingPlan &plan) {
  for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim)
    if (dim != plan.columnDim && dim != plan.rowDim &&
        !shape.isReduction(dim) && plan.cacheTiles[dim] == 0 &&
        extents[dim] > 1)
      return true;
  return false;
}

/// Whether the depth is blocked for the caches: its panel of the columns'
/// operand (depth x columns) does not fit `wholeDepthPanelBytes`.
static bool isDepthBlocked(const ContractionShape &shape,
                           ArrayRef<int64_t> extents,
                           const ContractionTilingPlan &plan,
                           const TileContractionsConfig &config) {
  return extents[plan.depthDim] * extents[plan.columnDim] * shape.elementBytes >
         config.wholeDepthPanelBytes;
}

/// The fewest register rows worth a tile of their own: fewer
/// accumulators (rows x vectors) than the FMAs in flight leave the FMA
/// units waiting; above that a divisor does as well as the most rows with
/// a rest (15 rows: 5 + 5 + 5 rather than 8 + 7). Where the rows are many, the
/// rest is a small part of them however many it has, and every tile of the bulk
/// is as tall as it can be (5135 = 5 x 13 x 79 rows: tiles of 8 and a rest of
/// 7, rather than tiles of 5).
static int64_t fewestRegisterRows(int64_t rows, int64_t registerColumns,
                                  const TileContractionsConfig &config) {
  int64_t maxRows = maxRegisterRows(registerColumns, config);
  if (rows >= config.manyRowTiles * maxRows)
    return maxRows;
  return std::min(
      maxRows,
      std::max<int64_t>(
          2,
          config.fmasInFlight / registerVectors(registerColumns, config) + 1));
}

/// The extent of loop `dim` in one cache tile of `plan`: its cache tile,
/// or the whole extent where the plan leaves it untiled (0).
static int64_t cacheTileExtent(const ContractionTilingPlan &plan,
                               ArrayRef<int64_t> extents, unsigned dim) {
  return plan.cacheTiles[dim] ? plan.cacheTiles[dim] : extents[dim];
}

/// A tile of `extent` of at most `preferred` (a multiple of `step`): all
/// of an extent no longer; else the largest multiple of `step` that
/// divides it, where that is at least half of `preferred` (a peeled rest
/// costs more than a somewhat shorter divisor); else the multiple of
/// `step` that
/// cuts the extent into equal blocks of at most `preferred` but the last,
/// shorter one, which peelPartialTiles peels off into a tile of its own
/// inside the same loops (311 depth steps in blocks of up to 256: 156 and
/// 155).
static int64_t tileSize(int64_t extent, int64_t step, int64_t preferred) {
  step = std::max<int64_t>(1, step);
  preferred = std::max(step, preferred / step * step);
  if (extent <= preferred)
    return extent;
  int64_t dividing = largestMultipleDividing(extent, step, preferred);
  if (extent % dividing == 0 && 2 * dividing >= preferred)
    return dividing;
  int64_t blocks = llvm::divideCeil(extent, preferred);
  return std::min(
      preferred,
      int64_t(llvm::alignTo(llvm::divideCeil(extent, blocks), uint64_t(step))));
}

bool tensorlang::rowsConflictInCaches(int64_t strideBytes,
                                      const TileContractionsConfig &config) {
  return strideBytes > 0 && config.l2SetPeriodBytes > 0 &&
         std::gcd(strideBytes, config.l2SetPeriodBytes) >=
             config.minSetSpreadBytes;
}

/// The side of the squares in which a packed block is copied: a vector's
/// lanes (half the register tile's columns where the lanes are unknown).
static int64_t packingLanes(const TileContractionsConfig &config) {
  return std::max<int64_t>(1, config.vectorLanes > 0
                                  ? config.vectorLanes
                                  : config.registerColumns / 2);
}

/// The cache tiles of a packed input's block (plan.packedInput): one step
/// of every batch dimension but its last (packedDim), and as many of that
/// one (a multiple of the lanes) and of the columns (of the register
/// tile's width) as keep the block within half of L2, the longest runs of
/// its last dimension first. Each cache tile copies the block with the
/// columns last and its register tiles read it from L2; the copy reads
/// each row of the input a run of its last dimension at a time, several
/// lines, which prefetchers follow, rather than one line of each row.
static void planPackedBlock(const ContractionShape &shape,
                            ArrayRef<bool> sizedLoops,
                            ArrayRef<int64_t> extents, int64_t registerColumns,
                            const TileContractionsConfig &config,
                            ContractionTilingPlan &plan) {
  unsigned numLoops = shape.getNumLoops();
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (!shape.isReduction(dim) && dim != plan.columnDim &&
        !(plan.hasRows && dim == plan.rowDim) && dim != plan.packedDim)
      plan.cacheTiles[dim] = extents[dim] == 1 ? 0 : 1;
  AffineMap map = shape.getInputMap(plan.packedInput);
  // Bytes of the block per step of the packed dimension and per column.
  int64_t unitBytes = shape.elementBytes;
  for (AffineExpr expr : map.getResults()) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    if (dim != plan.packedDim && dim != plan.columnDim)
      unitBytes *= cacheTileExtent(plan, extents, dim);
  }
  int64_t budget = config.l2BlockBytes;
  int64_t lanes = packingLanes(config);
  int64_t packed = extents[plan.packedDim];
  int64_t columns = extents[plan.columnDim];
  int64_t packedTile = std::min(packed, lanes);
  int64_t columnTile = registerColumns;
  for (int64_t tile = packed; tile >= lanes; --tile) {
    if (packed % tile != 0 || tile % lanes != 0)
      continue;
    int64_t widest = budget / std::max<int64_t>(1, tile * unitBytes);
    if (widest < registerColumns)
      continue;
    packedTile = tile;
    columnTile = tileSize(columns, registerColumns,
                          std::min(widest, config.cacheColumns));
    break;
  }
  // Sized columns planned as short (each size at most maxShortSize at run
  // time) make a block up to (512 / 32)^k times the planned one at run
  // time, for k sizes in it: a block of one register tile of columns is
  // the smallest, and costs no copy more (each element is packed once,
  // whatever the blocks). The fixed plans of TCCG abcd-dbea-ec take as few
  // at its extents (24 at 72, 16 at 71), where whole columns made the
  // sized program 0.77 of the fixed one's speed.
  bool shortSizedColumns =
      sizedLoops[plan.columnDim] &&
      shape.planningExtentOfSize <= kShortPlanningExtentOfSize;
  if (shortSizedColumns)
    columnTile = std::min(columnTile, registerColumns);
  plan.cacheTiles[plan.packedDim] = packedTile == packed ? 0 : packedTile;
  plan.cacheTiles[plan.columnDim] =
      columnTile == columns && !shortSizedColumns ? 0 : columnTile;
}

/// The input whose cache-tile blocks are copied contiguous first
/// (ContractionTilingPlan::copiedBlockInput), or -1. A matrix of 1024
/// doubles per row: a 256 x 256 block of it, rows 8 KiB apart, uses an
/// eighth of L2's sets and is read from memory again for every row block.
/// A block of fewer than 64 depth steps fits the caches whatever its sets.
static int copiedBlockInput(const ContractionShape &shape,
                            ArrayRef<int64_t> extents,
                            const ContractionTilingPlan &plan,
                            const TileContractionsConfig &config) {
  int64_t depth = cacheTileExtent(plan, extents, plan.depthDim);
  // The columns' operand has them last (transposed so if need be): its
  // rows are the whole columns extent apart.
  if (depth < config.minDepthStepsToCopyBlock ||
      !rowsConflictInCaches(extents[plan.columnDim] * shape.elementBytes,
                            config))
    return -1;
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (map.getNumResults() >= 2 && map.isFunctionOfDim(plan.columnDim) &&
        map.isFunctionOfDim(plan.depthDim))
      return input;
  }
  return -1;
}

/// The input whose cache-tile blocks are copied into panels
/// (ContractionTilingPlan::panelInput), or -1: the columns' operand (which
/// transposeForColumns gives the columns last) with the depth among its
/// dimensions and more columns than one panel holds, where
/// - each of its elements serves enough rows (`minPanelReuse`: the rows
///   of the cache tile and its other dimensions that the operand lacks;
///   the copy leaves the row blocks' loops) that copying it costs little
///   beside the FMAs (two memory operations per element against at least
///   64 / lanes FMAs);
/// - and the copy, a pass through memory where the block does not fit
///   half of L2, pays: the block fits, or the tiles read all of it
///   several times over (`minPanelPasses`: once per row block, and per
///   step of a dimension the operand lacks outside one it has). An operand
///   read once is slower copied than read in place.
static int panelInput(const ContractionShape &shape, ArrayRef<int64_t> extents,
                      const ContractionTilingPlan &plan,
                      const TileContractionsConfig &config) {
  // Columns that one panel holds are contiguous rows already.
  if (extents[plan.columnDim] <= plan.registerTiles[plan.columnDim])
    return -1;
  auto tileOf = [&](unsigned dim) {
    bool wholeExtent =
        (plan.hasRows && dim == plan.rowDim) || plan.cacheTiles[dim] == 0;
    return wholeExtent ? extents[dim] : plan.cacheTiles[dim];
  };
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (map.getNumResults() < 2 || !map.isFunctionOfDim(plan.depthDim) ||
        !map.isFunctionOfDim(plan.columnDim))
      continue;
    int64_t reuse = 1, blockBytes = shape.elementBytes;
    for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim) {
      if (map.isFunctionOfDim(dim))
        blockBytes *= cacheTileExtent(plan, extents, dim);
      else if (!shape.isReduction(dim))
        reuse *= tileOf(dim);
    }
    // Each row block reads all of the block (the copy leaves their loop),
    // and so does each step of the register tiles' loops over the
    // dimensions the operand lacks, outside its last other dimension.
    int64_t rowBlocks = plan.hasRows && plan.cacheTiles[plan.rowDim]
                            ? llvm::divideCeil(extents[plan.rowDim],
                                               plan.cacheTiles[plan.rowDim])
                            : 1;
    int64_t passes = 1, lacking = rowBlocks;
    for (int64_t dim : plan.registerOrder) {
      if (shape.isReduction(dim) || dim == int64_t(plan.columnDim) ||
          (plan.hasRows && dim == int64_t(plan.rowDim)))
        continue;
      if (map.isFunctionOfDim(dim))
        passes = lacking;
      else
        lacking *= tileOf(dim);
    }
    bool inCache =
        blockBytes <= std::max(config.l2BlockBytes, config.l3BlockBytes);
    if (reuse >= config.minPanelReuse &&
        (inCache || passes >= config.minPanelPasses))
      return int(input);
    return -1;
  }
  return -1;
}

/// The rows' operand of `plan`: the first input with the rows and the
/// depth but not the columns, if any.
static std::optional<unsigned> rowsOperand(const ContractionShape &shape,
                                           const ContractionTilingPlan &plan) {
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (map.isFunctionOfDim(plan.rowDim) &&
        map.isFunctionOfDim(plan.depthDim) &&
        !map.isFunctionOfDim(plan.columnDim))
      return input;
  }
  return std::nullopt;
}

/// The input whose cache-tile blocks are copied into panels of rows
/// (ContractionTilingPlan::rowPanelInput), or -1: the rows' operand (the
/// input with the rows and the depth but not the columns) where
/// - its rows are at least a page apart (`minRowStrideBytes`): rows
///   closer together share lines and pages whatever the layout, and rows
///   that are its last dimension are one run per depth step already;
/// - and each of its register tiles of rows serves `minRowPanelReuse`
///   register tiles of columns or more in the cache tile, which then read
///   it from one line per depth step, rather than one per row. The copy
///   reads the block from memory with nothing to overlap it, where the
///   register tiles' FMAs overlapped those reads, so that it pays only
///   where many tiles of columns share it.
static int rowPanelInput(const ContractionShape &shape,
                         ArrayRef<int64_t> extents,
                         const ContractionTilingPlan &plan,
                         const TileContractionsConfig &config) {
  if (!plan.hasRows || plan.registerTiles[plan.rowDim] < 2)
    return -1;
  int64_t columns = cacheTileExtent(plan, extents, plan.columnDim);
  std::optional<unsigned> input = rowsOperand(shape, plan);
  if (!input ||
      columns < config.minRowPanelReuse * plan.registerTiles[plan.columnDim])
    return -1;
  AffineMap map = shape.getInputMap(*input);
  ArrayRef<int64_t> inputShape = shape.operandShapes[*input];
  int64_t strideBytes = shape.elementBytes;
  for (int64_t position = map.getNumResults() - 1;
       position >= 0 && map.getDimPosition(position) != plan.rowDim; --position)
    strideBytes *= inputShape[position];
  return strideBytes >= config.minRowStrideBytes ? int(*input) : -1;
}

/// A contraction of few terms per element whose columns are blocked steps
/// its other parallel dimensions (neither rows nor columns: batch-like)
/// one at a time outside its column blocks, as the parts of a split
/// contraction do (SplitContraction.cpp, enterOuterLoops): each register
/// tile then streams its rows whole, rather than every column block
/// revisiting all of them in short pieces (K5L: 1331 rows of E doubles in
/// pieces of 256). (Threads share the first of those dimensions, as they
/// did without the rule: distributeOverThreads takes the cache order's
/// first dimension.) Returns those dimensions; none where the rule does
/// not apply.
static SmallVector<unsigned> batchLikeDimsOutsideColumnBlocks(
    const ContractionShape &shape, ArrayRef<int64_t> extents,
    const TileContractionsConfig &config, const ContractionTilingPlan &plan) {
  SmallVector<unsigned> dims;
  if (plan.packedInput >= 0 || plan.cacheTiles[plan.columnDim] == 0 ||
      shape.productOfExtents(extents, /*reductionsOnly=*/true) >
          config.maxSummandsToShareLoops)
    return dims;
  for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim) {
    bool isRows = plan.hasRows && dim == plan.rowDim;
    if (!shape.isReduction(dim) && dim != plan.columnDim &&
        dim != plan.depthDim && !isRows && extents[dim] > 1)
      dims.push_back(dim);
  }
  return dims;
}

/// Steps the dimensions of batchLikeDimsOutsideColumnBlocks one at a time.
/// Last, so that the reuse counts of the rows' panels see the whole
/// extents (their copy does not depend on those steps, and leaves their
/// loops).
static void stepBatchLikeDimsOutsideColumnBlocks(
    const ContractionShape &shape, ArrayRef<int64_t> extents,
    const TileContractionsConfig &config, ContractionTilingPlan &plan) {
  for (unsigned dim :
       batchLikeDimsOutsideColumnBlocks(shape, extents, config, plan))
    plan.cacheTiles[dim] = 1;
}

/// The panels of the cache tiles whose extents are sizes
/// (ContractionTilingPlan::sizedPanelInput, sizedRowPanelInput), where
/// `sizedLoops` are the loops whose extents are sizes: the columns'
/// operand, where each element of its block serves `minPanelReuse` rows
/// or more (the steps of the dimensions it lacks in a cache tile), or
/// where its depth steps are a size apart and it serves two register tiles
/// of rows (its other parallel dimensions then step outside the blocks),
/// and the rows' operand, where each serves `minRowPanelReuse` register
/// tiles or more (its tiles of columns, and the steps of the other
/// dimensions it lacks), with every size as short as kShortExtentOfSize.
/// Panels of rows also spare a register tile a pointer per row where they
/// are a size apart, which is more pointers than the registers hold beside
/// the accumulators.
static void planSizedPanels(const ContractionShape &shape,
                            ArrayRef<bool> sizedLoops,
                            ArrayRef<int64_t> extents,
                            const TileContractionsConfig &config,
                            ContractionTilingPlan &plan) {
  if (!llvm::is_contained(sizedLoops, true))
    return;
  auto shortTile = [&](unsigned dim) {
    int64_t tile = cacheTileExtent(plan, extents, dim);
    return sizedLoops[dim] ? std::min(tile, kShortExtentOfSize) : tile;
  };
  // The steps of the dimensions `map` lacks, but `except` and those in
  // `stepped`, in a cache tile.
  auto stepsLacking = [&](AffineMap map, int64_t except,
                          ArrayRef<unsigned> stepped = {}) {
    int64_t steps = 1;
    for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim)
      if (int64_t(dim) != except && !shape.isReduction(dim) &&
          !map.isFunctionOfDim(dim) && !llvm::is_contained(stepped, dim) &&
          llvm::MulOverflow(steps, shortTile(dim), steps))
        steps = std::numeric_limits<int64_t>::max();
    return steps;
  };
  // The columns' panels depend on the column blocks, so that the batch-like
  // dimensions stepped outside those (stepBatchLikeDimsOutsideColumnBlocks)
  // copy them again at each step: their steps share no panel (TCCG ccsd_t
  // abcdef-dfga-gebc with `a` a size copied A's panels for 15 rows each,
  // 2.6 times the fixed program's time).
  SmallVector<unsigned> steppedOutside =
      batchLikeDimsOutsideColumnBlocks(shape, extents, config, plan);
  // Whether the steps of `dim` in `map`'s operand are a size (or more)
  // apart: a dimension inside it in the operand's layout is a size.
  auto stepsSizeApart = [&](AffineMap map, unsigned dim) {
    std::optional<unsigned> position =
        map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
    return llvm::any_of(
        map.getResults().drop_front(*position + 1), [&](AffineExpr inner) {
          return sizedLoops[cast<AffineDimExpr>(inner).getPosition()];
        });
  };
  // Whether panels of `dim` spare a register tile something: `dim` is a
  // size (its edges are padded), or its steps in `map`'s operand are a
  // size apart (through a pointer per row). A small matrix of fixed
  // extents (the CFD kernels' 11 x 11 operator) reads as well in place.
  auto paysInPanels = [&](AffineMap map, unsigned dim) {
    return sizedLoops[dim] || stepsSizeApart(map, dim);
  };
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (plan.packedInput >= 0 || map.getNumResults() < 2 ||
        !map.isFunctionOfDim(plan.depthDim) ||
        !map.isFunctionOfDim(plan.columnDim))
      continue;
    if (extents[plan.columnDim] <= plan.registerTiles[plan.columnDim] ||
        !paysInPanels(map, plan.columnDim))
      break;
    int64_t reuse = stepsLacking(map, -1, steppedOutside);
    if (reuse >= config.minPanelReuse) {
      plan.sizedPanelInput = input;
      break;
    }
    // Where its depth steps are a size apart, a register tile reads a line
    // a size or more from the last at every depth step (a page or more
    // with long sizes), which neither the TLB nor the prefetchers keep up
    // with; from panels it reads one run. That pays where two register
    // tiles of rows or more share it. The operand's other dimensions then
    // step one at a time, outside the column blocks, so that its block,
    // and the copy, is one cache tile's rather than every step of theirs
    // (TCCG abc-adc-db: c, batch-like, whole in the cache tile, made the
    // copy as large as the operand). The row panels below count those
    // steps as one, as they then are.
    if (plan.hasRows && stepsSizeApart(map, plan.depthDim) &&
        reuse >= 2 * plan.registerTiles[plan.rowDim]) {
      plan.sizedPanelInput = input;
      for (AffineExpr expr : map.getResults()) {
        unsigned dim = cast<AffineDimExpr>(expr).getPosition();
        if (!shape.isReduction(dim) && dim != plan.columnDim &&
            dim != plan.rowDim && extents[dim] > 1)
          plan.cacheTiles[dim] = 1;
      }
    }
    break;
  }
  if (!plan.hasRows || plan.registerTiles[plan.rowDim] < 2)
    return;
  std::optional<unsigned> input = rowsOperand(shape, plan);
  if (!input)
    return;
  AffineMap map = shape.getInputMap(*input);
  int64_t columnTiles = llvm::divideCeil(shortTile(plan.columnDim),
                                         plan.registerTiles[plan.columnDim]);
  int64_t steps = stepsLacking(map, plan.columnDim);
  if (paysInPanels(map, plan.rowDim) &&
      (llvm::MulOverflow(steps, columnTiles, steps) ||
       steps >= config.minRowPanelReuse))
    plan.sizedRowPanelInput = *input;
}

/// Where the result has more elements than the inputs together, writing it
/// is most of the memory traffic: reorders the dimensions of `dims` that
/// index it as it lays them out, its outermost first (the others, the
/// reductions, keep their places). The loops over them then write the
/// result block after block, rather than a few lines of every block per
/// pass over it, which is what a folded transposition otherwise gives.
/// Where an input is as large as the result, the loops keep the order of
/// the dimensions, which keeps a packed input's blocks in cache for longer.
static void followResultLayout(const ContractionShape &shape,
                               SmallVectorImpl<int64_t> &dims) {
  auto isStatic = [](ArrayRef<int64_t> operandShape) {
    return !ShapedType::isDynamicShape(operandShape);
  };
  if (!llvm::all_of(shape.operandShapes, isStatic))
    return;
  int64_t inputElements = 0;
  for (unsigned input = 0; input < shape.getNumInputs(); ++input)
    inputElements += shape.getInputElements(input);
  if (shape.getResultElements() <= inputElements)
    return;
  AffineMap result = shape.getResultMap();
  SmallVector<unsigned> slots;
  SmallVector<std::pair<unsigned, int64_t>> byPosition;
  for (auto [slot, dim] : llvm::enumerate(dims)) {
    std::optional<unsigned> position =
        result.getResultPosition(getAffineDimExpr(dim, result.getContext()));
    if (!position)
      continue;
    slots.push_back(slot);
    byPosition.push_back({*position, dim});
  }
  llvm::sort(byPosition);
  for (auto [slot, entry] : llvm::zip_equal(slots, byPosition))
    dims[slot] = entry.second;
}

static std::optional<SmallVector<int64_t>>
getLoopExtents(const ContractionShape &shape);

/// Where the rows' panels (rowPanelInput) of a cache tile would span a
/// batch that the register tiles step through, more rows than the L2's row
/// block (`cacheRows`), the batch is stepped one at a time inside the depth
/// blocks: each step's panels stay in L2 from their copy to their use,
/// rather than one copy of all the batch's rows passing through L3 (TCCG
/// ccsd6 folded at 72: 72 batches of 72 rows, 9 MB a depth block, against
/// 162 KB a step). The columns' panels, which do not depend on the batch,
/// are hoisted out of its loop. Each batch dimension stepped so is placed
/// after the depth blocks in the cache order, before the rows.
static void stepBatchesOfRowPanels(const ContractionShape &shape,
                                   ArrayRef<int64_t> extents,
                                   const TileContractionsConfig &config,
                                   ContractionTilingPlan &plan) {
  if (plan.rowPanelInput < 0)
    return;
  AffineMap rowsMap = shape.getInputMap(plan.rowPanelInput);
  std::optional<AffineMap> columnsMap;
  if (plan.panelInput >= 0)
    columnsMap = shape.getInputMap(plan.panelInput);
  int64_t rowTile = cacheTileExtent(plan, extents, plan.rowDim);
  SmallVector<unsigned> batches;
  int64_t panelRows = rowTile;
  for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim) {
    if (dim == plan.rowDim || dim == plan.columnDim || shape.isReduction(dim) ||
        plan.cacheTiles[dim] != 0 || extents[dim] <= 1 ||
        !rowsMap.isFunctionOfDim(dim))
      continue;
    // A batch of the columns' panels too would copy them at every step.
    if (columnsMap && columnsMap->isFunctionOfDim(dim))
      return;
    batches.push_back(dim);
    panelRows *= extents[dim];
  }
  if (batches.empty() || panelRows <= config.cacheRows)
    return;
  for (unsigned dim : batches) {
    plan.cacheTiles[dim] = 1;
    llvm::erase(plan.cacheOrder, int64_t(dim));
  }
  auto *rows = llvm::find(plan.cacheOrder, int64_t(plan.rowDim));
  plan.cacheOrder.insert(rows, batches.begin(), batches.end());
}

/// Whether the column blocks are the first loop of the cache tiles: the
/// dimensions before them in the cache order stay whole at that level (a
/// batch that the register tiles step through, under one packed panel).
/// Threads that share such a batch instead pack each panel once per step
/// (TCCG ccsd6 at 45: 45 times as often as one thread).
static bool columnsAreFirstCacheLoop(const ContractionTilingPlan &plan) {
  for (int64_t dim : plan.cacheOrder) {
    if (dim == plan.columnDim)
      return plan.cacheTiles[dim] != 0;
    if (plan.cacheTiles[dim] != 0)
      return false;
  }
  return false;
}

/// One thread's share of `columns`: whole register tiles, as many for each
/// of `config.threads` (0: fewer columns than a register tile per thread,
/// or the threads unknown).
static int64_t threadShareOfColumns(int64_t columns, int64_t registerColumns,
                                    const TileContractionsConfig &config) {
  if (config.threads <= 1)
    return 0;
  return columns / (config.threads * registerColumns) * registerColumns;
}

/// With `config.threads` known, where the column blocks are the first loop
/// of the cache tiles (columnsAreFirstCacheLoop), each thread
/// takes one share of whole register tiles (`threadColumns`), in blocks no
/// wider than one thread's that divide it where some do: 2032 columns on
/// two threads are two shares of 1016, each in blocks of 128 and a last of
/// 120, where blocks that divide 2032 = 16 x 127 would be 16 columns wide
/// and read the rows' operand eight times as often. The columns after the
/// shares, fewer than a register tile per thread, are a contraction of
/// their own after the threads' loop. Last, so that the cache tiles of the
/// other dimensions are known.
static void shareColumnsBetweenThreads(ArrayRef<bool> sizedLoops,
                                       ArrayRef<int64_t> extents,
                                       const TileContractionsConfig &config,
                                       ContractionTilingPlan &plan) {
  unsigned columnDim = plan.columnDim;
  int64_t registerColumns = plan.registerTiles[columnDim];
  if (!config.parallel || config.threads <= 1 ||
      !columnsAreFirstCacheLoop(plan))
    return;
  if (sizedLoops[columnDim]) {
    plan.threadColumns = kThreadColumnsAtRunTime;
    return;
  }
  int64_t share =
      threadShareOfColumns(extents[columnDim], registerColumns, config);
  if (share == 0)
    return;
  plan.threadColumns = share;
  plan.cacheTiles[columnDim] =
      std::min(plan.cacheTiles[columnDim],
               tileSize(share, registerColumns, config.cacheColumns));
}

/// The most rows of a cache tile of `plan`, whose column block is tiled:
/// `cacheRows`, or, where that block over a depth block outgrows half of
/// L2 and stays in L3 instead, `l3CacheRows`: each row tile reads all of
/// it again, from L3, and more rows per block make it worth copying into
/// panels (minPanelReuse) while the rows' block stays in L2.
static int64_t cacheRowsFor(const ContractionShape &shape,
                            ArrayRef<int64_t> extents,
                            const ContractionTilingPlan &plan,
                            const TileContractionsConfig &config) {
  if (config.l3CacheRows <= config.cacheRows)
    return config.cacheRows;
  int64_t columns = cacheTileExtent(plan, extents, plan.columnDim);
  int64_t depth = extents[plan.depthDim];
  if (isDepthBlocked(shape, extents, plan, config))
    depth = std::min(depth, config.cacheDepth);
  return columns * depth * shape.elementBytes > config.l2BlockBytes
             ? config.l3CacheRows
             : config.cacheRows;
}

/// Fills the tiles and loop orders of `plan` (columns and rows chosen).
/// `sizedLoops` are the loops whose extents are sizes (`shape` has
/// planning extents for them).
static void planTiles(const ContractionShape &shape, ArrayRef<bool> sizedLoops,
                      ArrayRef<int64_t> extents, int64_t registerColumns,
                      const TileContractionsConfig &config,
                      ContractionTilingPlan &plan) {
  int64_t columns = extents[plan.columnDim];
  // Register rows that divide the rows where enough do; else the most
  // rows, the rest peeled off (71 = 8 x 8 + 7).
  int64_t registerRows = 1;
  if (plan.hasRows) {
    int64_t rows = extents[plan.rowDim];
    registerRows = registerRowsFor(rows, registerColumns, config);
    if (registerRows < fewestRegisterRows(rows, registerColumns, config))
      registerRows = maxRegisterRows(registerColumns, config);
  }
  unsigned numLoops = shape.getNumLoops();
  plan.cacheTiles.assign(numLoops, 0);
  plan.registerTiles.assign(numLoops, 1);
  auto cacheTile = [&](unsigned dim, int64_t tile) {
    plan.cacheTiles[dim] = tile == extents[dim] ? 0 : tile;
  };
  // Threads share the first loop of the cache tiles (tileForCaches): with
  // their number known, see shareColumnsBetweenThreads. Otherwise, where
  // that is the column blocks', an scf.forall, whose last step cannot be
  // peeled, steps through blocks that divide the columns where any can;
  // where none can, the columns after the last whole block are a
  // contraction of their own, after the threads' loop (1031 columns: 4
  // blocks of 208 and 199 columns). The register tiles and the blocks of
  // the reductions are those of one thread either way, so that the sums,
  // and the results, are the same bits on any number of threads.
  int64_t dividingColumns =
      largestMultipleDividing(columns, registerColumns, config.cacheColumns);
  int64_t columnTile =
      config.parallel && config.threads <= 1 && !hasBatchDims(shape, plan) &&
              columns % dividingColumns == 0
          ? dividingColumns
          : tileSize(columns, registerColumns, config.cacheColumns);
  // With their number known, no block is wider than one thread's share of
  // the columns, so that there are blocks to share where one block would
  // take them all (blocks in L3).
  int64_t threadShare = threadShareOfColumns(columns, registerColumns, config);
  if (config.parallel && threadShare > 0 && columnTile > threadShare)
    columnTile = threadShare;
  // Columns that are a size may be longer at run time than as planned:
  // they are blocked in the preferred block, so that no block outgrows the
  // cache that the preferred one fits (TCCG ccsd6 with every extent a size:
  // 5041 columns whole, a panel block of 10 MB where the fixed plan's are
  // 5 MB, in L3), nor is narrower than it for a divisor of the planning
  // extent (1280 in blocks of 320, too few tiles of columns for the rows'
  // panels, rowPanelInput). A shorter extent runs as one block.
  if (sizedLoops[plan.columnDim] &&
      shape.planningExtentOfSize > kShortPlanningExtentOfSize &&
      (!config.parallel || threadShare <= 0))
    columnTile =
        std::max(registerColumns,
                 config.cacheColumns / registerColumns * registerColumns);
  cacheTile(plan.columnDim, columnTile);
  plan.registerTiles[plan.columnDim] = registerColumns;
  if (plan.hasRows) {
    cacheTile(plan.rowDim,
              tileSize(extents[plan.rowDim], registerRows,
                       cacheRowsFor(shape, extents, plan, config)));
    plan.registerTiles[plan.rowDim] = registerRows;
  }
  // The depth is blocked so that the panel of the columns' operand (depth x
  // columns) stays in L2; a panel that fits whole is not, so that each
  // register tile holds its whole reduction
  // and starts from zeros (no fill of the result, no second pass over it).
  bool depthBlocked = isDepthBlocked(shape, extents, plan, config);
  if (depthBlocked)
    cacheTile(plan.depthDim,
              tileSize(extents[plan.depthDim], 1, config.cacheDepth));
  // The other reductions in blocks as well: each register tile otherwise
  // runs through all of them, over operand slices that leave L2.
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (shape.isReduction(dim) && dim != plan.depthDim &&
        extents[dim] > config.maxWholeOtherReduction)
      cacheTile(dim, tileSize(extents[dim], 1, config.otherReductionBlock));

  if (plan.packedInput >= 0)
    planPackedBlock(shape, sizedLoops, extents, registerColumns, config, plan);
  // Blocks of rows pay only where they keep something in cache for one
  // another.
  if (plan.hasRows && !depthBlocked &&
      iteratesBatchesInsideRowBlocks(shape, extents, plan))
    cacheTile(plan.rowDim, extents[plan.rowDim]);

  // Cache level: other dimensions, column blocks, depth blocks, row blocks.
  // Register level: other dimensions, rows, columns, then the reductions,
  // innermost, so that the accumulator tile stays in registers.
  auto isTileDim = [&](unsigned dim) {
    return dim == plan.columnDim || dim == plan.depthDim ||
           (plan.hasRows && dim == plan.rowDim);
  };
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (!isTileDim(dim))
      plan.cacheOrder.push_back(dim);
  followResultLayout(shape, plan.cacheOrder);
  plan.cacheOrder.push_back(plan.columnDim);
  plan.cacheOrder.push_back(plan.depthDim);
  if (plan.hasRows)
    plan.cacheOrder.push_back(plan.rowDim);

  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (!isTileDim(dim) && !shape.isReduction(dim))
      plan.registerOrder.push_back(dim);
  followResultLayout(shape, plan.registerOrder);
  if (plan.hasRows)
    plan.registerOrder.push_back(plan.rowDim);
  plan.registerOrder.push_back(plan.columnDim);
  for (unsigned dim = 0; dim < numLoops; ++dim)
    if (shape.isReduction(dim) && dim != plan.depthDim)
      plan.registerOrder.push_back(dim);
  plan.registerOrder.push_back(plan.depthDim);
  if (plan.packedInput < 0)
    plan.panelInput = panelInput(shape, extents, plan, config);
  if (plan.packedInput < 0 && plan.panelInput < 0)
    plan.copiedBlockInput = copiedBlockInput(shape, extents, plan, config);
  if (plan.packedInput < 0)
    plan.rowPanelInput = rowPanelInput(shape, extents, plan, config);
  stepBatchesOfRowPanels(shape, extents, config, plan);
  planSizedPanels(shape, sizedLoops, extents, config, plan);
  stepBatchLikeDimsOutsideColumnBlocks(shape, extents, config, plan);
  shareColumnsBetweenThreads(sizedLoops, extents, config, plan);
}

/// The plans of the `cpu` planner (and of those that derive only their
/// configuration otherwise).
static FailureOr<ContractionTilingPlan>
planTwoLevelTiles(const ContractionShape &contraction,
                  const TileContractionsConfig &config, std::string *whyNot) {
  // A sized contraction is planned as a large one (kPlanningExtentOfSize).
  std::optional<ContractionShape> planned = contraction.withPlanningExtents();
  if (!planned) {
    if (whyNot)
      *whyNot = "an indexing map is not a projected permutation";
    return failure();
  }
  const ContractionShape &shape = *planned;
  if (!config.tilesSizedContractions && contraction.hasSizedExtents()) {
    if (whyNot)
      *whyNot = "sized: this target's masked vector accesses at the edges "
                "do not compile (SVE fixed-length vectors)";
    return failure();
  }
  auto refuse = [&](const Twine &reason) -> FailureOr<ContractionTilingPlan> {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  if (!shape.onTensors)
    return refuse("not on tensors");
  if (shape.getNumReductionLoops() == 0)
    return refuse("no reduction");
  if (!shape.multiplyAccumulate)
    return refuse("the body is not a multiply-accumulate (out + in0 * in1)");
  std::optional<SmallVector<int64_t>> staticExtents =
      shape.getStaticLoopExtents();
  assert(staticExtents && "planning extents are static");
  ArrayRef<int64_t> extents = *staticExtents;
  AffineMap result = shape.getResultMap();
  unsigned resultRank = result.getNumResults();
  if (resultRank == 0)
    return refuse("the result is a scalar: no columns to tile");

  ContractionTilingPlan plan;
  plan.columnDim = result.getDimPosition(resultRank - 1);
  llvm::SmallDenseSet<unsigned> rows = rowCandidates(shape, plan.columnDim);
  // The rows' operand is read an element per row and depth step: rows that
  // are its last dimension share a line per step, where rows of another
  // dimension each read a line of their own, far apart (TCCG ccsd_t: 96
  // lines per register tile, its 1.2 MB operand beside the columns' copy
  // in a 2 MiB L2). A register tile writes the same runs of the result's
  // last dimension wherever its rows go in it. Else the rows are the
  // innermost candidate in the result, so that the tiles write it in
  // order.
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (map.isFunctionOfDim(plan.columnDim) || map.getNumResults() == 0)
      continue;
    unsigned last = map.getDimPosition(map.getNumResults() - 1);
    if (rows.contains(last)) {
      plan.hasRows = true;
      plan.rowDim = last;
      break;
    }
  }
  for (int position = resultRank - 2; position >= 0 && !plan.hasRows;
       --position) {
    unsigned dim = result.getDimPosition(position);
    if (rows.contains(dim)) {
      plan.hasRows = true;
      plan.rowDim = dim;
    }
  }
  if (!plan.hasRows && resultRank >= 2) {
    plan.hasRows = true;
    plan.rowDim = result.getDimPosition(resultRank - 2);
  }
  // Each operand reads a register tile's columns as one contiguous vector,
  // or not at all (it is broadcast along them). An operand that has them
  // elsewhere is transposed first where that is cheap: it is small (a
  // matrix of the CFD kernels), or each of its elements is used often
  // enough to repay the copy. A larger one whose
  // last dimension is a batch is packed instead: each cache tile copies
  // its block with the columns last (packedInput), so that the operand is
  // read once and no transposed copy of it goes through memory.
  // Whether a transposition whole repays itself depends on the sizes of a
  // sized contraction. An operand that, with them as short as
  // kShortExtentOfSize, would still be larger than half of L2, and used
  // few times per element, is packed (TCCG abcde-ecbfa-fd: A, of five
  // sizes, lacking one, serves 24 iterations per element at TCCG's
  // extents, and its copy whole took more than the contraction); one that
  // would fit is transposed whole as at planning extents (the packed
  // blocks of a sized abcd-dbea-ec, four sizes, took 10-50% longer).
  SmallVector<bool> sizedLoops =
      llvm::map_to_vector(*getLoopExtents(contraction), [](int64_t extent) {
        return ShapedType::isDynamic(extent);
      });
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    int64_t elements = shape.getInputElements(input);
    // The iterations per element: the product of the extents of the loops
    // the input does not index (saturated, as the iterations of a large
    // sized contraction would be), and the same with the sizes short.
    int64_t usesPerElement = 1, shortUsesPerElement = 1,
            shortBytes = shape.elementBytes;
    for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim) {
      if (map.isFunctionOfDim(dim)) {
        if (llvm::MulOverflow(
                shortBytes, sizedLoops[dim] ? kShortExtentOfSize : extents[dim],
                shortBytes))
          shortBytes = std::numeric_limits<int64_t>::max();
        continue;
      }
      if (llvm::MulOverflow(usesPerElement, extents[dim], usesPerElement))
        usesPerElement = std::numeric_limits<int64_t>::max();
      if (llvm::MulOverflow(shortUsesPerElement,
                            sizedLoops[dim] ? kShortExtentOfSize : extents[dim],
                            shortUsesPerElement))
        shortUsesPerElement = std::numeric_limits<int64_t>::max();
    }
    if (!map.isFunctionOfDim(plan.columnDim) ||
        map.getDimPosition(map.getNumResults() - 1) == plan.columnDim ||
        elements <= config.maxTransposedElements)
      continue;
    unsigned last = map.getDimPosition(map.getNumResults() - 1);
    // (An operand each of whose elements is used many times repays its
    // transposition whole.)
    if (plan.packedInput < 0 && !shape.isReduction(last) &&
        result.isFunctionOfDim(last) &&
        !(plan.hasRows && last == plan.rowDim) &&
        (shortBytes > config.l2BlockBytes ? shortUsesPerElement
                                          : usesPerElement) < config.manyUses) {
      plan.packedInput = input;
      plan.packedDim = last;
      continue;
    }
    if (usesPerElement < config.minUsesToTransposeForColumns)
      return refuse("no unit-stride column operand: input " + Twine(input) +
                    " has the columns (d" + Twine(plan.columnDim) +
                    ") elsewhere than last and is too large (" +
                    Twine(elements) + " elements) and too little reused (" +
                    Twine(usesPerElement) + " uses per element) to transpose");
  }
  plan.depthDim = depthFor(shape, extents, plan);

  int64_t columns = extents[plan.columnDim];
  int64_t registerColumns =
      columnWidth(columns, config.registerColumns, config.vectorLanes);
  int64_t lanes = packingLanes(config);
  if (registerColumns == 0) {
    // The preferred width (half of it for fewer columns), the rest peeled
    // off inside the same loops (71 = 4 x 16 + 7, 15 = 8 + 7), where the
    // rest is one vector or whole vectors. A vector of 11 (or 13, ...)
    // would be widened to 16 lanes by LLVM, and every load, store and
    // loop-carried copy of it assembled lane by lane: 75 columns are split
    // into two contractions first (64, and 11 = 8 + 3).
    int64_t unit = columns > config.registerColumns
                       ? config.registerColumns
                       : config.registerColumns / 2;
    int64_t rest = columns % unit;
    if (unit < 2 || rest == columns)
      return refuse("no register width for " + Twine(columns) +
                    " columns, and no split of them into parts of " +
                    Twine(unit));
    if (rest <= lanes || rest % lanes == 0) {
      registerColumns = unit;
    } else {
      plan.splitDim = plan.columnDim;
      plan.splitAt = columns - rest;
      return plan;
    }
  }
  // A packed dimension that the lanes do not divide is cut where they stop
  // (47 = 40 + 7): the bulk in whole squares, the rest in one block.
  if (plan.packedInput >= 0 && extents[plan.packedDim] > lanes &&
      extents[plan.packedDim] % lanes != 0) {
    plan.splitDim = plan.packedDim;
    plan.splitAt = extents[plan.packedDim] - extents[plan.packedDim] % lanes;
    return plan;
  }
  planTiles(shape, sizedLoops, extents, registerColumns, config, plan);
  return plan;
}

//===----------------------------------------------------------------------===//
// ContractionShape
//===----------------------------------------------------------------------===//

ContractionShape ContractionShape::get(linalg::GenericOp op) {
  ContractionShape shape;
  shape.indexingMaps = op.getIndexingMapsArray();
  shape.iteratorTypes = op.getIteratorTypesArray();
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<ShapedType>(operand.getType());
    shape.operandShapes.emplace_back(type ? type.getShape()
                                          : ArrayRef<int64_t>());
  }
  shape.elementBytes =
      op.getNumDpsInits() == 1 ? tensorlang::elementBytes(op) : 8;
  shape.onTensors = op.hasPureTensorSemantics();
  shape.multiplyAccumulate = isMultiplyAccumulate(op);
  if (auto extent = op->getAttrOfType<IntegerAttr>(kPlanningExtentAttrName))
    shape.planningExtentOfSize = std::max<int64_t>(1, extent.getInt());
  return shape;
}

ContractionShape
ContractionShape::withResultMap(AffineMap resultMap,
                                ArrayRef<int64_t> resultShape) const {
  ContractionShape shape = *this;
  shape.indexingMaps.back() = resultMap;
  shape.operandShapes.back().assign(resultShape.begin(), resultShape.end());
  return shape;
}

unsigned ContractionShape::getNumReductionLoops() const {
  return llvm::count_if(llvm::seq<unsigned>(0, getNumLoops()),
                        [&](unsigned dim) { return isReduction(dim); });
}

SmallVector<unsigned> ContractionShape::getReductionDims() const {
  SmallVector<unsigned> dims;
  for (unsigned dim = 0; dim < getNumLoops(); ++dim)
    if (isReduction(dim))
      dims.push_back(dim);
  return dims;
}

/// The number of elements of `shape` (saturated; 0 where dynamic).
static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (ShapedType::isDynamic(extent))
      return 0;
    if (llvm::MulOverflow(elements, extent, elements))
      return std::numeric_limits<int64_t>::max();
  }
  return elements;
}

int64_t ContractionShape::getInputElements(unsigned input) const {
  return numElements(operandShapes[input]);
}

int64_t ContractionShape::getResultElements() const {
  return numElements(operandShapes.back());
}

/// The extent of every loop of `shape` (ShapedType::kDynamic where no
/// operand gives a static one), where every map is a projected permutation.
static std::optional<SmallVector<int64_t>>
getLoopExtents(const ContractionShape &shape) {
  if (llvm::any_of(shape.indexingMaps,
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return std::nullopt;
  SmallVector<int64_t> extents(shape.getNumLoops(), ShapedType::kDynamic);
  for (auto [map, operandShape] :
       llvm::zip_equal(shape.indexingMaps, shape.operandShapes))
    for (unsigned position = 0; position < map.getNumResults(); ++position) {
      int64_t &extent = extents[map.getDimPosition(position)];
      if (ShapedType::isDynamic(extent))
        extent = operandShape[position];
    }
  return extents;
}

std::optional<SmallVector<int64_t>>
ContractionShape::getStaticLoopExtents() const {
  std::optional<SmallVector<int64_t>> extents = getLoopExtents(*this);
  if (!extents || llvm::any_of(*extents, ShapedType::isDynamic))
    return std::nullopt;
  return extents;
}

bool ContractionShape::hasSizedExtents() const {
  return llvm::any_of(operandShapes, [](ArrayRef<int64_t> shape) {
    return ShapedType::isDynamicShape(shape);
  });
}

std::optional<ContractionShape> ContractionShape::withPlanningExtents() const {
  std::optional<SmallVector<int64_t>> extents = getLoopExtents(*this);
  if (!extents)
    return std::nullopt;
  for (int64_t &extent : *extents)
    if (ShapedType::isDynamic(extent))
      extent = planningExtentOfSize;
  ContractionShape planned = *this;
  for (auto [map, shape] :
       llvm::zip_equal(planned.indexingMaps, planned.operandShapes))
    for (unsigned position = 0; position < map.getNumResults(); ++position)
      shape[position] = (*extents)[map.getDimPosition(position)];
  return planned;
}

int64_t ContractionShape::productOfExtents(ArrayRef<int64_t> extents,
                                           bool reductionsOnly) const {
  // Saturated: an iteration space need not fit in int64 (a contraction of
  // two variables of 2^22 x 2^22 elements has 2^66 points), and every use
  // compares the product with a threshold.
  int64_t product = 1;
  for (auto [dim, extent] : llvm::enumerate(extents))
    if ((!reductionsOnly || isReduction(dim)) &&
        llvm::MulOverflow(product, extent, product))
      return std::numeric_limits<int64_t>::max();
  return product;
}

//===----------------------------------------------------------------------===//
// Planners
//===----------------------------------------------------------------------===//

ContractionPlanner::~ContractionPlanner() = default;

/// The inputs of `shape` that the rewrites copy whole to give them the
/// columns of `plan` last (all but its packed input).
static SmallVector<unsigned>
inputsCopiedForColumns(const ContractionShape &shape,
                       const ContractionTilingPlan &plan) {
  SmallVector<unsigned> inputs;
  for (unsigned input = 0; input < shape.getNumInputs(); ++input) {
    AffineMap map = shape.getInputMap(input);
    if (int(input) != plan.packedInput && map.isFunctionOfDim(plan.columnDim) &&
        map.getDimPosition(map.getNumResults() - 1) != plan.columnDim)
      inputs.push_back(input);
  }
  return inputs;
}

namespace {
/// A contraction as the planner meets it after
/// collapseContractionReductions.
struct CollapsedContraction {
  ContractionShape shape;
  /// The inputs that the collapse copies.
  SmallVector<unsigned> copied;
  /// The loops of the contraction before the collapse that each loop of
  /// `shape` stands for, in order.
  SmallVector<SmallVector<unsigned>> loops;
};
} // namespace

static CollapsedContraction
shapeAfterCollapse(const ContractionShape &shape,
                   const TileContractionsConfig &config) {
  CollapsedContraction result{shape, {}, {}};
  FailureOr<ReductionCollapse> collapse = planReductionCollapse(shape, config);
  if (failed(collapse)) {
    for (unsigned dim = 0; dim < shape.getNumLoops(); ++dim)
      result.loops.push_back({dim});
    return result;
  }
  for (const auto &copy : collapse->copies)
    result.copied.push_back(copy.first);
  result.shape = collapsedShape(shape, *collapse);
  SmallVector<bool> leads;
  SmallVector<unsigned> collapsedDim =
      collapsedLoopOf(shape.getNumLoops(), *collapse, leads);
  result.loops.resize(result.shape.getNumLoops());
  for (auto [dim, into] : llvm::enumerate(collapsedDim))
    result.loops[into].push_back(dim);
  return result;
}

/// The columns of `plan` (of `collapsed`) that its rows' panels need, if it
/// has any.
static std::optional<
    ContractionPlanner::TranspositionFoldWeights::RowPanelColumns>
rowPanelColumns(const CollapsedContraction &collapsed,
                const ContractionTilingPlan &plan,
                const TileContractionsConfig &config) {
  if (plan.rowPanelInput < 0)
    return std::nullopt;
  return ContractionPlanner::TranspositionFoldWeights::RowPanelColumns{
      collapsed.loops[plan.columnDim],
      config.minRowPanelReuse * plan.registerTiles[plan.columnDim]};
}

/// The inputs of `shape` that the rewrites copy whole: those the collapse
/// of its reductions copies, and those `plan` (of the collapsed shape)
/// copies for its columns.
static SmallVector<unsigned> inputsCopied(ArrayRef<unsigned> copiedByCollapse,
                                          const ContractionShape &collapsed,
                                          const ContractionTilingPlan &plan) {
  SmallVector<unsigned> inputs(copiedByCollapse);
  for (unsigned input : inputsCopiedForColumns(collapsed, plan))
    if (!llvm::is_contained(inputs, input))
      inputs.push_back(input);
  llvm::sort(inputs);
  return inputs;
}

ContractionPlanner::TranspositionFoldWeights
ContractionPlanner::weighTranspositionFold(
    const ContractionShape &contraction, const ContractionShape &folded) const {
  // Each layout is weighed as it is tiled: with its reductions collapsed
  // where they are (the contraction in its own layout may then be one
  // long matrix product where the folded one keeps short columns).
  TranspositionFoldWeights weights;
  CollapsedContraction foldedCollapsed = shapeAfterCollapse(folded, config);
  FailureOr<ContractionTilingPlan> foldedPlan =
      plan(foldedCollapsed.shape, &weights.foldedWhyNot);
  weights.foldedTiles = succeeded(foldedPlan);
  if (!weights.foldedTiles)
    return weights;
  weights.foldedCopies =
      inputsCopied(foldedCollapsed.copied, foldedCollapsed.shape, *foldedPlan);
  if (llvm::is_contained(weights.foldedCopies, foldedPlan->packedInput))
    weights.foldedPacked = -1;
  else
    weights.foldedPacked = foldedPlan->packedInput;
  CollapsedContraction ownCollapsed = shapeAfterCollapse(contraction, config);
  FailureOr<ContractionTilingPlan> ownPlan = plan(ownCollapsed.shape);
  weights.ownTiles = succeeded(ownPlan);
  if (!weights.ownTiles)
    return weights;
  weights.ownCopies =
      inputsCopied(ownCollapsed.copied, ownCollapsed.shape, *ownPlan);
  weights.foldedLosesColumnPanels =
      ownPlan->panelInput >= 0 && foldedPlan->panelInput < 0;
  weights.foldedLosesRowPanels =
      ownPlan->rowPanelInput >= 0 && foldedPlan->rowPanelInput < 0;
  weights.ownRowPanelColumns = rowPanelColumns(ownCollapsed, *ownPlan, config);
  weights.foldedRowPanelColumns =
      rowPanelColumns(foldedCollapsed, *foldedPlan, config);
  return weights;
}

bool ContractionPlanner::shouldFoldTransposition(
    const ContractionShape &sizedContraction,
    const ContractionShape &sizedFolded, std::string *whyNot) const {
  auto refuse = [&](const Twine &reason) {
    if (whyNot)
      *whyNot = reason.str();
    return false;
  };
  // Sized contractions are weighed as long ones, as they are planned
  // (foldTranspositionIntoContraction makes the choice at run time where
  // the weights leave it to the extents).
  std::optional<ContractionShape> plannedContraction =
      sizedContraction.withPlanningExtents();
  std::optional<ContractionShape> plannedFolded =
      sizedFolded.withPlanningExtents();
  if (!plannedContraction || !plannedFolded)
    return refuse("an indexing map is not a projected permutation");
  const ContractionShape &contraction = *plannedContraction;
  const ContractionShape &folded = *plannedFolded;
  std::optional<SmallVector<int64_t>> extents =
      contraction.getStaticLoopExtents();
  if (!extents)
    return refuse("the contraction is not static");
  bool manyTerms = contraction.productOfExtents(*extents,
                                                /*reductionsOnly=*/true) >
                   config.maxSummandsToFoldTransposition;
  TranspositionFoldWeights weights =
      weighTranspositionFold(contraction, folded);
  if (!weights.foldedTiles)
    return refuse("the transposed contraction would not tile: " +
                  weights.foldedWhyNot);
  // Folding saves the copy of the result, but the new columns may be
  // elsewhere than last in a large operand, which is then copied instead:
  // where that copy is more than twice the result, the contraction keeps
  // its own order and the result is transposed after it (TTGT). A packed
  // operand (ContractionTilingPlan::packedInput) is copied a cache block at
  // a time, in cache, and counts for half of its elements: its blocks are
  // transposed in squares all the same. The copies that collapse the
  // reductions count too (weighTranspositionFold weighs each layout as
  // collapsed). The result goes through a temporary, written and read once
  // more (bench/README.md, "The planner's thresholds", has the cases that
  // set the factor of two).
  //
  // With many terms per element the sums outweigh either copy, and the
  // contraction keeps its own order unless folding copies strictly less:
  // where the folded contraction's columns are last in their operand
  // already, the transposition of the result is pure cost.
  // (foldTranspositionIntoContraction computes the same at run time.)
  if (!weights.ownTiles)
    return manyTerms ? refuse("the contraction sums too many terms per element")
                     : true;
  int64_t foldedCopies = 0;
  for (unsigned input : weights.foldedCopies)
    foldedCopies += folded.getInputElements(input);
  if (weights.foldedPacked >= 0)
    foldedCopies += folded.getInputElements(weights.foldedPacked) / 2;
  int64_t ownCopies = folded.getResultElements();
  for (unsigned input : weights.ownCopies)
    ownCopies += contraction.getInputElements(input);
  if (foldedCopies > 2 * ownCopies)
    return refuse("the transposed contraction would copy " +
                  Twine(foldedCopies) +
                  " operand elements, more than twice "
                  "what transposing the result after it would (" +
                  Twine(ownCopies) + ")");
  // Nor where it would lose the panels of an operand (the rows' panels
  // come with the column blocks of L3's width, which a folded contraction
  // of short columns has none of: TCCG ccsd6 at 71).
  if (manyTerms && weights.foldedLosesPanels())
    return refuse(Twine("the contraction sums too many terms per element, "
                        "and the transposed contraction would read its ") +
                  (!weights.foldedLosesRowPanels      ? "columns"
                   : !weights.foldedLosesColumnPanels ? "rows"
                                                      : "columns and rows") +
                  " without the panels the contraction in its own layout "
                  "copies them into");
  if (manyTerms && foldedCopies >= ownCopies)
    return refuse("the contraction sums too many terms per element, and "
                  "the transposed contraction would copy " +
                  Twine(foldedCopies) +
                  " operand elements, no fewer than "
                  "transposing the result after it would (" +
                  Twine(ownCopies) + ")");
  return true;
}

/// The elements that `plan` copies of `shape`'s inputs for its columns, a
/// packed input for half of its elements (as shouldFoldTransposition
/// counts them).
static int64_t elementsCopiedForColumns(const ContractionShape &shape,
                                        const ContractionTilingPlan &plan) {
  int64_t elements = 0;
  for (unsigned input : inputsCopiedForColumns(shape, plan))
    elements += shape.getInputElements(input);
  if (plan.packedInput >= 0)
    elements += shape.getInputElements(plan.packedInput) / 2;
  return elements;
}

bool ContractionPlanner::shouldRelayoutTransposedContraction(
    const ContractionShape &contraction, const ContractionShape &relaid,
    unsigned largest, std::string *whyNot) const {
  auto refuse = [&](const Twine &reason) {
    if (whyNot)
      *whyNot = reason.str();
    return false;
  };
  FailureOr<ContractionTilingPlan> ownPlan = plan(contraction);
  FailureOr<ContractionTilingPlan> relaidPlan = plan(relaid);
  if (failed(ownPlan) || failed(relaidPlan))
    return refuse("one of the layouts does not tile");
  AffineMap map = contraction.getInputMap(largest);
  unsigned last = map.getDimPosition(map.getNumResults() - 1);
  if (ownPlan->columnDim == last)
    return refuse("its largest input gives it its columns already");
  if (relaidPlan->columnDim != last || relaidPlan->packedInput >= 0)
    return refuse("the relaid contraction would not read its largest input "
                  "in place for its columns");
  // Panels of the largest input, which the own layout copies for its
  // columns, serve the register tiles better than reading it in place
  // (a matrix product's panels); panels of a small input do not (TCCG
  // abc-bda-dc at 311: B's 23 columns in panels, A read across its rows).
  if (ownPlan->panelInput == int(largest) && relaidPlan->panelInput < 0)
    return refuse("the relaid contraction would read its columns without "
                  "the panels the own layout copies its largest input into");
  int64_t ownCopies = elementsCopiedForColumns(contraction, *ownPlan);
  int64_t relaidCopies = elementsCopiedForColumns(relaid, *relaidPlan);
  if (relaidCopies > ownCopies)
    return refuse("the relaid contraction would copy " + Twine(relaidCopies) +
                  " operand elements for its columns, more than the own "
                  "layout (" +
                  Twine(ownCopies) + ")");
  return true;
}

TileContractionsConfig
tensorlang::deriveAArch64TileContractionsConfig(const TargetDescription &target,
                                                int64_t elementBytes) {
  TileContractionsConfig config = deriveRegisterTile(target, elementBytes);
  // NEON's 128-bit vectors hold two doubles: a row of two vectors would
  // feed each broadcast to two FMAs of two lanes. Rows of four vectors, as
  // many as leave four for the columns' operand and two spare (6 of 32),
  // as BLIS's armv8a 6x8 dgemm. SVE's wider vectors keep rows of two, and
  // the 32 registers take 10 of them (BLIS's A64FX kernel, 10 x 2 vectors).
  int64_t vectorsPerRow = target.vectorBits <= 128 ? 4 : 2;
  config.maxRegisterRows = 10;
  config.registerColumns = vectorsPerRow * config.vectorLanes;
  config.registerRows = std::clamp<int64_t>(
      (target.vectorRegisters - vectorsPerRow - 2) / vectorsPerRow, 1,
      config.maxRegisterRows);
  // Four FMA pipes of four cycles (Neoverse N2, V1, V2); A64FX's two of
  // nine come close.
  config.fmasInFlight = 16;
  config.tilesSizedContractions = !target.scalableVectors;
  deriveCacheTiles(target, elementBytes, config);
  return config;
}

namespace {
/// Goto's two levels of tiles (planTwoLevelTiles) on a configuration that
/// a target-specific derivation gave.
class TwoLevelTilePlanner : public ContractionPlanner {
public:
  TwoLevelTilePlanner(StringRef name, TileContractionsConfig config)
      : ContractionPlanner(config), name(name) {}
  StringRef getName() const override { return name; }
  FailureOr<ContractionTilingPlan> plan(const ContractionShape &contraction,
                                        std::string *whyNot) const override {
    return planTwoLevelTiles(contraction, config, whyNot);
  }
  using ContractionPlanner::plan;

private:
  std::string name;
};

struct RegisteredPlanner {
  std::string name;
  ContractionPlannerFactory factory;
  std::function<bool(const TargetDescription &)> isDefaultFor;
};

} // namespace

/// The registry, with the built-in planners first.
static std::vector<RegisteredPlanner> &getRegistry() {
  static std::vector<RegisteredPlanner> registry = [] {
    std::vector<RegisteredPlanner> planners;
    planners.push_back(
        {"cpu",
         [](const TargetDescription &target, int64_t elementBytes) {
           return std::make_unique<TwoLevelTilePlanner>(
               "cpu", deriveTileContractionsConfig(target, elementBytes));
         },
         [](const TargetDescription &) { return true; }});
    planners.push_back(
        {"aarch64",
         [](const TargetDescription &target, int64_t elementBytes) {
           return std::make_unique<TwoLevelTilePlanner>(
               "aarch64",
               deriveAArch64TileContractionsConfig(target, elementBytes));
         },
         [](const TargetDescription &target) {
           StringRef triple = target.triple;
           return triple.starts_with("aarch64") || triple.starts_with("arm64");
         }});
    return planners;
  }();
  return registry;
}

static std::mutex &getRegistryMutex() {
  static std::mutex mutex;
  return mutex;
}

void tensorlang::registerContractionPlanner(
    StringRef name, ContractionPlannerFactory factory,
    std::function<bool(const TargetDescription &)> isDefaultFor) {
  std::lock_guard<std::mutex> lock(getRegistryMutex());
  std::vector<RegisteredPlanner> &registry = getRegistry();
  llvm::erase_if(registry, [&](const RegisteredPlanner &planner) {
    return planner.name == name;
  });
  registry.push_back({name.str(), std::move(factory), std::move(isDefaultFor)});
}

std::unique_ptr<ContractionPlanner> tensorlang::createContractionPlanner(
    StringRef name, const TargetDescription &target, int64_t elementBytes) {
  ContractionPlannerFactory factory;
  {
    std::lock_guard<std::mutex> lock(getRegistryMutex());
    for (const RegisteredPlanner &planner : llvm::reverse(getRegistry())) {
      bool chosen = name.empty()
                        ? planner.isDefaultFor && planner.isDefaultFor(target)
                        : planner.name == name;
      if (chosen) {
        factory = planner.factory;
        break;
      }
    }
  }
  // Called unlocked: a factory may wrap another registered planner.
  return factory ? factory(target, elementBytes) : nullptr;
}

SmallVector<std::string> tensorlang::getContractionPlannerNames() {
  std::lock_guard<std::mutex> lock(getRegistryMutex());
  SmallVector<std::string> names;
  for (const RegisteredPlanner &planner : getRegistry())
    names.push_back(planner.name);
  llvm::sort(names);
  return names;
}

void ContractionTilingPlan::print(llvm::raw_ostream &os) const {
  auto printDims = [&](ArrayRef<int64_t> dims) {
    os << '[';
    llvm::interleave(dims, os, [&](int64_t dim) { os << 'd' << dim; }, ",");
    os << ']';
  };
  auto printSizes = [&](ArrayRef<int64_t> sizes) {
    os << '[';
    llvm::interleave(sizes, os, ",");
    os << ']';
  };
  os << "rows=";
  if (hasRows)
    os << 'd' << rowDim;
  else
    os << "none";
  os << " columns=d" << columnDim << " depth=d" << depthDim << " cache=";
  printSizes(cacheTiles);
  os << " register=";
  printSizes(registerTiles);
  os << " cache-order=";
  printDims(cacheOrder);
  os << " register-order=";
  printDims(registerOrder);
  os << " split=";
  if (splitAt)
    os << 'd' << splitDim << '@' << splitAt;
  else
    os << "none";
  if (copiedBlockInput >= 0)
    os << " copy=in" << copiedBlockInput;
  if (packedInput >= 0)
    os << " pack=in" << packedInput;
  if (panelInput >= 0)
    os << " panels=in" << panelInput;
  if (rowPanelInput >= 0)
    os << " row-panels=in" << rowPanelInput;
  if (sizedPanelInput >= 0)
    os << " sized-panels=in" << sizedPanelInput;
  if (sizedRowPanelInput >= 0)
    os << " sized-row-panels=in" << sizedRowPanelInput;
  if (threadColumns == kThreadColumnsAtRunTime)
    os << " thread-columns=run-time";
  else if (threadColumns > 0)
    os << " thread-columns=" << threadColumns;
}
