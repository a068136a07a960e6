//===- JIT.cpp - Compile and run tl programs in-process -------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <unistd.h>

using namespace mlir;
using namespace tensorlang;

JitProgram::~JitProgram() = default;

/// An error of the machine, not of the program: without a location, so
/// that the tools print it as one line.
static LogicalResult emitMachineError(tl::ProgramOp program,
                                      llvm::StringRef message) {
  return emitError(UnknownLoc::get(program.getContext()), message);
}

/// Loads the CUDA runtime into the process (the JIT finds its symbols
/// there) and asks it whether a driver and a GPU are usable: one line of
/// error where they are not.
static LogicalResult loadCudaRuntime(tl::ProgramOp program) {
  // An installed copy (the pip package's) overrides the build's.
  std::string path = TENSORLANG_CUDA_RUNTIME_LIBRARY;
  if (const char *given = std::getenv("TENSORLANG_CUDA_RUNTIME_LIBRARY");
      given && *given)
    path = given;
  std::string error;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(path.c_str(), &error))
    return program.emitError("cannot load the CUDA runtime ")
           << path << ": " << error;
  auto init = reinterpret_cast<int (*)(char *, size_t)>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "tensorlang_cuda_init"));
  if (!init)
    return program.emitError("the CUDA runtime ")
           << path << " has no tensorlang_cuda_init";
  char message[512];
  if (init(message, sizeof message) != 0)
    return emitMachineError(program, message);
  return success();
}

/// The first error of the CUDA runtime since clearCudaError, if any.
static const char *getCudaError() {
  auto lastError = reinterpret_cast<const char *(*)()>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "tensorlang_cuda_last_error"));
  return lastError ? lastError() : nullptr;
}

/// Forgets the runtime's error: an earlier program's failure is not this
/// one's. (Two threads running GPU programs at once share the one record.)
static void clearCudaError() {
  auto clear = reinterpret_cast<void (*)()>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          "tensorlang_cuda_clear_error"));
  if (clear)
    clear();
}

static void initializeNativeTarget() {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Streaming stores fence with inline assembly (tl-streaming-stores).
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;
}

