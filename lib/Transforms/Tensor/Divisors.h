//===- Divisors.h - Tile sizes that divide an extent ------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The tilings of this library use only tile sizes that divide the extent:
// every tile is static, and no partial tile needs a mask.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_TRANSFORMS_DIVISORS_H
#define TENSORLANG_LIB_TRANSFORMS_DIVISORS_H

#include <algorithm>
#include <cstdint>

namespace tensorlang {

/// The largest divisor of `extent` that is at most `limit`: the whole
/// extent where it is no larger, 1 where no divisor above 1 is.
inline int64_t largestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t size = std::min(extent, limit); size > 1; --size)
    if (extent % size == 0)
      return size;
  return 1;
}

} // namespace tensorlang

#endif // TENSORLANG_LIB_TRANSFORMS_DIVISORS_H
