// K3: v = u ^ [2 4], u: [${D1} ${D2} ${D3} ${D4} ${D5}] f64.
!u = tensor<${D1}x${D2}x${D3}x${D4}x${D5}xf64>
!v = tensor<${D1}x${D4}x${D3}x${D2}x${D5}xf64>
!vm = memref<${D1}x${D4}x${D3}x${D2}x${D5}xf64>
func.func @kernel(%u: !u, %vout: !vm) {
  %e = tensor.empty() : !v
  %r = linalg.transpose ins(%u : !u) outs(%e : !v) permutation = [0, 3, 2, 1, 4]
  bufferization.materialize_in_destination %r in restrict writable %vout : (!v, !vm) -> ()
  return
}
