//===- ContractionPlan.h - Where the loops of a contraction go --*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The decision half of tl-tile-contractions: a pure function from a
// contraction and a description of the target to the tiles it gets. The
// rewrites (TileContractions.h) carry a plan out; keeping the two apart lets
// a test (the pass's `emit-remarks`) check a plan without reading the IR the
// rewrites make of it.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_CONTRACTIONPLAN_H
#define TENSORLANG_TRANSFORMS_CONTRACTIONPLAN_H

#include "tensorlang/Transforms/Defaults.h"
#include "tensorlang/Transforms/TargetDescription.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

namespace tensorlang {

/// The target and the thresholds of the cost model. The sizes down to
/// `wholeDepthPanelBytes`, and `maxTransposedElements`, are derived from a
/// TargetDescription (deriveTileContractionsConfig; the defaults here are
/// what it derives for f64 on its default target, an AVX-512 core with a
/// 48 KiB L1 and a 1 MiB L2). The other thresholds count uses and terms,
/// which no cache size changes; they were tuned on the TCCG and CFD
/// kernels (docs/compiler.md).
struct TileContractionsConfig {
  /// Elements per vector register (0: unknown). Where `registerColumns` is
  /// two registers and does not divide the columns, three may.
  int64_t vectorLanes = 0;
  /// Whether contractions whose extents are sizes are tiled (their edges
  /// are masked vector accesses, which LLVM 22 does not legalize for SVE's
  /// fixed-length vectors: A64FX compiles them untiled).
  bool tilesSizedContractions = true;
  /// Vector registers: bounds the rows of a register tile (its accumulators,
  /// plus a vector of each operand, must fit).
  int64_t vectorRegisters = 32;
  /// Result rows x columns per register tile (columns: a multiple of the
  /// vector width).
  int64_t registerRows = 8;
  int64_t registerColumns = 16;
  /// Result rows x columns, and steps of the depth, per cache tile.
  int64_t cacheRows = 64;
  int64_t cacheColumns = 256;
  int64_t cacheDepth = 256;
  /// The depth stays whole while the panel of the columns' operand over all
  /// of it (depth x columns) takes at most this many bytes: each register
  /// tile then sums its elements from start to end.
  int64_t wholeDepthPanelBytes = kWholeDepthPanelBytes;
  /// Distribute the outermost parallel loop of cache tiles over threads.
  bool parallel = false;
  /// The threads that share that loop (0: unknown).
  int64_t threads = 0;

  /// Independent FMAs the core keeps in flight (FMA latency x FMA ports:
  /// 4 x 2 on the x86-64 cores of the last decade): a register tile with
  /// no more accumulators than this leaves the FMA units waiting.
  int64_t fmasInFlight = 8;

  /// Reductions other than the depth longer than this are blocked for the
  /// caches, in blocks of at most `otherReductionBlock` steps: unblocked,
  /// each register tile runs over operand slices that leave L2.
  int64_t maxWholeOtherReduction = 16;
  int64_t otherReductionBlock = 8;
  /// Uses of each element of an operand from which on it is worth copying
  /// it into the layout the register tiles want, or reading it a second
  /// time (split-off columns).
  int64_t manyUses = 256;
  /// Operands up to this many elements (32K doubles: L1/L2-resident) are
  /// copied into the layout the register tiles want however often each
  /// element is used.
  int64_t maxTransposedElements = int64_t(1) << 15;
  /// Uses of each element of a larger operand that has the columns
  /// elsewhere than last from which on it is copied into the layout the
  /// register tiles want, rather than the contraction left untiled. The
  /// untiled loop nest runs 5-15x slower than the micro-kernels, and a
  /// copy read N times costs about 1/N of the work per element.
  int64_t minUsesToTransposeForColumns = 16;
  /// A contraction of at most this many terms per element computes straight
  /// into the layout of the transposition that is its only use unless
  /// that copies more than twice as much; one of more terms only where that
  /// copies strictly less (ContractionPlanner::shouldFoldTransposition).
  int64_t maxSummandsToFoldTransposition = 256;
  /// A contraction split in two (ContractionTilingPlan::splitAt) of at
  /// most this many terms per element computes both parts in each step of
  /// the loops around its register tiles (they share the operand slices in
  /// cache) rather than one part after the other over all of them, which
  /// streams the operands once per part.
  int64_t maxSummandsToShareLoops = 1024;
  /// Bytes per cache line: a sum to a scalar that reads an operand across
  /// its rows is blocked a line of that operand at a time.
  int64_t cacheLineBytes = 64;

