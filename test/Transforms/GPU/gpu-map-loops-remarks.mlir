// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{emit-remarks}))" --verify-diagnostics > /dev/null

// With emit-remarks, the GPU plan: each batch kernel's threads, phases,
// register tiles and per-block buffers, and how many statements run one
// thread per element.
#u = affine_map<(e, i, j, k) -> (e, k, j)>
#m = affine_map<(e, i, j, k) -> (i, k)>
#v = affine_map<(e, i, j, k) -> (e, i, j)>
#id = affine_map<(i) -> (i)>
// expected-remark @+1 {{GPU: 1 statement(s) one thread per element (no batch loop)}}
func.func @plan(%u: memref<7x4x4xf64>, %m: memref<4x4xf64>, %out: memref<7x4x4xf64>, %a: memref<9xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %t = memref.alloc() : memref<1x4x4xf64>
  // expected-remark @+1 {{GPU batch kernel: a block per batch index, 32 threads, 2 phases, register tile d1 x4, register tile d1 x4; 128 B per block in shared memory}}
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    %os = memref.subview %out[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%us, %m : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>, memref<4x4xf64>) outs(%t : memref<1x4x4xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%t, %m : memref<1x4x4xf64>, memref<4x4xf64>) outs(%os : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  memref.dealloc %t : memref<1x4x4xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<9xf64>) outs(%a : memref<9xf64>) {
  ^bb0(%x: f64, %y: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  }
  return
}
