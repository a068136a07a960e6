//===- Pipelines.h - The lowering pipelines ---------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tl --convert-tl-to-linalg--> linalg on tensors --tl-tile-linalg--> batch
// loops around chains of statements, tiled and vectorized contractions
// --tl-bufferize--> linalg on memrefs --tl-lower-to-loops--> affine loops
// with vector ops --tl-lower-to-llvm--> LLVM dialect. `tl-to-llvm` runs all
// four.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_PIPELINES_PIPELINES_H
#define TENSORLANG_PIPELINES_PIPELINES_H

#include "tensorlang/Transforms/Defaults.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace tensorlang {

struct LoweringOptions : public mlir::PassPipelineOptions<LoweringOptions> {
  Option<unsigned> vectorLanes{
      *this, "vector-lanes",
      llvm::cl::desc("Elements per vector for the vectorizer "
                     "(0: do not vectorize)"),
      llvm::cl::init(8)};
  Option<int64_t> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Vector registers for tl-tile-contractions (0: the "
                     "module's tl.target's)"),
      llvm::cl::init(0)};
  Option<int64_t> l1CacheBytes{
      *this, "l1-cache-bytes",
      llvm::cl::desc("Bytes of L1 data cache per core for "
                     "tl-tile-contractions (0: the module's tl.target's)"),
      llvm::cl::init(0)};
  Option<int64_t> l2CacheBytes{
      *this, "l2-cache-bytes",
      llvm::cl::desc("Bytes of L2 cache per core for tl-tile-contractions "
                     "(0: the module's tl.target's)"),
      llvm::cl::init(0)};
  Option<int64_t> l3CacheBytes{
      *this, "l3-cache-bytes",
      llvm::cl::desc("Bytes of one core's share of L3 for "
                     "tl-tile-contractions (0: the module's tl.target's)"),
      llvm::cl::init(0)};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads for the outermost parallel loops (OpenMP; "
                     "1: single-threaded code)"),
      llvm::cl::init(1)};
  Option<bool> tileContractions{
      *this, "tile-contractions",
      llvm::cl::desc("Tile contractions for caches and registers and "
                     "vectorize them (tl-tile-contractions)"),
      llvm::cl::init(true)};
  Option<int64_t> fuseBatchesMinBytes{
      *this, "fuse-batches-min-bytes",
      llvm::cl::desc("With tile-contractions: compute a chain of statements "
                     "one batch slice at a time when its intermediates "
                     "total at least this many bytes (tl-fuse-batches)"),
      llvm::cl::init(kFuseBatchesMinBytes)};
  Option<int64_t> fuseBatchesTileBytes{
      *this, "fuse-batches-tile-bytes",
      llvm::cl::desc("With tile-contractions: most bytes of a batch tile's "
                     "intermediates (tl-fuse-batches; 0: the largest power "
                     "of two within the module target's L1)"),
      llvm::cl::init(0)};
  Option<bool> interlaceBatches{
      *this, "interlace-batches",
      llvm::cl::desc("With tile-contractions: compute chains of small "
                     "elements a register tile's columns of batch indices "
                     "at a time with the batch index last "
                     "(tl-fuse-batches interlace, tl-interlace-batches)"),
      llvm::cl::init(false)};
  Option<int64_t> streamingMinBytes{
      *this, "streaming-min-bytes",
      llvm::cl::desc("Write arguments of at least this many bytes that a "
                     "loop nest writes whole rows of with non-temporal "
                     "stores (tl-streaming-stores)"),
      llvm::cl::init(kStreamingMinBytes)};
  Option<int64_t> prefetchMinSliceBytes{
      *this, "prefetch-min-slice-bytes",
      llvm::cl::desc("Batch loops that compute prefetch the next "
                     "iteration's slices of at least this many bytes "
                     "(tl-prefetch-batch-slices)"),
      llvm::cl::init(kPrefetchMinSliceBytes)};
  Option<int64_t> prefetchStridedSteps{
      *this, "prefetch-strided-steps",
      llvm::cl::desc("Register tiles prefetch the operands they read a "
                     "stride apart at each reduction step this many steps "
                     "ahead (tl-lower-contraction-vectors prefetch-steps; "
                     "0: none)"),
      llvm::cl::init(kPrefetchStridedSteps)};
  Option<int64_t> maxShortSize{
      *this, "max-short-size",
      llvm::cl::desc("Contractions over sizes get a version planned for "
                     "short sizes, run where every size of its loops is at "
                     "most this (tl-tile-contractions max-short-size; -1: "
                     "the target's; 0: none)"),
      llvm::cl::init(-1)};
  Option<bool> wideColumnVersions{
      *this, "wide-column-versions",
      llvm::cl::desc("Contractions over sizes get a version planned for "
                     "columns of three vectors, run where the columns' "
                     "sizes are multiples of them (tl-tile-contractions "
                     "wide-column-versions)"),
      llvm::cl::init(true)};
  Option<bool> remarks{
      *this, "remarks",
      llvm::cl::desc("Report each contraction's tiling plan, or why it is "
                     "not tiled, as remarks (tl-tile-contractions "
                     "emit-remarks)"),
      llvm::cl::init(false)};
  Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run the tl-level optimizations first (tl-optimize)"),
      llvm::cl::init(true)};
  Option<std::string> gpuChip{
      *this, "gpu-chip",
      llvm::cl::desc("tl-lower-to-gpu: the NVIDIA GPU to compile the "
                     "kernels for"),
      llvm::cl::init("sm_90")};
  Option<std::string> gpuToolkit{
      *this, "gpu-toolkit",
      llvm::cl::desc("tl-lower-to-gpu: the CUDA toolkit whose libdevice is "
                     "linked into kernels that call exp, log, abs (empty: "
                     "MLIR's default, /usr/local/cuda)"),
      llvm::cl::init("")};
  /// Whether the program is lowered for the NVIDIA GPU target (set by the
  /// compiler from the target description; gpu-chip has a default).
  bool targetsGPU = false;
  Option<bool> gpuMappingOnCPU{
      *this, "gpu-mapping-on-cpu",
      llvm::cl::desc("tl-lower-to-loops: map the statements to GPU blocks "
                     "and threads (tl-gpu-map-loops) and run the mapped "
                     "loops on the CPU (a test of the mapping)"),
      llvm::cl::init(false)};
  Option<unsigned> gpuRegisterTile{
      *this, "gpu-register-tile",
      llvm::cl::desc("GPU contraction kernels: most rows (and columns) of "
                     "the result one thread sums in registers"),
      llvm::cl::init(8)};
  Option<unsigned> gpuDepthStep{
      *this, "gpu-depth-step",
      llvm::cl::desc("GPU contraction kernels: reduction indices staged in "
                     "shared memory per step"),
      llvm::cl::init(16)};
  Option<std::string> gpuF64Mma{
      *this, "gpu-f64-mma",
      llvm::cl::desc("GPU contraction kernels: the f64 tensor-core "
                     "product's shape (m8n8k4, m16n8k4, m16n8k8, m16n8k16; "
                     "empty: on sm_90 and later the plan's, m16n8k8 for "
                     "kernels sized for one block per multiprocessor and "
                     "m16n8k4 for the others; else m8n8k4)"),
      llvm::cl::init("")};
  Option<unsigned> gpuBlocksPerSM{
      *this, "gpu-blocks-per-sm",
      llvm::cl::desc("GPU contraction kernels on the tensor cores: blocks "
                     "per multiprocessor their registers are sized for "
                     "(0: the plan's)"),
      llvm::cl::init(0)};
  Option<int> gpuAsyncStages{
      *this, "gpu-async-stages",
      llvm::cl::desc("GPU contraction kernels on the tensor cores: stages "
                     "of asynchronous copies of their tiles (0: none; -1: "
                     "the chip's default: 3 on sm_80 and later)"),
      llvm::cl::init(-1)};
  Option<int> gpuTileGroupRows{
      *this, "gpu-tile-group-rows",
      llvm::cl::desc("GPU contraction kernels: blocks in groups of this many "
                     "tiles of rows (0: the columns fastest; -1: the "
                     "default)"),
      llvm::cl::init(-1)};
  Option<bool> gpuDepthContiguousTiles{
      *this, "gpu-depth-contiguous-tiles",
      llvm::cl::desc("GPU contraction kernels on the tensor cores: the tile "
                     "of an input whose stride-1 index is a reduction stored "
                     "depth-contiguous in shared memory"),
      llvm::cl::init(false)};
  Option<std::string> distribute{
      *this, "distribute",
      llvm::cl::desc("Split this size over MPI processes (tl-distribute, "
                     "after the tl-level optimizations); empty: none"),
      llvm::cl::init("")};
};

