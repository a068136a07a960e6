// K5: v[e,i,j,k] = sum_{l,m,n} A[i,l] A[j,m] A[k,n] u[e,l,m,n], E=${E}, p=${P},
// as three successive contractions (6 E p^4 flops, the order tensorlang and
// NumPy's einsum pick).
!u = tensor<${E}x${P}x${P}x${P}xf64>
!a = tensor<${P}x${P}xf64>
!um = memref<${E}x${P}x${P}x${P}xf64>
// stage 1: t1[e,l,m,k] = sum_n u[e,l,m,n] A[k,n]      dims (e,l,m,k,n)
#s1u = affine_map<(e, l, m, k, n) -> (e, l, m, n)>
#s1a = affine_map<(e, l, m, k, n) -> (k, n)>
#s1o = affine_map<(e, l, m, k, n) -> (e, l, m, k)>
// stage 2: t2[e,l,j,k] = sum_m A[j,m] t1[e,l,m,k]     dims (e,l,j,k,m)
#s2t = affine_map<(e, l, j, k, m) -> (e, l, m, k)>
#s2a = affine_map<(e, l, j, k, m) -> (j, m)>
#s2o = affine_map<(e, l, j, k, m) -> (e, l, j, k)>
// stage 3: v[e,i,j,k] = sum_l A[i,l] t2[e,l,j,k]      dims (e,i,j,k,l)
#s3t = affine_map<(e, i, j, k, l) -> (e, l, j, k)>
#s3a = affine_map<(e, i, j, k, l) -> (i, l)>
#s3o = affine_map<(e, i, j, k, l) -> (e, i, j, k)>
func.func @kernel(%u: !u, %A: !a, %vout: !um) {
  %v = tensor.empty() : !u
  %zero = arith.constant 0.0 : f64
  %e1 = tensor.empty() : !u
  %z1 = linalg.fill ins(%zero : f64) outs(%e1 : !u) -> !u
  %t1 = linalg.generic {indexing_maps = [#s1u, #s1a, #s1o],
          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%u, %A : !u, !a) outs(%z1 : !u) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> !u
  %e2 = tensor.empty() : !u
  %z2 = linalg.fill ins(%zero : f64) outs(%e2 : !u) -> !u
  %t2 = linalg.generic {indexing_maps = [#s2t, #s2a, #s2o],
          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%t1, %A : !u, !a) outs(%z2 : !u) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> !u
  %z3 = linalg.fill ins(%zero : f64) outs(%v : !u) -> !u
  %t3 = linalg.generic {indexing_maps = [#s3t, #s3a, #s3o],
          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%t2, %A : !u, !a) outs(%z3 : !u) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> !u
  bufferization.materialize_in_destination %t3 in restrict writable %vout : (!u, !um) -> ()
  return
}
