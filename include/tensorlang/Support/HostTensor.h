//===- HostTensor.h - A tensor's elements in host memory --------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_HOSTTENSOR_H
#define TENSORLANG_SUPPORT_HOSTTENSOR_H

#include "tensorlang/Support/ElementKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

namespace tensorlang {

/// The order of a tensor's elements in memory: row-major (C, NumPy's
/// default: the last index varies fastest) or column-major (Fortran: the
/// first index varies fastest). Column-major elements of shape [a b c] are
/// the row-major elements of shape [c b a], transposed.
enum class Layout { RowMajor, ColumnMajor };

/// The elements of a dense tensor in row-major (C) order, in host memory the
/// tensor owns. A rank-0 tensor holds one element. Move-only.
class HostTensor {
public:
  HostTensor() = default;

  /// Allocates a tensor whose elements are all undefined (quiet NaN), or
  /// returns std::nullopt when the size overflows or memory runs out.
  static std::optional<HostTensor> allocateUndefined(ElementKind kind,
                                                     llvm::ArrayRef<int64_t> shape);
  /// As allocateUndefined, with the elements not set: for a tensor whose
  /// every element is written next (read from a file).
  static std::optional<HostTensor>
  allocateUninitialized(ElementKind kind, llvm::ArrayRef<int64_t> shape) {
    return allocate(kind, shape);
  }
  /// As allocateUndefined, with every element zero.
  static std::optional<HostTensor> allocateZero(ElementKind kind,
                                                llvm::ArrayRef<int64_t> shape);
  /// A tensor over elements someone else allocated (a mapped file), alive
  /// as long as `owner` is.
  static HostTensor wrap(ElementKind kind, llvm::ArrayRef<int64_t> shape,
                         void *data, std::shared_ptr<void> owner);

  ElementKind getKind() const { return kind; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getNumElements() const { return numElements; }
  int64_t getByteSize() const { return numElements * getElementSize(kind); }

  /// Gives the same elements another shape of as many elements: column-major
  /// elements of shape [a b c] are stored as the row-major ones of [c b a].
  void reinterpretShape(llvm::ArrayRef<int64_t> newShape);

  void *getData() { return storage ? storage.get() : external; }
  const void *getData() const { return storage ? storage.get() : external; }
  template <typename T> T *data() { return static_cast<T *>(getData()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(getData());
  }

  /// Element `index` (row-major), widened to double.
  double getAsDouble(int64_t index) const {
    return kind == ElementKind::F32 ? double(data<float>()[index])
                                    : data<double>()[index];
  }

private:
  struct Free {
    void operator()(void *pointer) const { std::free(pointer); }
  };
  static std::optional<HostTensor> allocate(ElementKind kind,
                                            llvm::ArrayRef<int64_t> shape);

  ElementKind kind = ElementKind::F64;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements = 0;
  std::unique_ptr<void, Free> storage;
  /// The elements of a wrapped tensor, and what keeps them alive.
  void *external = nullptr;
  std::shared_ptr<void> owner;
};

/// Padding support: a tensor's "corner" of shape `shape` is its elements
/// whose every index is below the corresponding extent of `shape` (the real
/// region of a padded tensor). `shape` has the tensor's rank and no larger
/// extents.

/// Copies `source` into the corner of `destination` of `source`'s shape.
void copyIntoCorner(const HostTensor &source, HostTensor &destination);
/// Copies dense row-major elements of `destination`'s kind and of shape
/// `shape` into the corner of `destination` of that shape.
void copyIntoCorner(const void *source, llvm::ArrayRef<int64_t> shape,
                    HostTensor &destination);

/// A new tensor holding the corner of `source` of shape `shape`, or
/// std::nullopt if memory runs out.
std::optional<HostTensor> extractCorner(const HostTensor &source,
                                        llvm::ArrayRef<int64_t> shape);

/// The tensor of shape `reverse(source.getShape())` whose element
/// (k, j, i) is `source`'s (i, j, k): converts row-major elements to
/// column-major ones and back. std::nullopt when memory runs out.
std::optional<HostTensor> reverseDimensions(const HostTensor &source);
/// The same on raw elements: `source` holds row-major elements of `shape`,
/// `destination` receives those of reverse(shape).
void reverseDimensionsInto(ElementKind kind, const void *source,
                           llvm::ArrayRef<int64_t> shape, void *destination);

/// `shape` in the order `layout` stores its dimensions row-major: reversed
/// for column-major.
llvm::SmallVector<int64_t> getStorageOrder(llvm::ArrayRef<int64_t> shape,
                                           Layout layout);

/// Sets every element of the corner of `tensor` of shape `shape` to NaN.
void fillCornerUndefined(HostTensor &tensor, llvm::ArrayRef<int64_t> shape);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_HOSTTENSOR_H
