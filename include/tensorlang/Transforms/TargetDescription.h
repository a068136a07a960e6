//===- TargetDescription.h - What the code generator knows of a CPU -*- C++
//-*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The few numbers of a CPU that the tiling decisions are derived from:
// vector width and register count (from LLVM's description of the `--cpu`
// target) and the sizes of the data caches (from the host, or given). Every
// tile size and byte threshold of tl-tile-contractions and tl-fuse-batches
// is computed from these (deriveTileContractionsConfig, ContractionPlan.h);
// the passes take them as options so that a test can pin a target.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H
#define TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace tensorlang {

struct TargetDescription {
  /// Width of the widest vector registers, in bits.
  int64_t vectorBits = 512;
  /// Architectural vector registers of that width (x86-64: 32 with
  /// AVX-512, 16 with AVX2 or SSE).
  int64_t vectorRegisters = 32;
  /// Data cache sizes of one core, in bytes.
  int64_t l1CacheBytes = int64_t(48) << 10;
  int64_t l2CacheBytes = int64_t(1) << 20;
  int64_t cacheLineBytes = 64;

  /// Elements of `elementBytes` bytes per vector register (at least 1).
  int64_t lanes(int64_t elementBytes) const {
    int64_t bits = 8 * (elementBytes > 0 ? elementBytes : 1);
    return vectorBits >= bits ? vectorBits / bits : 1;
  }
  /// Whether every number is positive.
  bool isValid() const {
    return vectorBits > 0 && vectorRegisters > 0 && l1CacheBytes > 0 &&
           l2CacheBytes > 0 && cacheLineBytes > 0;
  }
  /// `512-bit vectors x 32, L1 48 KiB, L2 1024 KiB, lines of 64 B`.
  void print(llvm::raw_ostream &os) const {
    os << vectorBits << "-bit vectors x " << vectorRegisters << ", L1 "
       << (l1CacheBytes >> 10) << " KiB, L2 " << (l2CacheBytes >> 10)
       << " KiB, lines of " << cacheLineBytes << " B";
  }
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const TargetDescription &target) {
  target.print(os);
  return os;
}

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H
