// C3: D = A # B # C . [[2 3] [4 5]] = (A B) C, A, C: [${M} ${N}], B: [${N} ${M}],
// in the cheap order (two matmuls through an M x M temporary).
!a = tensor<${M}x${N}xf64>
!b = tensor<${N}x${M}xf64>
!s = tensor<${M}x${M}xf64>
!dm = memref<${M}x${N}xf64>
func.func @kernel(%A: !a, %B: !b, %C: !a, %Dout: !dm) {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : !s
  %z0 = linalg.fill ins(%zero : f64) outs(%e0 : !s) -> !s
  %ab = linalg.matmul ins(%A, %B : !a, !b) outs(%z0 : !s) -> !s
  %e1 = tensor.empty() : !a
  %z1 = linalg.fill ins(%zero : f64) outs(%e1 : !a) -> !a
  %d = linalg.matmul ins(%ab, %C : !s, !a) outs(%z1 : !a) -> !a
  bufferization.materialize_in_destination %d in restrict writable %Dout : (!a, !dm) -> ()
  return
}
