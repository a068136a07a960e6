//===- Passes.td - TensorLang passes on upstream IR ---------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The code generator's passes, grouped by the IR they work on; their sources
// are in the matching subfolders of lib/Transforms (tests: test/Transforms).
// Stage by stage (lib/Pipelines/Pipelines.cpp), the groups run in order:
//
//   Tensor/  linalg on tensors          tl-tile-linalg
//            tl-fuse-batches, tl-tile-contractions
//   Buffer/  linalg and vectors on      tl-lower-to-loops, after bufferization
//            buffers                    (tl-bufferize)
//            tl-lower-contraction-vectors, tl-strided-copies-to-loops
//   Loops/   affine loops on buffers    tl-lower-to-loops, after
//                                       convert-linalg-to-affine-loops
//            tl-parallelize-outer-loops, tl-vectorize-parallel-loops,
//            tl-streaming-stores
//   LLVM/    the lowering to the LLVM   tl-lower-to-llvm
//            dialect
//            tl-strip-annotations (first: func.func attributes the LLVM IR
//            translation does not know), tl-huge-page-temporaries (last: on
//            the LLVM dialect)
//
// The definitions below follow that order.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_PASSES_TD
#define TENSORLANG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Tensor/: linalg on tensors
//===----------------------------------------------------------------------===//

