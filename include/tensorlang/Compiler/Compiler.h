//===- Compiler.h - Compile tl programs to native code ----------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler's C++ API: lower a tl.program to the LLVM dialect, then either
// JIT-compile it and run it on a Store, or emit an object file and a C
// header for an application to link.
//
// A compiled program is a function with one pointer argument per interface
// variable (tl::VarOp::isInterface: with qualifiers, the input and output
// variables; without, every variable), in declaration order, each pointing
// to the variable's elements in row-major order, or column-major for a
// program rewritten by tl-column-major (the caller owns the store, as in
// the report's ambient application). Intermediates are internal.
//
//   void name(const double *A, const double *B, double *C);
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_COMPILER_COMPILER_H
#define TENSORLANG_COMPILER_COMPILER_H

#include "tensorlang/Dialect/TL/IR/TLOps.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Support/Store.h"
#include "tensorlang/Transforms/Defaults.h"
#include "tensorlang/Transforms/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace tensorlang {

struct CompileOptions {
  /// The target triple to generate code for ("aarch64-linux-gnu"); empty
  /// or "host": this machine; "cuda": this machine with its statements on
  /// an NVIDIA GPU (gpuArch). The JIT runs the host's only.
  std::string target;
  /// With target "cuda": the GPU's architecture.
  std::string gpuArch = "sm_90";
  /// For testing the GPU target without a GPU: map the statements to
  /// blocks and threads as for the GPU (tl-gpu-map-loops), then run the
  /// mapped loops on this CPU.
  bool gpuMappingOnCPU = false;
  /// GPU contraction kernels: most rows (and columns) of the result one
  /// thread sums in registers (tl-gpu-map-loops' contraction-register-tile).
  unsigned gpuRegisterTile = 8;
  /// GPU contraction kernels: reduction indices staged per step.
  unsigned gpuDepthStep = 16;
  /// GPU contraction kernels: the f64 tensor-core product's shape (empty:
  /// on sm_90 and later the plan's, m16n8k8 or m16n8k4; else m8n8k4).
  std::string gpuF64Mma;
  /// GPU contraction kernels on the tensor cores: blocks per
  /// multiprocessor ptxas sizes their registers for (0: the plan's).
  unsigned gpuBlocksPerSM = 0;
  /// GPU contraction kernels on the tensor cores: stages of asynchronous
  /// copies of their tiles (0: none; -1: the chip's default).
  int gpuAsyncStages = -1;
  /// GPU contraction kernels: their blocks in groups of this many tiles
  /// of rows (0: the columns fastest; -1: the default).
  int gpuTileGroupRows = -1;
  /// GPU contraction kernels on the tensor cores: the tile of an input
  /// loaded depth index fastest stored depth-contiguous in shared memory.
  bool gpuDepthContiguousTiles = false;
  /// Vector width in bits for the vectorizer; 0 picks the widest of `cpu`
  /// (512 with AVX-512, 256 with AVX, else 128; SVE's length on AArch64).
  unsigned vectorBits = 0;
  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 3;
  /// The CPU to generate code for: "host", or an LLVM CPU name such as
  /// "x86-64-v3" (the JIT then runs code for that CPU on this one). Its
  /// vector width and register count drive the tiling (resolveTarget).
  std::string cpu = "host";
  /// Bytes of one core's L1 data and L2 caches for the tiling decisions;
  /// 0: the host's (the code runs here, or on a machine like it).
  int64_t l1CacheBytes = 0;
  int64_t l2CacheBytes = 0;
  /// Bytes of one core's share of L3 (its size over the cores that share
  /// it); 0: the host's where L1 and L2 are the host's too, else none (a
  /// machine described by its cache sizes has the L3 it is given).
  int64_t l3CacheBytes = 0;
  /// Run the tl-level optimizations (contraction order) before lowering.
  bool optimize = true;
  /// Tile contractions for caches and registers and vectorize them into
  /// FMA micro-kernels (tl-tile-contractions); without it a contraction is
  /// one vectorized loop nest.
  bool tileContractions = true;
  /// With tileContractions: a chain of statements whose intermediates total
  /// at least this many bytes is computed one batch slice at a time
  /// (tl-fuse-batches), its intermediates allocated once, in cache.
  int64_t fuseBatchesMinBytes = kFuseBatchesMinBytes;
  /// Loop nests that write whole rows of a variable of at least this many
  /// bytes write it with non-temporal stores when it is 64-byte aligned
  /// (tl-streaming-stores): no read for ownership, no cache pollution.
  int64_t streamingMinBytes = kStreamingMinBytes;
  /// Batch loops that compute prefetch the next iteration's slices of at
  /// least this many bytes (tl-prefetch-batch-slices).
  int64_t prefetchMinSliceBytes = kPrefetchMinSliceBytes;
  /// Register tiles prefetch the operands they read a stride apart at each
  /// reduction step this many steps ahead (tl-lower-contraction-vectors).
  int64_t prefetchStridedSteps = kPrefetchStridedSteps;
  /// Contractions over sizes get a version planned for short sizes, run
  /// where every size of its loops is at most this (tl-tile-contractions;
  /// -1: the target's, 0: none).
  int64_t maxShortSize = -1;
  /// Contractions over sizes get a version planned for columns of three
  /// vectors, run where the columns' sizes are multiples of them
  /// (tl-tile-contractions; false: --no-wide-columns).
  bool wideColumnVersions = true;
  /// Computes chains of small elements a register tile's columns of batch
  /// indices at a time with the batch index last (tl-interlace-batches).
  bool interlaceBatches = false;
  /// Threads for the outermost parallel loop of each loop nest (OpenMP).
  /// Above 1, the code calls libomp: the JIT loads it, and object files
  /// must be linked with -fopenmp (or -lomp).
  unsigned threads = 1;
  /// Report each contraction's tiling plan, or why it is not tiled, as
  /// remarks on the program (tl-tile-contractions emit-remarks).
  bool remarks = false;
  /// The size whose indices are split over MPI processes (tl-distribute);
  /// empty: none. The code then calls the MPI runtime
  /// (lib/Runtime/MPIRuntime.c) for the sums over it, and its function,
  /// `<name>_mpi`, takes the communicator first.
  std::string distribute;
  /// The communicator the JIT passes to a distributed program, as MPI's
  /// Fortran handle (MPI_Comm_c2f).
  int32_t communicator = 0;
};

