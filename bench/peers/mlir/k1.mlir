// K1: C = A # B . [2 3], A, B: [${N} ${N}] f64, hand-written linalg on tensors.
// Destination-passing style: the result is written into the caller's buffer
// %Cout (empty-tensor elimination removes the copy). The $$-placeholders are filled in
// by bench/run.py.
!t = tensor<${N}x${N}xf64>
!m = memref<${N}x${N}xf64>
func.func @kernel(%A: !t, %B: !t, %Cout: !m) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : !t
  %z = linalg.fill ins(%zero : f64) outs(%e : !t) -> !t
  %r = linalg.matmul ins(%A, %B : !t, !t) outs(%z : !t) -> !t
  bufferization.materialize_in_destination %r in restrict writable %Cout : (!t, !m) -> ()
  return
}
