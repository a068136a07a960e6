// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{barriers=false}))" | FileCheck %s --check-prefix=CPU
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{tensor-cores=false contraction-register-tile=2}))" | FileCheck %s --check-prefix=SIMT
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{contraction-kernels=false}))" | FileCheck %s --check-prefix=PLAIN
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{emit-remarks}))" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=m16n8k4 emit-remarks}))" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=m16n8k4 contraction-async-stages=3 contraction-shared-memory-bytes=232448}))" | FileCheck %s --check-prefix=ASYNC
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=m16n8k4 contraction-async-stages=3 emit-remarks}))" 2>&1 | FileCheck %s --check-prefix=ASYNC2
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=m16n8k4 contraction-async-stages=3 contraction-blocks-per-sm=1 emit-remarks}))" 2>&1 | FileCheck %s --check-prefix=ONEBLOCK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{contraction-tile-group-rows=2 emit-remarks}))" 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=auto emit-remarks}))" 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=auto contraction-blocks-per-sm=1 emit-remarks}))" 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO1
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{f64-mma=m16n8k4 contraction-async-stages=3 contraction-shared-memory-bytes=232448 contraction-depth-contiguous-tiles emit-remarks}))" 2>&1 | FileCheck %s --check-prefix=CONTIG
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{barriers=false contraction-depth-contiguous-tiles}))" | FileCheck %s --check-prefix=CONTIGCPU
// RUN: not tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{contraction-register-tile=9}))" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: tl-gpu-map-loops: contraction-register-tile must be from 1 to 8

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A 67 x 73 product over 71: blocks of 64 x 64 (2 x 2 tiles), each step of
// 16 depth indices staged in shared memory between barriers, multiplied by
// eight warps on the f64 tensor cores; the fill folded into the sums.
// CHECK-LABEL: func.func @product
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:   memref.alloc() : memref<16x68xf64, #gpu.address_space<workgroup>>
// CHECK:   memref.alloc() : memref<16x68xf64, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256) step
// CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:       gpu.barrier
// CHECK:       memref.store %{{.*}} : memref<16x68xf64, #gpu.address_space<workgroup>>
// CHECK:       gpu.barrier
// CHECK:       memref.load %{{.*}} : memref<67x71xf64>
// CHECK-COUNT-32: nvgpu.mma.sync
// CHECK:     scf.if
// CHECK:       memref.store %{{.*}} : memref<67x73xf64>
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
// With asynchronous copies (sm_80's cp.async) in three stages: the first
// two steps' copies are issued before the loop, each a group of its own;
// each step waits until at most one group is pending (its own landed),
// and after one barrier multiplies the first product of its stage, copies
// the step two ahead into the stage the previous step used (an element
// past the edges or the part's depth copies none of its bytes: zeros),
// then the rest of its products. No copy is pending when the block ends.
// ASYNC-LABEL: func.func @product
// ASYNC-NOT: linalg.fill
// ASYNC: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// ASYNC:   %[[A:.*]] = memref.alloc() : memref<3x16x68xf64, #gpu.address_space<workgroup>>
// ASYNC:   %[[B:.*]] = memref.alloc() : memref<3x16x68xf64, #gpu.address_space<workgroup>>
// ASYNC:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256) step
// ASYNC-NOT:   gpu.barrier
// ASYNC:     %[[COPIED:.*]] = arith.select %{{.*}}, %c1{{[_0-9]*}}, %c0{{[_0-9]*}} : index
// ASYNC-NEXT: nvgpu.device_async_copy %{{.*}}, %[[A]][%c0{{[_0-9]*}}, %{{.*}}, %{{.*}}], 1, %[[COPIED]] : memref<67x71xf64> to memref<3x16x68xf64, #gpu.address_space<workgroup>>
// ASYNC-COUNT-3: nvgpu.device_async_copy %{{.*}}, %[[A]][%c0{{[_0-9]*}}
// ASYNC-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[B]][%c0{{[_0-9]*}}, %{{.*}}, %{{.*}}], 1, %{{.*}} : memref<71x73xf64> to memref<3x16x68xf64, #gpu.address_space<workgroup>>
// ASYNC:     nvgpu.device_async_create_group
// ASYNC-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[A]][%c1{{[_0-9]*}}
// ASYNC-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[B]][%c1{{[_0-9]*}}
// ASYNC:     %[[LAST:.*]] = nvgpu.device_async_create_group
// ASYNC-NOT:   gpu.barrier
// ASYNC:     scf.for {{.*}} iter_args({{.*}}, %[[STAGE:.*]] = %c0{{[_0-9]*}}) -> ({{.*}}, index) {
// ASYNC-NEXT:  nvgpu.device_async_wait %[[LAST]] {numGroups = 1 : i32}
// ASYNC-NEXT:  gpu.barrier
// ASYNC:       %[[FIRST:.*]] = arith.cmpi eq, %[[STAGE]], %c0
// ASYNC:       %[[PREVIOUS:.*]] = arith.select %[[FIRST]], %c2{{[_0-9]*}}, %{{.*}} : index
// ASYNC:       memref.load %[[A]][%[[STAGE]],
// ASYNC:       memref.load %[[B]][%[[STAGE]],
// ASYNC-COUNT-4: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k4
// ASYNC-NOT:   gpu.barrier
// ASYNC-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[A]][%[[PREVIOUS]],
// ASYNC-COUNT-4: nvgpu.device_async_copy %{{.*}}, %[[B]][%[[PREVIOUS]],
// ASYNC:       nvgpu.device_async_create_group
// ASYNC-NOT:   gpu.barrier
// ASYNC-COUNT-12: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k4
// ASYNC:       %[[WRAP:.*]] = arith.cmpi eq, %[[STAGE]], %c2
// ASYNC:       %[[NEXT:.*]] = arith.select %[[WRAP]], %c0{{[_0-9]*}}, %{{.*}} : index
// ASYNC:       scf.yield {{.*}}, %[[NEXT]] :
// ASYNC:     nvgpu.device_async_wait %[[LAST]] {numGroups = 0 : i32}
// ASYNC:     scf.if
// With depth-contiguous tiles, A (its stride-1 index the depth) is
// staged [row][depth], 64 rows of 16 depth indices padded to 20; B keeps
// [depth][column]. Each copy and each fragment's load of A takes its row
// first, then its depth index.
// CONTIG: remark: GPU contraction kernel: block tile 64x64, depth 16 per step (3 stages of asynchronous copies), 256 threads, depth-contiguous tiles of the rows, f64 tensor cores
// CONTIG-LABEL: func.func @product
// CONTIG:   %[[A:.*]] = memref.alloc() : memref<3x64x20xf64, #gpu.address_space<workgroup>>
// CONTIG:   %[[B:.*]] = memref.alloc() : memref<3x16x68xf64, #gpu.address_space<workgroup>>
// CONTIG:     %[[LANE:.*]] = arith.remui %{{.*}}, %c32{{[_0-9]*}} : index
// CONTIG:     %[[GROUP:.*]] = arith.divui %[[LANE]], %c4{{[_0-9]*}} : index
// CONTIG:     %[[INGROUP:.*]] = arith.remui %[[LANE]], %c4{{[_0-9]*}} : index
// CONTIG:     nvgpu.device_async_copy %{{.*}}, %[[A]][%c0{{[_0-9]*}}, %{{.*}}, %{{.*}}], 1, %{{.*}} : memref<67x71xf64> to memref<3x64x20xf64, #gpu.address_space<workgroup>>
// CONTIG:     scf.for
// CONTIG:       %[[DEPTH:.*]] = arith.addi %[[INGROUP]], %c0{{[_0-9]*}} : index
// CONTIG-NEXT:  %{{.*}} = arith.constant 0 : index
// CONTIG-NEXT:  %[[INWARP:.*]] = arith.addi %[[GROUP]], %c0{{[_0-9]*}} : index
// CONTIG-NEXT:  %[[ROW:.*]] = arith.addi %{{.*}}, %[[INWARP]] : index
// CONTIG-NEXT:  memref.load %[[A]][%{{.*}}, %[[ROW]], %[[DEPTH]]] : memref<3x64x20xf64, #gpu.address_space<workgroup>>
// On the CPU, each thread's own tiles have the same layout.
// CONTIGCPU-LABEL: func.func @product
// CONTIGCPU:   memref.alloc() : memref<64x20xf64>
// CONTIGCPU:   memref.alloc() : memref<16x68xf64>
// Two blocks per multiprocessor in 99 KiB of shared memory (the default,
// what every chip from sm_86 on offers a block) hold two stages, not
// three; one block per multiprocessor holds three.
// ASYNC2: remark: GPU contraction kernel: block tile 64x64, depth 16 per step (2 stages of asynchronous copies), 256 threads
// ASYNC2: memref.alloc() : memref<2x16x68xf64, #gpu.address_space<workgroup>>
// ONEBLOCK: remark: GPU contraction kernel: block tile 64x64, depth 16 per step (3 stages of asynchronous copies), 256 threads
// ONEBLOCK: memref.alloc() : memref<3x16x68xf64, #gpu.address_space<workgroup>>
// In groups of two tiles of rows, the rows fastest in a group (the last
// group may be shorter).
// GROUPS: remark: GPU contraction kernel: block tile 64x64, depth 16 per step, 256 threads, blocks in groups of 2 rows
// GROUPS: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// GROUPS:   %[[TILE:.*]]:3 = affine.delinearize_index
// GROUPS:   %[[GROUP:.*]] = arith.divui %[[TILE]]#2, %[[GROUPTILES:.*]] : index
// GROUPS:   %[[FIRSTROW:.*]] = arith.muli %[[GROUP]], %c2
// GROUPS:   %[[IN:.*]] = arith.remui %[[TILE]]#2, %[[GROUPTILES]]
// GROUPS:   %[[LEFT:.*]] = arith.subi %{{.*}}, %[[FIRSTROW]]
// GROUPS:   %[[ROWS:.*]] = arith.minui %[[LEFT]], %c2
// GROUPS:   arith.remui %[[IN]], %[[ROWS]]
// GROUPS:   arith.divui %[[IN]], %[[ROWS]]
// sm_90's shapes chosen by the plan: m16n8k4 where the registers are sized
// for two blocks per multiprocessor, m16n8k8 for one.
// AUTO: remark: GPU contraction kernel: block tile 64x64, {{.*}} (mma.sync m16n8k4), 2x4 warps of 32x16, registers for 2 blocks per multiprocessor
// AUTO1: remark: GPU contraction kernel: block tile 64x64, {{.*}} (mma.sync m16n8k8), 2x4 warps of 32x16, registers for 1 block per multiprocessor
// Without barriers (on the CPU) each thread stages every share into buffers of its
// own, and computes its fragments' elements with FMAs.
// CPU-LABEL: func.func @product
// CPU:   scf.parallel
// CPU:     memref.alloc() : memref<16x68xf64>
// CPU:     scf.for {{.*}} iter_args
// CPU-NOT:   gpu.barrier
// CPU:       scf.for %{{.*}} = %c0 to %c256{{[_0-9]*}} step
// CPU-NOT: nvgpu.mma.sync
// CPU:       arith.mulf {{.*}} fastmath<contract>
// CPU:     memref.dealloc
// Without tensor cores: 2 x 2 elements per thread, 32 x 32 blocks.
// SIMT-LABEL: func.func @product
// SIMT: memref.alloc() : memref<16x32xf64, #gpu.address_space<workgroup>>
// SIMT-NOT: nvgpu.mma.sync
// SIMT-COUNT-64: arith.mulf
// PLAIN-LABEL: func.func @product
// PLAIN-NOT: gpu.barrier
// PLAIN-NOT: workgroup
func.func @product(%x: memref<67x71xf64>, %y: memref<71x73xf64>, %z: memref<67x73xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%z : memref<67x73xf64>)
// REMARK: remark: GPU contraction kernel: block tile 64x64, depth 16 per step, 256 threads, f64 tensor cores (mma.sync m8n8k4), 2x4 warps of 32x16 (rows=d0 columns=d1 depth=d2 batch=-); the output's fill folded
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<67x71xf64>, memref<71x73xf64>) outs(%z : memref<67x73xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// The result's stride-1 index comes from the first input: that input
// gives the columns (consecutive threads store consecutive elements). The
// transposition copying the temporary into the result is folded into the
// contraction's output map; f32 has no tensor-core path here. The depth
// of 30 is one step of 32 (two of 16 would be partly zeros).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#t = affine_map<(j, i) -> (i, j)>
#id = affine_map<(j, i) -> (j, i)>
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: memref.alloc() : memref<40x50xf32>
// CHECK: memref.alloc() : memref<32x65xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: memref.store %{{.*}} : memref<50x40xf32>
// CHECK-NOT: linalg.generic
func.func @transposed(%x: memref<40x30xf32>, %y: memref<30x50xf32>, %out: memref<50x40xf32>) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<40x50xf32>
  linalg.fill ins(%zero : f32) outs(%tmp : memref<40x50xf32>)
// REMARK: remark: GPU contraction kernel: block tile 64x64, depth 32 per step, 256 threads of 4x4 (rows=d1 columns=d0 depth=d2 batch=-); the result's transposition folded; the output's fill folded
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<40x30xf32>, memref<30x50xf32>) outs(%tmp : memref<40x50xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%tmp : memref<40x50xf32>) outs(%out : memref<50x40xf32>) {
  ^bb0(%v: f32, %w: f32):
    linalg.yield %v : f32
  }
  memref.dealloc %tmp : memref<40x50xf32>
  return
}

