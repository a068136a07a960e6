//===- Defaults.h - Default thresholds of the code generator ----*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The byte thresholds of the code generator, written once: the passes'
// options (Passes.td), the pipelines' options, CompileOptions and the tools'
// flags all take their defaults from here.
//
// They are sizes of the memory hierarchy of the x86-64 server cores the
// code generator was tuned on (an L2 of at least 1 MiB, an L1 of 32-48 KiB,
// 2 MiB huge pages). The compiler's pipelines derive the tile sizes, the
// whole-depth panel and the batch tile from the target instead
// (TargetDescription.h, docs/compiler.md "The target description"); these
// are the passes' defaults when run on their own.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_DEFAULTS_H
#define TENSORLANG_TRANSFORMS_DEFAULTS_H

#include <cstdint>

namespace tensorlang {

/// tl-fuse-batches: chains whose intermediates total fewer bytes stay in
/// the L2 cache anyway and are left alone (a quarter of a 1 MiB L2).
inline constexpr int64_t kFuseBatchesMinBytes = int64_t(256) << 10;
/// tl-fuse-batches: most bytes of fused intermediates per batch tile (the
/// L1 data cache).
inline constexpr int64_t kFuseBatchesTileBytes = int64_t(32) << 10;
/// The GPU target: a block's shared memory without opting in to more
/// (48 KiB on every NVIDIA GPU since Kepler). tl-fuse-batches fuses a
/// chain for the GPU only where one batch index's intermediates fit it;
/// tl-gpu-map-loops keeps a batch kernel's buffers in it.
inline constexpr int64_t kGPUSharedMemoryBytes = int64_t(48) << 10;
/// tl-tile-contractions: the depth stays unblocked while the columns'
/// operand panel over all of it fits this many bytes (a quarter of L2).
inline constexpr int64_t kWholeDepthPanelBytes = int64_t(256) << 10;
/// tl-streaming-stores: results of at least this many bytes (well above
/// any last-level cache share of one core) are written with non-temporal
/// stores.
inline constexpr int64_t kStreamingMinBytes = int64_t(32) << 20;
/// Batch slices of at least this many bytes are prefetched a slice ahead
/// (tl-prefetch-batch-slices); smaller ones are a few lines the
/// prefetchers fetch in time.
inline constexpr int64_t kPrefetchMinSliceBytes = 1024;
/// tl-lower-contraction-vectors: operands a register tile reads in place a
/// stride apart at each reduction step are prefetched this many steps
/// ahead: a miss to memory (a few hundred cycles) over a step's FMAs (8 to
/// 16 cycles for the register tiles the targets take).
inline constexpr int64_t kPrefetchStridedSteps = 16;
/// tl-huge-page-temporaries: temporaries of at least two 2 MiB huge pages
/// are advised to use transparent huge pages.
inline constexpr int64_t kHugePageTemporaryBytes = int64_t(4) << 20;

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_DEFAULTS_H
