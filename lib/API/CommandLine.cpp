//===- CommandLine.cpp - The tools' flags for ProgramOptions --------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/CommandLine.h"

#include <limits>

using namespace tensorlang;
namespace cl = llvm::cl;

namespace {
/// The flags, constructed when a tool registers them (a library must not
/// register global options merely by being linked).
struct ProgramCLOptions {
  explicit ProgramCLOptions(cl::OptionCategory &category)
      : elementType("element-type",
                    cl::desc("Element type of a .tl program (an .mlir "
                             "program has its own; if given, it must agree)"),
                    cl::values(clEnumValN(ElementKind::F64, "f64", "double"),
                               clEnumValN(ElementKind::F32, "f32", "float")),
                    cl::init(ElementKind::F64), cl::cat(category)),
        pad("pad",
            cl::desc("Pad every extent to a multiple of M (0: none); compiled "
                     "functions then take padded buffers whose padding is "
                     "zero"),
            cl::value_desc("M"), cl::init(0), cl::cat(category)),
        layout("layout",
               cl::desc("The order of every variable's elements in the "
                        "caller's buffers and .npy files"),
               cl::values(clEnumValN(Layout::RowMajor, "row-major",
                                     "C order: the last index varies fastest"),
                          clEnumValN(Layout::ColumnMajor, "col-major",
                                     "Fortran order: the first index varies "
                                     "fastest")),
               cl::init(Layout::RowMajor), cl::cat(category)),
        sizes("size",
              cl::desc("The value of a size of the program that no input's "
                       "shape gives (or, if one does, must agree with)"),
              cl::value_desc("NAME=N"), cl::ZeroOrMore, cl::cat(category)),
        distribute(
            "distribute",
            cl::desc("Split the indices of this size of the program over MPI "
                     "processes (docs/distributed.md)"),
            cl::value_desc("SIZE"), cl::cat(category)),
        target("target",
               cl::desc("Target triple to generate code for: host, or one "
                        "such as aarch64-linux-gnu (tl-compile; the JIT "
                        "runs the host's code only)"),
               cl::value_desc("TRIPLE"), cl::init("host"), cl::cat(category)),
        gpuArch("gpu-arch",
                cl::desc("With --target=cuda: the NVIDIA GPU architecture "
                         "the kernels are compiled for"),
                cl::value_desc("sm_NN"), cl::init(CompileOptions().gpuArch),
                cl::cat(category)),
        gpuMappingOnCPU(
            "gpu-mapping-on-cpu",
            cl::desc("Map the statements to GPU blocks and threads as "
                     "--target=cuda does, and run the mapped loops on this "
                     "CPU (a test of the GPU target without a GPU)"),
            cl::init(false), cl::Hidden, cl::cat(category)),
        cpu("cpu",
            cl::desc("CPU to generate code for: host, or an LLVM CPU name "
                     "such as x86-64-v3, neoverse-v2 or a64fx"),
            cl::init(CompileOptions().cpu), cl::cat(category)),
        l1CacheBytes(
            "l1-cache-bytes",
            cl::desc("Bytes of one core's L1 data cache of the machine the "
                     "code will run on, for the tiles (0: this machine's)"),
            cl::value_desc("N"), cl::init(0), cl::cat(category)),
        l2CacheBytes(
            "l2-cache-bytes",
            cl::desc("Bytes of one core's L2 cache of the machine the code "
                     "will run on, for the tiles (0: this machine's)"),
            cl::value_desc("N"), cl::init(0), cl::cat(category)),
        vectorBits("vector-bits",
                   cl::desc("Vector width in bits (0: the CPU's widest)"),
                   cl::init(0), cl::cat(category)),
        optLevel("opt-level", cl::desc("LLVM optimization level, 0 to 3"),
                 cl::init(CompileOptions().optLevel), cl::cat(category)),
        noOptimize("no-optimize",
                   cl::desc("Compile the program as written, without the "
                            "tl-level optimizations (contraction order)"),
                   cl::init(false), cl::cat(category)),
        noTile("no-tile",
               cl::desc("Do not tile and vectorize contractions into "
                        "register-blocked micro-kernels "
                        "(tl-tile-contractions), and do not compute "
                        "statement chains per batch slice (tl-fuse-batches); "
                        "for comparisons"),
               cl::init(false), cl::cat(category)),
        fuseMinBytes(
            "fuse-min-bytes",
            cl::desc("Compute chains of statements one batch slice at a time "
                     "when their intermediates total at least N bytes "
                     "(tl-fuse-batches; 0: wherever possible)"),
            cl::value_desc("N"), cl::init(kFuseBatchesMinBytes),
            cl::cat(category)),
        streamMinBytes(
            "stream-min-bytes",
            cl::desc("Write variables of at least N bytes that a loop nest "
                     "writes whole rows of with non-temporal stores, where "
                     "they are aligned (tl-streaming-stores)"),
            cl::value_desc("N"), cl::init(kStreamingMinBytes),
            cl::cat(category)),
        remarks("remarks",
                cl::desc("Print each contraction's tiling plan (or why it "
                         "is not tiled), and whether a transposition of it "
                         "is folded into it, as remarks on stderr"),
                cl::init(false), cl::cat(category)),
        warningsAreErrors(
            "Werror",
            cl::desc("Treat warnings (statements whose value is never "
                     "used, inputs never read) as errors"),
            cl::init(false), cl::cat(category)) {}