/// Bytes of the host's data cache of `level` (1: L1 data, 2: L2) per core,
/// from Linux's sysfs, else (x86) from CPUID; nullopt where neither says.
std::optional<int64_t> getHostCacheBytes(unsigned level);
/// Bytes of the host's cache of `level` (3: L3) per core: its size over the
/// cores that share it; nullopt where the host does not say who shares it.
std::optional<int64_t> getHostCacheShareBytes(unsigned level);
/// Whether `target` (CompileOptions::target) names this machine's triple.
bool isHostTarget(llvm::StringRef target);
/// Whether `target` names the NVIDIA GPU target ("cuda", or an nvptx
/// triple).
bool isCudaTarget(llvm::StringRef target);
/// The CUDA toolkit whose libdevice (nvvm/libdevice/libdevice.10.bc) GPU
/// kernels that call exp, log, abs link: $CUDA_HOME, $CUDA_PATH,
/// $CUDA_ROOT, /usr/local/cuda or the toolkit of the nvcc on PATH. Where
/// there is none, a stand-in made for this process with an empty
/// libdevice, so that kernels without such calls still compile (MLIR
/// insists on a libdevice).
std::string getCudaToolkit();
/// The target a compilation with `options` generates code for, resolved
/// once: the triple (options.target, else this process's), the CPU's vector
/// width and registers from LLVM's description of it (or
/// options.vectorBits), the caches given in the options, else the host's
/// for the host and known values for a few foreign CPUs, else the reference
/// target's; and the facilities the triple has. Fails on an unknown triple
/// or CPU, with the message a tool prints.
llvm::Expected<TargetDescription> resolveTarget(const CompileOptions &options);