  /// Most rows of a register tile, whatever the registers (rows x 2 / (rows
  /// + 2) loads per FMA barely fall past 8, while fewer extents divide).
  int64_t maxRegisterRows = 8;
  /// From this many register tiles of the tallest kind on, the rows are cut
  /// into the tallest tiles and a rest, rather than into a divisor.
  int64_t manyRowTiles = 16;
  /// Bytes of a packed or panelled operand block that stay in L2 while the
  /// register tiles read it (half of L2).
  int64_t l2BlockBytes = int64_t(512) << 10;
  /// Bytes of a columns' block that stay in one core's share of L3 while
  /// the row blocks go past it (half of it; 0: no L3 described, or the L2
  /// rule's blocks are wide enough without it: deriveCacheTiles).
  int64_t l3BlockBytes = 0;
  /// Most rows of a cache tile whose columns' block stays in L3 rather than
  /// L2 (cacheRowsFor; 0: as cacheRows).
  int64_t l3CacheRows = 0;
  /// Rows of an operand this many bytes apart, or a multiple, share the
  /// sets of L2 (its size over its ways: 16 assumed) ...
  int64_t l2SetPeriodBytes = int64_t(64) << 10;
  /// ... and fall in few of them where they share this many bytes of the
  /// period (a page).
  int64_t minSetSpreadBytes = 4096;
  /// A cache tile's block of the columns' operand whose rows conflict in
  /// L2 is copied contiguous first from this many depth steps on (below, it
  /// fits the caches whatever its sets).
  int64_t minDepthStepsToCopyBlock = 64;
  /// The columns' operand is copied into panels where each element serves
  /// this many rows or more ...
  int64_t minPanelReuse = 64;
  /// ... and its block fits l2BlockBytes (or l3BlockBytes), or the tiles
  /// read all of it this many times or more.
  int64_t minPanelPasses = 3;
  /// The rows' operand is copied into panels of rows where its rows are at
  /// least this many bytes apart (a page) ...
  int64_t minRowStrideBytes = 4096;
  /// ... and each of its register tiles of rows serves this many register
  /// tiles of columns or more.
  int64_t minRowPanelReuse = 24;
  /// A contraction over sizes gets a second version, planned with every
  /// size as kShortPlanningExtentOfSize and chosen at run time where every
  /// size of its loops is at most this (twice the depth block; 0: none).
  int64_t maxShortSize = 512;
  /// A contraction over sizes whose plan takes register tiles of three
  /// vectors of columns where they are multiples of them gets a version so
  /// planned, chosen at run time (versionContractionForWideColumns).
  bool wideColumnVersions = true;