  cl::opt<ElementKind> elementType;
  cl::opt<unsigned> pad;
  cl::opt<Layout> layout;
  cl::list<std::string> sizes;
  cl::opt<std::string> distribute;
  cl::opt<std::string> target;
  cl::opt<std::string> gpuArch;
  cl::opt<bool> gpuMappingOnCPU;
  cl::opt<std::string> cpu;
  cl::opt<uint64_t> l1CacheBytes;
  cl::opt<uint64_t> l2CacheBytes;
  cl::opt<unsigned> vectorBits;
  cl::opt<unsigned> optLevel;
  cl::opt<bool> noOptimize;
  cl::opt<bool> noTile;
  cl::opt<uint64_t> fuseMinBytes;
  cl::opt<uint64_t> streamMinBytes;
  cl::opt<bool> remarks;
  cl::opt<bool> warningsAreErrors;
};

struct RunCLOptions {
  explicit RunCLOptions(cl::OptionCategory &category)
      : engine(
            "engine", cl::desc("How to run the program"),
            cl::values(clEnumValN(Engine::Reference, "reference",
                                  "the reference interpreter"),
                       clEnumValN(Engine::Jit, "jit", "compiled native code")),
            cl::init(Engine::Jit), cl::cat(category)),
        maxWork("max-work",
                cl::desc("With --engine=reference: refuse programs estimated "
                         "to need more element evaluations than this"),
                cl::init(InterpreterOptions().maxWork), cl::cat(category)) {}

  cl::opt<Engine> engine;
  cl::opt<double> maxWork;
};

} // namespace

MachineErrorHandler::MachineErrorHandler(
    mlir::MLIRContext &context, std::function<void(const std::string &)> report)
    : ScopedDiagnosticHandler(
          &context, [report = std::move(report)](mlir::Diagnostic &diagnostic) {
            if (!mlir::isa<mlir::UnknownLoc>(diagnostic.getLocation()) ||
                diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error)
              return mlir::failure();
            report(diagnostic.str());
            return mlir::success();
          }) {}

static std::unique_ptr<ProgramCLOptions> programFlags;
static std::unique_ptr<RunCLOptions> runFlags;

/// A byte count from the command line, as the compiler's options hold it.
static int64_t byteCount(uint64_t bytes) {
  return int64_t(
      std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max()));
}

void tensorlang::registerProgramCLOptions(cl::OptionCategory &category,
                                          bool withRunFlags) {
  programFlags = std::make_unique<ProgramCLOptions>(category);
  if (withRunFlags)
    runFlags = std::make_unique<RunCLOptions>(category);
}

llvm::Expected<ProgramOptions>
tensorlang::getProgramOptionsFromCL(unsigned threads) {
  ProgramOptions options;
  if (!programFlags)
    return options;
  if (programFlags->optLevel > 3)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--opt-level must be 0, 1, 2 or 3, got " +
                                       std::to_string(programFlags->optLevel));
  if (programFlags->elementType.getNumOccurrences())
    options.elementType = programFlags->elementType;
  options.pad = programFlags->pad;
  options.layout = programFlags->layout;
  for (const std::string &binding : programFlags->sizes) {
    auto [name, text] = llvm::StringRef(binding).split('=');
    int64_t value;
    if (name.empty() || text.getAsInteger(10, value))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--size expects NAME=N with a positive integer N, got '" + binding +
              "'");
    options.sizes.emplace_back(name.str(), value);
  }
  CompileOptions &compile = options.compile;
  compile.distribute = programFlags->distribute;
  compile.target = programFlags->target;
  compile.gpuArch = programFlags->gpuArch;
  compile.gpuMappingOnCPU = programFlags->gpuMappingOnCPU;
  compile.cpu = programFlags->cpu;
  compile.vectorBits = programFlags->vectorBits;
  compile.l1CacheBytes = byteCount(programFlags->l1CacheBytes);
  compile.l2CacheBytes = byteCount(programFlags->l2CacheBytes);
  compile.optLevel = programFlags->optLevel;
  compile.optimize = !programFlags->noOptimize;
  compile.tileContractions = !programFlags->noTile;
  compile.fuseBatchesMinBytes = byteCount(programFlags->fuseMinBytes);
  compile.streamingMinBytes = byteCount(programFlags->streamMinBytes);
  compile.threads = threads;
  compile.remarks = programFlags->remarks;
  options.warningsAreErrors = programFlags->warningsAreErrors;
  if (runFlags) {
    options.engine = runFlags->engine;
    options.interpreter.maxWork = runFlags->maxWork;
  }
  return options;
}
