// A variable with an extent of 0 (what binding a size to 0 makes) is for
// the reference interpreter; compiled code takes the size at run time.
// RUN: not tl-opt %s --convert-tl-to-linalg 2>&1 | FileCheck %s
// CHECK: error: variable 'u' has an extent of 0: compiled code takes a size that is 0 at run time; leave it unbound
tl.program @empty {
  tl.var input @u : tensor<0x3xf64>
  tl.var output @s : tensor<3xf64>
}
