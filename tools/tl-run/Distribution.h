//===- Distribution.h - tl-run over MPI processes ---------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `tl-run --distribute E` under mpirun: each process runs the program on a
// contiguous block of E's indices (docs/distributed.md). This is what the
// driver needs of MPI: the blocks, the gathering of distributed results to
// the first process, and agreement on failure and timing. Built only where
// MPI is (TENSORLANG_HAVE_MPI).
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TOOLS_TL_RUN_DISTRIBUTION_H
#define TENSORLANG_TOOLS_TL_RUN_DISTRIBUTION_H

#include "tensorlang/Support/HostTensor.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace tensorlang {

class Distribution {
public:
  /// MPI_Init; the processes of MPI_COMM_WORLD.
  Distribution(int &argc, char **&argv);
  /// MPI_Finalize.
  ~Distribution();

  int getRank() const { return rank; }
  int getNumProcesses() const { return numProcesses; }
  bool isRoot() const { return rank == 0; }
  /// MPI_COMM_WORLD as compiled code takes it (MPI_Comm_c2f).
  int32_t getFortranComm() const;

  /// Whether every process succeeded (each passes its own outcome): after
  /// a failure on any process, all stop together instead of waiting in a
  /// collective that one of them never reaches.
  bool allSucceeded(bool succeeded) const;
  /// The largest of the processes' values (the slowest kernel median).
  double maximum(double value) const;
  /// The sum of the processes' values.
  int64_t sum(int64_t value) const;
  /// The sum of the values of the processes before this one, and of all.
  std::pair<int64_t, int64_t> offsetAndTotal(int64_t value) const;

  /// The first index and the number of indices of this process's block of
  /// `extent` indices: contiguous, the first `extent % P` processes one
  /// more.
  std::pair<int64_t, int64_t> getBlock(int64_t extent) const;

  /// The blocks of the processes along dimension `dim` put together, on
  /// the first process (std::nullopt elsewhere, or an error).
  llvm::Expected<std::optional<HostTensor>>
  gatherBlocks(const HostTensor &local, unsigned dim,
               int64_t globalExtent) const;
  /// Writes the processes' blocks along dimension `dim` (each process its
  /// `local` one, from index `first` of `globalExtent`) into one .npy file
  /// at `path`, each at its offset: the first process writes the header
  /// into a temporary next to `path` and renames it over `path` once every
  /// process has written, so that a failure leaves no partial file. A
  /// collective: every process calls, and all get the same outcome.
  llvm::Error writeBlocks(llvm::StringRef path, const HostTensor &local,
                          unsigned dim, int64_t first,
                          int64_t globalExtent) const;

private:
  int rank = 0;
  int numProcesses = 1;
};

} // namespace tensorlang

#endif // TENSORLANG_TOOLS_TL_RUN_DISTRIBUTION_H