  /// Elements of `elementBytes` bytes per cache line (8 doubles).
  int64_t lineElements(int64_t elementBytes) const {
    return std::max<int64_t>(1, cacheLineBytes / std::max<int64_t>(1, elementBytes));
  }
  /// Whether every size is positive: the plan divides by them.
  bool hasPositiveSizes() const {
    return registerRows >= 1 && registerColumns >= 1 && cacheRows >= 1 &&
           cacheColumns >= 1 && cacheDepth >= 1 && otherReductionBlock >= 1 &&
           cacheLineBytes >= 1;
  }
};

/// ContractionTilingPlan::threadColumns of columns whose extent is a size:
/// each thread's share is computed at run time.
constexpr int64_t kThreadColumnsAtRunTime = -1;

/// Where the loops of one contraction go. Dimensions are loop dimensions of
/// the contraction (d0, d1, ... of its indexing maps).
struct ContractionTilingPlan {
  /// The register tile's columns (the result's last dimension), its rows
  /// (when `hasRows`), and the depth: of the reductions at least half as
  /// long as the longest, the one whose steps are closest together in the
  /// rows' operand, the longest of those.
  unsigned rowDim = 0, columnDim = 0, depthDim = 0;
  bool hasRows = false;
  /// Where the loop dimension `splitDim` is cut in two contractions first
  /// (`splitAt` 0: nothing is): the columns, where the rest after their
  /// register tiles is no whole vector (75 = 64 + 11), and a packed
  /// input's last dimension where the lanes do not divide it. A plan that
  /// splits has no tiles; each part is planned again. Other extents that no
  /// tile size near the preferred one divides get tiles that do not divide
  /// them, whose last, partial step peelPartialTiles makes a tile of its own
  /// (71 = 8 x 8 + 7 rows).
  unsigned splitDim = 0;
  int64_t splitAt = 0;
  /// Per loop dimension; 0 leaves the dimension untiled at that level. A
  /// tile need not divide the extent (nor a register tile the cache
  /// tile).
  llvm::SmallVector<int64_t> cacheTiles, registerTiles;
  /// Loop order of each level, outermost first.
  llvm::SmallVector<int64_t> cacheOrder, registerOrder;
  /// The input (operand number) whose block each cache tile reads is first
  /// copied into a contiguous tensor, out of the row blocks' loops; -1:
  /// none. It is the columns' operand where its rows conflict in the
  /// caches (rowsConflictInCaches: a multiple of 4 KiB apart).
  int copiedBlockInput = -1;
  /// The input (operand number) whose block each cache tile reads is
  /// copied with the columns last, out of the register tiles' loops, where
  /// it has them elsewhere and is too large to transpose whole: the GETT
  /// packing (TCCG abcde-ecbfa-fd: A, 906 MB, has the columns first and a
  /// batch dimension last). Its last dimension, `packedDim`, is a batch
  /// dimension, cut into blocks of a vector's lanes (the squares in which
  /// tl-tile-transpositions copies the block), every other batch
  /// dimension into blocks of one; -1: none.
  int packedInput = -1;
  unsigned packedDim = 0;
  /// The input (operand number), with the columns last, whose block each
  /// cache tile copies into panels of the register tile's width, one after
  /// the other, [column tile][its other dimensions][register columns], out
  /// of the row blocks' loops: each register tile then reads its columns'
  /// vectors from one contiguous, aligned run per depth step, as BLIS's
  /// micro-kernel reads its packed B, rather than from rows of the input
  /// (TCCG ccsd6 at 71: rows 568 B apart, each vector load straddling two
  /// cache lines); -1: none. Where it is chosen, no block is copied
  /// (`copiedBlockInput`).
  int panelInput = -1;
  /// The input (operand number) with the rows, whose block each cache tile
  /// copies into panels of the register tile's rows, [row tile][its other
  /// dimensions][register rows], where its rows are far apart and many
  /// register tiles of columns read each of them: each depth step of a
  /// register tile then broadcasts its rows' elements from one line, as
  /// BLIS's micro-kernel reads its packed A, rather than from as many
  /// rows (TCCG ab-ac-cb: 8 rows 41 KB apart, each row block's first
  /// reads from memory); -1: none.
  int rowPanelInput = -1;
  /// The inputs (operand numbers) whose blocks the cache tiles whose
  /// extents are sizes copy into panels of columns and of rows, zero-padded
  /// so that the register tiles at the edges read whole panels; -1: none.
  /// Each element of such a block serves a number of register tiles that
  /// depends on the sizes: the copy is made where it pays even with every
  /// size as short as kShortExtentOfSize (TCCG ccsd_t: each element of a
  /// block of A serves the steps of three dimensions A lacks; of
  /// abcde-efbad-cf, the steps of one, 24 at TCCG's extents), and where the
  /// panels' dimension is a size or its steps are a size apart (a small
  /// fixed matrix reads as well in place).
  int sizedPanelInput = -1;
  int sizedRowPanelInput = -1;
  /// The columns each thread takes (0: the threads share the column
  /// blocks, or another dimension; kThreadColumnsAtRunTime: computed from
  /// the size the columns are, at run time): a share of whole register
  /// tiles, one per thread, that the column blocks (`cacheTiles`) then
  /// tile as they would one thread's columns. Shares keep the blocks of one
  /// thread where blocks that divide the columns would be narrow (2032 = 16 x
  /// 127 columns: blocks of 16 columns, each reading the rows' operand
  /// again).
  int64_t threadColumns = 0;

