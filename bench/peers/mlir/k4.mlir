// K4: z = ((a + b) * c) - (d / e), all [${N} ${N}] f64, written the way a
// naive front end emits it: one named linalg op per operator, each into a
// fresh tensor (temporaries: the plain pipeline does not fuse).
!t = tensor<${N}x${N}xf64>
!m = memref<${N}x${N}xf64>
func.func @kernel(%a: !t, %b: !t, %c: !t, %d: !t, %e: !t, %zout: !m) {
  %z = tensor.empty() : !t
  %e0 = tensor.empty() : !t
  %s = linalg.add ins(%a, %b : !t, !t) outs(%e0 : !t) -> !t
  %e1 = tensor.empty() : !t
  %m = linalg.mul ins(%s, %c : !t, !t) outs(%e1 : !t) -> !t
  %e2 = tensor.empty() : !t
  %q = linalg.div ins(%d, %e : !t, !t) outs(%e2 : !t) -> !t
  %r = linalg.sub ins(%m, %q : !t, !t) outs(%z : !t) -> !t
  bufferization.materialize_in_destination %r in restrict writable %zout : (!t, !m) -> ()
  return
}
