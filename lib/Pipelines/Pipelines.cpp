//===- Pipelines.cpp - The lowering pipelines -----------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The stages are written as textual pass pipelines of upstream passes: the
// same text a user would give mlir-opt, and robust to the C++ constructors
// of upstream passes changing between MLIR releases.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Pipelines/Pipelines.h"
#include "tensorlang/Conversion/Passes.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Transforms/Passes.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tensorlang;

static void addPipeline(OpPassManager &pm, llvm::StringRef text) {
  // Textual pipelines name passes through the global registry, which tools
  // other than tl-opt (tl-run, Python, embedders) have not filled.
  static bool registered = [] {
    registerAllPasses();
    return true;
  }();
  (void)registered;
  // The texts below are fixed; failing to parse one is a bug here.
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("tensorlang: invalid built-in pass pipeline");
}

void tensorlang::buildTLOptimizationPipeline(OpPassManager &pm,
                                             const LoweringOptions &options) {
  // Reuse what earlier statements computed, fold transpositions, remove
  // what cannot reach an output, fuse a statement into the next where its
  // value is needed nowhere else, then choose the contraction order on
  // what is left.
  if (!options.optimize)
    return;
  OpPassManager &program = pm.nest<tl::ProgramOp>();
  program.addPass(tl::createTLCommonSubexpressions());
  addPipeline(program, "canonicalize,cse");
  program.addPass(tl::createTLDeadCodeElimination());
  // (The GPU's batch kernels hold a chain's intermediates in a block's
  // shared memory: a contraction substituted into the next contraction
  // makes a chain too long for it.)
  tl::TLFuseStatementsOptions fuse;
  fuse.contractions = !options.targetsGPU && !options.gpuMappingOnCPU;
  program.addPass(tl::createTLFuseStatements(fuse));
  addPipeline(program, "canonicalize,cse");
  program.addPass(tl::createTLOptimizeContractions());
}

void tensorlang::buildBufferizePipeline(OpPassManager &pm) {
  // Functions take memrefs already (the caller's store); one-shot
  // bufferization decides, by its own alias analysis, where a statement can
  // write in place and where it needs a temporary.
  // Temporaries of a batch loop (tl-fuse-batches) are allocated once,
  // before it, rather than on every iteration.
  // Minimums and dimensions that the loops' bounds decide are folded
  // first: the analysis compares the slices of sized tensors, and each
  // comparison follows them back through every loop (7.5 s of 8.4 for a
  // sized TCCG contraction without this, 0.3 s with it).
  addPipeline(pm, "func.func(scf-for-loop-canonicalization),"
                  "eliminate-empty-tensors,"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map}");
  pm.addNestedPass<func::FuncOp>(createBoundLoopAllocations());
  addPipeline(pm, "func.func(buffer-loop-hoisting),"
                  "buffer-deallocation-pipeline,canonicalize,cse");
}

/// Whether contractions are tiled into vector micro-kernels: both halves
/// (tl-tile-contractions on tensors, tl-lower-contraction-vectors on
/// buffers) ask the same question.
static bool tilesContractions(const LoweringOptions &options) {
  return options.tileContractions && options.vectorLanes >= 2;
}

void tensorlang::buildTileContractionsPipeline(OpPassManager &pm,
                                               const LoweringOptions &options) {
  // The GPU target runs each batch chain as one kernel, a block per batch
  // index (tl-gpu-map-loops).
  if (options.targetsGPU || options.gpuMappingOnCPU) {
    FuseBatchesOptions fusion;
    fusion.forGPU = true;
    pm.addNestedPass<func::FuncOp>(createFuseBatches(fusion));
    addPipeline(pm, "canonicalize,cse");
    return;
  }
  if (!tilesContractions(options))
    return;
  FuseBatchesOptions fusion;
  fusion.minIntermediateBytes = options.fuseBatchesMinBytes;
  fusion.tileBytes = options.fuseBatchesTileBytes;
  fusion.threads = options.threads;
  fusion.interlace = options.interlaceBatches;
  pm.addNestedPass<func::FuncOp>(createFuseBatches(fusion));
  // (The canonicalizer makes the slices of the interlaced loops static.)
  addPipeline(pm, "canonicalize,cse");
  if (options.interlaceBatches)
    pm.addNestedPass<func::FuncOp>(createInterlaceBatches());
  TileContractionsOptions tiling;
  tiling.parallel = options.threads > 1;
  tiling.threads = options.threads;
  tiling.vectorLanes = options.vectorLanes;
  tiling.vectorRegisters = options.vectorRegisters;
  tiling.l1CacheBytes = options.l1CacheBytes;
  tiling.l2CacheBytes = options.l2CacheBytes;
  tiling.l3CacheBytes = options.l3CacheBytes;
  tiling.emitRemarks = options.remarks;
  tiling.maxShortSize = options.maxShortSize;
  tiling.wideColumnVersions = options.wideColumnVersions;
  pm.addNestedPass<func::FuncOp>(createTileContractions(tiling));
  // (The transpositions are tiled after bufferization:
  // buildLowerToLoopsPipeline.)
  // No CSE until bufferization: it would merge the accumulator fills that
  // tl-tile-contractions gave each contraction.
  addPipeline(pm, "canonicalize");
}

