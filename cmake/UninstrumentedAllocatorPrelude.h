//===- UninstrumentedAllocatorPrelude.h - one poisoning rule ----*- C++ -*-===//
//
// Force-included first in every C++ file of the sanitized build. Debian's
// libMLIR.so is not instrumented, but LLVM's BumpPtrAllocator is inline:
// compiled with AddressSanitizer, our copy poisons each slab it starts and
// unpoisons only what it hands out, while libMLIR's copy, allocating from
// the same MLIRContext allocator, never unpoisons. A string libMLIR then
// copies into a slab our code started (an attribute's storage, say) reads
// as a use-after-poison. Our sources leave the allocator's memory
// unpoisoned, as libMLIR does; every other check stays on.
//
//===----------------------------------------------------------------------===//

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#undef __asan_poison_memory_region
#define __asan_poison_memory_region(address, size)                             \
  ((void)(address), (void)(size))
#endif
#endif
