//===- ProgramOptions.cpp - The options of a program, in one table --------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/ProgramOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>

using namespace tensorlang;
using llvm::StringRef;

/// The most threads a program may ask for: more than any machine's cores,
/// few enough that a typo (10000) is caught.
static constexpr unsigned kMaxThreads = 1024;

static llvm::Error invalid(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The message of a value outside an option's limits: "NAME must be WHAT,
/// got 'VALUE'".
static llvm::Error mustBe(StringRef name, StringRef what, StringRef value) {
  return invalid(name + " must be " + what + ", got '" + value + "'");
}

/// The message of a value that is none of an option's choices.
static llvm::Error unknownChoice(StringRef name, StringRef value,
                                 StringRef choices) {
  return invalid("unknown " + name + " '" + value + "' (" + choices + ")");
}

static llvm::Error setFlag(bool &flag, StringRef name, StringRef value) {
  if (value == "true" || value == "1")
    flag = true;
  else if (value == "false" || value == "0")
    flag = false;
  else
    return mustBe(name, "true or false", value);
  return llvm::Error::success();
}

/// Sets `on` to the negation of flag `name` (`no-tile`: tiling off).
static llvm::Error setNegatedFlag(bool &on, StringRef name, StringRef value) {
  bool off;
  if (llvm::Error error = setFlag(off, name, value))
    return error;
  on = !off;
  return llvm::Error::success();
}

/// A count (of bytes, of steps), 0 included; above int64_t's range is not
/// a count.
static llvm::Error setBytes(int64_t &bytes, StringRef name, StringRef what,
                            StringRef value) {
  int64_t parsed;
  if (value.getAsInteger(10, parsed) || parsed < 0)
    return mustBe(name, what, value);
  bytes = parsed;
  return llvm::Error::success();
}

static bool isSizeName(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name.front()) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static const ProgramOptionInfo optionTable[] = {
    {"element-type", OptionKind::Value, OptionScope::All, "f64|f32",
     "Element type of a source program (an .mlir program has its own; if "
     "given, it must agree): f64 (double) or f32 (float)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value == "f64")
         options.elementType = ElementKind::F64;
       else if (value == "f32")
         options.elementType = ElementKind::F32;
       else
         return unknownChoice("element-type", value, "f64, f32");
       return llvm::Error::success();
     }},
    {"syntax", OptionKind::Value, OptionScope::All, "tensorlang|cfdlang",
     "The language of the source: tensorlang (also tl) or cfdlang; without "
     "it, a file's extension decides (.tl, .cfd)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value == "tensorlang" || value == "tl")
         options.syntax = SourceSyntax::TensorLang;
       else if (value == "cfdlang")
         options.syntax = SourceSyntax::CFDlang;
       else
         return unknownChoice("syntax", value, "tensorlang, tl, cfdlang");
       return llvm::Error::success();
     }},
    {"pad", OptionKind::Value, OptionScope::All, "M",
     "Pad every extent to a multiple of M (0: none); compiled functions then "
     "take padded buffers whose padding is zero",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value.getAsInteger(10, options.pad))
         return mustBe("pad", "0 (no padding) or a positive multiple", value);
       return llvm::Error::success();
     }},
    {"layout", OptionKind::Value, OptionScope::All, "row-major|col-major",
     "The order of every variable's elements in the caller's buffers and "
     ".npy files: row-major (C order: the last index varies fastest) or "
     "col-major (also column-major; Fortran order: the first index varies "
     "fastest)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value == "row-major")
         options.layout = Layout::RowMajor;
       else if (value == "col-major" || value == "column-major")
         options.layout = Layout::ColumnMajor;
       else
         return unknownChoice("layout", value, "row-major, col-major");
       return llvm::Error::success();
     }},
    {"size", OptionKind::List, OptionScope::All, "NAME=N",
     "The value of a size of the program that no input's shape gives (or, if "
     "one does, must agree with)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       auto [name, text] = value.split('=');
       int64_t parsed;
       // Program checks that the value is not negative, for every
       // interface.
       if (!isSizeName(name) || text.getAsInteger(10, parsed))
         return invalid("size expects NAME=N with an integer N, got '" + value +
                        "'");
       options.sizes.emplace_back(name.str(), parsed);
       return llvm::Error::success();
     }},
    {"distribute", OptionKind::Value, OptionScope::All, "SIZE",
     "Split the indices of this size of the program over MPI processes "
     "(docs/distributed.md)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (!isSizeName(value))
         return mustBe("distribute", "the name of a size of the program",
                       value);
       options.compile.distribute = value.str();
       return llvm::Error::success();
     }},
    {"threads", OptionKind::Value, OptionScope::All, "N",
     "Run the outermost parallel loop of each loop nest on N threads "
     "(OpenMP; default 1)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned threads;
       if (value.getAsInteger(10, threads) || threads < 1 ||
           threads > kMaxThreads)
         return mustBe("threads",
                       "a number from 1 to " + std::to_string(kMaxThreads),
                       value);
       options.compile.threads = threads;
       return llvm::Error::success();
     }},
    {"target", OptionKind::Value, OptionScope::All, "TRIPLE",
     "Target to generate code for: host, cuda (this machine's NVIDIA GPU, "
     "docs/gpu.md), or a triple such as aarch64-linux-gnu (tl-compile; the "
     "JIT runs the host's code only)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value != "host" && !isCudaTarget(value) &&
           llvm::Triple(llvm::Triple::normalize(value)).getArch() ==
               llvm::Triple::UnknownArch)
         return unknownChoice("target", value,
                              "host, cuda or a triple such as "
                              "aarch64-linux-gnu");
       options.compile.target = value.str();
       return llvm::Error::success();
     }},
    {"cpu", OptionKind::Value, OptionScope::All, "CPU",
     "CPU to generate code for: host, or an LLVM CPU name such as x86-64-v3, "
     "neoverse-v2 or a64fx",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       // Whether the target knows the CPU is resolveTarget's to say.
       if (value.empty() || value.contains(' '))
         return mustBe("cpu", "host or an LLVM CPU name such as x86-64-v3",
                       value);
       options.compile.cpu = value.str();
       return llvm::Error::success();
     }},
    {"gpu-arch", OptionKind::Value, OptionScope::All, "sm_NN",
     "With target cuda: the NVIDIA GPU architecture the kernels are compiled "
     "for",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned version;
       if (!value.starts_with("sm_") ||
           value.drop_front(3).getAsInteger(10, version))
         return invalid("unknown GPU architecture '" + value +
                        "' (expected sm_NN, such as sm_90)");
       options.compile.gpuArch = value.str();
       return llvm::Error::success();
     }},
    {"gpu-register-tile", OptionKind::Value, OptionScope::All, "N",
     "With target cuda: most rows (and most columns) of a contraction's "
     "result each GPU thread sums in registers: 1, 2, 4 or 8 (default 8: "
     "4 but for long contractions with enough tiles of 128 x 128)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned tile;
       if (value.getAsInteger(10, tile) || tile < 1 || tile > 8 ||
           (tile & (tile - 1)) != 0)
         return mustBe("gpu-register-tile", "1, 2, 4 or 8", value);
       options.compile.gpuRegisterTile = tile;
       return llvm::Error::success();
     }},
    {"gpu-depth-step", OptionKind::Value, OptionScope::All, "N",
     "With target cuda: reduction indices a contraction kernel stages in "
     "shared memory per step: 16, 32 or 64 (default 16)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned step;
       if (value.getAsInteger(10, step) ||
           (step != 16 && step != 32 && step != 64))
         return mustBe("gpu-depth-step", "16, 32 or 64", value);
       options.compile.gpuDepthStep = step;
       return llvm::Error::success();
     }},
    {"gpu-blocks-per-sm", OptionKind::Value, OptionScope::All, "N",
     "With target cuda: blocks per multiprocessor the registers of "
     "contraction kernels on sm_90's f64 tensor-core shapes are sized for: "
     "1 to 8 (default: the plan's)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned blocks;
       if (value.getAsInteger(10, blocks) || blocks < 1 || blocks > 8)
         return mustBe("gpu-blocks-per-sm", "1 to 8", value);
       options.compile.gpuBlocksPerSM = blocks;
       return llvm::Error::success();
     }},
    {"gpu-async-stages", OptionKind::Value, OptionScope::All, "N",
     "With target cuda: stages of asynchronous copies (cp.async) of the "
     "tiles of contraction kernels on the f64 tensor cores, where they "
     "have more than one step: 0 (loaded through registers) or 2 to 8 "
     "(default: 3 on sm_80 and later)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned stages;
       if (value.getAsInteger(10, stages) || stages == 1 || stages > 8)
         return mustBe("gpu-async-stages", "0 or 2 to 8", value);
       options.compile.gpuAsyncStages = stages;
       return llvm::Error::success();
     }},
    {"gpu-tile-group-rows", OptionKind::Value, OptionScope::All, "N",
     "With target cuda: order the blocks of contraction kernels in groups "
     "of N tiles of rows, the rows fastest within a group (0: the columns "
     "fastest)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned rows;
       if (value.getAsInteger(10, rows) || rows > 64)
         return mustBe("gpu-tile-group-rows", "0 to 64", value);
       options.compile.gpuTileGroupRows = rows;
       return llvm::Error::success();
     }},
    {"gpu-depth-contiguous-tiles", OptionKind::Flag, OptionScope::All, "",
     "With target cuda: store the tensor cores' tile of an input whose "
     "stride-1 index is a reduction with the depth contiguous in shared "
     "memory ([row][depth]) rather than [depth][row]",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setFlag(options.compile.gpuDepthContiguousTiles,
                      "gpu-depth-contiguous-tiles", value);
     }},
    {"gpu-f64-mma", OptionKind::Value, OptionScope::All, "SHAPE",
     "With target cuda: the f64 tensor-core product of contraction kernels: "
     "m8n8k4 (sm_80's), or sm_90's m16n8k4, m16n8k8 or m16n8k16 (default "
     "on sm_90: m16n8k8 for the kernels sized for one block per "
     "multiprocessor, m16n8k4 for the others)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value != "m8n8k4" && value != "m16n8k4" && value != "m16n8k8" &&
           value != "m16n8k16")
         return unknownChoice("gpu-f64-mma", value,
                              "m8n8k4, m16n8k4, m16n8k8 or m16n8k16");
       options.compile.gpuF64Mma = value.str();
       return llvm::Error::success();
     }},
    {"gpu-mapping-on-cpu", OptionKind::Flag, OptionScope::All, "",
     "Map the statements to GPU blocks and threads as target cuda does, and "
     "run the mapped loops on this CPU (a test of the GPU target without a "
     "GPU)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setFlag(options.compile.gpuMappingOnCPU, "gpu-mapping-on-cpu",
                      value);
     }},
    {"l1-cache-bytes", OptionKind::Value, OptionScope::All, "N",
     "Bytes of one core's L1 data cache of the machine the code will run on, "
     "for the tiles (0: this machine's)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.l1CacheBytes, "l1-cache-bytes",
                       "a positive number of bytes (0: this machine's)", value);
     }},
    {"l2-cache-bytes", OptionKind::Value, OptionScope::All, "N",
     "Bytes of one core's L2 cache of the machine the code will run on, for "
     "the tiles (0: this machine's)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.l2CacheBytes, "l2-cache-bytes",
                       "a positive number of bytes (0: this machine's)", value);
     }},
    {"l3-cache-bytes", OptionKind::Value, OptionScope::All, "N",
     "Bytes of one core's share of the L3 cache (its size over the cores "
     "that share it) of the machine the code will run on, for the tiles (0: "
     "this machine's, where the L1 and L2 sizes are not given either)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.l3CacheBytes, "l3-cache-bytes",
                       "a positive number of bytes (0: this machine's)", value);
     }},
    {"vector-bits", OptionKind::Value, OptionScope::All, "N",
     "Vector width in bits (0: the CPU's widest)", false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value.getAsInteger(10, options.compile.vectorBits))
         return mustBe("vector-bits", "a number of bits (0: the CPU's widest)",
                       value);
       return llvm::Error::success();
     }},
    {"opt-level", OptionKind::Value, OptionScope::All, "N",
     "LLVM optimization level, 0 to 3", false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       unsigned level;
       if (value.getAsInteger(10, level) || level > 3)
         return mustBe("opt-level", "0, 1, 2 or 3", value);
       options.compile.optLevel = level;
       return llvm::Error::success();
     }},
    {"no-optimize", OptionKind::Flag, OptionScope::All, "",
     "Compile the program as written, without the tl-level optimizations "
     "(contraction order)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setNegatedFlag(options.compile.optimize, "no-optimize", value);
     }},
    {"no-tile", OptionKind::Flag, OptionScope::All, "",
     "Do not tile and vectorize contractions into register-blocked "
     "micro-kernels (tl-tile-contractions), and do not compute statement "
     "chains per batch slice (tl-fuse-batches); for comparisons",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setNegatedFlag(options.compile.tileContractions, "no-tile",
                             value);
     }},
    {"fuse-min-bytes", OptionKind::Value, OptionScope::All, "N",
     "Compute chains of statements one batch slice at a time when their "
     "intermediates total at least N bytes (tl-fuse-batches; 0: wherever "
     "possible)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.fuseBatchesMinBytes, "fuse-min-bytes",
                       "a number of bytes", value);
     }},
    {"stream-min-bytes", OptionKind::Value, OptionScope::All, "N",
     "Write variables of at least N bytes that a loop nest writes whole rows "
     "of with non-temporal stores, where they are aligned "
     "(tl-streaming-stores)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.streamingMinBytes, "stream-min-bytes",
                       "a number of bytes", value);
     }},
    {"prefetch-min-bytes", OptionKind::Value, OptionScope::All, "N",
     "Prefetch the next slice of a batch, while one is computed, where a "
     "slice has at least N bytes (tl-prefetch-batch-slices)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.prefetchMinSliceBytes,
                       "prefetch-min-bytes", "a number of bytes", value);
     }},
    {"prefetch-steps", OptionKind::Value, OptionScope::All, "N",
     "Prefetch the operands a register tile reads a stride apart at each "
     "reduction step N steps ahead (tl-lower-contraction-vectors; 0: none)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.prefetchStridedSteps, "prefetch-steps",
                       "a number of steps", value);
     }},
    {"max-short-size", OptionKind::Value, OptionScope::All, "N",
     "Give contractions over sizes a version planned for short sizes, run "
     "where every size of its loops is at most N (tl-tile-contractions; 0: "
     "none; default: twice the target's depth block)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setBytes(options.compile.maxShortSize, "max-short-size",
                       "a number of elements", value);
     }},
    {"no-wide-columns", OptionKind::Flag, OptionScope::All, "",
     "Give contractions over sizes no version planned for register tiles "
     "three vectors wide, which otherwise runs where the columns' sizes are "
     "multiples of three vectors (tl-tile-contractions)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setNegatedFlag(options.compile.wideColumnVersions,
                             "no-wide-columns", value);
     }},
    {"interlace-batches", OptionKind::Flag, OptionScope::All, "",
     "Compute chains of small elements a register tile's columns of batch "
     "indices at a time, with the batch index last (tl-interlace-batches)",
     true,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setFlag(options.compile.interlaceBatches, "interlace-batches",
                      value);
     }},
    {"remarks", OptionKind::Flag, OptionScope::All, "",
     "Print each contraction's tiling plan (or why it is not tiled), and "
     "whether a transposition of it is folded into it, as remarks on stderr",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setFlag(options.compile.remarks, "remarks", value);
     }},
    {"Werror", OptionKind::Flag, OptionScope::All, "",
     "Treat warnings (statements whose value is never used, inputs never "
     "read) as errors",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       return setFlag(options.warningsAreErrors, "Werror", value);
     }},
    {"engine", OptionKind::Value, OptionScope::Run, "jit|reference",
     "How to run the program: jit (compiled native code) or reference (the "
     "reference interpreter)",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       if (value == "jit")
         options.engine = Engine::Jit;
       else if (value == "reference")
         options.engine = Engine::Reference;
       else
         return unknownChoice("engine", value, "jit, reference");
       return llvm::Error::success();
     }},
    {"max-work", OptionKind::Value, OptionScope::Run, "N",
     "With engine reference: refuse programs estimated to need more element "
     "evaluations than this",
     false,
     [](ProgramOptions &options, StringRef value) -> llvm::Error {
       double work;
       if (value.getAsDouble(work) || !(work > 0) || std::isinf(work))
         return mustBe("max-work", "a positive number of element evaluations",
                       value);
       options.interpreter.maxWork = work;
       return llvm::Error::success();
     }},
};

llvm::ArrayRef<ProgramOptionInfo> tensorlang::getProgramOptionTable() {
  return optionTable;
}

const ProgramOptionInfo *tensorlang::lookupProgramOption(StringRef name) {
  for (const ProgramOptionInfo &info : optionTable)
    if (info.name == name)
      return &info;
  return nullptr;
}

llvm::Error tensorlang::setProgramOption(ProgramOptions &options,
                                         StringRef name, StringRef value) {
  const ProgramOptionInfo *info = lookupProgramOption(name);
  if (!info)
    return invalid("unknown option '" + name + "'");
  return info->set(options, value);
}

llvm::Error tensorlang::checkJitTarget(const ProgramOptions &options) {
  StringRef target = options.compile.target;
  if (isHostTarget(target) || isCudaTarget(target))
    return llvm::Error::success();
  return invalid("the JIT runs code for this machine only, not for '" + target +
                 "': compile an object with tl-compile");
}