  /// One line: `rows=d0 columns=d2 depth=d1 cache=[64,256,0]
  /// register=[8,1,16] cache-order=[d2,d1,d0] register-order=[d0,d2,d1]
  /// split=none` (tiles per loop dimension, 0: whole), or with
  /// `split=d2@64` and no tiles; ` copy=in1` after it where a block of
  /// input 1 is copied, ` pack=in0` where input 0's blocks are copied with
  /// the columns last, ` panels=in1` where input 1's blocks are copied
  /// into panels, ` row-panels=in0` where input 0's are copied into panels
  /// of rows; ` sized-panels=in1` and ` sized-row-panels=in0` likewise for
  /// the cache tiles whose extents are sizes; ` thread-columns=1016` where
  /// each thread takes a share of the columns (`thread-columns=run-time`
  /// where the columns are a size).
  void print(llvm::raw_ostream &os) const;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const ContractionTilingPlan &plan) {
  plan.print(os);
  return os;
}

/// What a planner reads of a contraction: how each operand indexes its
/// loops, the loops' kinds, the operands' shapes and the element width. It
/// is read from a linalg.generic (`get`), or made for a layout that the IR
/// does not have yet (`withResultMap`: the contraction computed into the
/// layout of a transposition of its result), so that weighing a rewrite
/// needs no IR built and erased.
/// The extent a planner assumes for a loop whose extent is a size: larger
/// than the caches' tiles (a matrix of them is several times L2), a
/// multiple of the tile sizes the targets take (2^8 x 5: 256, 64, 16, 8),
/// and small enough that a tensor of six sized dimensions counts its
/// elements in 64 bits (the planner's comparisons of copies saturate
/// beyond, and mislead).
constexpr int64_t kPlanningExtentOfSize = 1280;

/// The extent a planner assumes for a size where a copy must pay however
/// short the sizes are at run time (the panels of a sized cache tile): a
/// copy that pays only for long extents slows short ones down several
/// times, where one not made costs long ones a fraction. TCCG's shortest
/// extents are 16.
constexpr int64_t kShortExtentOfSize = 16;

/// The extent a planner assumes for the sizes of the version of a sized
/// contraction that runs where every size is short
/// (versionContractionForShortSizes): shorter than every cache tile, so
/// that the plan takes the extents whole, as a fixed program's plan takes
/// TCCG's extents of 24 to 312.
constexpr int64_t kShortPlanningExtentOfSize = 32;

/// The extent a planner assumes for the sizes of the version of a sized
/// contraction planned with them as `extent` that runs where its columns
/// are a multiple of three vectors of `lanes`
/// (versionContractionForWideColumns): the odd multiple of three vectors
/// closest below `extent` or just above, which three vectors divide and two
/// do not, so that the plan takes register tiles of three vectors
/// (columnWidth) as a fixed program's plan does for TCCG's 24 and 72: 1272
/// for long sizes and 24 for short ones with 8 lanes.
constexpr int64_t getWidePlanningExtentOfSize(int64_t extent, int64_t lanes) {
  int64_t wide = 3 * std::max<int64_t>(1, lanes);
  return (extent / wide | 1) * wide;
}

/// Most loops of a contraction that gets a version for short sizes. TCCG's
/// ccsd_t contractions (seven loops, extents of 16 to 24) ran 0.4 to 0.9
/// times as fast with it as with the plan for long sizes alone, where
/// those of four to six loops ran 1.05 to 1.5 times as fast
/// (bench/README.md).
constexpr unsigned kMaxLoopsOfShortVersion = 6;

/// The attribute of a contraction over sizes that sets the extent its
/// planner assumes for them (ContractionShape::planningExtentOfSize).
constexpr llvm::StringLiteral kPlanningExtentAttrName = "tl.planning_extent";
/// The attribute of the contractions of the versions of a contraction for
/// columns of three vectors and for others
/// (versionContractionForWideColumns), which are not versioned again.
constexpr llvm::StringLiteral kColumnsVersionedAttrName =
    "tl.columns_versioned";

struct ContractionShape {
  /// The inputs' indexing maps, then the result's.
  llvm::SmallVector<mlir::AffineMap> indexingMaps;
  llvm::SmallVector<mlir::utils::IteratorType> iteratorTypes;
  /// The inputs' shapes, then the result's (dynamic extents as
  /// ShapedType::kDynamic).
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandShapes;
  int64_t elementBytes = 8;
  /// Whether the operands are tensors (not buffers).
  bool onTensors = true;
  /// Whether the body is `out + in0 * in1` (isMultiplyAccumulate).
  bool multiplyAccumulate = false;
  /// The extent assumed for each size (withPlanningExtents): the
  /// contraction's `tl.planning_extent`, else kPlanningExtentOfSize.
  int64_t planningExtentOfSize = kPlanningExtentOfSize;

