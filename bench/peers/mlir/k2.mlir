// K2: s = A # B . [2 3] . [1 2], A, B: [${N} ${N}] f64, as the one fused
// O(N^2) contraction s = sum_ij A[i,j] * B[j,i] (what tensorlang computes).
!t = tensor<${N}x${N}xf64>
#id2 = affine_map<(i, j) -> (i, j)>
#tr2 = affine_map<(i, j) -> (j, i)>
#sc2 = affine_map<(i, j) -> ()>
func.func @kernel(%A: !t, %B: !t, %Sout: memref<f64>) {
  %S = tensor.empty() : tensor<f64>
  %zero = arith.constant 0.0 : f64
  %s0 = linalg.fill ins(%zero : f64) outs(%S : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [#id2, #tr2, #sc2], iterator_types = ["reduction", "reduction"]}
        ins(%A, %B : !t, !t) outs(%s0 : tensor<f64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %m = arith.mulf %a, %b : f64
    %y = arith.addf %acc, %m : f64
    linalg.yield %y : f64
  } -> tensor<f64>
  bufferization.materialize_in_destination %s in restrict writable %Sout
      : (tensor<f64>, memref<f64>) -> ()
  return
}
