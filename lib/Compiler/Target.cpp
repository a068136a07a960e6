//===- Target.cpp - The target description of a compilation ---------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The target description of a compilation, resolved once from --target,
// --cpu, --vector-bits and the cache flags. Vector width and register count
// come from LLVM's description of the CPU, so that code for x86-64-v3 built
// on an AVX-512 machine is tiled for AVX2's 16 registers. LLVM knows no cache
// sizes of x86 CPUs; those come from the host (Linux's sysfs, else the CPU's
// own CPUID leaves: some virtual machines have no cache directories in sysfs),
// which is where the JIT's code runs, or from the options for an object file
// meant for another machine.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace tensorlang;

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

namespace {
/// A data (or unified) cache of the host: its bytes, and how many logical
/// CPUs share it (0: unknown).
struct HostCache {
  int64_t bytes = 0;
  int64_t sharingCPUs = 0;
};
} // namespace

/// The number of CPUs in a Linux CPU list (`0-7,64-71`), 0 if malformed.
static int64_t countCPUList(llvm::StringRef list) {
  int64_t count = 0;
  llvm::SmallVector<llvm::StringRef> ranges;
  list.trim().split(ranges, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef range : ranges) {
    auto [firstText, lastText] = range.split('-');
    int64_t first, last;
    if (firstText.trim().getAsInteger(10, first))
      return 0;
    if (lastText.empty())
      last = first;
    else if (lastText.trim().getAsInteger(10, last) || last < first)
      return 0;
    count += last - first + 1;
  }
  return count;
}

/// The data (or unified) cache of `level` from x86's CPUID: the
/// deterministic cache parameters (leaf 4 on Intel, 0x8000001D on AMD), else
/// AMD's older L1 and L2 leaves (0x80000005, 0x80000006), which virtual
/// machines fill in where they leave 0x8000001D empty.
static std::optional<HostCache> getCpuidCache(unsigned level) {
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
      return HostCache{ways * partitions * lineBytes * sets,
                       int64_t((eax >> 14) & 0xfff) + 1};
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
    return HostCache{kib << 10, 0};
#else
  (void)level;
#endif
  return std::nullopt;
}

/// The host's data (or unified) cache of `level`: cpu0's (the cores of one
/// machine have the same, hybrid cores aside, where the first is the larger
/// kind), from Linux's sysfs, else (x86) from CPUID.
static std::optional<HostCache> getHostCache(unsigned level) {
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
    std::optional<int64_t> bytes = parseCacheSize(read("size"));
    if (!bytes)
      return std::nullopt;
    return HostCache{*bytes, countCPUList(read("shared_cpu_list"))};
  }
  return getCpuidCache(level);
}

std::optional<int64_t> tensorlang::getHostCacheBytes(unsigned level) {
  if (std::optional<HostCache> cache = getHostCache(level))
    return cache->bytes;
  return std::nullopt;
}

std::optional<int64_t> tensorlang::getHostCacheShareBytes(unsigned level) {
  // The CPUs sharing L1 are one core's hardware threads: the share is per
  // core, as the sizes of L1 and L2 are.
  std::optional<HostCache> cache = getHostCache(level);
  std::optional<HostCache> l1 = getHostCache(1);
  if (!cache || cache->sharingCPUs <= 0)
    return std::nullopt;
  int64_t threadsPerCore = l1 && l1->sharingCPUs > 0 ? l1->sharingCPUs : 1;
  return cache->bytes /
         std::max<int64_t>(1, cache->sharingCPUs / threadsPerCore);
}

/// The SVE vector length, in bits, of the AArch64 CPUs whose SVE registers
/// are wider than NEON's 128 bits: their fixed-width vectors are SVE
/// registers (vscale_range). CPUs with 128-bit SVE (Neoverse V2, N2) use
/// NEON, which has the same width and every instruction the code needs.
static int64_t getSveVectorBits(llvm::StringRef cpu) {
  return llvm::StringSwitch<int64_t>(cpu)
      .Case("a64fx", 512)
      .Case("neoverse-v1", 256)
      .Case("neoverse-512tvb", 256)
      .Default(0);
}

/// One core's caches of the x86 server parts LLVM names, from their
/// makers' data sheets: L1 data, L2 and the share of L3 (its size over the
/// cores that share it). Virtual machines often hide the host's L3 (no
/// sysfs cache directory, CPUID leaf 0x8000001D empty, or an L3 that sums
/// a whole socket's), which this gives back where the CPU is known.
namespace {
struct KnownCaches {
  int64_t l1Bytes, l2Bytes, l3ShareBytes;
};
} // namespace