FailureOr<std::unique_ptr<JitProgram>>
JitProgram::compile(tl::ProgramOp program, const CompileOptions &options) {
  bool gpu = isCudaTarget(options.target);
  if (!isHostTarget(options.target) && !gpu)
    return program.emitError("the JIT runs code for this machine only, not "
                             "for '")
           << options.target << "': compile an object with tl-compile";
  if (gpu && failed(loadCudaRuntime(program)))
    return failure();
  initializeNativeTarget();
  // Multi-threaded code calls the OpenMP runtime.
  SmallVector<StringRef, 1> libraries;
  if (!options.distribute.empty()) {
    // An installed copy (the pip package's) overrides the build's.
    if (const char *runtime = std::getenv("TENSORLANG_MPI_RUNTIME_LIBRARY");
        runtime && *runtime) {
      libraries.push_back(runtime);
    } else {
#ifdef TENSORLANG_MPI_RUNTIME_LIBRARY
      libraries.push_back(TENSORLANG_MPI_RUNTIME_LIBRARY);
#else
      return program.emitError("a distributed program needs the MPI runtime "
                               "(libopenmpi-dev), which this build did not "
                               "find");
#endif
    }
  }
  if (options.threads > 1) {
#ifdef TENSORLANG_OPENMP_LIBRARY
    libraries.push_back(TENSORLANG_OPENMP_LIBRARY);
#else
    return program.emitError("--threads above 1 needs the OpenMP runtime "
                             "(libomp-22-dev), which this build did not find");
#endif
  }
  FailureOr<LoweredProgram> lowered = lowerToLLVM(program, options);
  if (failed(lowered))
    return failure();
  // Vector exp and log call libmvec (tl-vector-math-library); the JIT finds
  // the symbols of libraries loaded into the process.
  if (lowered->target.vectorMathLibrary) {
    std::string error;
    if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(kVectorMathLibrary,
                                                          &error))
      return program.emitError("cannot load ")
             << kVectorMathLibrary
             << " (glibc's vector math library): " << error;
  }
  MLIRContext *context = program.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);

  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return program.emitError("cannot target the host CPU: ")
           << llvm::toString(machineBuilder.takeError());
  if (options.cpu != "host") {
    // Code for a named CPU (x86-64-v3, say) runs on this one when this one
    // has its features: for measuring another target's code.
    machineBuilder =
        llvm::orc::JITTargetMachineBuilder(machineBuilder->getTargetTriple());
    machineBuilder->setCPU(options.cpu);
  }
  llvm::CodeGenOptLevel level =
      options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : options.optLevel == 0 ? llvm::CodeGenOptLevel::None
                              : llvm::CodeGenOptLevel::Default;
  machineBuilder->setCodeGenOptLevel(level);
  auto machine = machineBuilder->createTargetMachine();
  if (!machine)
    return program.emitError("cannot target the host CPU: ")
           << llvm::toString(machine.takeError());
  auto transformer =
      makeOptimizingTransformer(options.optLevel, 0, machine->get());

  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = level;
  engineOptions.sharedLibPaths = libraries;
  auto engine = ExecutionEngine::create(*lowered->module, engineOptions,
                                        std::move(*machine));
  if (!engine)
    return program.emitError("JIT compilation failed: ")
           << llvm::toString(engine.takeError());

  std::unique_ptr<JitProgram> jit(new JitProgram());
  jit->engine = std::move(*engine);
  if (gpu) {
    // The kernels are loaded by the module's constructors.
    clearCudaError();
    jit->engine->initialize();
    if (const char *error = getCudaError())
      return emitMachineError(program, error);
    jit->gpu = true;
  }
  jit->program = program;
  jit->functionName = lowered->functionName;
  if (!options.distribute.empty())
    jit->communicator = options.communicator;
  jit->temporaryBytes = lowered->temporaryBytes;
  for (tl::VarOp var : program.getVars())
    if (var.isInterface())
      jit->variables.push_back(var.getSymName().str());
  auto packed = jit->engine->lookupPacked(jit->functionName);
  if (!packed)
    return program.emitError("JIT compilation produced no function: ")
           << llvm::toString(packed.takeError());
  jit->packed = *packed;
  auto function = jit->engine->lookup(jit->functionName);
  if (!function)
    return program.emitError("JIT compilation produced no function: ")
           << llvm::toString(function.takeError());
  jit->function = *function;
  jit->interfaceDescription =
      describeInterface(program, *lowered, options.distribute);
  if (gpu) {
    auto deviceFunction = jit->engine->lookup(jit->functionName + "_device");
    if (!deviceFunction)
      return program.emitError("JIT compilation produced no device function: ")
             << llvm::toString(deviceFunction.takeError());
    jit->deviceFunction = *deviceFunction;
  }
  // (GPU programs keep their temporaries in device memory: no workspace.)
  if (lowered->workspaceBytes < 0 && !lowered->workspaceGrowsWithSizes) {
    jit->workspaceBytes = -1;
    return jit;
  }
  auto withWorkspace = jit->engine->lookupPacked(jit->functionName + "_ws");
  auto workspaceFunction = jit->engine->lookup(jit->functionName + "_ws");
  if (!withWorkspace || !workspaceFunction) {
    llvm::consumeError(withWorkspace.takeError());
    llvm::consumeError(workspaceFunction.takeError());
    return program.emitError("JIT compilation produced no workspace variant");
  }
  jit->packedWithWorkspace = *withWorkspace;
  jit->workspaceFunction = *workspaceFunction;
  // (The lowering read the size tl-workspace gave the size function.)
  jit->workspaceBytes = lowered->workspaceBytes;
  if (lowered->workspaceGrowsWithSizes) {
    auto size =
        jit->engine->lookupPacked(jit->functionName + "_workspace_size");
    if (!size)
      return program.emitError("JIT compilation produced no workspace size "
                               "function: ")
             << llvm::toString(size.takeError());
    jit->packedWorkspaceSize = *size;
  }
  return jit;
}

