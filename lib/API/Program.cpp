//===- Program.cpp - Load, bind, run and compile a program ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/API/Program.h"
#include "tensorlang/Dialect/TL/Analysis/Definitions.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/IR/TypeRules.h"
#include "tensorlang/Dialect/TL/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <cstring>
#include <type_traits>

using namespace mlir;
using namespace tensorlang;

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (int64_t extent : shape)
    text += std::to_string(extent) + (shape.size() == 1 ? "," : ", ");
  if (shape.size() > 1)
    text.resize(text.size() - 2);
  return text + ")";
}

Program::Program(ProgramOptions options, ErrorHandler onError)
    : options(std::move(options)), onError(std::move(onError)) {
  context.loadDialect<tl::TLDialect>();
  // Errors about a program speak of its source; the op dump is noise.
  context.printOpOnDiagnostic(false);
  if (!this->onError)
    this->onError = [](const std::string &message) {
      llvm::WithColor::error(llvm::errs()) << message << "\n";
    };
}

Program::~Program() = default;

LogicalResult Program::error(const llvm::Twine &message) {
  onError(message.str());
  return failure();
}

LogicalResult Program::loadFile(StringRef path) {
  StringRef extension = llvm::sys::path::extension(path);
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file)
    return error(message);
  if (extension != ".tl" && extension != ".mlir" && extension != ".cfd")
    return error("cannot tell the kind of '" + path +
                 "': expected a .tl source file, a .cfd CFDlang source file "
                 "or a .mlir file");
  // The extension says which language a source file is in, unless the
  // options do.
  return load(file->getBuffer(), path, extension == ".mlir",
              options.syntax.value_or(extension == ".cfd"
                                          ? SourceSyntax::CFDlang
                                          : SourceSyntax::TensorLang));
}

LogicalResult Program::loadText(StringRef text, StringRef bufferName,
                                bool isIR) {
  return load(text, bufferName, isIR,
              options.syntax.value_or(SourceSyntax::TensorLang));
}

LogicalResult Program::load(StringRef text, StringRef bufferName, bool isIR,
                            SourceSyntax syntax) {
  if (program)
    return error("a program is loaded already");
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  OwningOpRef<ModuleOp> loaded;
  if (isIR) {
    loaded = parseSourceFile<ModuleOp>(sourceMgr, &context);
  } else {
    ImportOptions importOptions;
    importOptions.elementType = options.elementType.value_or(ElementKind::F64);
    importOptions.warningsAreErrors = options.warningsAreErrors;
    importOptions.syntax = syntax;
    loaded = importSource(sourceMgr, &context, importOptions);
  }
  if (!loaded)
    return failure();
  return finishLoading(std::move(loaded));
}

