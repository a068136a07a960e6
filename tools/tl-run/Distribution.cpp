//===- Distribution.cpp - tl-run over MPI processes -----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Distribution.h"

#include "tensorlang-c/MPIRuntime.h"

#include "tensorlang/Support/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace tensorlang;

Distribution::Distribution(int &argc, char **&argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numProcesses);
}

int32_t Distribution::getFortranComm() const {
  return int32_t(MPI_Comm_c2f(MPI_COMM_WORLD));
}

Distribution::~Distribution() { MPI_Finalize(); }

bool Distribution::allSucceeded(bool succeeded) const {
  int local = succeeded ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

double Distribution::maximum(double value) const {
  double result = value;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

int64_t Distribution::sum(int64_t value) const {
  int64_t result = value;
  MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return result;
}

std::pair<int64_t, int64_t> Distribution::offsetAndTotal(int64_t value) const {
  int64_t before = 0;
  MPI_Exscan(&value, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (isRoot())
    before = 0; // (MPI_Exscan leaves the first process's undefined)
  return {before, sum(value)};
}

std::pair<int64_t, int64_t> Distribution::getBlock(int64_t extent) const {
  int64_t base = extent / numProcesses, rest = extent % numProcesses;
  int64_t count = base + (rank < rest ? 1 : 0);
  int64_t first = rank * base + std::min<int64_t>(rank, rest);
  return {first, count};
}

/// The elements before and after dimension `dim` (row-major).
static std::pair<int64_t, int64_t> outerAndInner(llvm::ArrayRef<int64_t> shape,
                                                 unsigned dim) {
  int64_t outer = 1, inner = 1;
  for (unsigned d = 0; d < shape.size(); ++d)
    (d < dim ? outer : inner) *= d == dim ? 1 : shape[d];
  return {outer, inner};
}

llvm::Error Distribution::writeBlocks(llvm::StringRef path,
                                      const HostTensor &local, unsigned dim,
                                      int64_t first,
                                      int64_t globalExtent) const {
  llvm::SmallVector<int64_t> shape(local.getShape());
  shape[dim] = globalExtent;
  int64_t outer = 1, rowBytes = getElementSize(local.getKind());
  for (unsigned d = 0; d < shape.size(); ++d)
    (d < dim ? outer : rowBytes) *= d == dim ? 1 : shape[d];
  // (The same on every process: a failure here is everyone's.)
  llvm::Expected<std::string> preamble =
      makeNpyPreamble(path, local.getKind(), shape);
  if (!preamble)
    return preamble.takeError();
  auto header = int64_t(preamble->size());

  // The first process makes the temporary, of the whole file's size, and
  // tells the others its name.
  std::string problem;
  char name[4096] = {0};
  if (isRoot()) {
    int fd = -1;
    llvm::SmallString<256> temporary;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(
            path + "-%%%%%%.partial", fd, temporary)) {
      problem =
          (path + ": cannot create a temporary file: " + ec.message()).str();
    } else {
      if (::pwrite(fd, preamble->data(), header, 0) != ssize_t(header) ||
          ::ftruncate(fd, header + outer * globalExtent * rowBytes) != 0)
        problem = (path + ": cannot write " + temporary).str();
      ::close(fd);
      std::strncpy(name, temporary.c_str(), sizeof(name) - 1);
    }
  }
  MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!allSucceeded(problem.empty()))
    return llvm::createStringError(problem.empty() ? path + ": not written"
                                                   : problem);

  // Each process its rows, at their offsets.
  int64_t bytes = local.getShape()[dim] * rowBytes;
  int fd = ::open(name, O_WRONLY);
  if (fd < 0) {
    problem = (path + ": cannot open " + name).str();
  } else {
    const char *source = static_cast<const char *>(local.getData());
    for (int64_t i = 0; i < outer && bytes && problem.empty(); ++i)
      if (::pwrite(fd, source + i * bytes, bytes,
                   header + (i * globalExtent + first) * rowBytes) !=
          ssize_t(bytes))
        problem = (path + ": cannot write this process's block").str();
    ::close(fd);
  }
  bool written = allSucceeded(problem.empty());
  if (isRoot()) {
    if (!written)
      llvm::sys::fs::remove(name);
    else if (std::error_code ec = llvm::sys::fs::rename(name, path))
      problem = (path + ": cannot rename " + name + ": " + ec.message()).str();
  }
  if (!allSucceeded(problem.empty()))
    return llvm::createStringError(problem.empty() ? path + ": not written"
                                                   : problem);
  return llvm::Error::success();
}

llvm::Expected<std::optional<HostTensor>>
Distribution::gatherBlocks(const HostTensor &local, unsigned dim,
                           int64_t globalExtent) const {
  if (local.getByteSize() > INT_MAX)
    return llvm::createStringError(
        "a block of more than 2 GiB cannot be gathered (MPI counts are int)");
  int localBytes = int(local.getByteSize());
  std::vector<int> bytes(numProcesses), offsets(numProcesses);
  MPI_Gather(&localBytes, 1, MPI_INT, bytes.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  int64_t total = 0;
  for (int p = 0; p < numProcesses; ++p) {
    offsets[p] = int(total);
    total += bytes[p];
  }
  if (isRoot() && total > INT_MAX)
    return llvm::createStringError("a result of more than 2 GiB cannot be "
                                   "gathered (MPI counts are int)");
  std::vector<char> all(isRoot() ? total : 0);
  MPI_Gatherv(local.getData(), localBytes, MPI_BYTE, all.data(), bytes.data(),
              offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (!isRoot())
    return std::nullopt;
  llvm::SmallVector<int64_t> shape(local.getShape());
  shape[dim] = globalExtent;
  std::optional<HostTensor> global =
      HostTensor::allocateUndefined(local.getKind(), shape);
  if (!global)
    return llvm::createStringError("out of memory gathering a result");
  auto [outer, inner] = outerAndInner(shape, dim);
  int64_t rowBytes = getElementSize(local.getKind()) * inner;
  char *target = static_cast<char *>(global->getData());
  int64_t first = 0;
  for (int p = 0; p < numProcesses; ++p) {
    int64_t count = bytes[p] / std::max<int64_t>(1, outer * rowBytes);
    const char *block = all.data() + offsets[p];
    for (int64_t i = 0; i < outer; ++i)
      std::memcpy(target + (i * globalExtent + first) * rowBytes,
                  block + i * count * rowBytes, count * rowBytes);
    first += count;
  }
  return std::optional<HostTensor>(std::move(*global));
}
