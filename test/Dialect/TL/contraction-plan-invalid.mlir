// RUN: tl-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{a contraction plan names a loop beyond its 3}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 3, columns = 2, depth = 1, cache = [0, 0, 0], register = [1, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>}

// -----

// expected-error @below {{a contraction plan needs a cache and a register tile per loop}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [0, 0], register = [1, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>}

// -----

// expected-error @below {{a contraction plan's tiles must not be negative}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [0, -8, 0], register = [1, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>}

// -----

// expected-error @below {{a contraction plan packs along no loop}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [0, 0, 0], register = [1, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = 1, packed_dim = 7, panels = -1, row_panels = -1>}

// -----

// No rows, a copied block and panels of rows round-trip.
func.func private @f() attributes {p = #tl.contraction_plan<rows = -1, columns = 1, depth = 0, cache = [64, 0], register = [1, 16], cache_order = [1, 0], register_order = [1, 0], copy = 1, pack = -1, packed_dim = 0, panels = -1, row_panels = 0>}

// -----

// expected-error @below {{'tl.contraction_plan' must be a #tl.contraction_plan attribute}}
func.func private @f() attributes {tl.contraction_plan = 3 : i64}

// -----

// expected-error @below {{a contraction plan's sized panels name an input for the columns and one for the rows}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [64, 256, 256], register = [8, 1, 16], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1, sized_panels = [1]>}

// -----

// expected-error @below {{a contraction plan's thread columns must be whole register tiles, or -1 (at run time), got 1020}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [30, 256, 128], register = [6, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = 1, row_panels = -1, thread_columns = 1020>}

// -----

// expected-error @below {{a contraction plan's thread columns must be whole register tiles, or -1 (at run time), got -8}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [30, 256, 128], register = [6, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = 1, row_panels = -1, thread_columns = -8>}

// -----

// expected-error @below {{expected 'sized_panels' or 'thread_columns', in that order}}
func.func private @f() attributes {p = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [30, 256, 128], register = [6, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = 1, row_panels = -1, thread_columns = 8, sized_panels = [1, 0]>}