LogicalResult Program::finishLoading(OwningOpRef<ModuleOp> loaded) {
  SmallVector<tl::ProgramOp> programs(loaded->getOps<tl::ProgramOp>());
  StringRef bufferName = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                             ->getBufferIdentifier();
  if (programs.size() != 1)
    return error((bufferName + ": expected exactly one tl.program, found " +
                  llvm::Twine(programs.size()))
                     .str());
  tl::ProgramOp found = programs.front();
  ElementKind kind = tensorlang::getElementKind(found);
  if (options.elementType) {
    ElementKind expected = *options.elementType;
    if (kind != expected)
      return error(bufferName + ": the program's element type is " +
                   getElementKindName(kind) + " but " +
                   getElementKindName(expected) + " was asked for");
  }
  // Rule d-var for IR too (the frontend checks sources): compiled code
  // does not make an intermediate's initial value NaN, so a program must
  // not read one before assigning it.
  if (failed(tl::checkDefinitions(found, /*warnWithoutQualifiers=*/false)))
    return failure();
  using ColumnMajorAttrHelper = tl::TLDialect::ColumnMajorAttrHelper;
  if (ColumnMajorAttrHelper(found.getContext()).isAttrPresent(found))
    return error(bufferName +
                 ": the program is already rewritten for column-major "
                 "storage (" +
                 ColumnMajorAttrHelper::getNameStr() +
                 "); load the program as written with the column-major "
                 "layout instead");
  if (options.layout == Layout::ColumnMajor &&
      !options.compile.distribute.empty())
    return error("the column-major layout cannot be combined with "
                 "distribution: processes read row-major blocks");
  // tl-distribute's marks are the compiled code's calling convention (a
  // communicator first): they need the run to be distributed too.
  using DistributedAttrHelper = tl::TLDialect::DistributedAttrHelper;
  if (FlatSymbolRefAttr distributed =
          DistributedAttrHelper(found.getContext()).getAttr(found);
      distributed && distributed.getValue() != options.compile.distribute)
    return error(bufferName + ": the program is distributed over size '" +
                 distributed.getValue() + "' (" +
                 DistributedAttrHelper::getNameStr() +
                 "): run it with --distribute=" + distributed.getValue() +
                 " under mpirun, or remove the mark");
  if (options.pad != 0 && failed(tl::padProgram(found, options.pad)))
    return failure();
  module = std::move(loaded);
  program = found;
  for (tl::SizeOp size : program.getSizes())
    sizeNames.push_back(size.getSymName().str());
  for (tl::VarOp var : program.getVars()) {
    VariableInfo info;
    info.name = var.getSymName().str();
    for (const tl::Extent &extent : tl::getExtents(var.getType()))
      info.sizes.push_back(extent.isSized() ? extent.size.getValue().str()
                                            : std::string());
    info.shape.assign(var.getRealShapeOrShape().begin(),
                      var.getRealShapeOrShape().end());
    info.storageShape.assign(var.getType().getShape().begin(),
                             var.getType().getShape().end());
    info.input = bool(var.getInput());
    info.output = bool(var.getOutput());
    qualified |= info.input || info.output;
    variables.push_back(std::move(info));
  }
  // The interface above shows the variables as declared; the program runs
  // on their column-major storage.
  if (options.layout == Layout::ColumnMajor &&
      failed(tl::storeColumnMajor(program)))
    return failure();
  return success();
}

ElementKind Program::getElementKind() const {
  return tensorlang::getElementKind(program);
}

const VariableInfo *Program::lookupVariable(StringRef name) const {
  for (const VariableInfo &var : variables)
    if (var.name == name)
      return &var;
  return nullptr;
}

bool Program::isResult(StringRef name) const {
  const VariableInfo *var = lookupVariable(name);
  if (!var)
    return false;
  return !qualified || var->output || kept.contains(name);
}

SmallVector<StringRef> Program::getResultNames() const {
  SmallVector<StringRef> names;
  for (const VariableInfo &var : variables)
    if (isResult(var.name))
      names.push_back(var.name);
  return names;
}

LogicalResult Program::checkNotCompiled(StringRef what) {
  if (jit)
    return error(what + " after the program was compiled");
  return success();
}

LogicalResult Program::setName(StringRef name) {
  if (failed(checkNotCompiled("cannot rename the program")))
    return failure();
  program.setSymName(name);
  return success();
}

LogicalResult Program::keepResult(StringRef name) {
  if (!lookupVariable(name))
    return error("the program has no variable '" + name + "'");
  if (isResult(name))
    return success();
  if (failed(checkNotCompiled(("cannot keep variable '" + name + "'").str())))
    return failure();
  // An output qualifier is what every pass reads as "live at the end"; the
  // interface (getVariables) keeps showing the qualifiers as written.
  program.lookupVar(name).setOutput(true);
  kept.insert(name);
  return success();
}

