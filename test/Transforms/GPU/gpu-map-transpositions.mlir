// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{barriers=false}))" | FileCheck %s --check-prefix=CPU
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{emit-remarks}))" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A 37 x 41 transposition: blocks of 32 x 32 elements (2 x 2 tiles), 256
// threads, each reading 4 elements along the input's rows into a tile of
// shared memory (one column more than the tile), a barrier, and writing 4
// along the output's rows; the edges masked.
#in = affine_map<(i, j) -> (j, i)>
#out = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:   %[[TILE:.*]] = memref.alloc() : memref<32x33xf64, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256) step
// CHECK-COUNT-4: memref.store %{{.*}}, %[[TILE]]
// CHECK:     gpu.barrier
// CHECK-COUNT-4: memref.load %[[TILE]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT: linalg.generic
// Without barriers (on the CPU) each thread stages every thread's share
// into a tile of its own.
// CPU-LABEL: func.func @transpose
// CPU:   scf.parallel
// CPU:     %[[TILE:.*]] = memref.alloc() : memref<32x33xf64>
// CPU-NOT: gpu.barrier
// CPU:     scf.for %{{.*}} = %c0 to %c256
// CPU:       memref.store %{{.*}}, %[[TILE]]
// CPU:     memref.dealloc %[[TILE]]
func.func @transpose(%x: memref<41x37xf64>, %z: memref<37x41xf64>) {
// REMARK: remark: GPU transposition kernel: tiles of 32x32 in shared memory, 256 threads (read along d0, written along d1)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<41x37xf64>) outs(%z : memref<37x41xf64>) {
  ^bb0(%v: f64, %w: f64):
    linalg.yield %v : f64
  }
  return
}

// -----

// An extent of 8 along the output's rows would leave three quarters of
// each tile's threads idle: one thread per element.
#in = affine_map<(i, j) -> (j, i)>
#out = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @short
// CHECK-NOT: workgroup
// CHECK-NOT: gpu.barrier
func.func @short(%x: memref<8x37xf32>, %z: memref<37x8xf32>) {
// REMARK: remark: GPU: 1 statement(s) one thread per element (no batch loop)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x37xf32>) outs(%z : memref<37x8xf32>) {
  ^bb0(%v: f32, %w: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// The same stride-1 loop in and out (a copy along rows): one thread per
// element, each warp reading and writing consecutive elements.
#in = affine_map<(i, j, k) -> (j, i, k)>
#out = affine_map<(i, j, k) -> (i, j, k)>
// CHECK-LABEL: func.func @rows_kept
// CHECK-NOT: workgroup
func.func @rows_kept(%x: memref<41x37x43xf64>, %z: memref<37x41x43xf64>) {
// REMARK: remark: GPU: 1 statement(s) one thread per element (no batch loop)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<41x37x43xf64>) outs(%z : memref<37x41x43xf64>) {
  ^bb0(%v: f64, %w: f64):
    linalg.yield %v : f64
  }
  return
}