static std::optional<KnownCaches> getKnownX86Caches(llvm::StringRef cpu) {
  constexpr int64_t kib = int64_t(1) << 10, mib = int64_t(1) << 20;
  return llvm::StringSwitch<std::optional<KnownCaches>>(cpu)
      // AMD EPYC: 8 MiB of L3 per 4-core CCX (Zen 1), 16 MiB per 4 (Zen 2),
      // 32 MiB per 8-core CCD (Zen 3, 4, 5).
      .Case("znver1", KnownCaches{32 * kib, 512 * kib, 2 * mib})
      .Case("znver2", KnownCaches{32 * kib, 512 * kib, 4 * mib})
      .Case("znver3", KnownCaches{32 * kib, 512 * kib, 4 * mib})
      .Case("znver4", KnownCaches{32 * kib, 1 * mib, 4 * mib})
      .Case("znver5", KnownCaches{48 * kib, 1 * mib, 4 * mib})
      // Intel Xeon: 1.375 MiB of L3 a core (Skylake-SP to Cooper Lake),
      // 1.5 (Ice Lake-SP), 1.875 (Sapphire Rapids), 320 MiB for 64 cores
      // (Emerald Rapids), 504 MiB for 128 (Granite Rapids).
      .Cases({"skylake-avx512", "cascadelake", "cooperlake"},
             KnownCaches{32 * kib, 1 * mib, 1408 * kib})
      .Case("icelake-server", KnownCaches{48 * kib, 1280 * kib, 1536 * kib})
      .Case("sapphirerapids", KnownCaches{48 * kib, 2 * mib, 1920 * kib})
      .Case("emeraldrapids", KnownCaches{48 * kib, 2 * mib, 5 * mib})
      .Case("graniterapids", KnownCaches{48 * kib, 2 * mib, 504 * mib / 128})
      .Default(std::nullopt);
}

/// The caches of a CPU that is not this machine and whose caches were not
/// given: LLVM knows none, so the few server cores users run on are listed
/// here (one core's share of L2 where cores share it); others get the
/// reference target's.
static void setKnownCaches(llvm::StringRef cpu, TargetDescription &target) {
  if (std::optional<KnownCaches> known = getKnownX86Caches(cpu)) {
    target.l1CacheBytes = known->l1Bytes;
    target.l2CacheBytes = known->l2Bytes;
  } else if (cpu == "a64fx") {
    // 64 KiB L1 and 8 MiB of L2 for each group of 12 cores; 256-byte lines.
    target.l1CacheBytes = int64_t(64) << 10;
    target.l2CacheBytes = (int64_t(8) << 20) / 12;
    target.cacheLineBytes = 256;
  } else if (cpu.starts_with("neoverse-")) {
    target.l1CacheBytes = int64_t(64) << 10;
    target.l2CacheBytes = int64_t(1) << 20;
  }
}

static llvm::Error targetError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool tensorlang::isCudaTarget(llvm::StringRef target) {
  return target == "cuda" ||
         llvm::Triple(llvm::Triple::normalize(target)).isNVPTX();
}

/// A directory laid out as a CUDA toolkit holding only an empty libdevice,
/// removed when the process ends.
namespace {
struct StandInToolkit {
  StandInToolkit() {
    llvm::SmallString<128> directory;
    if (llvm::sys::fs::createUniqueDirectory("tensorlang-cuda", directory))
      return;
    llvm::SmallString<256> libdevice(directory);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (llvm::sys::fs::create_directories(libdevice))
      return;
    llvm::sys::path::append(libdevice, "libdevice.10.bc");
    llvm::LLVMContext context;
    llvm::Module empty("libdevice", context);
    // NVPTX's data layout, which LLVM would otherwise warn about when it
    // links the kernels with this.
    empty.setTargetTriple(llvm::Triple("nvptx64-nvidia-cuda"));
    empty.setDataLayout(
        "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64");
    std::error_code error;
    llvm::raw_fd_ostream os(libdevice, error);
    if (error)
      return;
    llvm::WriteBitcodeToFile(empty, os);
    root = directory.str().str();
  }
  ~StandInToolkit() {
    if (!root.empty())
      (void)llvm::sys::fs::remove_directories(root);
  }
  std::string root;
};
} // namespace

std::string tensorlang::getCudaToolkit() {
  llvm::SmallVector<std::string> roots;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable); value && *value)
      roots.push_back(value);
  roots.push_back("/usr/local/cuda");
  // nvcc is often a link from a bin directory on PATH into the toolkit.
  llvm::SmallString<256> nvcc;
  if (llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName("nvcc");
      program && !llvm::sys::fs::real_path(*program, nvcc))
    roots.push_back(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(nvcc)).str());
  for (const std::string &root : roots) {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(path))
      return root;
  }
  static StandInToolkit standIn;
  return standIn.root;
}

bool tensorlang::isHostTarget(llvm::StringRef target) {
  return target.empty() || target == "host" ||
         llvm::Triple(llvm::Triple::normalize(target)) ==
             llvm::Triple(llvm::sys::getProcessTriple());
}