  static ContractionShape get(mlir::linalg::GenericOp op);
  /// The same contraction with the result indexed by `resultMap` and of
  /// shape `resultShape`.
  ContractionShape withResultMap(mlir::AffineMap resultMap,
                                 llvm::ArrayRef<int64_t> resultShape) const;

  unsigned getNumLoops() const { return iteratorTypes.size(); }
  unsigned getNumInputs() const { return indexingMaps.size() - 1; }
  mlir::AffineMap getInputMap(unsigned input) const {
    return indexingMaps[input];
  }
  mlir::AffineMap getResultMap() const { return indexingMaps.back(); }
  bool isReduction(unsigned dim) const {
    return iteratorTypes[dim] == mlir::utils::IteratorType::reduction;
  }
  unsigned getNumReductionLoops() const;
  llvm::SmallVector<unsigned> getReductionDims() const;
  /// Elements of input `input` (saturated; 0 where dynamic).
  int64_t getInputElements(unsigned input) const;
  int64_t getResultElements() const;
  /// The extent of every loop, where all are static and every map is a
  /// projected permutation.
  std::optional<llvm::SmallVector<int64_t>> getStaticLoopExtents() const;
  /// Whether some loop's extent is known only at run time (a size).
  bool hasSizedExtents() const;
  /// The same contraction with each extent known only at run time replaced
  /// by planningExtentOfSize, where every map is a projected permutation:
  /// a planner plans a sized contraction as a large one (the version for
  /// short sizes as a short one), and the rewrites pad its partial tiles
  /// at run time.
  std::optional<ContractionShape> withPlanningExtents() const;
  /// The product of `extents` over the loops, or over the reductions only
  /// (saturated).
  int64_t productOfExtents(llvm::ArrayRef<int64_t> extents,
                           bool reductionsOnly) const;
};

/// The tiles and byte thresholds for elements of `elementBytes` bytes on
/// `target` (docs/compiler.md, "The target description"):
/// - register tile: two vectors of columns, and as many rows as leave a
///   vector of each operand and two spare among the registers, at most 8
///   (16 registers: 6 x 2 vectors; 32: 8 x 2);
/// - depth block: the register tile's operand slivers over it (rows +
///   columns elements per step) fit L1, rounded down to a power of two
///   between 32 and 512;
/// - cache columns: the columns' operand block (depth x columns) fits half
///   of L2; cache rows: the rows' block fits an eighth of it;
/// - the whole depth stays unblocked while its panel fits a quarter of L2,
///   and operands of up to a quarter of L2 are always transposed.
TileContractionsConfig
deriveTileContractionsConfig(const TargetDescription &target,
                             int64_t elementBytes);

/// Whether rows `strideBytes` apart fall on few sets of L2: a multiple of
/// 4 KiB apart, they take at most 16 offsets within the 64 KiB over which
/// the sets of a 1 MiB, 16-way L2 repeat, so that a block of many such rows
/// cannot stay in L2 (rows of 768 doubles, 6 KiB apart, take 32 offsets
/// and are as fast copied or not; rows of 1024 take 8).
bool rowsConflictInCaches(int64_t strideBytes,
                          const TileContractionsConfig &config);

/// Whether the body of `op` is `out + in0 * in1`: what a vector contraction
/// of a register tile computes.
bool isMultiplyAccumulate(mlir::linalg::GenericOp op);

/// Decides the tiles of contractions for one kind of target, from a
/// configuration derived from the target description. The rewrites of
/// tl-tile-contractions (TileContractions.h) carry a plan out whichever
/// planner made it, so that a target plugs in a planner of its own
/// (registerContractionPlanner) without touching them.
class ContractionPlanner {
public:
  explicit ContractionPlanner(TileContractionsConfig config) : config(config) {}
  virtual ~ContractionPlanner();