/// The compute capability of `sm_NN[a]` (0 if it is not one).
static unsigned getChipVersion(const LoweringOptions &options) {
  StringRef chip(options.gpuChip);
  unsigned version = 0;
  // (sm_90a's "a" follows the number.)
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, version))
    return 0;
  return version;
}

/// The f64 tensor-core product for `options`: the one asked for, else the
/// fastest the chip has. On an H100, sm_90's m16n8k4 ran TCCG's
/// contractions 1.25x as fast as m8n8k4, which is all sm_80 has; "auto"
/// lets the plan take m16n8k8 where it suits (bench/README.md).
static std::string getF64Mma(const LoweringOptions &options) {
  if (!options.gpuF64Mma.empty())
    return options.gpuF64Mma;
  return getChipVersion(options) >= 90 ? "auto" : "m8n8k4";
}

/// Stages of asynchronous copies of the contraction kernels' tiles: three
/// where cp.async exists (sm_80), unless the options say.
static int64_t getAsyncStages(const LoweringOptions &options) {
  if (options.gpuAsyncStages >= 0)
    return options.gpuAsyncStages;
  return getChipVersion(options) >= 80 ? 3 : 0;
}

/// Tiles of rows per group of a contraction kernel's blocks.
static int64_t getTileGroupRows(const LoweringOptions &options) {
  return options.gpuTileGroupRows >= 0 ? options.gpuTileGroupRows : 0;
}

/// The shared memory one block may take (CUDA C++ Programming Guide,
/// "Technical Specifications per Compute Capability"): 227 KiB on sm_90
/// and sm_100, 163 KiB on sm_80 and sm_87, 99 KiB on the others from
/// sm_86 on (an earlier chip takes no asynchronous copies).
static int64_t getSharedMemoryBytes(const LoweringOptions &options) {
  unsigned version = getChipVersion(options);
  if (version == 90 || version == 100)
    return 227 << 10;
  if (version == 80 || version == 87)
    return 163 << 10;
  return 99 << 10;
}

void tensorlang::buildLowerToLoopsPipeline(OpPassManager &pm,
                                           const LoweringOptions &options) {
  // The mapped loops lower for the CPU like any scf.parallel.
  if (options.gpuMappingOnCPU) {
    // (No shared memory and no barriers on the CPU: a batch loop's
    // statements each run as a thread loop of their own.)
    GPUMapLoopsOptions mapping;
    mapping.sharedMemoryBytes = 0;
    mapping.barriers = false;
    mapping.emitRemarks = options.remarks;
    mapping.contractionRegisterTile = options.gpuRegisterTile;
    mapping.contractionDepthStep = options.gpuDepthStep;
    mapping.contractionBlocksPerSM = options.gpuBlocksPerSM;
    mapping.contractionAsyncStages = getAsyncStages(options);
    mapping.contractionSharedMemoryBytes = getSharedMemoryBytes(options);
    mapping.contractionTileGroupRows = getTileGroupRows(options);
    mapping.contractionDepthContiguousTiles = options.gpuDepthContiguousTiles;
    mapping.f64Mma = getF64Mma(options);
    // (f64's mma.sync is sm_80's: LLVM cannot select it for an earlier
    // chip.)
    mapping.tensorCores = getChipVersion(options) >= 80;
    pm.addNestedPass<func::FuncOp>(createGPUMapLoops(mapping));
  }
  // The transpositions that tl-tile-contractions left, folded or added
  // (operands copied into the layout the register tiles want), in squares
  // of vectors: on buffers, where one-shot bufferization's analysis does
  // not compare each square's rows with the result's slices (with sizes,
  // most of a program's compile time).
  if (tilesContractions(options) && !options.targetsGPU &&
      !options.gpuMappingOnCPU) {
    TileTranspositionsOptions transpositions;
    transpositions.vectorLanes = options.vectorLanes;
    transpositions.parallel = options.threads > 1;
    transpositions.streamMinBytes = options.streamingMinBytes;
    transpositions.emitRemarks = options.remarks;
    pm.addNestedPass<func::FuncOp>(createTileTranspositions(transpositions));
    addPipeline(pm, "canonicalize");
  }
  // Register tiles from tl-tile-contractions: subviews fold into their
  // transfers, so that the accumulators can be hoisted out of the
  // reduction loops.
  if (tilesContractions(options)) {
    addPipeline(pm, "func.func(fold-memref-alias-ops),canonicalize,cse");
    LowerContractionVectorsOptions registerTiles;
    registerTiles.vectorLanes = options.vectorLanes;
    registerTiles.prefetchSteps = options.prefetchStridedSteps;
    registerTiles.streamingMinBytes = options.streamingMinBytes;
    pm.addNestedPass<func::FuncOp>(
        createLowerContractionVectors(registerTiles));
    addPipeline(pm, "canonicalize,cse");
  }
  pm.addNestedPass<func::FuncOp>(createStridedCopiesToLoops());
  addPipeline(pm, "func.func(convert-linalg-to-affine-loops),canonicalize");
  if (options.threads > 1)
    pm.addNestedPass<func::FuncOp>(createParallelizeOuterLoops());
  VectorizeParallelLoopsOptions vectorize;
  vectorize.vectorLanes = options.vectorLanes;
  pm.addNestedPass<func::FuncOp>(createVectorizeParallelLoops(vectorize));
  addPipeline(pm, "canonicalize,cse");
  // The fence of non-temporal stores, the vector math library and huge
  // pages follow the module's target (tl.target).
  StreamingStoresOptions streaming;
  streaming.minBytes = options.streamingMinBytes;
  pm.addNestedPass<func::FuncOp>(createStreamingStores(streaming));
  // After streaming: the lines of a streamed result stay out of the caches.
  if (!options.gpuMappingOnCPU) {
    PrefetchBatchSlicesOptions prefetch;
    prefetch.minSliceBytes = options.prefetchMinSliceBytes;
    pm.addNestedPass<func::FuncOp>(createPrefetchBatchSlices(prefetch));
  }
  pm.addPass(createVectorMathLibrary());
  // Last on buffers: every pass before sees the temporaries as allocations.
  pm.addPass(createWorkspace());
}

