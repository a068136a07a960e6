//===- Target.cpp - The target description of a compilation ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Vector width and register count come from LLVM's description of the CPU
// named by --cpu, so that code for x86-64-v3 built on an AVX-512 machine is
// tiled for AVX2's 16 registers. LLVM knows no cache sizes of x86 CPUs;
// those come from the host (Linux's sysfs, else the CPU's own CPUID leaves:
// some virtual machines have no cache directories in sysfs), which is where
// the JIT's code runs, or from the options for an object file meant for
// another machine.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace tensorlang;

unsigned tensorlang::getHostVectorBits() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 512;
  if (features.lookup("avx"))
    return 256;
  return 128;
}

/// The subtarget of `cpu` on this process's triple; null for a CPU LLVM does
/// not know.
static std::unique_ptr<llvm::MCSubtargetInfo>
getSubtarget(llvm::StringRef cpu) {
  llvm::InitializeNativeTarget();
  std::string error;
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, ""));
  if (!subtarget || !subtarget->isCPUStringValid(cpu))
    return nullptr;
  return subtarget;
}

unsigned tensorlang::getTargetVectorBits(llvm::StringRef cpu) {
  if (cpu == "host")
    return getHostVectorBits();
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget = getSubtarget(cpu);
  if (!subtarget)
    return 0;
  if (subtarget->checkFeatures("+avx512f"))
    return 512;
  if (subtarget->checkFeatures("+avx"))
    return 256;
  return 128;
}

unsigned tensorlang::getTargetVectorRegisters(llvm::StringRef cpu) {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  if (!triple.isX86())
    return triple.isAArch64() ? 32 : 16;
  // AVX-512 doubles the x86-64 vector registers to 32 (zmm0-31).
  if (cpu == "host")
    return llvm::sys::getHostCPUFeatures().lookup("avx512f") ? 32 : 16;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget = getSubtarget(cpu);
  if (!subtarget)
    return 0;
  return subtarget->checkFeatures("+avx512f") ? 32 : 16;
}

/// `48K`, `1024K`, `32M` (sysfs's cache sizes) in bytes.
static std::optional<int64_t> parseCacheSize(llvm::StringRef text) {
  text = text.trim();
  int64_t scale = 1;
  if (text.consume_back("K"))
    scale = int64_t(1) << 10;
  else if (text.consume_back("M"))
    scale = int64_t(1) << 20;
  int64_t value;
  if (text.getAsInteger(10, value) || value <= 0)
    return std::nullopt;
  return value * scale;
}

/// Bytes of the data (or unified) cache of `level` from x86's CPUID: the
/// deterministic cache parameters (leaf 4 on Intel, 0x8000001D on AMD), else
/// AMD's older L1 and L2 leaves (0x80000005, 0x80000006), which virtual
/// machines fill in where they leave 0x8000001D empty.
static std::optional<int64_t> getCpuidCacheBytes(unsigned level) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  unsigned maxExtendedLeaf = __get_cpuid_max(0x80000000, nullptr);
  for (unsigned leaf : {4u, 0x8000001Du}) {
    if (leaf >
        (leaf < 0x80000000 ? __get_cpuid_max(0, nullptr) : maxExtendedLeaf))
      continue;
    for (unsigned index = 0; index < 8; ++index) {
      __cpuid_count(leaf, index, eax, ebx, ecx, edx);
      unsigned type = eax & 0x1f; // 0: no more caches, 2: instruction.
      if (type == 0)
        break;
      if (type == 2 || ((eax >> 5) & 0x7) != level)
        continue;
      int64_t ways = ((ebx >> 22) & 0x3ff) + 1;
      int64_t partitions = ((ebx >> 12) & 0x3ff) + 1;
      int64_t lineBytes = (ebx & 0xfff) + 1;
      int64_t sets = int64_t(ecx) + 1;
      return ways * partitions * lineBytes * sets;
    }
  }
  // AMD's L1 data cache in 0x80000005's ECX[31:24], and the L2 (AMD and
  // Intel) in 0x80000006's ECX[31:16], both in KiB.
  unsigned legacyLeaf = level == 1 ? 0x80000005u : 0x80000006u;
  if (level > 2 || legacyLeaf > maxExtendedLeaf)
    return std::nullopt;
  __cpuid(legacyLeaf, eax, ebx, ecx, edx);
  int64_t kib = level == 1 ? (ecx >> 24) : (ecx >> 16);
  if (kib > 0)
    return kib << 10;
#else
  (void)level;
#endif
  return std::nullopt;
}

std::optional<int64_t> tensorlang::getHostCacheBytes(unsigned level) {
  // cpu0's caches: the cores of one machine have the same (hybrid cores
  // aside, where the first is the larger kind).
  for (unsigned index = 0; index < 8; ++index) {
    std::string directory =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    auto read = [&](const char *file) -> std::string {
      auto buffer = llvm::MemoryBuffer::getFileAsStream(directory + "/" + file);
      return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
    };
    std::string levelText = read("level");
    if (levelText.empty())
      break;
    if (levelText != std::to_string(level) || read("type") == "Instruction")
      continue;
    return parseCacheSize(read("size"));
  }
  return getCpuidCacheBytes(level);
}

TargetDescription tensorlang::describeTarget(const CompileOptions &options) {
  TargetDescription target;
  unsigned bits = options.vectorBits ? options.vectorBits
                                     : getTargetVectorBits(options.cpu);
  target.vectorBits = bits ? bits : 128;
  if (unsigned registers = getTargetVectorRegisters(options.cpu))
    target.vectorRegisters = registers;
  auto cache = [](int64_t given, unsigned level, int64_t fallback) {
    if (given > 0)
      return given;
    return getHostCacheBytes(level).value_or(fallback);
  };
  target.l1CacheBytes = cache(options.l1CacheBytes, 1, target.l1CacheBytes);
  target.l2CacheBytes = cache(options.l2CacheBytes, 2, target.l2CacheBytes);
  return target;
}
