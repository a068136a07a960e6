tl.program @p {
  tl.var input @a : tensor<2xf64>
  tl.var @t : tensor<2xf64>
  tl.var output @b : tensor<2xf64>
  tl.assign @b = {
    %t = tl.use @t : tensor<2xf64>
    tl.yield %t : tensor<2xf64>
  }
}