  /// The planner's name, as the `planner` option and the remarks say it.
  virtual llvm::StringRef getName() const = 0;

  /// The tiles of `contraction`: cache tiles, register tiles and their
  /// loop orders, or a split of one loop in two contractions first. Fails
  /// for contractions the planner does not tile, with the reason in
  /// `whyNot` when given.
  virtual mlir::FailureOr<ContractionTilingPlan>
  plan(const ContractionShape &contraction,
       std::string *whyNot = nullptr) const = 0;

  /// Whether `contraction`, whose only use transposes its result, is better
  /// computed straight into the transposed layout (`folded`, the same
  /// contraction with the transposition's result map) than in its own
  /// layout with the copy after it (TTGT). Says why not in `whyNot`.
  virtual bool shouldFoldTransposition(const ContractionShape &contraction,
                                       const ContractionShape &folded,
                                       std::string *whyNot = nullptr) const;

  /// Whether `contraction`, whose only use is a transposition that is not
  /// folded into it, is better computed into `relaid`: its own layout with
  /// the last dimension of its largest input, `largest`, moved last, so
  /// that the columns are that input's unit-stride rows, read in place,
  /// where the own layout reads it across its rows (TCCG abc-bda-dc: each
  /// register tile of the own layout walks 312 lines 2.5 KB apart). The
  /// transposition after it stays, from `relaid`. Says why not in `whyNot`.
  virtual bool shouldRelayoutTransposedContraction(
      const ContractionShape &contraction, const ContractionShape &relaid,
      unsigned largest, std::string *whyNot = nullptr) const;