/// Rule d-in-var: an input variable holds no undefined (or infinite) value.
template <typename T>
static std::optional<std::string> findUndefined(const T *data,
                                                ArrayRef<int64_t> shape,
                                                Layout layout, StringRef name) {
  SmallVector<int64_t> storageShape = getStorageOrder(shape, layout);
  shape = storageShape;
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  // NaN and the infinities are the values whose exponent bits are all set.
  // An or of that test over a block, in integers, is a loop the compiler
  // vectorizes; a block where it holds is searched element by element.
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  constexpr Bits kExponent =
      sizeof(T) == 8 ? Bits(0x7ff0000000000000ULL) : Bits(0x7f800000U);
  constexpr int64_t kBlock = 4096;
  for (int64_t start = 0; start < count; start += kBlock) {
    int64_t end = std::min(count, start + kBlock);
    bool nonFinite = false;
    for (int64_t i = start; i < end; ++i) {
      Bits bits;
      std::memcpy(&bits, &data[i], sizeof(bits));
      nonFinite |= (bits & kExponent) == kExponent;
    }
    if (!nonFinite)
      continue;
    int64_t i = start;
    while (std::isfinite(double(data[i])))
      ++i;
    double value = data[i];
    SmallVector<int64_t> index(shape.size());
    for (int64_t d = int64_t(index.size()) - 1, rest = i; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    if (layout == Layout::ColumnMajor)
      std::reverse(index.begin(), index.end());
    return ("input variable '" + name + "' holds " +
            (std::isnan(value) ? "an undefined (NaN)" : "an infinite") +
            " value at index " + formatShape(index) + " (rule d-in-var)")
        .str();
  }
  return std::nullopt;
}

FailureOr<llvm::StringMap<int64_t>>
Program::getGivenSizes(ArrayRef<std::pair<std::string, int64_t>> sizes) {
  llvm::StringMap<int64_t> values;
  SmallVector<std::pair<std::string, int64_t>> given(options.sizes.begin(),
                                                     options.sizes.end());
  llvm::append_range(given, sizes);
  for (const auto &[name, value] : given) {
    if (!llvm::is_contained(sizeNames, name))
      return error("the program has no size '" + name + "'");
    if (value < 0)
      return error("size '" + name + "' is given the value " +
                   std::to_string(value) + ", which is negative");
    if (!values.try_emplace(name, value).second)
      return error("size '" + name + "' is given more than once");
  }
  return values;
}

/// The shape `var` has where its sizes take `values` (unknown sizes stay
/// dynamic).
static SmallVector<int64_t>
resolveShape(const VariableInfo &var, ArrayRef<int64_t> shape,
             const llvm::StringMap<int64_t> &values) {
  SmallVector<int64_t> resolved(shape);
  for (auto [extent, size] : llvm::zip(resolved, var.sizes))
    if (auto it = values.find(size); !size.empty() && it != values.end())
      extent = it->second;
  return resolved;
}

/// A type in the report's notation from a variable's interface: sizes by
/// name.
static std::string formatVariableType(const VariableInfo &var) {
  std::string text = "[";
  for (auto [index, extent] : llvm::enumerate(var.shape)) {
    if (index)
      text += ' ';
    text +=
        var.sizes[index].empty() ? std::to_string(extent) : var.sizes[index];
  }
  return text + "]";
}

FailureOr<Store>
Program::bindInputs(ArrayRef<NamedInput> inputs,
                    ArrayRef<std::pair<std::string, int64_t>> runSizes) {
  ElementKind kind = getElementKind();
  FailureOr<llvm::StringMap<int64_t>> sizes = getGivenSizes(runSizes);
  if (failed(sizes))
    return failure();
  // Where each size got its value, for messages about a disagreement.
  llvm::StringMap<std::string> sizeOrigins;
  for (auto &entry : *sizes)
    sizeOrigins[entry.getKey()] = "as given";
  llvm::StringSet<> given;
  for (const NamedInput &input : inputs) {
    std::string prefix = input.origin.empty() ? "" : input.origin + ": ";
    const VariableInfo *var = lookupVariable(input.name);
    if (!var)
      return error(prefix + "the program has no variable '" + input.name + "'");
    if (!given.insert(input.name).second)
      return error("variable '" + input.name + "' is given more than once");
    if (input.value.kind != kind)
      return error(prefix + "dtype is " + getElementKindName(input.value.kind) +
                   " but variable '" + input.name + "' is " +
                   getElementKindName(kind));
    // A sized dimension takes the input's extent, the first time; after
    // that, the extent must be the size's value.
    if (input.value.shape.size() == var->shape.size())
      for (auto [dim, size] : llvm::enumerate(var->sizes)) {
        if (size.empty())
          continue;
        int64_t extent = input.value.shape[dim];
        // (Counted from 1 as the language counts; NumPy counts axes from
        // 0.)
        std::string here = "variable '" + input.name + "', dimension " +
                           std::to_string(dim + 1) + " (axis " +
                           std::to_string(dim) + ")";
        auto [it, inserted] = sizes->try_emplace(size, extent);
        if (inserted) {
          // A size may be 0 (a mesh partition without elements, a
          // process of a distributed run without indices): the program
          // then runs on empty tensors.
          if (extent < 0)
            return error(prefix + here + " has extent " +
                         std::to_string(extent) + ", but size '" + size +
                         "' cannot be negative");
          sizeOrigins[size] = "from " + here;
          continue;
        }
        if (it->second != extent)
          return error(prefix + here + " has extent " + std::to_string(extent) +
                       ", but size '" + size + "' is " +
                       std::to_string(it->second) + " (" + sizeOrigins[size] +
                       ")");
      }
    SmallVector<int64_t> expected = resolveShape(*var, var->shape, *sizes);
    bool sized = llvm::any_of(
        var->sizes, [](const std::string &size) { return !size.empty(); });
    if (input.value.shape != ArrayRef<int64_t>(expected))
      return error(prefix + "shape " + formatShape(input.value.shape) +
                   " does not match variable '" + input.name + "' of type " +
                   formatVariableType(*var) +
                   (sized ? "" : ", shape " + formatShape(var->shape)));
    if (!var->input)
      continue;
    std::optional<std::string> problem =
        kind == ElementKind::F32
            ? findUndefined(static_cast<const float *>(input.value.data),
                            input.value.shape, options.layout, input.name)
            : findUndefined(static_cast<const double *>(input.value.data),
                            input.value.shape, options.layout, input.name);
    if (problem)
      return error(*problem);
  }
  for (const VariableInfo &var : variables)
    if (var.input && !given.contains(var.name))
      return error("input variable '" + var.name +
                   "' must be given (rule d-in-var)");

  std::vector<int64_t> values;
  for (const std::string &size : sizeNames) {
    auto it = sizes->find(size);
    // A size no variable has changes nothing: any value will do.
    if (it == sizes->end() &&
        llvm::none_of(variables, [&](const VariableInfo &var) {
          return llvm::is_contained(var.sizes, size);
        })) {
      values.push_back(1);
      continue;
    }
    if (it == sizes->end())
      return error("size '" + size +
                   "' has no value: no input's shape gives it, so give it "
                   "explicitly (tl-run --size " +
                   size + "=<value>, Python sizes={'" + size +
                   "': <value>}, C tensorlangProgramRunWithSizes)");
    values.push_back(it->second);
  }
  // The variables with the sizes' values, as the program bound to them
  // has them (without binding a copy of it for every set of values).
  llvm::StringMap<int64_t> byName;
  for (auto [name, value] : llvm::zip(sizeNames, values))
    byName[name] = value;
  // The inputs' values are copied over their variables' real regions. A
  // variable whose first mention is an assignment (not reading it) has
  // every element of its real region written before anything reads it:
  // its undefined start is never seen.
  llvm::StringSet<> mentioned, assignedFirst;
  for (tl::AssignOp assign : program.getStatements()) {
    for (StringAttr name : assign.getReadVariables())
      mentioned.insert(name.getValue());
    if (mentioned.insert(assign.getTarget()).second)
      assignedFirst.insert(assign.getTarget());
  }
  FailureOr<Store> store = makeUndefinedStore(
      program,
      [&](FlatSymbolRefAttr size) { return byName.lookup(size.getValue()); },
      [&](StringRef name) {
        return given.contains(name) || assignedFirst.contains(name);
      });
  if (failed(store))
    return failure();
  for (const NamedInput &input : inputs) {
    HostTensor &stored = (*store)[input.name];
    SmallVector<int64_t> shape =
        getStorageOrder(input.value.shape, options.layout);
    // (The store's tensor, never touched, costs nothing to drop.)
    if (input.owned && input.owned->getData() == input.value.data &&
        ArrayRef<int64_t>(shape) == stored.getShape()) {
      stored = std::move(*input.owned);
      stored.reinterpretShape(shape);
      continue;
    }
    copyIntoCorner(input.value.data, shape, stored);
  }
  return store;
}

CompileOptions Program::resolvedCompileOptions() const {
  return options.compile;
}

FailureOr<std::vector<int64_t>> Program::getSizesOf(const Store &store) {
  std::vector<int64_t> values;
  for (const std::string &size : sizeNames) {
    std::optional<int64_t> value;
    for (const VariableInfo &var : variables) {
      const auto *dim = llvm::find(var.sizes, size);
      auto it = store.find(var.name);
      if (dim == var.sizes.end() || it == store.end() ||
          it->second.getShape().size() != var.sizes.size())
        continue;
      value = getStorageOrder(it->second.getShape(),
                              options.layout)[dim - var.sizes.begin()];
      break;
    }
    // A size no variable has: the value bindInputs chose.
    values.push_back(value.value_or(1));
  }
  return values;
}

FailureOr<tl::ProgramOp> Program::getBoundProgram(ArrayRef<int64_t> values) {
  if (sizeNames.empty())
    return program;
  // One bound copy, the last: runs with new values bind again, which costs
  // little next to interpreting, and copies do not pile up.
  if (bound.program && ArrayRef<int64_t>(bound.values) == values)
    return bound.program;
  bound = BoundProgram();
  bound.module = OwningOpRef<ModuleOp>(cast<ModuleOp>(module->clone()));
  bound.program = *bound.module->getOps<tl::ProgramOp>().begin();
  llvm::StringMap<int64_t> byName;
  for (auto [name, value] : llvm::zip(sizeNames, values))
    byName[name] = value;
  if (failed(tl::bindSizes(bound.program, byName))) {
    bound = BoundProgram();
    return failure();
  }
  bound.values.assign(values.begin(), values.end());
  return bound.program;
}

FailureOr<tl::ProgramOp> Program::getProgramToCompile(bool forObjectFile) {
  FailureOr<llvm::StringMap<int64_t>> given = getGivenSizes();
  if (failed(given))
    return failure();
  if (sizeNames.empty() || given->empty())
    return program;
  std::vector<int64_t> values;
  for (const std::string &size : sizeNames) {
    auto it = given->find(size);
    if (it != given->end() && it->second == 0) {
      // Code for an empty size computes nothing worth specializing: the
      // JIT runs the code that takes the sizes as arguments (it handles 0),
      // and an object file would only mislead.
      if (!forObjectFile)
        return program;
      return error("size '" + size +
                   "' is given the value 0: compile without giving it (code "
                   "for any value, 0 included)");
    }
    if (it != given->end()) {
      values.push_back(it->second);
      continue;
    }
    // Some sizes given, not all: the JIT's code takes them all as
    // arguments, and runs check the given ones; an object file has no
    // such check, so it is an error there.
    if (!forObjectFile)
      return program;
    return error("size '" + size +
                 "' has no value: give every size a value (code for those "
                 "values) or none (code that takes them as arguments)");
  }
  return getBoundProgram(values);
}

LogicalResult Program::compile() {
  if (jit)
    return success();
  if (!program)
    return error("no program is loaded");
  FailureOr<tl::ProgramOp> toCompile =
      getProgramToCompile(/*forObjectFile=*/false);
  if (failed(toCompile))
    return failure();
  FailureOr<std::unique_ptr<JitProgram>> compiled =
      JitProgram::compile(*toCompile, resolvedCompileOptions());
  if (failed(compiled))
    return failure();
  jit = std::move(*compiled);
  ++compilations;
  return success();
}

FailureOr<void *> Program::getKernel() {
  if (failed(compile()))
    return failure();
  return jit->getFunctionAddress();
}

FailureOr<std::pair<void *, int64_t>> Program::getWorkspaceKernel() {
  if (failed(compile()))
    return failure();
  return std::make_pair(jit->getWorkspaceFunctionAddress(),
                        jit->getWorkspaceBytes());
}

FailureOr<int64_t> Program::getWorkspaceSize(ArrayRef<int64_t> sizes) {
  if (failed(compile()))
    return failure();
  if (jit->getWorkspaceFunctionAddress() == nullptr)
    return error("the program has no workspace variant (a GPU program "
                 "keeps its temporaries in device memory)");
  size_t expected = llvm::range_size(program.getSizes());
  if (sizes.size() != expected)
    return error("the workspace's size needs a value for each of the "
                 "program's sizes (" +
                 llvm::Twine(expected) + "), got " + llvm::Twine(sizes.size()));
  for (int64_t size : sizes)
    if (size < 0)
      return error("a size's value is negative: " + llvm::Twine(size));
  return jit->getWorkspaceSize(sizes);
}

FailureOr<void *> Program::getDeviceKernel() {
  if (failed(compile()))
    return failure();
  if (!jit->getDeviceFunctionAddress())
    return error("the program is not compiled for a GPU (target cuda): it "
                 "has no device kernel");
  return jit->getDeviceFunctionAddress();
}

FailureOr<std::string> Program::getKernelInterface() {
  if (failed(compile()))
    return failure();
  return jit->getInterfaceDescription();
}

FailureOr<std::string> Program::getKernelDeclaration() {
  FailureOr<tl::ProgramOp> toCompile =
      getProgramToCompile(/*forObjectFile=*/false);
  if (failed(toCompile))
    return failure();
  CompileOptions resolved = resolvedCompileOptions();
  return emitCHeader(*toCompile, /*temporaryBytes=*/-1,
                     resolved.streamingMinBytes,
                     /*hasSizedTemporaries=*/false, resolved.distribute);
}

LogicalResult Program::run(Store &store) { return run(store, options.engine); }

LogicalResult Program::run(Store &store, Engine engine) {
  // The interpreter runs the program's meaning for the sizes' values (the
  // program bound to them); compiled code takes them as arguments.
  if (!sizeNames.empty() && engine == Engine::Reference) {
    FailureOr<std::vector<int64_t>> values = getSizesOf(store);
    if (failed(values))
      return failure();
    FailureOr<tl::ProgramOp> bound = getBoundProgram(*values);
    if (failed(bound))
      return failure();
    return interpret(*bound, store, options.interpreter);
  }
  if (engine == Engine::Reference)
    return interpret(program, store, options.interpreter);
  if (failed(compile()))
    return failure();
  return jit->run(store);
}

FailureOr<HostTensor> Program::getResult(const Store &store, StringRef name,
                                         bool keepPadding) {
  const VariableInfo *var = lookupVariable(name);
  if (!var)
    return error("the program has no variable '" + name + "'");
  if (!isResult(name))
    return error("variable '" + name +
                 "' is neither an output variable nor kept, so the optimizer "
                 "may drop its final value; keep it before running (tl-run "
                 "--out, Python keep=[...], C tensorlangProgramKeepResult)");
  auto it = store.find(name);
  if (it == store.end())
    return error("the store has no value for variable '" + name + "'");
  // A sized dimension is never padded: its extent is the stored one.
  SmallVector<int64_t> shape(keepPadding ? var->storageShape : var->shape);
  // (The store holds the variables as the program has them: reversed,
  // for column-major storage.)
  SmallVector<int64_t> stored =
      getStorageOrder(it->second.getShape(), options.layout);
  if (stored.size() == shape.size())
    for (auto [extent, storedExtent] : llvm::zip(shape, stored))
      if (ShapedType::isDynamic(extent))
        extent = storedExtent;
  std::optional<HostTensor> result =
      extractCorner(it->second, getStorageOrder(shape, options.layout));
  if (!result)
    return error("out of memory extracting variable '" + name + "'");
  result->reinterpretShape(shape);
  return std::move(*result);
}

FailureOr<HostTensor> Program::takeResult(Store &store, StringRef name,
                                          bool keepPadding) {
  const VariableInfo *var = lookupVariable(name);
  auto it = store.find(name);
  // Unpadded (or asked for whole), the result is the stored tensor.
  if (!var || !isResult(name) || it == store.end() ||
      (!keepPadding && var->shape != var->storageShape))
    return getResult(store, name, keepPadding);
  HostTensor result = std::move(it->second);
  store.erase(it);
  result.reinterpretShape(getStorageOrder(result.getShape(), options.layout));
  return std::move(result);
}

FailureOr<std::string> Program::emitObjectFile(StringRef path) {
  return emitCompiledCode(path, /*sharedLibrary=*/false);
}

FailureOr<std::string> Program::emitSharedLibrary(StringRef path) {
  return emitCompiledCode(path, /*sharedLibrary=*/true);
}

FailureOr<std::string> Program::emitCompiledCode(StringRef path,
                                                 bool sharedLibrary) {
  FailureOr<tl::ProgramOp> toCompile =
      getProgramToCompile(/*forObjectFile=*/true);
  if (failed(toCompile))
    return failure();
  CompileOptions resolved = resolvedCompileOptions();
  FailureOr<LoweredProgram> lowered = lowerToLLVM(*toCompile, resolved);
  if (failed(lowered))
    return failure();
  if (!sharedLibrary) {
    if (failed(
            tensorlang::emitObjectFile(*toCompile, *lowered, resolved, path)))
      return failure();
  } else {
    // The object is linked from a temporary file.
    SmallString<128> objectPath;
    if (llvm::sys::fs::createTemporaryFile("tl-shared", "o", objectPath))
      return error("cannot create a temporary object file");
    llvm::scope_exit removeObject([&] { llvm::sys::fs::remove(objectPath); });
    std::string description =
        describeInterface(*toCompile, *lowered, resolved.distribute);
    if (failed(tensorlang::emitObjectFile(*toCompile, *lowered, resolved,
                                          objectPath, description)) ||
        failed(linkSharedLibrary(*toCompile, *lowered, resolved, objectPath,
                                 path)))
      return failure();
  }
  return emitCHeader(*toCompile, lowered->temporaryBytes,
                     resolved.streamingMinBytes, lowered->hasSizedTemporaries,
                     resolved.distribute, lowered->workspaceBytes,
                     lowered->target.hugePages, lowered->target.gpuChip,
                     lowered->workspaceGrowsWithSizes);
}

FailureOr<std::string> Program::emitFortranInterface() {
  FailureOr<tl::ProgramOp> toCompile =
      getProgramToCompile(/*forObjectFile=*/true);
  if (failed(toCompile))
    return failure();
  return tensorlang::emitFortranInterface(*toCompile,
                                          options.compile.distribute);
}

FailureOr<std::string> Program::printStage(StringRef stage) {
  // The tl stage shows the program as written, sizes and all.
  if (stage == "tl")
    return tensorlang::printStage(program, stage, resolvedCompileOptions());
  // The other stages show the code the JIT compiles.
  FailureOr<tl::ProgramOp> toCompile =
      getProgramToCompile(/*forObjectFile=*/false);
  if (failed(toCompile))
    return failure();
  return tensorlang::printStage(*toCompile, stage, resolvedCompileOptions());
}