def FuseBatches : Pass<"tl-fuse-batches", "::mlir::func::FuncOp"> {
  let summary = "Compute chains of statements one batch slice at a time, "
                "so that their intermediates stay in cache";
  let description = [{
    A chain of `linalg.generic`s on tensors in which each producer is read
    by its single consumer along the same leading dimension (the element
    index `e` of the CFD kernels: `t = u # A . [[4 6]]`, then `t # A`, ...)
    computes whole intermediates that, at real sizes, go to memory and back
    between the steps, and are allocated and freed on every call. This pass
    tiles the last statement of such a chain along that dimension and fuses
    the statements before it, and the fills of their accumulators, into the
    loop (`scf::tileConsumerAndFuseProducersUsingSCF`): each iteration
    computes the whole chain for `tile` batch indices, on intermediates of
    at most `tile-bytes` together, which bufferization then allocates once,
    outside the loop.

    A producer is fused only where no element is computed twice: it has
    one use, and its consumer reads exactly the producer's batch slice
    (the leading dimension, tiled; all others whole), and where it would
    not stream an input that the batch does not index, larger than the L1
    tile, with fewer uses of each element per batch index than a register
    tile has rows (a contraction whose rows are the batch, over a static
    batch: it is computed whole, as is a chain's last statement of that
    kind, whose producers then form chains of their own). Chains whose
    intermediates total less than `min-intermediate-bytes` are left alone:
    they stay in cache anyway, and the contraction tiler does better on
    whole operands; so are chains with a contraction of 256 or more terms
    per element over several reductions (bound by its FMAs; whole, its
    reductions can be collapsed into one depth). With `threads` above 1, an `scf.forall` over one share
    of the batches per thread comes first, the batch loop inside it.

    A generic whose leading dimension has a run-time extent (a program's
    size), all its other loops static, is tiled by one batch index, with
    its chain if it has one and alone if not: every slice is then static,
    so the contraction tiler and the vectorizer treat the loop body as they
    treat a program with fixed extents. (With threads, an `scf.forall`
    over one share of the batch indices per thread first.) A chain whose
    leading dimension is static and whose other loops include sizes (the
    element index last, `[11 11 11 E]`) is fused on the CPU as over a static batch,
    its intermediates' bytes weighed with every size at the extent sized
    contractions are planned for (1280). A chain whose leading dimension
    and other loops are sizes is tiled by one batch index on the CPU,
    keeping its sizes inside; such a generic alone is left whole.

    A generic with one loop of run-time extent that indexes another
    dimension of its result (the element index last, `[11 11 11 E]`) is
    tiled along it, alone, and the last, partial tile is peeled off and
    computed after the loop: the loop's tiles are static. Along the
    result's last dimension a tile is 64 indices (a multiple of every
    vector length; the remainder is under 64), elsewhere at most
    `tile-bytes` of result.
  }];
  let options = [
    Option<"tileBytes", "tile-bytes", "int64_t", "0",
           "Most bytes of fused intermediates per batch tile (0: the "
           "largest power of two within the L1 of the module's tl.target)">,
    Option<"minIntermediateBytes", "min-intermediate-bytes", "int64_t",
           "::tensorlang::kFuseBatchesMinBytes",
           "Fuse a chain only if its intermediates total at least this">,
    Option<"threads", "threads", "unsigned", "1",
           "Above 1: an scf.forall first gives each thread one contiguous "
           "share of the batches, which it runs through sequentially">,
    Option<"interlace", "interlace", "bool", "false",
           "Tile chains of small elements by the register tile's columns "
           "of batch indices, for tl-interlace-batches (see its "
           "description): the loop of whole tiles is marked "
           "tl.interlace_batches, the rest computed one index at a time">,
    Option<"forGPU", "for-gpu", "bool", "false",
           "For the GPU target (tl-gpu-map-loops, which runs each batch "
           "loop as one kernel of one block per batch index): every chain "
           "and every generic of sized batch, one batch index per "
           "iteration, whatever its bytes; no inner sized loops; the "
           "loops marked tl.batch_loop">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def InterlaceBatches : Pass<"tl-interlace-batches", "::mlir::func::FuncOp"> {
  let summary = "Compute the batch slices of small elements with the batch "
                "index last, across the vector lanes";
  let description = [{
    A per-element kernel whose elements' innermost extent fills no whole
    vector (the CFD kernels' p = 11 doubles: a vector of 8 and 3 lanes of
    another) leaves lanes idle in every FMA of its contractions.
    tl-fuse-batches tiles a chain of two or more such contractions by the
    register tile's columns of batch indices (16 doubles on AVX-512) and
    marks the loop of whole tiles `tl.interlace_batches`. In each such
    loop, this pass computes the slice with the batch dimension last in
    every tensor of the chain, as libCEED's blocked backends interlace
    elements: the batch slices of the chain's inputs are transposed in
    (`linalg.transpose`), the statements index the batch last, so that
    their contractions take it as their columns and run full vectors along
    it, and the result is transposed back into the output's slice. The
    slices are a few hundred KB, in L2.

    A loop whose body is not such a chain (a generic that reads a batched
    tensor other than through its batch index first, or an intermediate as
    its accumulator; a result used outside the chain) is left as it is,
    and no longer marked.

    The pipeline runs it only with `interlace-batches` (`--interlace-batches`
    in tl-run and tl-compile): where measured, the transpositions cost
    about what the idle lanes did, and the slices' intermediates leave L1
    for L2 (bench/README.md).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

// The options of the passes that plan contractions: the target, the
// planner, and sizes that override what it derives.
defvar ContractionPlannerOptions = [
    Option<"vectorLanes", "vector-lanes", "int64_t", "0",
           "Elements per vector register (0: those of the module's "
           "tl.target; in a module without one, unknown: the tiles are "
           "those of 512-bit vectors, never three vectors wide)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Vector registers of the target (0: the module's tl.target's)">,
    Option<"l1CacheBytes", "l1-cache-bytes", "int64_t", "0",
           "Bytes of the target's L1 data cache, one core's (0: the "
           "module's tl.target's)">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", "0",
           "Bytes of the target's L2 cache, one core's (0: the module's "
           "tl.target's)">,
    Option<"l3CacheBytes", "l3-cache-bytes", "int64_t", "0",
           "Bytes of one core's share of the target's L3 cache (0: the "
           "module's tl.target's)">,
    Option<"registerRows", "register-rows", "int64_t", "0",
           "Result rows per register tile (0: derived from the target)">,
    Option<"registerColumns", "register-columns", "int64_t", "0",
           "Result columns per register tile, a multiple of the vector "
           "width (0: derived from the target)">,
    Option<"cacheRows", "cache-rows", "int64_t", "0",
           "Result rows per cache tile (0: derived from the target)">,
    Option<"cacheColumns", "cache-columns", "int64_t", "0",
           "Result columns per cache tile (0: derived from the target)">,
    Option<"cacheDepth", "cache-depth", "int64_t", "0",
           "Reduction steps per cache tile (0: derived from the target)">,
    Option<"wholeDepthPanelBytes", "whole-depth-panel-bytes", "int64_t", "0",
           "Leave the depth unblocked while the columns' operand panel over "
           "all of it (depth x columns) takes at most this many bytes (0: "
           "a quarter of L2)">,
    Option<"l2BlockBytes", "l2-block-bytes", "int64_t", "0",
           "Most bytes of a packed or panelled operand block kept in L2 "
           "(0: half of the target's L2)">,
    Option<"maxShortSize", "max-short-size", "int64_t", "-1",
           "A contraction over sizes gets a version planned for short "
           "sizes, run where every size of its loops is at most this (-1: "
           "twice the depth block; 0: no such version)">,
    Option<"wideColumnVersions", "wide-column-versions", "bool", "true",
           "A contraction over sizes gets a version planned for columns of "
           "three vectors where its planner takes them so, run where the "
           "columns' sizes are multiples of them">,
    Option<"plannerName", "planner", "std::string", "\"\"",
           "The contraction planner (cpu, aarch64, or one registered with "
           "registerContractionPlanner; empty: the target's own)">,
    Option<"parallel", "parallel", "bool", "false",
           "Distribute the outermost parallel loop of cache tiles over "
           "threads (an scf.forall)">,
    Option<"threads", "threads", "int64_t", "0",
           "With parallel: the threads that share the scf.forall. Where "
           "they share the column blocks, each thread then takes one share "
           "of whole register tiles, tiled as one thread's columns are (0: "
           "unknown; the forall steps through column blocks that divide "
           "the columns)">,
    Option<"emitRemarks", "emit-remarks", "bool", "false",
           "Remark the plan of every contraction tiled or split, why each "
           "other linalg.generic with a reduction is not, and every step "
           "that fails after planning">,
];

def TileContractions : Pass<"tl-tile-contractions", "::mlir::func::FuncOp"> {
  let summary = "Tile contractions for the caches and registers and "
                "vectorize their register tiles";
  let description = [{
    For every `linalg.generic` on tensors that contracts (parallel and
    reduction dimensions, static shapes, projected-permutation indexing
    maps) and whose result's last dimension is also the last dimension of
    every input that uses it (so that a register tile reads contiguous
    vectors; an input that is small, or whose elements are each used at
    least 16 times, is transposed to make it so; a larger one used fewer
    than 256 times whose last dimension is a batch is packed instead: each
    cache tile, one step of the other batch dimensions, copies its block
    with the columns last, `pack=inN` in the plan), this pass

    0. gives the contraction its own zero-filled accumulator, and splits
       column extents with no power-of-two register width (p = 11: 8, then
       3; 37: 32, then 4 and 1) into contractions of their own, unless
       three vector registers (`vector-lanes`) divide them where
       `register-columns` is two (72 = 3 x 24: tiles 24 wide, at most
       three quarters of `register-rows` deep);
    1. tiles the loop nest for the caches (`cache-rows` x `cache-columns`
       of the result, `cache-depth` of the depth: of the reductions at
       least half as long as the longest, the one whose steps are closest
       together in the operand without the columns; blocks of 8
       of any other reduction above 16), the column blocks outermost and
       the row blocks inside the reduction blocks, so that a block of the
       operand without rows stays in cache while the rows go past it
       (copied into a contiguous tensor first, out of the row blocks'
       loop, where that operand's rows are a multiple of 4 KiB apart and
       would share few sets of L2);
    2. tiles each cache tile into register tiles of `register-rows` x
       `register-columns` result elements and one step of every reduction,
       the reductions innermost;
    3. vectorizes each register tile into a `vector.contract` of rank 2 (an
       outer product: one broadcast and one FMA per row and vector).

    With `parallel`, the outermost loop over cache tiles, when it runs
    along a dimension of the result and no `scf.forall` (of
    `tl-fuse-batches`) encloses the contraction, is an `scf.forall` first (threads
    share it; reductions are never split, so results do not depend on the
    number of threads). Where that loop is the column blocks' and `threads`
    is known, the forall has one step per thread, each a share of whole
    register tiles that is tiled for the caches as one thread's columns
    are; the columns left after the shares (fewer than a register tile per
    thread) are a contraction of their own after the forall.

    The tile sizes are derived from a description of the target
    (`vector-lanes`, `vector-registers`, `l1-cache-bytes`,
    `l2-cache-bytes`; `tensorlang::deriveTileContractionsConfig`) and the
    element type of the function's contractions; a nonzero size option
    overrides its derived value. The plan (ContractionPlan.h) is computed
    apart from the rewrites (TileContractions.h); `emit-remarks` prints the
    target and the derived sizes once per function, each plan as a remark
    (`rows=d0 columns=d2 depth=d1 cache=[...] register=[...] ...
    split=none`), and the reason for each contraction it does not tile.

    Tile sizes divide the extents (a smaller divisor, or the whole extent,
    is taken where the preferred size does not; the columns are split
    first), so that every tile is static and no masks are needed. After
    bufferization, `tl-lower-contraction-vectors` keeps the accumulators in
    registers across the reduction loop and lowers the contractions to
    FMAs.
  }];
  let options = ContractionPlannerOptions;
  let statistics = [
    Statistic<"numTiled", "num-tiled", "Contractions tiled">,
    Statistic<"numVectorized", "num-vectorized",
              "Register tiles vectorized">,
    Statistic<"numSplit", "num-split", "Contractions split in two along a loop">,
    Statistic<"numFallbacks", "num-fallbacks",
              "Planned contractions left (partly) scalar: a step failed">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

// The steps of tl-tile-contractions, each a pass of its own.

def FoldTranspositions : Pass<"tl-fold-transpositions", "::mlir::func::FuncOp"> {
  let summary = "Compute contractions straight into the layout of the "
                "transposition that is their only use, where that pays";
  let description = [{
    Step 1 of `tl-tile-contractions`: the planner weighs the contraction in
    its own layout with a copy after it (TTGT) against the contraction
    computed into the transposed layout (`ContractionPlanner::
    shouldFoldTransposition`), without building either; `emit-remarks` says
    which it chose and why.
  }];
  let options = ContractionPlannerOptions;
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def CollapseContractionReductions
    : Pass<"tl-collapse-contraction-reductions", "::mlir::func::FuncOp"> {
  let summary = "Collapse the reductions of contractions that sum many "
                "terms into one";
  let description = [{
    Step 2 of `tl-tile-contractions`: the operands of a contraction of
    several reductions that sums many terms per element are copied so that
    the reductions are adjacent, and the reductions (and runs of result
    dimensions that one operand alone reads) collapse into one loop each.
    A contraction it does not collapse is left as it was.
  }];
  let options = ContractionPlannerOptions;
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def BlockStridedSums : Pass<"tl-block-strided-sums", "::mlir::func::FuncOp"> {
  let summary = "Block sums to a scalar that read an operand across its "
                "rows a cache line at a time";
  let description = [{
    Step 3 of `tl-tile-contractions`.
  }];
  let options = ContractionPlannerOptions;
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def VersionForShortSizes
    : Pass<"tl-version-for-short-sizes", "::mlir::func::FuncOp"> {
  let summary = "Give contractions over sizes a second version, planned for "
                "short sizes and chosen at run time";
  let description = [{
    Step 3b of `tl-tile-contractions`: a contraction whose extents include
    sizes is planned with every size as a long extent (1280), which blocks
    the extents a fixed program takes whole (TCCG's 24 to 312) into cache
    tiles with partial edges. Where the planner plans it differently with
    every size as a short extent (32), the contraction gets both versions
    under an `scf.if` that runs the short one where every size of its loops
    is at most `maxShortSize` (twice the depth block: 512 on the x86-64
    targets) at run time. Each version carries the extent it is planned
    with (`tl.planning_extent`); `emit-remarks` says which contractions
    were versioned. A contraction in the versions of a transposition
    folded or kept at run time is versioned with that whole choice; one
    of more than six loops, of several reductions, or whose sized loops
    no input defined before the versions gives, keeps one version
    (`versionContractionForShortSizes`).
  }];
  let options = ContractionPlannerOptions;
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def VersionForWideColumns
    : Pass<"tl-version-for-wide-columns", "::mlir::func::FuncOp"> {
  let summary = "Give contractions over sizes a version planned for columns "
                "of three vectors, chosen at run time";
  let description = [{
    Step 3c of `tl-tile-contractions`: a fixed program's plan takes
    register tiles three vectors wide where that many divide the columns
    (TCCG's 24 and 72: 24 x 6 tiles on AVX-512), which a contraction over
    sizes planned as a long extent (1280) cannot know: it takes tiles of
    two vectors and the rest in tiles of one, half the FMAs per broadcast.
    Where the planner takes three vectors with every size as an odd
    multiple of three vectors near 1280 (1272 for 8 lanes), and not
    otherwise, the contraction gets both versions under an `scf.if` that
    runs the wide one where the columns' size of every contraction so
    planned is a multiple of three vectors at run time. The short version
    of `tl-version-for-short-sizes` is versioned so (each size as 24),
    its long one not (some size is long where it runs, the columns as a
    rule too); nor is a contraction of more than six loops. A contraction
    in the versions of a transposition folded or kept at run time is
    versioned with that whole choice. Each version carries
    its planning extent (`tl.planning_extent`) and `tl.columns_versioned`;
    `emit-remarks` says which contractions were versioned
    (`versionContractionForWideColumns`).
  }];
  let options = ContractionPlannerOptions;
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def SplitContractions : Pass<"tl-split-contractions", "::mlir::func::FuncOp"> {
  let summary = "Give each contraction its own accumulator and split those "
                "whose plan cuts a loop in two";
  let description = [{
    Step 4 of `tl-tile-contractions`: columns whose rest after the register
    tiles is no whole vector (75 = 64 + 11), and a packed dimension the
    lanes do not divide, become two contractions, planned again, in rounds.
  }];
  let options = ContractionPlannerOptions;
  let statistics = [
    Statistic<"numSplit", "num-split", "Contractions split in two along a loop">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def PlanContractions : Pass<"tl-plan-contractions", "::mlir::func::FuncOp"> {
  let summary = "Put its tiling plan on every contraction the planner tiles";
  let description = [{
    Step 5 of `tl-tile-contractions`: each contraction that the planner
    tiles gets `tl.contraction_plan = #tl.contraction_plan<...>`, which the
    tiling passes after it carry out; `emit-remarks` prints the target,
    each plan, and why each other linalg.generic with a reduction is not
    tiled.
  }];
  let options = ContractionPlannerOptions;
  let statistics = [
    Statistic<"numFallbacks", "num-fallbacks",
              "Contractions left unplanned: still to split">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def TileContractionsForCaches
    : Pass<"tl-tile-contractions-for-caches", "::mlir::func::FuncOp"> {
  let summary = "Tile the planned contractions for the caches";
  let description = [{
    Step 6 of `tl-tile-contractions`: the loops of cache tiles around each
    linalg.generic with a `tl.contraction_plan` (operands that need it
    transposed first), their partial last steps peeled; the cache tiles
    carry the plan on.
  }];
  let options = ContractionPlannerOptions;
  let statistics = [
    Statistic<"numTiled", "num-tiled", "Contractions tiled">,
    Statistic<"numFallbacks", "num-fallbacks",
              "Planned contractions left untiled: a step failed">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def TileContractionsForRegisters
    : Pass<"tl-tile-contractions-for-registers", "::mlir::func::FuncOp"> {
  let summary = "Tile the planned cache tiles into register tiles";
  let description = [{
    Step 7 of `tl-tile-contractions`: the loops of register tiles inside
    each linalg.generic with a `tl.contraction_plan` (blocks that the plan
    copies, packs or panels copied first), peeled; the register tiles carry
    the plan on.
  }];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", "false",
           "Remark every step that fails">,
  ];
  let statistics = [
    Statistic<"numFallbacks", "num-fallbacks",
              "Planned tiles left without register tiles: a step failed">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def VectorizeRegisterTiles
    : Pass<"tl-vectorize-register-tiles", "::mlir::func::FuncOp"> {
  let summary = "Turn the planned register tiles into vector contractions";
  let description = [{
    Step 8 of `tl-tile-contractions`: each linalg.generic with a
    `tl.contraction_plan` becomes a `vector.contract` of rank 2 (an outer
    product per reduction step), and the plan is removed.
  }];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", "false",
           "Remark every register tile that stays scalar">,
  ];
  let statistics = [
    Statistic<"numVectorized", "num-vectorized", "Register tiles vectorized">,
    Statistic<"numFallbacks", "num-fallbacks",
              "Register tiles left scalar">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::tensorlang::tl::TLDialect"];
}

def TileTranspositions : Pass<"tl-tile-transpositions", "::mlir::func::FuncOp"> {
  let summary = "Copy transposed tensors a square of vectors at a time";
  let description = [{
    A transposition that moves the contiguous dimension (`linalg.transpose`,
    or a `linalg.generic` that copies its one input through permutations)
    reads each element from another cache line than its neighbour in the
    result: as scalar loops it runs at a load per element, and where the
    input's rows are far apart (TCCG abcde-ecbfa-fd: 18 MB) every load can
    miss the TLB. This pass tiles such a copy into squares of `vector-lanes`
    x `vector-lanes` elements (the result's last dimension and the one that
    is last in the input; every other dimension one at a time) and
    vectorizes each square: a vector read per input
    row, a transpose in registers (where `vector-lanes` is a power of two,
    log2 of it rounds of `vector.shuffle`s of two rows: one instruction
    each on x86 and AArch64), a vector write per result row. The
    last, partial square of each of the two loops is peeled off, so that
    the squares of their whole steps are unmasked whatever the extents
    (sizes known at run time included); those at the ends of extents that
    `vector-lanes` does not divide are masked (a mask per row), not left
    scalar.

    Of the square's two loops, the input's last dimension is innermost,
    so that each input row is read on from where the last square left it,
    unless the result's lines come from memory through the caches: a
    result larger than the L2 cache (the module's target) that
    tl-streaming-stores will not stream (static: below `stream-min-bytes`,
    or rows that are not whole lines), or of run-time extents a temporary
    copied whole outside any loop. Each of its lines is then first read
    for ownership, and the result's last dimension is innermost, so that
    each result row is written on: the misses are the input's, loads,
    which overlap where missing stores stall the core
    (tl-streaming-stores prefetches the rows for writing). The remark
    says which.

    A transposition that keeps the last dimension copies contiguous rows,
    which the loop vectorizer handles; it is left alone. With `parallel`,
    the outermost loop is an `scf.forall` (unless one encloses the copy
    already).

    The copies may be on tensors or on buffers (a temporary is then an
    allocation rather than a `tensor.empty`). The compiler runs the pass
    on buffers, after one-shot bufferization: on tensors, the analysis
    compares every row each square writes with the slices of the result,
    which with sizes solves the loops' bounds each time (TCCG ccsd6's
    sized programs: 25 s of their 28 s of compile time).
  }];
  let options = [
    Option<"vectorLanes", "vector-lanes", "int64_t", "8",
           "Elements per vector register: the side of the squares">,
    Option<"parallel", "parallel", "bool", "false",
           "Distribute the outermost loop of squares over threads">,
    Option<"streamMinBytes", "stream-min-bytes", "int64_t",
           "::tensorlang::kStreamingMinBytes",
           "The least bytes of a result that tl-streaming-stores streams "
           "(the loop order follows)">,
    Option<"emitRemarks", "emit-remarks", "bool", "false",
           "Report each tiled transposition as a remark">,
  ];
  let statistics = [
    Statistic<"numTiled", "num-tiled", "Transpositions tiled into squares">,
    Statistic<"numFallbacks", "num-fallbacks",
              "Transpositions whose squares were left scalar">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Buffer/: linalg and vectors on buffers
//===----------------------------------------------------------------------===//

def LowerContractionVectors
    : Pass<"tl-lower-contraction-vectors", "::mlir::func::FuncOp"> {
  let summary = "Keep register tiles in registers across reduction loops "
                "and lower vector contractions to FMAs";
  let description = [{
    Runs after bufferization on what `tl-tile-contractions` produced
    (`fold-memref-alias-ops` first, so that transfers index the buffers
    themselves): with `vector-lanes`, unrolls register tiles a number of
    registers wide that is not a power of two (three) into tiles one
    register wide; hoists each tile's read and write out of the reduction
    loops, so that the tile stays in registers (a fill that zeroed it
    just before is forwarded instead of read); lowers each
    `vector.contract` to outer products and those to one broadcast and
    `vector.fma` per row; unrolls the tile's transfers into one per row
    (one loop-carried vector per row); loads the rows' elements one at a
    time where they were read as one vector and broadcast lane by lane (a
    broadcast from memory is a load, one from a register a shuffle); and,
    for reduction loops of at
    least 32 steps, starts the rows from zeros and adds the result's rows
    after the loop, prefetched before it.

    With `prefetch-steps`, a reduction loop of at least four times that
    many steps (or of a number known at run time) prefetches, that many
    steps ahead (at most to its last step), each operand it reads in
    place at an index that moves one for one with the steps, whose
    elements of one step lie a stride of at least 512 bytes from the last
    step's (a stride that is a size is compared at run time, before the
    loop, and the prefetches skipped where it is shorter; where one
    comparison decides them all, the loop is versioned on it): the
    prefetchers follow a
    stream or a short stride, not a new line several pages away at each
    step (a register tile's rows from `A[a][d][b]` with depth `d`).
    Buffers the function allocates (the tiler's panels and packed
    blocks) and masked reads are not prefetched.

    A tile whose slice of the result a `tl.first_depth_block_start`
    selects the fill's value into in the first depth block (a sized
    contraction's, whose depth is blocked) and whose rows, added after
    the loop, cover that slice drops the start: its rows are written as
    summed in the first block and added to the result in the others.
    Where the first block is also the last (a run-time test on the loops
    of depth blocks), the result is an argument of the function of at
    least `streaming-min-bytes`, its rows start on lines and its last
    extent is a multiple of a line, those writes are
    `vector.store {nontemporal = true}`, the rows' prefetches for writing
    are skipped, and a fence follows the function's top-level op that
    holds the tile (or ends each iteration of a parallel loop around it,
    which only x86's `sfence` from the module's target allows). A start
    whose slice the rows do not cover becomes a fill in the first block
    only. Last, reads of a small allocation (a tile padded at an edge of
    the sizes sums in one) at constant indices take the value last
    written there in the same block, and an allocation left with writes
    only is erased.

    A tile is hoisted when nothing else in the loop touches its buffer,
    which must be an allocation or an argument of the function. Distinct
    arguments are taken not to overlap, as the statements' functions
    guarantee (their variables are read `restrict`): on IR of your own,
    run it only on functions whose memref arguments do not alias.
  }];
  let options = [
    Option<"vectorLanes", "vector-lanes", "int64_t", "0",
           "Elements per vector register: register tiles several registers "
           "wide are unrolled into one tile per register's width of columns "
           "first (0: they are not)">,
    Option<"prefetchSteps", "prefetch-steps", "int64_t",
           "::tensorlang::kPrefetchStridedSteps",
           "Prefetch operands read a stride apart at each reduction step "
           "this many steps ahead (0: none)">,
    Option<"streamingMinBytes", "streaming-min-bytes", "int64_t",
           "::tensorlang::kStreamingMinBytes",
           "Write the rows of a tile whose depth block is the only one "
           "with non-temporal stores where the result holds at least this "
           "many bytes and its rows start on lines (negative: never)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect"];
}

def BoundLoopAllocations
    : Pass<"tl-bound-loop-allocations", "::mlir::func::FuncOp"> {
  let summary = "Allocate buffers in loops at their extents' constant bounds";
  let description = [{
    A sized contraction's cache tiles copy blocks of its operands (packed,
    or into panels) whose extents are a tile's or less, known only in the
    loop's step: each step allocated its buffer and freed it, hundreds of
    KiB at a time, which the C library's allocator takes from the kernel
    and gives back, page faults and zeroed pages included (TCCG
    abcde-ecbfa-fd sized: a fifth of the time). This pass gives each
    allocation in an `scf.for` whose every extent has a constant upper bound
    (`ValueBoundsConstraintSet`: a minimum with a tile size) a buffer of
    the bounds, flat and static, viewed at the extents by a
    `memref.reinterpret_cast` with the allocation's own type; the static
    buffer then leaves the loops (`buffer-loop-hoisting`). Buffers beyond
    `max-bytes` are left as they are.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"int64_t(1) << 26",
           "Largest buffer allocated at its bounds, in bytes">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
}

def StridedCopiesToLoops
    : Pass<"tl-strided-copies-to-loops", "::mlir::func::FuncOp"> {
  let summary = "Copy between strided views with loops, not a runtime call";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` whose source or target
    is not contiguous (a block of a tile, as bufferization copies it) to a
    call of `memrefCopy` in MLIR's C runner utilities: a library the JIT
    does not load and that users of the object files would have to link.
    This pass makes each such copy a `linalg.copy`, which the loop lowering
    turns into loops like any other statement. Contiguous copies stay
    `memref.copy` (an `llvm.memcpy`).

    In a version of a sized contraction chosen at run time (the `scf.if`
    of a transposition folded or kept by the sizes' values), or in the
    loops of its tiles (the start of an accumulator at an edge, the copy
    of a block into panels), a statement over a view made there has
    extents that affine loops cannot take as bounds: it becomes scf loops
    here. A copy, transposition or fill whose runs of the last dimension
    are adjacent and of a static length (the panels of a sized tile) moves
    each run as one vector.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

//===----------------------------------------------------------------------===//
// Loops/: affine loops on buffers
//===----------------------------------------------------------------------===//

def ParallelizeOuterLoops
    : Pass<"tl-parallelize-outer-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn the outermost parallel loop of each nest into "
                "affine.parallel";
  let description = [{
    For multi-threaded code: the outermost `affine.for` of every loop nest
    of depth two or more becomes an `affine.parallel` when affine dependence
    analysis proves its iterations independent (a loop over a result
    dimension of a statement; never a reduction). Inner loops stay
    sequential and are vectorized as before. `lower-affine` then gives
    `scf.parallel`, which `convert-scf-to-openmp` turns into an OpenMP
    work-sharing loop. Single loops are left alone: they are vectorized
    instead.
  }];
}

def VectorizeParallelLoops
    : Pass<"tl-vectorize-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Vectorize the innermost affine loops that are parallel";
  let description = [{
    Vectorizes, with upstream's affine vectorizer, every innermost
    `affine.for` that dependence analysis proves parallel, by `vector-lanes`
    elements. Trip counts that are not a multiple of the width are handled
    by masked transfers.

    A loop whose trip count is known only at run time (it runs along a
    program's size) stays scalar: its masked transfers would cost a mask
    computation every iteration (twice the time of the fixed program on an
    element-wise kernel), while LLVM's loop vectorizer gives it a vector
    body and one remainder, as fast as the fixed program.

    The affine vectorizer takes memrefs of the identity layout only. An
    innermost loop of constant bounds that only loads, computes
    element-wise and stores along the last dimension of the memrefs it
    accesses, some of them contiguous strided views (a batch index's slice:
    the element-wise statements inside tl-fuse-batches' loops), is
    vectorized by this pass itself: whole vectors over the bulk, one
    shorter vector for the rest, every transfer in bounds. So is a copy of
    at least `vector-lanes` elements along the last dimension of views
    whose last stride is one (the packed panels of tiled contractions,
    copied from blocks of an operand), which LLVM, unable to tell the
    buffers apart where their offsets are known only at run time (a sized
    program's workspace), copied one element at a time, and elsewhere with
    narrower vectors than the target's.

    Upstream's `--affine-super-vectorize` picks its loops by memory access
    pattern alone; given a reduction that accumulates through memory (a
    contraction to a scalar, lowered from linalg) it vectorizes the
    reduction loop and produces invalid IR. This pass only offers it loops
    without loop-carried dependences.
  }];
  let options = [
    Option<"vectorLanes", "vector-lanes", "unsigned", "8",
           "Elements per vector">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def StreamingStores : Pass<"tl-streaming-stores", "::mlir::func::FuncOp"> {
  let summary = "Write large results with non-temporal (streaming) stores";
  let description = [{
    A loop nest that writes a buffer far larger than the caches, row after
    whole row, gains nothing from caching it: each line it writes is first
    read from memory (read for ownership) and later evicted. Non-temporal
    stores skip both. A transposition then moves 2 bytes instead of 3 per
    byte of result, an element-wise statement over five operands 6 instead
    of 7; memcpy does the same for large copies.

    For every loop nest at the top of a function (`affine.for`,
    `scf.for` or `affine.parallel`), a function argument, or a
    `memref.alloc` at the function's top (a temporary, such as a
    transposed copy of an operand), of at least
    `min-bytes` bytes is streamed when the nest only ever writes it, each
    time with an in-bounds, unmasked 1-d `vector.transfer_write` along its
    last dimension into rows of a multiple of 64 bytes, either at an index
    that steps through whole rows (an induction variable from 0 to the
    extent by the vector width), or with a vector of 64 bytes, a whole
    line, at an index that is a multiple of its width (a constant, or an
    induction variable that starts and steps by multiples of it): the
    register tiles of a contraction that sums all of its terms in
    registers write the result once, a line per store. The arguments are
    assumed not to alias one another, as in every function the lowering
    produces.

    Non-temporal stores need aligned addresses; the caller's buffers may
    not be. The nest is therefore versioned: when every streamed argument
    starts on a 64-byte boundary, a copy of it whose writes are
    `vector.store {nontemporal = true}` with the vector's alignment runs;
    otherwise the original. Streamed stores are weakly ordered: a fence
    after the copy (and, in a parallel nest, at the end of each iteration,
    before the threads join) makes them visible like ordinary stores. With
    `x86-sfence` the fence is SSE's `sfence` (inline assembly), which
    orders stores only; otherwise `llvm.fence seq_cst`, a full barrier on
    any target, and parallel nests are left alone: a full barrier per
    iteration costs more than streaming gains, and convert-scf-to-openmp
    cannot lower a parallel body that holds an op without declared memory
    effects.

    The arguments of a sized program are bare pointers that one
    `memref.reinterpret_cast` each gives run-time extents. For each such
    view, the outermost loops at any depth that only write it, its
    unmasked writes whole lines at multiples of the vector width, are
    versioned on a check built after the view: its pointer, offset and
    strides but the last are multiples of a line, and it holds at least
    `min-bytes`. Masked writes and writes through subviews (the edges of
    the sizes) stay ordinary stores in the streaming copy. A temporary of
    run-time extents allocated outside any loop (a transposed copy of a
    sized operand, at the top or in a version of a contraction chosen at
    run time) is checked and streamed the same way, in the loops of its
    own region, the check right after its allocation.

    An innermost loop (`scf.for` or `affine.for`, constant step) that
    writes several rows at once through the caches, each with an unmasked
    1-d `vector.transfer_write` whose last index is the loop's induction
    variable (a transposition's squares, copied along the result's rows),
    prefetches each row for writing `prefetch-write-lines` lines ahead, no
    further than the first element of the loop's last step: each line
    written is otherwise first read for ownership when the store reaches
    it, and the core holds few missing stores in flight. Left alone: one
    row (a stream, which the hardware prefetchers follow), a buffer within
    the L2 cache (the module's target; a block the tiles reuse), a loop
    that ends within the distance.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t",
           "::tensorlang::kStreamingMinBytes",
           "Stream only buffers of at least this many bytes (by default "
           "32 MiB, beyond the last-level cache of current machines)">,
    Option<"x86Sfence", "x86-sfence", "bool", "false",
           "Fence with x86 sfence instead of a target-independent "
           "sequentially consistent fence">,
    Option<"prefetchWriteLines", "prefetch-write-lines", "int64_t", "2",
           "Prefetch for writing this many lines ahead the rows that an "
           "innermost loop writes several of at once through the caches "
           "(0: none)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def PrefetchBatchSlices
    : Pass<"tl-prefetch-batch-slices", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the next slice of a batch while one is computed";
  let description = [{
    A batch loop (tl-fuse-batches) computes on one slice of its buffers per
    iteration: K5's interpolation reads an element's 10.6 KB of `u` and
    writes as much of `v`, computing for microseconds in between. The
    hardware prefetchers follow the addresses the code touches, so each
    slice arrives when its first statement already waits for it, and the
    time to fetch and to compute adds up. This pass fetches the next
    iteration's slices while the current one is computed.

    A loop outside any other (`scf.for` or `affine.for`, step 1, to an
    extent that may be a size) is a batch loop here when its body holds
    vector FMAs
    and loops, and every access it makes to some buffer defined outside it
    (identity layout, static but for the first extent) indexes the
    buffer's first dimension
    with the iteration's batch index, without moving along it (loads,
    stores and transfers of `memref` and `vector`, or a view of one batch
    index). The batch index is the loop's induction variable, or its sum
    with values defined outside the loop (a thread's first index, where
    `scf.forall` shares the batch among threads: loops that share work
    among threads are looked into, not counted as outer loops). Each such buffer whose
    slice has at least `min-slice-bytes` bytes is prefetched, for writing
    where the loop writes it, unless its stores are non-temporal
    (tl-streaming-stores, which runs before). The lines of the next slice
    are spread evenly over the iterations of the loops at the top of the
    body, which run one after the other, so that few misses are in flight
    at once. The last iteration prefetches its own slice again rather than
    past the buffer's end. Loops inside others are left alone: the slices
    of a cache tile's loops, or of a packed block's, are mostly in the
    caches already from the loops around them.

    The target's caches (`#tl.target`) decide where to: into L1 when the
    next slices fit in it, else into L2; none when they take
    more than a quarter of L2, since they would evict the slice being
    computed on and long slices are streams the prefetchers follow.
  }];
  let options = [
    Option<"minSliceBytes", "min-slice-bytes", "int64_t",
           "::tensorlang::kPrefetchMinSliceBytes",
           "Prefetch only slices of at least this many bytes">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
}

def VectorMathLibrary
    : Pass<"tl-vector-math-library", "::mlir::ModuleOp"> {
  let summary = "Call glibc's vector math library (libmvec) for vector exp "
                "and log";
  let description = [{
    A vectorized loop computes `math.exp` and `math.log` on whole vectors,
    but LLVM has no instruction for them: it splits each vector into one
    call of the scalar libm function per lane, several times slower than
    NumPy's `exp`. glibc ships vector
    versions under the x86-64 vector function ABI (`_ZGVeN8v_exp` takes and
    returns a `__m512d`); this pass calls them for 1-D vectors of 128, 256
    or 512 bits of f64 or f32 (`b`, `d` and `e` variants: SSE, AVX2,
    AVX-512), the widths `tl-vectorize-parallel-loops` produces for the
    target. Other vectors and scalars keep `math` ops. glibc's vector
    functions are accurate to 4 ulp rather than the scalar functions' 1;
    the pipeline runs this pass for x86-64 Linux targets only, where
    linking with `-lm` brings `libmvec` in (the JIT loads it).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// LLVM/: the lowering to the LLVM dialect
//===----------------------------------------------------------------------===//

def Workspace : Pass<"tl-workspace", "::mlir::ModuleOp"> {
  let summary = "Give each program function a variant that takes its "
                "temporaries from a caller's workspace";
  let description = [{
    Runs on buffers, after the loops are formed. A program's function
    (`--convert-tl-to-linalg`'s public function, `@p`) allocates its
    intermediates and its statement functions their temporaries with
    `memref.alloc` on every call: page faults and kernel zeroing that a
    caller who runs a kernel many times pays each time. This pass gives
    every such temporary a fixed place in one block of bytes:

    - `@p_ws(..., %workspace: memref<Nxi8>)` (in a program without sized
      temporaries, below) is the function with each
      top-level static `memref.alloc` of its own and of the statement
      functions it calls replaced by a `memref.view` of the workspace at a
      fixed offset (64-byte aligned), and their `memref.dealloc`s removed.
      The program function's temporaries come first; those of the
      statement functions, which run one after another, share the space
      after them (the largest statement decides its size).
    - `@p(...)` keeps its signature: it allocates a workspace, calls
      `@p_ws` and frees it (an empty one, on the stack, if there are no
      temporaries).
    - `@p_workspace_size(sizes...) -> i64` returns N. It takes the
      program's sizes (the arguments marked `tl.size`, in order).

    Temporaries whose extents are computed from the sizes alone (pure
    operations on `tl.size` arguments and constants; in a statement
    function, only where every call passes the program function's size of
    the same name) have places too:
    after the static temporaries of their function, at offsets computed
    from the sizes at the function's start. The workspace then grows with
    the sizes: it is passed as a pointer (`memref<i8>`, as the sized
    variables are) that each function views as `memref<?xi8>`; the
    statements' temporaries come first, the program function's after the
    largest statement's, and the size function computes the total from
    the sizes. Allocations in the branches of a top-level `scf.if` (the
    versions of a contraction chosen at run time) whose extents are
    defined before it move out of it first, one for each type and extents
    in both branches, their deallocations after it (also one of the base
    buffer of the choice's result, where both branches yield the same
    allocation). An extent read back from the view of a sized variable
    (`memref.dim` of a `memref.reinterpret_cast`) is replaced by the size
    the view was given first. Temporaries of other run-time extents,
    those allocated inside loops (per thread, say), and any freed other
    than by a top-level `memref.dealloc` stay `memref.alloc`s.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MaskOddWidthTransfers
    : Pass<"tl-mask-odd-width-transfers", "::mlir::func::FuncOp"> {
  let summary = "Move odd-width rows as masked vectors of a power of two";
  let description = [{
    A register tile's rows are as long as the tile's columns: 11 for
    p = 11 (K5F's f32 tiles), 3 for the f64 remainder beside 8. LLVM
    splits an in-bounds load of `<11 x float>` into 8 + 2 + 1 floats and
    joins them with two shuffles, which compete with the FMAs for their
    port; a store into three. On AVX-512 a masked load or store of the
    next power of two is one instruction, and the masked lanes never
    fault. After convert-vector-to-scf, every in-bounds 1-d
    `vector.transfer_read` or `transfer_write` of 3 or more lanes that are
    not a power of two, along a unit-stride last dimension, whose power of
    two above fits a register, becomes `vector.maskedload` (and an
    `extract_strided_slice`) or `vector.maskedstore` (of an
    `insert_strided_slice`).

    Only for x86-64 targets with 512-bit vectors (`#tl.target`); `force`
    applies it to any target (tests).
  }];
  let options = [
    Option<"force", "force", "bool", "false",
           "Rewrite whatever the target (tests)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def StripAnnotations : Pass<"tl-strip-annotations", "::mlir::func::FuncOp"> {
  let summary = "Remove the tl.* attributes that document a function";
  let description = [{
    `--convert-tl-to-linalg` names each argument after its variable
    (`tl.name`, `tl.input`, `tl.output`) so that the IR of every stage can
    be read against the source. LLVM has no use for them, and the LLVM IR
    translation warns about attributes it does not know; the lowering to
    LLVM removes them first.
  }];
}

def ExpandShapesToCasts
    : Pass<"tl-expand-shapes-to-casts", "::mlir::func::FuncOp"> {
  let summary = "Rewrite memref.expand_shape with several sizes in one group "
                "as a memref.reinterpret_cast";
  let description = [{
    A contraction over sizes whose loops were collapsed (two sized
    reductions into one depth) expands its result back with
    `memref.expand_shape`, where one group of the reassociation has several
    dynamic sizes. MLIR 22's `expand-strided-metadata` crashes on such an
    expansion (llvm/llvm-project#186830, fixed in LLVM 23): this pass
    rewrites each one first as a `memref.reinterpret_cast` of the source's
    base buffer, with the sizes of its `output_shape` and the strides they
    imply. Expansions with at most one dynamic size per group are left as
    they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def HugePageTemporaries
    : Pass<"tl-huge-page-temporaries", "::mlir::ModuleOp"> {
  let summary = "Back large temporaries with transparent huge pages";
  let description = [{
    Runs on the LLVM dialect, after `finalize-memref-to-llvm`. A temporary
    far larger than the caches is `malloc`ed per call, and glibc maps each
    such block afresh: every 4 KB page of it faults on first touch (TCCG
    ccsd6: 645 MB of temporaries, 157 000 faults), and the kernels then
    miss the TLB on it. Each
    call of `malloc` whose size is not a constant below `min-bytes` is
    redirected to a helper defined in the module (internal linkage, so
    that every object file has its own) that calls `malloc` and then, for
    blocks of at least `min-bytes`, `madvise(MADV_HUGEPAGE)` on their
    whole pages: one fault per 2 MB where the system's transparent huge
    pages are set to `madvise` or `always` (advice the kernel may ignore;
    the block is used the same way either way). `madvise` is Linux's: run
    it only for Linux targets.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t",
           "::tensorlang::kHugePageTemporaryBytes",
           "Advise blocks of at least this many bytes (by default 4 MiB: "
           "at least one whole 2 MiB page)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GPUMapLoops : Pass<"tl-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn bufferized linalg into scf.parallel loops mapped to "
                "GPU blocks and threads";
  let description = [{
    The first step of the NVIDIA GPU target (docs/gpu.md), on bufferized
    IR: every statement becomes one kernel whose threads each compute one
    element of the result.

    - `memref.copy` becomes `linalg.copy`; each `linalg.generic` has its
      parallel dimensions moved first (the reductions then run inside each
      thread, in the order the program sums, so results do not depend on
      the mapping);
    - each linalg op becomes a loop nest (`scf.parallel` over its parallel
      dimensions, `scf.for` over its reductions); one with no parallel
      dimension (a sum to a scalar) is wrapped in an `scf.parallel` of one
      iteration: it runs as one thread, not on the host;
    - each contraction of two operands outside a batch loop becomes a
      tiled kernel (docs/gpu.md): its loops grouped into rows, columns,
      depth and batches, a block per tile of the result, both operands'
      tiles staged in shared memory per depth step between barriers, each
      thread summing its elements in registers (f64 on the tensor cores:
      `nvgpu.mma.sync` [8, 8, 4], or sm_90's m16n8k* shapes as inline
      PTX, `f64-mma`); a fill of its output folded into it, a
      transposition of its result folded into its output map, inputs it
      would read strided copied first, and a long depth over few tiles
      split into partial sums added by a statement after it;
    - each outermost `scf.parallel` is collapsed to one dimension in
      row-major order (consecutive threads write consecutive elements:
      coalesced), tiled by `threads-per-block`, and mapped: the tiles to
      `block_x`, the elements of a tile to `thread_x`.

    `convert-parallel-loops-to-gpu` then makes each mapped nest a
    `gpu.launch`. The mapped IR can also be lowered for the CPU, which
    runs the same iterations: its index arithmetic and bounds are tested
    without a GPU.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "256",
           "Threads of one block (each computes one element)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           "::tensorlang::kGPUSharedMemoryBytes",
           "Most bytes of a batch loop's per-iteration buffers kept in a "
           "block's shared memory (beyond: a scratch buffer in device "
           "memory, a slice per block)">,
    Option<"emitRemarks", "emit-remarks", "bool", "false",
           "Say how each batch loop is mapped (blocks, threads, phases, "
           "register tiles, shared memory) or why it is not, and how "
           "many statements run one thread per element">,
    Option<"registerTiles", "register-tiles", "bool", "true",
           "In a batch kernel, let each thread compute all the elements "
           "along one small parallel loop (2 to 16) of a statement with "
           "reductions, in registers, where its largest inputs do not "
           "depend on that loop: each element loaded serves them all">,
    Option<"contractionKernels", "contraction-kernels", "bool", "true",
           "Run each contraction of two operands outside a batch loop as "
           "a tiled kernel: a block per tile of the result, the operands' "
           "tiles staged in shared memory, a register tile per thread">,
    Option<"contractionRegisterTile", "contraction-register-tile",
           "int64_t", "8",
           "Most rows (and most columns) of the result each thread of a "
           "contraction kernel sums in registers (4 but for long "
           "contractions with enough tiles of 128 x 128)">,
    Option<"contractionDepthStep", "contraction-depth-step", "int64_t",
           "16",
           "Reduction indices a contraction kernel stages in shared memory "
           "per step (a multiple of 16)">,
    Option<"contractionBlocksPerSM", "contraction-blocks-per-sm",
           "int64_t", "0",
           "Blocks per multiprocessor the registers of a contraction "
           "kernel on sm_90's tensor-core shapes are sized for (0: the "
           "plan's: one for register tiles of more than 32 sums, else "
           "two)">,
    Option<"contractionAsyncStages", "contraction-async-stages", "int64_t",
           "0",
           "Stages of asynchronous copies (cp.async, sm_80 and later) of the "
           "tiles of contraction kernels on the tensor cores: each step's "
           "tiles copied from device memory into shared memory while the "
           "steps before are multiplied, one barrier per step (0: the tiles "
           "loaded through registers, two barriers per step)">,
    Option<"contractionTileGroupRows", "contraction-tile-group-rows",
           "int64_t", "0",
           "Order a contraction kernel's blocks in groups of this many tiles "
           "of rows, the rows fastest within a group (0 or 1: the columns "
           "fastest): the blocks of a wave then share more of both inputs' "
           "tiles in the L2 cache">,
    Option<"contractionDepthContiguousTiles",
           "contraction-depth-contiguous-tiles", "bool", "false",
           "Store the tensor cores' tile of an input whose stride-1 index is "
           "a reduction with the depth contiguous in shared memory "
           "([row][depth]) rather than [depth][row]">,
    Option<"contractionSharedMemoryBytes", "contraction-shared-memory-bytes",
           "int64_t", "101376",
           "Shared memory a contraction kernel's blocks on one "
           "multiprocessor may take (the stages of asynchronous copies are "
           "fewer where they would take more; beyond 48 KiB a block's is "
           "dynamic shared memory)">,
    Option<"f64Mma", "f64-mma", "std::string", "\"m8n8k4\"",
           "The f64 tensor-core product: m8n8k4 (nvgpu.mma.sync), or "
           "sm_90's m16n8k4, m16n8k8, m16n8k16 (inline PTX), or auto: "
           "sm_90's, m16n8k8 for kernels sized for one block per "
           "multiprocessor and m16n8k4 for the others">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "Multiply f64 contraction kernels' tiles on the tensor cores "
           "(nvgpu.mma.sync [8, 8, 4]: sm_80 and later)">,
    Option<"barriers", "barriers", "bool", "true",
           "Run a batch loop's statements in one thread loop separated by "
           "gpu.barrier (false: one thread loop each, for the CPU)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def GPUDeviceMemory : Pass<"tl-gpu-device-memory", "::mlir::ModuleOp"> {
  let summary = "Keep a GPU program's variables and temporaries in device "
                "memory";
  let description = [{
    Each public function of the module (a program's interface) becomes
    two. `<name>_device` takes device buffers and a stream (an `!llvm.ptr`,
    the `CUstream`, last): it runs the statements on the caller's buffers,
    all queued on that stream (between the runtime's
    `tensorlang_cuda_enter` and `tensorlang_cuda_leave`), and returns
    without waiting. `<name>` keeps the host interface: on its own stream
    (`tensorlang_cuda_stream_begin`/`_end`, which waits) it copies every
    buffer argument into device memory (`gpu.alloc`, `gpu.memcpy`), calls
    `<name>_device` on the copies, copies back those that something stores
    into (directly, through views or in the functions they are passed to),
    and frees the copies. Every `memref.alloc` and `memref.dealloc` of the module (the
    temporaries) becomes a `gpu.alloc` and `gpu.dealloc`. Functions whose
    names PTX cannot have (statement functions, `p.s0`) are renamed
    (`p_s0`), since their kernels are named after them. Run after
    `tl-gpu-map-loops`: every access to a buffer is then inside a mapped
    loop, so that the host touches device memory only through copies.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def GPUDynamicSharedMemory
    : Pass<"tl-gpu-dynamic-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Give the kernels whose shared memory exceeds 48 KiB "
                "dynamic shared memory";
  let description = [{
    After `convert-parallel-loops-to-gpu`, before outlining: a
    `gpu.launch` whose body uses more than 48 KiB of tl-gpu-device-memory's
    shared-memory globals, which a kernel cannot declare statically, takes
    them from `gpu.dynamic_shared_memory` instead, each a `memref.view` at
    its offset (16-byte aligned), the launch asking for the total
    (`dynamic_shared_memory_size`; the runtime opts the kernel in to more
    than 48 KiB). Other launches keep their globals.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def GPUDropHostSharedMemory
    : Pass<"tl-gpu-drop-host-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Remove the shared-memory globals from the host module once "
                "the kernels are outlined";
  let description = [{
    tl-gpu-device-memory makes a block's own buffers globals of the
    workgroup address space; `gpu-kernel-outlining` copies those a kernel
    uses into its `gpu.module`. The host's copies are then unused, and the
    host's lowering cannot place them: this pass removes them.
  }];
}

def GPUTensorCoreOccupancy
    : Pass<"tl-gpu-tensor-core-occupancy", "::mlir::ModuleOp"> {
  let summary = "Ask for the blocks per multiprocessor of kernels that use "
                "the tensor cores";
  let description = [{
    After outlining: each kernel that multiplies on the tensor cores in
    inline PTX (`mma.sync`: sm_90's f64 shapes) gets `nvvm.minctasm`
    (`.minnctapersm`): ptxas then sizes its registers for that many blocks
    of its threads per multiprocessor. Left to itself it aimed the
    contraction kernels on sm_90's f64 shapes at 64 or 80 registers and
    spilled.
  }];
  let options = [
    Option<"blocksPerMultiprocessor", "blocks-per-multiprocessor", "int64_t",
           "2", "Blocks per multiprocessor asked for">,
  ];
}

#endif // TENSORLANG_TRANSFORMS_PASSES_TD
