// RUN: tl-opt %s --split-input-file --tl-huge-page-temporaries | FileCheck %s
// RUN: tl-opt %s --split-input-file --tl-huge-page-temporaries=min-bytes=1024 | FileCheck %s --check-prefix=SMALL
// RUN: not tl-opt %s --split-input-file --tl-huge-page-temporaries=min-bytes=0 2>&1 | FileCheck %s --check-prefix=BAD

// A block of a constant size below min-bytes (4 MiB) keeps calling malloc;
// a larger one, and one whose size is only known at run time, call the
// helper, which calls malloc and advises huge pages from the first whole
// page to the end of large blocks (MADV_HUGEPAGE = 14).
// CHECK: llvm.func @madvise(!llvm.ptr, i64, i32) -> i32
// CHECK-LABEL: llvm.func @temporaries
// CHECK: llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK: llvm.call @tl.malloc_huge_pages(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK: llvm.call @tl.malloc_huge_pages(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK: llvm.func internal @tl.malloc_huge_pages(%[[SIZE:.*]]: i64) -> !llvm.ptr
// CHECK: %[[BLOCK:.*]] = llvm.call @malloc(%[[SIZE]])
// CHECK: %[[MIN:.*]] = llvm.mlir.constant(4194304 : i64)
// CHECK: llvm.icmp "uge" %[[SIZE]], %[[MIN]]
// CHECK: llvm.cond_br
// CHECK: llvm.mlir.constant(4095 : i64)
// CHECK: llvm.mlir.constant(-4096 : i64)
// CHECK: %[[ADVICE:.*]] = llvm.mlir.constant(14 : i32)
// CHECK: llvm.call @madvise(%{{.*}}, %{{.*}}, %[[ADVICE]])
// CHECK: llvm.return %[[BLOCK]] : !llvm.ptr
// SMALL-LABEL: llvm.func @temporaries
// SMALL-COUNT-3: llvm.call @tl.malloc_huge_pages
// BAD: min-bytes must be positive
module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @free(!llvm.ptr)
  llvm.func @temporaries(%n: i64) {
    %small = llvm.mlir.constant(4096 : i64) : i64
    %large = llvm.mlir.constant(215000000 : i64) : i64
    %a = llvm.call @malloc(%small) : (i64) -> !llvm.ptr
    %b = llvm.call @malloc(%large) : (i64) -> !llvm.ptr
    %c = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
    llvm.call @free(%a) : (!llvm.ptr) -> ()
    llvm.call @free(%b) : (!llvm.ptr) -> ()
    llvm.call @free(%c) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// Without calls of malloc, nothing is added.
// CHECK-LABEL: llvm.func @no_temporaries
// CHECK-NOT: tl.malloc_huge_pages
// CHECK-NOT: madvise
module {
  llvm.func @no_temporaries() {
    llvm.return
  }
}