/// A compiled program in the LLVM dialect, with what is known about it.
struct LoweredProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The target it was lowered for (also on the module, as `tl.target`).
  TargetDescription target;
  std::string functionName;
  /// Bytes the function allocates for temporaries while it runs (those of
  /// static shape).
  int64_t temporaryBytes = 0;
  /// Whether it also allocates temporaries whose shape has sizes (and,
  /// once tl-workspace ran, its workspace variant does too).
  bool hasSizedTemporaries = false;
  /// The bytes of the workspace of its `_ws` variant (tl-workspace); -1
  /// if it has none (GPU programs) or its size grows with the sizes.
  int64_t workspaceBytes = 0;
  /// Whether the workspace's size is computed from the sizes (its
  /// `_workspace_size` function) because some temporaries grow with them.
  bool workspaceGrowsWithSizes = false;
};

/// Lowers `program` (cloned; the original is untouched) through linalg,
/// bufferization, affine loops and vectors to the LLVM dialect. Errors are
/// reported on the program.
mlir::FailureOr<LoweredProgram> lowerToLLVM(tl::ProgramOp program,
                                            const CompileOptions &options);

/// The IR of `program` at a stage of the lowering, as text: "tl" (the
/// program itself), "linalg" (after --convert-tl-to-linalg), "loops" (after
/// bufferization, affine loops and vectorization) or "llvm" (the LLVM
/// dialect). Errors are reported on the program.
mlir::FailureOr<std::string> printStage(tl::ProgramOp program,
                                        llvm::StringRef stage,
                                        const CompileOptions &options = {});

/// A program compiled to native code in this process.
class JitProgram {
public:
  /// Compiles `program` at -O(options.optLevel) for the host CPU.
  static mlir::FailureOr<std::unique_ptr<JitProgram>>
  compile(tl::ProgramOp program, const CompileOptions &options = {});
  ~JitProgram();

  /// Runs the program on `store`, which must hold every interface variable
  /// with its declared shape and element type; the sizes take their values from
  /// the stored shapes, which must agree. Refuses to run (with an error on the
  /// program) when its temporaries would not fit in memory.
  mlir::LogicalResult run(Store &store);

  /// Calls the compiled function directly: the value of each size, in
  /// order of declaration, then one pointer per interface variable, in
  /// declaration order (a distributed program's communicator first). Its
  /// temporaries are in this program's workspace, allocated once.
  void call(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<void *> variables);

  int64_t getTemporaryBytes() const { return temporaryBytes; }
  /// The bytes of the workspace the calls reuse (tl-workspace); -1 if
  /// they grow with the sizes (getWorkspaceSize) or there is none.
  int64_t getWorkspaceBytes() const { return workspaceBytes; }
  /// The bytes of workspace a call with these sizes' values needs (-1 if
  /// the program has no workspace variant).
  int64_t getWorkspaceSize(llvm::ArrayRef<int64_t> sizes) const;
  /// The compiled function itself: the function an object file of the
  /// program defines (emitCHeader declares it), callable from C.
  void *getFunctionAddress() const { return function; }
  /// Its workspace variant (tl-workspace): the same arguments, then the
  /// workspace, of getWorkspaceSize(sizes) bytes.
  void *getWorkspaceFunctionAddress() const { return workspaceFunction; }
  /// A GPU program's device variant (`<name>_device`: device pointers, the
  /// stream last), or null for other targets.
  void *getDeviceFunctionAddress() const { return deviceFunction; }
  /// The interface of the functions (describeInterface).
  const std::string &getInterfaceDescription() const {
    return interfaceDescription;
  }

private:
  JitProgram() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  tl::ProgramOp program;
  std::string functionName;
  std::vector<std::string> variables;
  int64_t temporaryBytes = 0;
  /// Whether its statements run on a GPU (the CUDA runtime reports errors).
  bool gpu = false;
  /// A distributed program's communicator (MPI_Fint), if it takes one.
  std::optional<int32_t> communicator;
  void (*packed)(void **) = nullptr;
  void *function = nullptr;
  void *workspaceFunction = nullptr;
  void *deviceFunction = nullptr;
  std::string interfaceDescription;
  /// The workspace variant (tl-workspace) and the workspace, allocated at
  /// the first call and reused by every later one. A call that finds it in
  /// use (another thread's) calls the plain function, which allocates.
  void (*packedWithWorkspace)(void **) = nullptr;
  int64_t workspaceBytes = 0;
  /// The workspace's size function, where it grows with the sizes: the
  /// workspace grows with it, to the largest a call has needed.
  void (*packedWorkspaceSize)(void **) = nullptr;
  std::optional<HostTensor> workspace;
  std::mutex workspaceMutex;
};

