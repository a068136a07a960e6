// RUN: tl-opt %s | FileCheck %s
// RUN: tl-opt %s | tl-opt | FileCheck %s

// The panels of the sized cache tiles (of columns, then of rows) are
// optional: printed where a plan has some, absent otherwise.

// CHECK-LABEL: func.func private @sized_panels()
// CHECK-SAME: panels = 1, row_panels = -1, sized_panels = [1, 0]>
func.func private @sized_panels() attributes {p = #tl.contraction_plan<rows = 1, columns = 4, depth = 5, cache = [0, 64, 0, 0, 256, 256], register = [1, 8, 1, 1, 16, 1], cache_order = [0, 2, 3, 4, 5, 1], register_order = [0, 2, 3, 1, 4, 5], copy = -1, pack = -1, packed_dim = 0, panels = 1, row_panels = -1, sized_panels = [1, 0]>}

// CHECK-LABEL: func.func private @none()
// CHECK-SAME: panels = -1, row_panels = -1>
func.func private @none() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [64, 256, 256], register = [8, 1, 16], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>}

// The columns each thread takes are optional too (0, absent, where the
// threads share the column blocks).

// CHECK-LABEL: func.func private @thread_columns()
// CHECK-SAME: row_panels = -1, thread_columns = 1016>
func.func private @thread_columns() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [30, 256, 128], register = [6, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = 1, row_panels = -1, thread_columns = 1016>}