void tensorlang::buildLowerToLLVMPipeline(OpPassManager &pm,
                                          const LoweringOptions &options) {
  pm.addNestedPass<func::FuncOp>(createStripAnnotations());
  pm.addNestedPass<func::FuncOp>(createExpandShapesToCasts());
  addPipeline(pm, "lower-affine");
  // affine.parallel became scf.parallel, and tiled contractions share their
  // outer loop as scf.forall: OpenMP work-sharing loops, run by libomp (the
  // JIT loads it; AOT objects need -fopenmp or -lomp).
  if (options.threads > 1)
    addPipeline(pm, llvm::formatv("scf-forall-to-parallel,"
                                  "convert-scf-to-openmp{{num-threads={0}},"
                                  "canonicalize",
                                  unsigned(options.threads))
                        .str());
  addPipeline(pm, "convert-vector-to-scf{full-unroll=true target-rank=1}");
  // (On the rows convert-vector-to-scf leaves: 1-d transfers.)
  pm.addNestedPass<func::FuncOp>(createMaskOddWidthTransfers());
  addPipeline(pm, "convert-scf-to-cf,"
                  "convert-vector-to-llvm,expand-strided-metadata,lower-affine,"
                  "finalize-memref-to-llvm,convert-math-to-llvm,"
                  "convert-arith-to-llvm,"
                  "convert-cf-to-llvm,"
                  "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
                  "convert-ub-to-llvm");
  if (options.threads > 1)
    addPipeline(pm, "convert-openmp-to-llvm");
  addPipeline(pm, "reconcile-unrealized-casts");
  HugePageTemporariesOptions hugePages;
  hugePages.minBytes = kHugePageTemporaryBytes;
  pm.addPass(createHugePageTemporaries(hugePages));
}

void tensorlang::buildMapToGPUPipeline(OpPassManager &pm,
                                       const LoweringOptions &options) {
  GPUMapLoopsOptions mapping;
  mapping.emitRemarks = options.remarks;
  mapping.contractionRegisterTile = options.gpuRegisterTile;
  mapping.contractionDepthStep = options.gpuDepthStep;
  mapping.contractionBlocksPerSM = options.gpuBlocksPerSM;
  mapping.contractionAsyncStages = getAsyncStages(options);
  mapping.contractionSharedMemoryBytes = getSharedMemoryBytes(options);
  mapping.contractionTileGroupRows = getTileGroupRows(options);
  mapping.contractionDepthContiguousTiles = options.gpuDepthContiguousTiles;
  mapping.f64Mma = getF64Mma(options);
  // (f64's mma.sync is sm_80's: LLVM cannot select it for an earlier
  // chip.)
  mapping.tensorCores = getChipVersion(options) >= 80;
  pm.addNestedPass<func::FuncOp>(createGPUMapLoops(mapping));
  pm.addPass(createGPUDeviceMemory());
}