/// Compiles `lowered` (lowerToLLVM of `program` with `options`) ahead of
/// time into a relocatable object file at `path`, written atomically, for
/// lowered.target (another machine's triple, say). The object defines one
/// function named after the program and needs only the C library (malloc
/// and free).
/// With an `interfaceDescription` (describeInterface), the object also
/// defines `const char *tensorlang_interface(void)`, which returns it.
mlir::LogicalResult emitObjectFile(tl::ProgramOp program,
                                   LoweredProgram &lowered,
                                   const CompileOptions &options,
                                   llvm::StringRef path,
                                   llvm::StringRef interfaceDescription = "");

/// The interface of the function `lowered` defines, as JSON, for loaders
/// that have neither a header nor TensorLang (Python's `tensorlang.load`):
/// the function's name (and its device variant's, for a GPU), the dtype
/// and layout, the sizes, and each interface variable in order with its
/// declared shape (a size's name for a sized extent), its buffer's shape
/// (padded), its qualifiers and whether the program writes it.
std::string describeInterface(tl::ProgramOp program,
                              const LoweredProgram &lowered,
                              llvm::StringRef distributed);

/// Links the object at `objectPath` into a shared library at `path`
/// (atomically) with the C compiler for lowered.target ($CC, or cc for
/// this machine): the math library, libomp for several threads, and for a
/// GPU program the CUDA runtime itself, so that the library needs nothing
/// of TensorLang where it runs.
mlir::LogicalResult linkSharedLibrary(tl::ProgramOp program,
                                      const LoweredProgram &lowered,
                                      const CompileOptions &options,
                                      llvm::StringRef objectPath,
                                      llvm::StringRef path);

/// A variable's extents in the order its program declares them (storage in
/// column-major order reverses the types), a size where one stands: its
/// buffer's (padded, if the program is) and its real region's, as the C
/// header (emitCHeader) and describeInterface show them.
struct DeclaredExtents {
  llvm::SmallVector<tl::Extent> buffer;
  llvm::SmallVector<tl::Extent> real;
};
DeclaredExtents getDeclaredExtents(tl::ProgramOp program, tl::VarOp var);

/// The C header declaring the function an object file of `program` defines,
/// with each argument's type, shape and qualifier in a comment. Variables
/// the program never assigns are `const`. `hugePages`: whether the target
/// advises large temporaries onto huge pages (TargetDescription);
/// `gpuChip`: the NVIDIA GPU the statements run on (no workspace variant);
/// `workspaceGrowsWithSizes`: the workspace's size is computed from the
/// sizes (LoweredProgram).
std::string
emitCHeader(tl::ProgramOp program, int64_t temporaryBytes = -1,
            int64_t streamingMinBytes = CompileOptions().streamingMinBytes,
            bool hasSizedTemporaries = false, llvm::StringRef distributed = "",
            int64_t workspaceBytes = -1, bool hugePages = true,
            llvm::StringRef gpuChip = "", bool workspaceGrowsWithSizes = false);

/// A Fortran module (`<name>_interface`) with an ISO_C_BINDING explicit
/// interface for the function an object file of `program` defines: the
/// sizes by value, then an array per interface variable, its extents those
/// of its storage read column-major. Fails, with an error on the program,
/// on a name Fortran cannot have or two names that differ in case only.
mlir::FailureOr<std::string>
emitFortranInterface(tl::ProgramOp program, llvm::StringRef distributed = "");

} // namespace tensorlang

#endif // TENSORLANG_COMPILER_COMPILER_H
