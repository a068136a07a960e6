//===- AOT.cpp - Object files and C headers -------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Compiler/Compiler.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"
#include "tensorlang/Pipelines/Pipelines.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace tensorlang;

/// LLVM's machine for `target`; "host" is this machine's CPU with its own
/// features (which a virtual machine may have fewer of than its CPU name).
static std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetDescription &target, unsigned optLevel,
                    std::string &error) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  // Streaming stores fence with inline assembly (tl-streaming-stores).
  llvm::InitializeAllAsmParsers();
  llvm::Triple triple(target.triple);
  const llvm::Target *backend =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!backend)
    return nullptr;
  std::string cpu = target.cpu;
  std::string features = target.features;
  if (cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures list;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.first(), feature.second);
    features = list.getString();
  }
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(backend->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                    : llvm::CodeGenOptLevel::Default));
}

/// SVE registers of a known length hold the fixed-width vectors of the
/// code: vscale_range tells LLVM that length, and it then emits SVE for
/// vectors wider than NEON's.
static void setVectorScaleRange(llvm::Module &module,
                                const TargetDescription &target) {
  if (!target.scalableVectors)
    return;
  unsigned scale = unsigned(target.vectorBits / 128);
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.addFnAttr(llvm::Attribute::getWithVScaleRangeArgs(
          module.getContext(), scale, scale));
}

/// `const char *tensorlang_interface(void)`, returning `description`.
static void defineInterfaceDescription(llvm::Module &module,
                                       StringRef description) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(context, description);
  auto *global = new llvm::GlobalVariable(
      module, text->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, text, "tensorlang_interface_text");
  llvm::Function *function = llvm::Function::Create(
      llvm::FunctionType::get(llvm::PointerType::getUnqual(context), false),
      llvm::GlobalValue::ExternalLinkage, "tensorlang_interface", module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", function));
  builder.CreateRet(global);
}