llvm::Expected<TargetDescription>
tensorlang::resolveTarget(const CompileOptions &options) {
  // The one place where the process's own triple is read: every other
  // decision follows the description this returns.
  if (isCudaTarget(options.target)) {
    // The MPI runtime's sums read host memory.
    if (!options.distribute.empty())
      return targetError("--distribute is not supported with --target=cuda "
                         "yet");
    // The GPU's host is this machine.
    CompileOptions host = options;
    host.target = "host";
    llvm::Expected<TargetDescription> target = resolveTarget(host);
    if (!target)
      return target.takeError();
    unsigned smVersion;
    llvm::StringRef chip = options.gpuArch;
    if (!chip.starts_with("sm_") ||
        chip.drop_front(3).getAsInteger(10, smVersion))
      return targetError("unknown GPU architecture '" + options.gpuArch +
                         "' (expected sm_NN, such as sm_90)");
    target->gpuChip = options.gpuArch;
    return target;
  }
  bool native = isHostTarget(options.target);
  llvm::Triple triple(native ? llvm::sys::getProcessTriple()
                             : llvm::Triple::normalize(options.target));
  if (triple.getArch() == llvm::Triple::UnknownArch)
    return targetError("unknown target '" + options.target +
                       "' (expected host or a triple such as "
                       "aarch64-linux-gnu)");
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  std::string error;
  const llvm::Target *backend =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!backend)
    return targetError("cannot generate code for '" + triple.str() +
                       "': " + error);

  TargetDescription target;
  target.triple = triple.str();
  // Another machine's "host" CPU is unknown: its triple's generic CPU.
  target.cpu = options.cpu == "host" && !native ? "generic" : options.cpu;
  target.features = "";
  llvm::StringRef cpu = target.cpu;
  std::string features;
  if (cpu == "host") {
    cpu = llvm::sys::getHostCPUName();
    llvm::SubtargetFeatures list;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.first(), feature.second);
    features = list.getString();
  }
  // Asked first of the generic subtarget: LLVM warns on stderr when it
  // creates one for a CPU it does not know.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      backend->createMCSubtargetInfo(triple, "", ""));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  if (generic && generic->isCPUStringValid(cpu))
    subtarget.reset(backend->createMCSubtargetInfo(triple, cpu, features));
  if (!subtarget)
    return targetError("unknown CPU '" + options.cpu + "' for target '" +
                       triple.str() + "'");

  if (triple.isX86()) {
    bool avx512 = subtarget->checkFeatures("+avx512f");
    target.vectorBits = avx512                             ? 512
                        : subtarget->checkFeatures("+avx") ? 256
                                                           : 128;
    // AVX-512 doubles the x86-64 vector registers to 32 (zmm0-31).
    target.vectorRegisters = avx512 ? 32 : 16;
  } else if (triple.isAArch64()) {
    int64_t sveBits =
        subtarget->checkFeatures("+sve") ? getSveVectorBits(cpu) : 0;
    target.vectorBits = sveBits ? sveBits : 128;
    target.scalableVectors = sveBits != 0;
    target.vectorRegisters = 32;
  } else {
    target.vectorBits = 128;
    target.vectorRegisters = 16;
  }
  if (options.vectorBits) {
    if (target.scalableVectors && options.vectorBits != target.vectorBits)
      return targetError("--vector-bits=" + llvm::Twine(options.vectorBits) +
                         " on " + options.cpu + ", whose SVE vectors have " +
                         llvm::Twine(target.vectorBits) + " bits");
    target.vectorBits = options.vectorBits;
  }

  if (!native)
    setKnownCaches(cpu, target);
  auto cache = [&](int64_t given, unsigned level, int64_t fallback) {
    if (given > 0)
      return given;
    // The host's caches only describe code that runs here.
    return native ? getHostCacheBytes(level).value_or(fallback) : fallback;
  };
  target.l1CacheBytes = cache(options.l1CacheBytes, 1, target.l1CacheBytes);
  target.l2CacheBytes = cache(options.l2CacheBytes, 2, target.l2CacheBytes);
  // A machine given by its cache sizes has the L3 it is given, or none;
  // else the host's, where it shows one, or that of its CPU (the host's
  // for code that runs here).
  std::optional<KnownCaches> known =
      getKnownX86Caches(native ? llvm::sys::getHostCPUName() : cpu);
  int64_t knownL3 = known ? known->l3ShareBytes : 0;
  if (options.l3CacheBytes > 0)
    target.l3CacheBytes = options.l3CacheBytes;
  else if (options.l1CacheBytes <= 0 && options.l2CacheBytes <= 0)
    target.l3CacheBytes =
        native ? getHostCacheShareBytes(3).value_or(knownL3) : knownL3;

  target.vectorMathLibrary = triple.getArch() == llvm::Triple::x86_64 &&
                             triple.isOSLinux() && triple.isGNUEnvironment();
  target.x86Sfence = triple.isX86();
  target.hugePages = triple.isOSLinux();
  return target;
}