// -----

// Both inputs' stride-1 indices are reductions, but different ones: the
// first input decides the depth order (l fastest), and the second, read
// across 100 rows of 64, is copied first into the order the kernel loads
// it (its stride-1 index l), by a statement of its own.
#a = affine_map<(i, j, k, l) -> (i, k, l)>
#b = affine_map<(i, j, k, l) -> (j, l, k)>
#c = affine_map<(i, j, k, l) -> (i, j)>
// CHECK-LABEL: func.func @copied
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<80x5x7xf64>
// CHECK: memref.load %{{.*}} : memref<80x7x5xf64>
// CHECK: memref.store %{{.*}}, %[[COPY]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[COPY]]
// CHECK: memref.dealloc %[[COPY]]
func.func @copied(%x: memref<100x5x7xf64>, %y: memref<80x7x5xf64>, %z: memref<100x80xf64>) {
// REMARK: remark: GPU contraction kernel: block tile 64x64, depth 16 per step, 256 threads, f64 tensor cores (mma.sync m8n8k4), 2x4 warps of 32x16 (rows=d0 columns=d1 depth=d2,d3 batch=-); inputs copied into the order loaded
// REMARK: remark: GPU: 1 statement(s) one thread per element (no batch loop)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %y : memref<100x5x7xf64>, memref<80x7x5xf64>) outs(%z : memref<100x80xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A 5 x 7 result over a depth of 667: one tile, so the depth is split in
// 5 parts of 144 (9 steps), summed into a buffer of partial sums that a
// statement after the kernel adds to the result in order.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @split
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<5x5x7xf64>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[PARTS]]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c5{{[_0-9]*}} step
// CHECK:   memref.load %[[PARTS]]
// CHECK: memref.dealloc %[[PARTS]]
func.func @split(%x: memref<5x667xf64>, %y: memref<667x7xf64>, %z: memref<5x7xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%z : memref<5x7xf64>)
// REMARK: remark: GPU contraction kernel: block tile 16x16, depth 16 per step, 256 threads, depth split in 5 parts of 144 (partial sums, added in order) of 1x1 (rows=d0 columns=d1 depth=d2 batch=-)
// REMARK: remark: GPU: 2 statement(s) one thread per element (no batch loop)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<5x667xf64>, memref<667x7xf64>) outs(%z : memref<5x7xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Not a product of its inputs' elements (a sum of differences): the
// kernel's zeros past the edges would add to it, so it runs one thread per
// element.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @not_a_product
// CHECK-NOT: gpu.barrier
// CHECK: arith.subf
// REMARK: remark: GPU: 1 statement(s) one thread per element (no batch loop)
func.func @not_a_product(%x: memref<67x71xf64>, %y: memref<71x73xf64>, %z: memref<67x73xf64>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<67x71xf64>, memref<71x73xf64>) outs(%z : memref<67x73xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.subf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A depth of 21 is one step of 24 (rounded up to a multiple of 8), not one
// of 32: a third fewer zeros staged and multiplied. Each thread stages 6
// elements of each 24 x 64 tile.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @short_depth
// CHECK: memref.alloc() : memref<24x68xf64, #gpu.address_space<workgroup>>
// CHECK-COUNT-12: memref.store %{{.*}} : memref<24x68xf64, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.store %{{.*}} : memref<24x68xf64, #gpu.address_space<workgroup>>
// CHECK-COUNT-48: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
func.func @short_depth(%x: memref<67x21xf64>, %y: memref<21x73xf64>, %z: memref<67x73xf64>) {
// REMARK: remark: GPU contraction kernel: block tile 64x64, depth 24 per step, 256 threads, f64 tensor cores (mma.sync m8n8k4), 2x4 warps of 32x16 (rows=d0 columns=d1 depth=d2 batch=-)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<67x21xf64>, memref<21x73xf64>) outs(%z : memref<67x73xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// 25 tiles of 64 x 64 and a depth of 1600 steps of 16: 10 parts (250
// blocks, one wave of two blocks on each of 132 multiprocessors), not 11
// (275 blocks: a second wave of 11 as long as the first).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @split_in_one_wave
// CHECK: memref.alloc() : memref<10x317x311xf64>
func.func @split_in_one_wave(%x: memref<317x25600xf64>, %y: memref<25600x311xf64>, %z: memref<317x311xf64>) {
// REMARK: remark: GPU contraction kernel: block tile 64x64, depth 16 per step, 256 threads, depth split in 10 parts of 2560 (partial sums, added in order), f64 tensor cores (mma.sync m8n8k4), 2x4 warps of 32x16 (rows=d0 columns=d1 depth=d2 batch=-)
// REMARK: remark: GPU: 1 statement(s) one thread per element (no batch loop)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<317x25600xf64>, memref<25600x311xf64>) outs(%z : memref<317x311xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// With sm_90's shapes, a long product with 12 x 13 tiles of 128 x 128
// takes them: each thread sums 8 x 8 elements (64 in registers, one block
// per multiprocessor), two warps by four of 64 x 32. The result's stride-1
// index is the fastest column of an even extent: each lane's two adjacent
// columns are stored as one vector where the buffer is 16-byte aligned,
// else one by one.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// SM90: remark: GPU contraction kernel: block tile 128x128, depth 16 per step, 256 threads, f64 tensor cores (mma.sync m16n8k4), 2x4 warps of 64x32, registers for 1 block per multiprocessor (rows=d0 columns=d1 depth=d2 batch=-)
// SM90-LABEL: func.func @long_product
// SM90-COUNT-64: llvm.inline_asm {tl.blocks_per_multiprocessor = 1 : i32} "mma.sync.aligned.m16n8k4
// SM90: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<1601x1710xf64> -> index
// SM90: %[[MISALIGNED:.*]] = arith.remui %[[ADDRESS]], %c16
// SM90: %[[ALIGNED:.*]] = arith.cmpi eq, %[[MISALIGNED]], %c0
// SM90: scf.if %[[ALIGNED]] {
// SM90-COUNT-32: vector.store %{{.*}} {alignment = 16 : i64} : memref<1601x1710xf64>, vector<2xf64>
// SM90-NOT: vector.store
// SM90: } else {
// SM90: memref.store %{{.*}}#0, %{{.*}} : memref<1601x1710xf64>
// SM90: memref.store %{{.*}}#63, %{{.*}} : memref<1601x1710xf64>
func.func @long_product(%x: memref<1601x1031xf64>, %y: memref<1031x1710xf64>, %z: memref<1601x1710xf64>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<1601x1031xf64>, memref<1031x1710xf64>) outs(%z : memref<1601x1710xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// An odd extent of the result's stride-1 index: pairs of columns may
// straddle rows, so each sum is stored by itself.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// SM90-LABEL: func.func @odd_columns
// SM90-NOT: vector.store
// SM90-NOT: extract_aligned_pointer
// SM90: memref.store %{{.*}} : memref<67x73xf64>
// SM90-LABEL: func.func
func.func @odd_columns(%x: memref<67x71xf64>, %y: memref<71x73xf64>, %z: memref<67x73xf64>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<67x71xf64>, memref<71x73xf64>) outs(%z : memref<67x73xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

func.func @end() {
  return
}