void tensorlang::buildLowerToGPUPipeline(OpPassManager &pm,
                                         const LoweringOptions &options) {
  // No canonicalization before the launches exist: it would fold the
  // mapped loops of one iteration away, and their bodies would run on the
  // host.
  buildMapToGPUPipeline(pm, options);
  // Constants sunk into the kernels (canonicalization hoists them out of
  // the launches): loop bounds stay known there, and loops unroll.
  addPipeline(pm, "convert-parallel-loops-to-gpu,canonicalize,"
                  "gpu-launch-sink-index-computations");
  pm.addPass(createGPUDynamicSharedMemory());
  addPipeline(pm, "gpu-kernel-outlining,func.func(gpu-async-region)");
  pm.addPass(createGPUDropHostSharedMemory());
  pm.addPass(createGPUTensorCoreOccupancy());
  pm.addNestedPass<func::FuncOp>(createStripAnnotations());
  pm.addNestedPass<func::FuncOp>(createExpandShapesToCasts());
  // PTX, which the driver compiles for the GPU it finds (no toolkit needed
  // here); libdevice (exp, log) is linked in where the toolkit has it.
  addPipeline(
      pm, llvm::formatv(
              "lower-affine,convert-scf-to-cf,"
              "nvvm-attach-target{{chip={0} O=3},"
              "gpu.module(convert-vector-to-llvm,convert-gpu-to-nvvm,"
              "convert-nvgpu-to-nvvm,"
              "canonicalize,cse,"
              "reconcile-unrealized-casts),"
              "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
              "convert-math-to-llvm,convert-arith-to-llvm,"
              "convert-index-to-llvm,convert-cf-to-llvm,"
              "convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1},"
              "gpu-to-llvm,gpu-module-to-binary{{format=isa{1}},"
              "canonicalize,cse,reconcile-unrealized-casts",
              std::string(options.gpuChip),
              options.gpuToolkit.empty()
                  ? std::string()
                  : " toolkit=" + std::string(options.gpuToolkit))
              .str());
}

void tensorlang::buildDistributePipeline(OpPassManager &pm,
                                         const LoweringOptions &options) {
  if (options.distribute.empty())
    return;
  tl::TLDistributeOptions distribute;
  distribute.size = options.distribute;
  pm.addNestedPass<tl::ProgramOp>(tl::createTLDistribute(distribute));
}

void tensorlang::buildTLToBuffersPipeline(OpPassManager &pm,
                                          const LoweringOptions &options) {
  // Distribution marks the statements that sum over the distributed size
  // first, as written, so that the optimizations keep them statements of
  // their own (tl-fuse-statements does not move them), and checks the
  // optimized program again.
  buildDistributePipeline(pm, options);
  buildTLOptimizationPipeline(pm, options);
  buildDistributePipeline(pm, options);
  pm.addPass(createConvertTLToLinalg());
  addPipeline(pm, "canonicalize,cse");
  buildTileContractionsPipeline(pm, options);
  buildBufferizePipeline(pm);
}

void tensorlang::buildTLToLLVMPipeline(OpPassManager &pm,
                                       const LoweringOptions &options) {
  buildTLToBuffersPipeline(pm, options);
  buildLowerToLoopsPipeline(pm, options);
  buildLowerToLLVMPipeline(pm, options);
}

void tensorlang::registerTensorLangPipelines() {
  PassPipelineRegistration<LoweringOptions>(
      "tl-optimize", "The tl-level optimizations the compiler runs",
      buildTLOptimizationPipeline);
  PassPipelineRegistration<LoweringOptions>(
      "tl-tile-linalg",
      "Compute chains of statements one batch slice at a time, then tile "
      "and vectorize the contractions of --convert-tl-to-linalg's output "
      "(tl-fuse-batches, tl-tile-contractions and cleanups)",
      buildTileContractionsPipeline);
  PassPipelineRegistration<>(
      "tl-bufferize",
      "Bufferize the output of --convert-tl-to-linalg (one-shot, with "
      "deallocation)",
      buildBufferizePipeline);
  PassPipelineRegistration<LoweringOptions>(
      "tl-lower-to-loops",
      "Lower bufferized linalg to affine loops and vectorize them",
      buildLowerToLoopsPipeline);
  PassPipelineRegistration<LoweringOptions>(
      "tl-lower-to-llvm",
      "Lower affine, vector and memref code to the LLVM dialect with "
      "bare-pointer function arguments",
      buildLowerToLLVMPipeline);
  PassPipelineRegistration<LoweringOptions>(
      "tl-to-llvm", "Lower tl programs all the way to the LLVM dialect",
      buildTLToLLVMPipeline);
  PassPipelineRegistration<LoweringOptions>(
      "tl-lower-to-gpu",
      "Lower bufferized linalg (tl-bufferize, untiled) for an NVIDIA GPU: "
      "one kernel per statement, the variables in device memory, PTX for "
      "gpu-chip, host code calling the CUDA runtime",
      buildLowerToGPUPipeline);
}
