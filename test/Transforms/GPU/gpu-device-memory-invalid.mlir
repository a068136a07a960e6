// RUN: tl-opt %s --split-input-file --tl-gpu-device-memory --verify-diagnostics

// The extent of the statement's view is computed in the callee, from no
// size argument: the pass cannot know how much to copy and says so, rather
// than copying one element.
module {
  func.func private @q.s0(%n: index, %base: memref<f64>) {
    %twice = arith.addi %n, %n : index
    %view = memref.reinterpret_cast %base to offset: [0], sizes: [%twice], strides: [1] : memref<f64> to memref<?xf64>
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f64
    memref.store %zero, %view[%c0] : memref<?xf64>
    return
  }
  // expected-error @+1 {{tl-gpu-device-memory: the extents of argument 1 come from no size of the caller}}
  func.func @q(%n: index {tl.size = "N"}, %u: memref<f64> {tl.name = "u"}) {
    call @q.s0(%n, %u) : (index, memref<f64>) -> ()
    return
  }
}

// -----

// The host function's statements move into the device function as one
// block: an interface function of several blocks (which tl-to-linalg never
// makes) is refused, not split wrongly.
module {
  // expected-error @+1 {{tl-gpu-device-memory: an interface function of more than one block}}
  func.func @r(%u: memref<4xf64> {tl.name = "u"}) {
    cf.br ^next
  ^next:
    return
  }
}

// -----

// Before bufferization (tensors in, a tensor out): refused, not split into
// functions whose results dangle (the pass crashed here).
module {
  // expected-error @+1 {{tl-gpu-device-memory: expected a bufferized interface function (buffer arguments, no results)}}
  func.func @t(%u: tensor<4xf64>) -> tensor<4xf64> {
    return %u : tensor<4xf64>
  }
}