LogicalResult tensorlang::emitObjectFile(tl::ProgramOp program,
                                         LoweredProgram &lowered,
                                         const CompileOptions &options,
                                         StringRef path,
                                         StringRef interfaceDescription) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(lowered.target, options.optLevel, error);
  if (!machine)
    return program.emitError("cannot generate code for '")
           << lowered.target.triple << "': " << error;

  MLIRContext *context = program.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(*lowered.module, llvmContext);
  if (!module)
    return program.emitError("translation to LLVM IR failed");
  module->setTargetTriple(machine->getTargetTriple());
  module->setDataLayout(machine->createDataLayout());
  setVectorScaleRange(*module, lowered.target);
  if (!interfaceDescription.empty())
    defineInterfaceDescription(*module, interfaceDescription);
  if (llvm::Error err = makeOptimizingTransformer(options.optLevel, 0,
                                                  machine.get())(module.get()))
    return program.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(err));

  llvm::Error written = writeFileAtomically(
      path, [&](llvm::raw_pwrite_stream &os) -> llvm::Error {
    llvm::legacy::PassManager passes;
    if (machine->addPassesToEmitFile(passes, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the target cannot emit object files");
    passes.run(*module);
    return llvm::Error::success();
  });
  if (written)
    return program.emitError(llvm::toString(std::move(written)));
  return success();
}

DeclaredExtents tensorlang::getDeclaredExtents(tl::ProgramOp program,
                                               tl::VarOp var) {
  DeclaredExtents declared;
  declared.buffer = tl::getExtents(var.getType());
  declared.real = declared.buffer;
  // A sized extent is never padded.
  for (auto [extent, realExtent] :
       llvm::zip(declared.real, var.getRealShapeOrShape()))
    if (!extent.isSized())
      extent.value = realExtent;
  // A program compiled for column-major storage (tl-column-major) has its
  // variables' types reversed.
  if (tl::TLDialect::ColumnMajorAttrHelper(program.getContext())
          .isAttrPresent(program)) {
    std::reverse(declared.buffer.begin(), declared.buffer.end());
    std::reverse(declared.real.begin(), declared.real.end());
  }
  return declared;
}

std::string tensorlang::emitCHeader(
    tl::ProgramOp program, int64_t temporaryBytes, int64_t streamingMinBytes,
    bool hasSizedTemporaries, StringRef distributed, int64_t workspaceBytes,
    bool hugePages, StringRef gpuChip, bool workspaceGrowsWithSizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string name = program.getSymName().str();
  std::string guard = "TENSORLANG_" + llvm::StringRef(name).upper() + "_H";
  StringRef scalar = program.getElementType().isF32() ? "float" : "double";
  llvm::StringSet<> assigned;
  for (tl::AssignOp assign : program.getStatements())
    assigned.insert(assign.getTarget());
  // (The header shows the variables' types as declared:
  // getDeclaredExtents.)
  bool columnMajor = tl::TLDialect::ColumnMajorAttrHelper(program.getContext())
                         .isAttrPresent(program);

  os << "/* Generated by tl-compile: the interface of program '" << name
     << "'. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n"
     << (distributed.empty() ? "" : "#include <mpi.h>\n\n")
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Runs the program on the caller's store. Each argument points to\n"
     << "   a variable's elements in "
     << (columnMajor ? "column-major (Fortran)" : "row-major (C)")
     << " order. Undefined values\n"
     << "   are NaN; division is the report's controlled division.\n";
  if (program.hasQualifiers())
    os << "   The arguments are the input and output variables, in order of\n"
       << "   declaration; the other variables are internal.\n";
  if (std::optional<uint64_t> batch = program.getBatch())
    os << "   The program runs on a batch of " << *batch
       << " elements: a variable\n"
       << "   marked batched holds one value per element, the element\n"
       << "   index "
       // (Column-major storage flips the batch dimension's end; the
       // header shows the declared types.)
       << (program.getBatchLast() != columnMajor ? "last" : "first")
       << "; the others are shared by all elements.\n";
  if (!gpuChip.empty())
    os << "   The statements run on an NVIDIA GPU (" << gpuChip
       << ", through the CUDA driver):\n"
       << "   each call copies the buffers to device memory, the outputs\n"
       << "   back, and keeps its temporaries there (" << name
       << "_device, below, works\n   on device memory). Link with\n"
       << "   -ltensorlang_cuda; a GPU failure (no driver, no device) leaves\n"
       << "   the outputs undefined and is told by\n"
       << "   tensorlang_cuda_last_error() (tensorlang-c/CUDARuntime.h).\n";
  else if (workspaceBytes >= 0 || workspaceGrowsWithSizes)
    os << "   The function allocates its temporaries with malloc while it\n"
       << "   runs: one block of "
       << (workspaceGrowsWithSizes ? "the bytes that\n   " + name +
                                         (distributed.empty() ? "" : "_mpi") +
                                         "_workspace_size gives"
                                   : std::to_string(workspaceBytes) + " bytes")
       << " (the workspace of " << name << (distributed.empty() ? "" : "_mpi")
       << "_ws, below)"
       << (hasSizedTemporaries
               ? ",\n   and those whose size grows with the program's sizes"
               : "")
       << ".\n";
  else if (temporaryBytes >= 0 && hasSizedTemporaries)
    os << "   The function allocates " << temporaryBytes
       << " bytes of temporaries with malloc while it runs, and\n"
       << "   temporaries whose size grows with the program's sizes.\n";
  else if (temporaryBytes >= 0)
    os << "   The function allocates " << temporaryBytes
       << " bytes of temporaries with malloc while it runs.\n";
  if (temporaryBytes >= kHugePageTemporaryBytes && hugePages && gpuChip.empty())
    os << "   Blocks of 4 MiB or more are advised to use transparent huge\n"
       << "   pages (madvise).\n";
  bool padded = llvm::any_of(program.getVars(), [](tl::VarOp var) {
    return var.getType().getShape() != var.getRealShapeOrShape();
  });
  if (padded)
    os << "   Padded interface: every buffer has its variable's padded\n"
       << "   extents; the elements outside the real region (the padding)\n"
       << "   must be zero on entry, and are zero on return.\n";
  // (tl-streaming-stores decides on static sizes only.)
  bool streams = llvm::any_of(program.getVars(), [&](tl::VarOp var) {
    RankedTensorType type = var.getType();
    return assigned.contains(var.getSymName()) && type.hasStaticShape() &&
           type.getNumElements() * type.getElementTypeBitWidth() / 8 >=
               streamingMinBytes;
  });
  SmallVector<tl::SizeOp> sizes(program.getSizes());
  if (!sizes.empty())
    os << "   The first arguments are the program's sizes, in order of\n"
       << "   declaration: extents known at run time, each 0 or more. Each\n"
       << "   buffer has its variable's extents with the sizes' values.\n";
  if (streams)
    os << "   Large results may be written with non-temporal stores, which\n"
       << "   needs buffers aligned to 64 bytes (aligned_alloc(64, n)):\n"
       << "   with other buffers the function takes a slower path.\n";
  if (!distributed.empty())
    os << "   Distributed over the processes of `comm` (docs/distributed.md):\n"
       << "   each process passes its block of the indices of size "
       << distributed << "\n"
       << "   (its own " << distributed
       << ") and the blocks of the variables that have it;\n"
       << "   the others are whole on every process. The sums over "
       << distributed << " are\n"
       << "   summed over the processes (MPI_Allreduce): link\n"
       << "   libtensorlang_mpi. Every process of `comm` must call.\n";
  os << "   Arguments marked const are only read. */\n";
  // A distributed program's object defines `<name>_mpi`, which takes the
  // communicator as MPI's Fortran handle; `<name>` wraps it for C.
  std::string function = distributed.empty() ? name : name + "_mpi";
  os << "void " << function << "(";
  SmallVector<tl::VarOp> vars;
  for (tl::VarOp var : program.getVars())
    if (var.isInterface())
      vars.push_back(var);
  if (!distributed.empty())
    os << "\n    int32_t comm" << (vars.empty() && sizes.empty() ? "" : ",")
       << " /* MPI_Comm_c2f(comm) */";
  else if (vars.empty() && sizes.empty())
    os << "void";
  for (auto [index, size] : llvm::enumerate(sizes))
    os << "\n    int64_t " << size.getSymName()
       << (index + 1 < sizes.size() + vars.size() ? "," : "") << " /* size */";
  for (auto [index, var] : llvm::enumerate(vars)) {
    bool readOnly = !assigned.contains(var.getSymName());
    os << "\n    " << (readOnly ? "const " : "") << scalar << " *"
       << var.getSymName() << (index + 1 < vars.size() ? "," : "")
       << " /* ";
    if (var.getInput())
      os << "input ";
    if (var.getOutput())
      os << "output ";
    if (var.getBatched())
      os << "batched ";
    Type elementType = var.getType().getElementType();
    DeclaredExtents declared = getDeclaredExtents(program, var);
    SmallVector<tl::Extent> &extents = declared.buffer;
    os << tl::formatType(tl::getTensorType(extents, elementType));
    if (declared.real != declared.buffer)
      os << " padded from "
         << tl::formatType(tl::getTensorType(declared.real, elementType));
    // The element count, with the sizes as factors: `E * 121`.
    int64_t fixed = 1;
    SmallVector<std::string> factors;
    for (const tl::Extent &extent : extents) {
      if (extent.isSized())
        factors.push_back(extent.size.getValue().str());
      else
        fixed *= extent.value;
    }
    if (factors.empty() || fixed != 1)
      factors.push_back(std::to_string(fixed));
    bool one = factors.size() == 1 && factors.front() == "1";
    os << ", " << llvm::join(factors, " * ") << " element" << (one ? "" : "s")
       << " */";
  }
  os << ");\n";
  // The sizes' and variables' parameters, and the arguments that pass them
  // on, without comments.
  std::string parameters, arguments;
  for (tl::SizeOp size : sizes) {
    parameters += ", int64_t " + size.getSymName().str();
    arguments += ", " + size.getSymName().str();
  }
  for (tl::VarOp var : vars) {
    parameters +=
        ", " +
        std::string(assigned.contains(var.getSymName()) ? "" : "const ") +
        scalar.str() + " *" + var.getSymName().str();
    arguments += ", " + var.getSymName().str();
  }
  if (!gpuChip.empty()) {
    os << "\n/* As " << name << ", on device memory: every pointer is a "
       << "device pointer\n   (cuMemAlloc, cudaMalloc, a CuPy array's or a "
       << "PyTorch CUDA tensor's\n   data) to the same elements in the same "
       << "order. The work is queued on\n   `stream` (a CUstream or "
       << "cudaStream_t; 0 is the legacy default stream)\n   and the function "
       << "returns without waiting for it; temporaries are\n   allocated and "
       << "freed in the stream's order. A failure to queue it is told by\n   "
       << "tensorlang_cuda_last_error(), a fault while it runs when the\n   "
       << "caller waits for the stream. */\n"
       << "void " << name << "_device(" << StringRef(parameters).drop_front(2)
       << (parameters.empty() ? "" : ", ") << "void *stream);\n";
    os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
    return text;
  }
  // The workspace variant (tl-workspace), and its size function, which
  // takes the sizes.
  std::string sizeParameters, sizeArguments;
  for (tl::SizeOp size : sizes) {
    sizeParameters += ", int64_t " + size.getSymName().str();
    sizeArguments += ", " + size.getSymName().str();
  }
  os << "\n/* The bytes of the workspace of " << function << "_ws";
  if (workspaceBytes >= 0)
    os << ": " << workspaceBytes;
  else if (workspaceGrowsWithSizes)
    os << " for the sizes'\n   values (one for the largest serves smaller "
          "ones too)";
  os << ". */\nint64_t " << function << "_workspace_size("
     << (sizes.empty() ? "void" : StringRef(sizeParameters).drop_front(2))
     << ");\n"
     << "/* As " << function << ", with its temporaries in `workspace`, which "
     << "the caller\n   allocates once (" << function << "_workspace_size("
     << StringRef(sizeArguments).drop_front(sizes.empty() ? 0 : 2)
     << ") bytes, aligned to 64\n   bytes) and passes to "
     << "every call, never to two calls at once: no\n   allocation, no page "
     << "faults."
     << (hasSizedTemporaries
             ? " Temporaries whose size grows with the\n   "
               "program's sizes are still allocated by the call."
             : "")
     << " */\n";
  std::string functionParameters =
      (distributed.empty() ? "" : ", int32_t comm") + parameters;
  os << "void " << function << "_ws("
     << StringRef(functionParameters).drop_front(2)
     << (functionParameters.empty() ? "" : ", ") << "void *workspace);\n";
  if (!distributed.empty()) {
    for (bool withWorkspace : {false, true}) {
      std::string suffix = withWorkspace ? "_ws" : "";
      os << "\nstatic inline void " << name << suffix << "(MPI_Comm comm"
         << parameters << (withWorkspace ? ", void *workspace" : "")
         << ") {\n  " << function << suffix << "((int32_t)MPI_Comm_c2f(comm)"
         << arguments << (withWorkspace ? ", workspace" : "") << ");\n}\n";
    }
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}
