//===- TargetDescription.h - What the code generator knows of a target -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Everything the code generator knows of the machine it compiles for, in one
// value: the triple and CPU that LLVM generates code for, the vectors and
// registers the tiles are derived from, the caches, and which machine
// facilities (a vector math library, non-temporal store fences, huge pages)
// the lowering may use. It is resolved once per compilation (resolveTarget,
// Compiler.h), carried on the module as `#tl.target` (TLAttributes.td), and
// every pass that depends on the target reads it from there
// (tl::getTargetDescription), so that a lit test states its target in the
// IR. The defaults below are the reference target: the x86-64 AVX-512
// server core the code generator was first tuned on, and what a pass sees
// in a module without `#tl.target`.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H
#define TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace tensorlang {

struct TargetDescription {
  /// LLVM's target triple and CPU name, and the CPU features to add
  /// (`+avx512f,...`; empty: the CPU's own).
  std::string triple = "x86_64-unknown-linux-gnu";
  std::string cpu = "x86-64-v4";
  std::string features;
  /// Width of the vectors the code uses, in bits.
  int64_t vectorBits = 512;
  /// Whether those vectors are SVE registers of exactly `vectorBits` bits
  /// (the functions then carry vscale_range, and LLVM emits SVE for the
  /// fixed-width vectors); false: NEON, SSE, AVX.
  bool scalableVectors = false;
  /// Architectural vector registers of that width (x86-64: 32 with
  /// AVX-512, 16 with AVX2 or SSE; AArch64: 32).
  int64_t vectorRegisters = 32;
  /// Data cache sizes of one core, in bytes.
  int64_t l1CacheBytes = int64_t(48) << 10;
  int64_t l2CacheBytes = int64_t(1) << 20;
  /// One core's share of the last-level cache beyond L2: its size over the
  /// cores that share it, in bytes; 0 where the description has none (the
  /// tiles then keep every block in L2).
  int64_t l3CacheBytes = 0;
  int64_t cacheLineBytes = 64;
  /// Whether vector exp and log may call glibc's libmvec (x86-64 glibc).
  bool vectorMathLibrary = true;
  /// Whether non-temporal stores are ordered by x86's `sfence` (else by an
  /// ordinary release fence).
  bool x86Sfence = true;
  /// Whether large temporaries may be advised onto transparent huge pages
  /// (Linux's madvise).
  bool hugePages = true;
  /// The NVIDIA GPU the statements run on (`sm_90`), the host code being
  /// for the triple above; empty: none, everything runs on the CPU.
  std::string gpuChip;

  /// Elements of `elementBytes` bytes per vector register (at least 1).
  int64_t lanes(int64_t elementBytes) const {
    int64_t bits = 8 * (elementBytes > 0 ? elementBytes : 1);
    return vectorBits >= bits ? vectorBits / bits : 1;
  }
  /// Whether every number is positive and the line a power of two.
  bool isValid() const {
    return vectorBits > 0 && vectorRegisters > 0 && l1CacheBytes > 0 &&
           l2CacheBytes > 0 && l3CacheBytes >= 0 && cacheLineBytes > 0 &&
           (cacheLineBytes & (cacheLineBytes - 1)) == 0 && !triple.empty();
  }
  /// `512-bit vectors x 32, L1 48 KiB, L2 1024 KiB, L3 4096 KiB a core,
  /// lines of 64 B` (no L3 where there is none): what the tiles are derived
  /// from.
  void print(llvm::raw_ostream &os) const {
    os << vectorBits << "-bit " << (scalableVectors ? "SVE " : "")
       << "vectors x " << vectorRegisters << ", L1 " << (l1CacheBytes >> 10)
       << " KiB, L2 " << (l2CacheBytes >> 10) << " KiB, ";
    if (l3CacheBytes > 0)
      os << "L3 " << (l3CacheBytes >> 10) << " KiB a core, ";
    os << "lines of " << cacheLineBytes << " B";
  }
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const TargetDescription &target) {
  target.print(os);
  return os;
}

} // namespace tensorlang

#endif // TENSORLANG_TRANSFORMS_TARGETDESCRIPTION_H