  /// What shouldFoldTransposition weighs, as the plans of both layouts
  /// give it, each with its reductions collapsed where
  /// collapseContractionReductions collapses them: the inputs each copies
  /// whole (to collapse its reductions or for its columns). A sized
  /// contraction's choice depends on its extents, and is made at run time
  /// from these (foldTranspositionIntoContraction).
  struct TranspositionFoldWeights {
    /// Whether the folded contraction tiles at all (else it is not folded).
    bool foldedTiles = false;
    std::string foldedWhyNot;
    /// Whether the contraction in its own layout tiles.
    bool ownTiles = false;
    /// The inputs the folded contraction copies whole, and the one whose
    /// blocks it packs (-1: none, or copied whole already), which counts
    /// for half.
    llvm::SmallVector<unsigned> foldedCopies;
    int foldedPacked = -1;
    /// The inputs the contraction in its own layout copies whole (the
    /// transposition of its result comes on top).
    llvm::SmallVector<unsigned> ownCopies;
    /// Whether the own layout copies the columns' operand into panels and
    /// the folded one does not; the same of the rows' operand.
    bool foldedLosesColumnPanels = false;
    bool foldedLosesRowPanels = false;
    bool foldedLosesPanels() const {
      return foldedLosesColumnPanels || foldedLosesRowPanels;
    }
    /// Where a layout's plan copies the rows' operand into panels: the
    /// loops (of the contraction before its reductions collapse) whose
    /// extents multiply into its columns, and the fewest columns that make
    /// the panels pay (rowPanelInput). Over sizes, whether a layout has
    /// that many is known at run time only: the folded contraction of TCCG
    /// ccsd6 has one size of columns, its own layout the product of two.
    struct RowPanelColumns {
      llvm::SmallVector<unsigned> loops;
      int64_t minColumns = 0;
    };
    std::optional<RowPanelColumns> ownRowPanelColumns, foldedRowPanelColumns;
    /// Whether the folded contraction may lose the rows' panels at run
    /// time where it keeps them at the extents weighed: both layouts have
    /// them, and their columns are different loops.
    bool foldedMayLoseRowPanels() const {
      return ownRowPanelColumns && foldedRowPanelColumns &&
             ownRowPanelColumns->loops != foldedRowPanelColumns->loops;
    }
  };
  TranspositionFoldWeights
  weighTranspositionFold(const ContractionShape &contraction,
                         const ContractionShape &folded) const;

  mlir::FailureOr<ContractionTilingPlan>
  plan(mlir::linalg::GenericOp op, std::string *whyNot = nullptr) const {
    return plan(ContractionShape::get(op), whyNot);
  }

  const TileContractionsConfig &getConfig() const { return config; }
  /// For options that override derived values.
  TileContractionsConfig &getConfig() { return config; }

protected:
  TileContractionsConfig config;
};

/// Makes a planner for elements of `elementBytes` bytes on `target`,
/// deriving its configuration from the target.
using ContractionPlannerFactory =
    std::function<std::unique_ptr<ContractionPlanner>(
        const TargetDescription &target, int64_t elementBytes)>;

/// Registers planner `name`, the default for the targets for which
/// `isDefaultFor` holds (the last registered wins). The built-in ones:
/// `cpu` (Goto's two levels of tiles, derived from
/// deriveTileContractionsConfig; every target's default) and `aarch64`
/// (the same plans, with register tiles derived as BLIS's AArch64
/// micro-kernels are: the default for AArch64 triples).
void registerContractionPlanner(
    llvm::StringRef name, ContractionPlannerFactory factory,
    std::function<bool(const TargetDescription &)> isDefaultFor = nullptr);

/// Planner `name` for `target`, or the target's default where `name` is
/// empty; null where no planner has that name.
std::unique_ptr<ContractionPlanner>
createContractionPlanner(llvm::StringRef name, const TargetDescription &target,
                         int64_t elementBytes);

/// The registered planners' names, sorted.
llvm::SmallVector<std::string> getContractionPlannerNames();

/// The register tile of deriveAArch64TileContractionsConfig: on 128-bit
/// NEON, 6 rows of 4 vectors (BLIS's armv8a 6x8 dgemm); on wider SVE, up
/// to 10 rows of 2 vectors (BLIS's A64FX 10x2 vectors).
TileContractionsConfig
deriveAArch64TileContractionsConfig(const TargetDescription &target,
                                    int64_t elementBytes);

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_CONTRACTIONPLAN_H