int64_t JitProgram::getWorkspaceSize(llvm::ArrayRef<int64_t> sizes) const {
  if (!packedWithWorkspace)
    return -1;
  if (!packedWorkspaceSize)
    return workspaceBytes;
  llvm::SmallVector<int64_t, 4> sizeValues(sizes);
  llvm::SmallVector<void *, 5> arguments;
  for (int64_t &size : sizeValues)
    arguments.push_back(&size);
  int64_t bytes = 0;
  arguments.push_back(&bytes);
  packedWorkspaceSize(arguments.data());
  return bytes;
}

void JitProgram::call(llvm::ArrayRef<int64_t> sizes,
                      llvm::ArrayRef<void *> pointers) {
  // The packed wrapper takes the address of each argument.
  llvm::SmallVector<int64_t, 4> sizeValues(sizes);
  llvm::SmallVector<void *, 8> values(pointers);
  llvm::SmallVector<void *, 8> arguments;
  if (communicator)
    arguments.push_back(&*communicator);
  for (int64_t &size : sizeValues)
    arguments.push_back(&size);
  for (void *&value : values)
    arguments.push_back(&value);
  if (!packedWithWorkspace) {
    packed(arguments.data());
    return;
  }
  std::unique_lock<std::mutex> lock(workspaceMutex, std::try_to_lock);
  // A workspace that grows with the sizes is reallocated when a call needs
  // more than any before it. (A size computation that overflowed comes out
  // negative: the plain function allocates what it needs itself.)
  int64_t needed = lock.owns_lock() ? getWorkspaceSize(sizes) : -1;
  if (needed >= 0 && (!workspace || int64_t(workspace->getByteSize()) < needed))
    workspace = HostTensor::allocateUninitialized(
        ElementKind::F64, {std::max<int64_t>(1, (needed + 7) / 8)});
  if (needed < 0 || !workspace) {
    packed(arguments.data());
    return;
  }
  void *block = workspace->getData();
  arguments.push_back(&block);
  packedWithWorkspace(arguments.data());
}

LogicalResult JitProgram::run(Store &store) {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0 &&
      double(temporaryBytes) > double(pages) * double(pageSize))
    return program.emitError()
           << "the compiled program needs " << temporaryBytes
           << " bytes of temporaries, more than this machine's memory";
  llvm::SmallVector<void *, 8> pointers;
  ElementKind kind = program.getElementType().getWidth() == 32
                         ? ElementKind::F32
                         : ElementKind::F64;
  // Each size's value: the extent of the first stored dimension that
  // stands for it. Every other such dimension must agree.
  llvm::StringMap<int64_t> sizeValues;
  for (const std::string &name : variables) {
    auto it = store.find(name);
    RankedTensorType type = program.lookupVar(name).getType();
    bool matches = it != store.end() && it->second.getKind() == kind &&
                   int64_t(it->second.getShape().size()) == type.getRank();
    if (matches)
      for (auto [extent, stored] :
           llvm::zip(tl::getExtents(type), it->second.getShape())) {
        int64_t expected =
            extent.isSized()
                ? sizeValues.try_emplace(extent.size.getValue(), stored)
                      .first->second
                : extent.value;
        matches &= stored == expected;
      }
    if (!matches)
      return program.emitError()
             << "the store's value for variable '" << name
             << "' is missing or does not have the declared shape (with "
                "the sizes' values) and element type";
    pointers.push_back(it->second.getData());
  }
  llvm::SmallVector<int64_t, 4> sizes;
  // A size that no variable has changes nothing; it is passed as 1.
  for (tl::SizeOp size : program.getSizes()) {
    auto it = sizeValues.find(size.getSymName());
    sizes.push_back(it == sizeValues.end() ? 1 : it->second);
  }
  if (gpu)
    clearCudaError();
  call(sizes, pointers);
  if (gpu)
    if (const char *error = getCudaError())
      return emitMachineError(program, error);
  return success();
}
