//===- Distribution.cpp - tl-run over MPI processes -----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Distribution.h"

#include "tensorlang-c/MPIRuntime.h"

#include <climits>
#include <cstring>

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
