// RUN: tl-opt %s --tl-gpu-tensor-core-occupancy | FileCheck %s
// RUN: tl-opt %s --tl-gpu-tensor-core-occupancy="blocks-per-multiprocessor=1" | FileCheck %s --check-prefix=ONE

// A kernel that multiplies on the tensor cores in inline PTX asks for two
// blocks per multiprocessor; one with nvgpu.mma.sync (m8n8k4) and one
// without tensor cores are left to ptxas.
// CHECK-LABEL: gpu.func @inline_mma
// CHECK-SAME: nvvm.minctasm = 2 : i32
// ONE-LABEL: gpu.func @inline_mma
// ONE-SAME: nvvm.minctasm = 1 : i32
// A contraction kernel says how many blocks its registers are sized for
// (its register tile of 64 sums: one); the fewest asked wins, over the
// pass's option too, and the attribute is dropped.
// CHECK-LABEL: gpu.func @inline_mma_asking
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-NOT: tl.blocks_per_multiprocessor
// ONE-LABEL: gpu.func @inline_mma_asking
// ONE-SAME: nvvm.minctasm = 1 : i32
// CHECK-LABEL: gpu.func @inline_mma_asking_more
// CHECK-SAME: nvvm.minctasm = 3 : i32
// ONE-LABEL: gpu.func @inline_mma_asking_more
// ONE-SAME: nvvm.minctasm = 3 : i32
// CHECK-LABEL: gpu.func @nvgpu_mma
// CHECK-NOT: nvvm.minctasm
// CHECK-LABEL: gpu.func @no_mma
// CHECK-NOT: nvvm.minctasm
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @inline_mma(%x: f64) kernel {
      %r = llvm.inline_asm "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {$0,$1,$2,$3}, {$4,$5}, {$6}, {$7,$8,$9,$10};", "=d,=d,=d,=d,d,d,d,d,d,d,d" %x, %x, %x, %x, %x, %x, %x : (f64, f64, f64, f64, f64, f64, f64) -> !llvm.struct<(f64, f64, f64, f64)>
      gpu.return
    }
    gpu.func @inline_mma_asking(%x: f64) kernel {
      %r = llvm.inline_asm {tl.blocks_per_multiprocessor = 2 : i32} "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {$0,$1,$2,$3}, {$4,$5}, {$6}, {$7,$8,$9,$10};", "=d,=d,=d,=d,d,d,d,d,d,d,d" %x, %x, %x, %x, %x, %x, %x : (f64, f64, f64, f64, f64, f64, f64) -> !llvm.struct<(f64, f64, f64, f64)>
      %s = llvm.inline_asm {tl.blocks_per_multiprocessor = 1 : i32} "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {$0,$1,$2,$3}, {$4,$5}, {$6}, {$7,$8,$9,$10};", "=d,=d,=d,=d,d,d,d,d,d,d,d" %x, %x, %x, %x, %x, %x, %x : (f64, f64, f64, f64, f64, f64, f64) -> !llvm.struct<(f64, f64, f64, f64)>
      gpu.return
    }
    gpu.func @inline_mma_asking_more(%x: f64) kernel {
      %r = llvm.inline_asm {tl.blocks_per_multiprocessor = 3 : i32} "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {$0,$1,$2,$3}, {$4,$5}, {$6}, {$7,$8,$9,$10};", "=d,=d,=d,=d,d,d,d,d,d,d,d" %x, %x, %x, %x, %x, %x, %x : (f64, f64, f64, f64, f64, f64, f64) -> !llvm.struct<(f64, f64, f64, f64)>
      gpu.return
    }
    gpu.func @nvgpu_mma(%x: f64) kernel {
      %a = vector.broadcast %x : f64 to vector<1x1xf64>
      %c = vector.broadcast %x : f64 to vector<1x2xf64>
      %d = nvgpu.mma.sync (%a, %a, %c) {mmaShape = [8, 8, 4]} : (vector<1x1xf64>, vector<1x1xf64>, vector<1x2xf64>) -> vector<1x2xf64>
      gpu.return
    }
    gpu.func @no_mma(%x: f64) kernel {
      gpu.return
    }
  }
}