/// The stages, each usable on its own.
void buildTLOptimizationPipeline(mlir::OpPassManager &pm,
                                 const LoweringOptions &options);
void buildTileContractionsPipeline(mlir::OpPassManager &pm,
                                   const LoweringOptions &options);
/// tl-distribute when options.distribute names a size: it checks the
/// program and marks the statements that sum over the distributed size
/// (which tl-fuse-statements then leaves alone).
void buildDistributePipeline(mlir::OpPassManager &pm,
                             const LoweringOptions &options);
void buildBufferizePipeline(mlir::OpPassManager &pm);
void buildLowerToLoopsPipeline(mlir::OpPassManager &pm,
                               const LoweringOptions &options);
/// glibc's vector math library, which vector exp and log call on targets
/// that have it (tl-vector-math-library): the JIT loads it; AOT objects
/// need -lm (glibc's libm.so brings libmvec in).
inline constexpr const char *kVectorMathLibrary = "libmvec.so.1";

void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LoweringOptions &options);

/// Bufferized linalg to the statements mapped to blocks and threads
/// (tl-gpu-map-loops) and the variables in device memory
/// (tl-gpu-device-memory): the GPU target's "loops" stage.
void buildMapToGPUPipeline(mlir::OpPassManager &pm,
                           const LoweringOptions &options);

/// Bufferized linalg (tl-bufferize, without tl-tile-linalg) to the LLVM
/// dialect for the NVIDIA GPU target (buildMapToGPUPipeline, then): one kernel
/// per statement, one thread per result element (tl-gpu-map-loops), the
/// variables copied to device memory and back (tl-gpu-device-memory), the
/// kernels embedded as PTX for options.gpuChip, the host code calling
/// lib/Runtime/CUDARuntime.c.
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const LoweringOptions &options);

/// tl through the tl-level optimizations, linalg and the tiling of
/// contractions to bufferized IR: the first half of `tl-to-llvm`, which
/// every compiling entry point shares (the JIT and AOT sum temporaries
/// after it).
void buildTLToBuffersPipeline(mlir::OpPassManager &pm,
                              const LoweringOptions &options);

/// tl all the way to the LLVM dialect: functions with one bare pointer
/// argument per variable, `void name(double *A, double *B, ...)`.
void buildTLToLLVMPipeline(mlir::OpPassManager &pm,
                           const LoweringOptions &options);

/// Registers the pipelines above as `tl-bufferize`, `tl-lower-to-loops`,
/// `tl-lower-to-llvm` and `tl-to-llvm`, and the first as
/// `tl-optimize`.
void registerTensorLangPipelines();

} // namespace tensorlang

#endif // TENSORLANG_PIPELINES_PIPELINES_H
