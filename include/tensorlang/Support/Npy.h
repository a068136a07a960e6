//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads and writes the NumPy array file format (versions 1.0 to 3.0) for the
// arrays the language uses: little-endian float64 (`<f8`) or float32 (`<f4`)
// in C order. A scalar is an array of shape ().
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_NPY_H
#define TENSORLANG_SUPPORT_NPY_H

#include "tensorlang/Support/HostTensor.h"

#include "llvm/Support/Error.h"

namespace tensorlang {

/// As readNpy, but a file whose elements are in `layout` order is mapped
/// rather than read: the tensor's elements are the file's pages, private
/// to this process (writing them copies a page, never changes the file).
/// No copy, no allocation: pages come from the page cache as they are
/// touched.
llvm::Expected<HostTensor> mapNpy(llvm::StringRef path,
                                  Layout layout = Layout::RowMajor);

/// Reads `path`. Errors name the file and say what is wrong: missing file,
/// bad magic, unsupported version, malformed or truncated header, a dtype
/// other than `<f8`/`<f4`, data shorter or longer than the header says.
/// The tensor has the array's shape and its elements in `layout` order,
/// whatever the file's order (a file in the other order is transposed as
/// it is read; one in the same order is copied as it is).
llvm::Expected<HostTensor> readNpy(llvm::StringRef path,
                                   Layout layout = Layout::RowMajor);

/// Parses a .npy file already in memory; `name` is used in messages.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef contents,
                                    llvm::StringRef name,
                                    Layout layout = Layout::RowMajor);

/// Chooses a block along dimension `dim` of a file's array of `shape`:
/// returns the first index and the number of indices.
using NpyBlockChooser = llvm::function_ref<std::pair<int64_t, int64_t>(
    llvm::ArrayRef<int64_t> shape)>;

/// Reads, of `path`'s array, the block along dimension `dim` that `choose`
/// picks (the whole array's header checked as readNpy does). The file is
/// mapped, not read: only the block's pages are touched. An array of rank
/// at most `dim` is read whole. Files in Fortran order are refused.
llvm::Expected<HostTensor> readNpyBlock(llvm::StringRef path, unsigned dim,
                                        NpyBlockChooser choose);

/// The bytes of a format-1.0 .npy file before the data of an array of
/// `kind` and `shape` (magic, version, header padded to 64 bytes), whose
/// elements are in `layout` order ('fortran_order' for column-major).
llvm::Expected<std::string> makeNpyPreamble(llvm::StringRef path,
                                            ElementKind kind,
                                            llvm::ArrayRef<int64_t> shape,
                                            Layout layout = Layout::RowMajor);

/// Writes `tensor` to `path` in format version 1.0. The file is written to a
/// temporary next to `path` and renamed over it, so a failure never leaves a
/// truncated file or clobbers an existing one. The tensor's elements are in
/// `layout` order, and the file says so ('fortran_order').
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor,
                     Layout layout = Layout::RowMajor);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_NPY_H
