//===- TLAttributes.td - Attributes of the tl dialect -------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_TD
#define TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_TD

include "tensorlang/Dialect/TL/IR/TLDialect.td"
include "mlir/IR/AttrTypeBase.td"

class TL_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TL_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TL_TargetAttr : TL_Attr<"Target", "target"> {
  let summary = "The machine a module is compiled for";
  let description = [{
    Everything the code generator knows of the target, carried on the
    module as `tl.target` (in the spirit of `#llvm.target` and DLTI): the
    passes that depend on the machine (tiles, vector widths, cache lines,
    fences, math library, huge pages) read it from there, and LLVM code
    generation takes its triple, CPU and features. The compiler resolves it
    once, from `--target`, `--cpu`, the cache flags or the host; a module
    without it is compiled for the reference target of
    `tensorlang::TargetDescription`. `l3_cache_bytes` is one core's share
    of the L3 cache (its size over the cores that share it); absent or 0,
    the description has no L3 and the tiles keep every block in L2.

    ```mlir
    module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu",
        cpu = "a64fx", vector_bits = 512, scalable_vectors = true,
        vector_registers = 32, l1_cache_bytes = 65536,
        l2_cache_bytes = 8388608, cache_line_bytes = 256,
        vector_math_library = false, x86_sfence = false, huge_pages = true>} {
    }
    ```

    With `gpu_chip = "sm_90"`, the statements run on that NVIDIA GPU and
    the rest of the target describes the host:

    ```mlir
    module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu",
        cpu = "host", vector_bits = 512, vector_registers = 32,
        l1_cache_bytes = 49152, l2_cache_bytes = 1048576,
        cache_line_bytes = 64, gpu_chip = "sm_90">} {
    }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"LLVM target triple">:$triple,
    StringRefParameter<"LLVM CPU name">:$cpu,
    StringRefParameter<"LLVM CPU features to add", "\"\"">:$features,
    "int64_t":$vector_bits,
    DefaultValuedParameter<"bool", "false",
                           "vectors are SVE registers of vector_bits">
        :$scalable_vectors,
    "int64_t":$vector_registers,
    "int64_t":$l1_cache_bytes,
    "int64_t":$l2_cache_bytes,
    DefaultValuedParameter<"int64_t", "0",
                           "one core's share of L3 (0: none described)">
        :$l3_cache_bytes,
    "int64_t":$cache_line_bytes,
    DefaultValuedParameter<"bool", "false", "glibc's libmvec is available">
        :$vector_math_library,
    DefaultValuedParameter<"bool", "false",
                           "non-temporal stores are fenced by sfence">
        :$x86_sfence,
    DefaultValuedParameter<"bool", "false", "madvise(MADV_HUGEPAGE)">
        :$huge_pages,
    StringRefParameter<"NVIDIA GPU the statements run on", "\"\"">
        :$gpu_chip
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute of `target` and back.
    static TargetAttr get(::mlir::MLIRContext *context,
                          const ::tensorlang::TargetDescription &target);
    ::tensorlang::TargetDescription getDescription() const;
  }];
}

def TL_ContractionPlanAttr : TL_Attr<"ContractionPlan", "contraction_plan"> {
  let summary = "Where the loops of a contraction go";
  let description = [{
    A contraction's tiling plan (`tensorlang::ContractionTilingPlan`), put
    on a `linalg.generic` as `tl.contraction_plan` by `tl-plan-contractions`
    and carried by the passes that carry it out, so that each is a pass of
    its own that a test can run on a plan stated in the IR: the cache tiles
    of `tl-tile-contractions-for-caches` take the plan, their register
    tiles (`tl-tile-contractions-for-registers`) too, and
    `tl-vectorize-register-tiles` removes it.

    Dimensions are the op's loop dimensions (`rows = -1`: none); tiles
    are per loop dimension (0: untiled at that level); `copy`, `pack`,
    `panels` and `row_panels` name inputs by operand number (-1: none), and
    so does `sized_panels = [columns, rows]` (optional: none if absent)
    for the cache tiles whose extents are sizes. `thread_columns`
    (optional: 0 if absent) is the share of the columns each thread takes,
    which the column blocks then tile.

    ```mlir
    #tl.contraction_plan<rows = 0, columns = 2, depth = 1,
        cache = [64, 0, 0], register = [8, 1, 16],
        cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1,
        pack = -1, packed_dim = 0, panels = 1, row_panels = -1>
    ```
  }];
  let parameters = (ins
    "int64_t":$rows,
    "int64_t":$columns,
    "int64_t":$depth,
    ArrayRefParameter<"int64_t", "cache tile per loop">:$cache_tiles,
    ArrayRefParameter<"int64_t", "register tile per loop">:$register_tiles,
    ArrayRefParameter<"int64_t", "cache loops, outermost first">:$cache_order,
    ArrayRefParameter<"int64_t", "register loops, outermost first">
        :$register_order,
    "int64_t":$copied_block_input,
    "int64_t":$packed_input,
    "int64_t":$packed_dim,
    "int64_t":$panel_input,
    "int64_t":$row_panel_input,
    OptionalArrayRefParameter<"int64_t",
        "inputs copied into panels of columns and of rows in sized tiles">
        :$sized_panel_inputs,
    DefaultValuedParameter<"int64_t", "0",
        "columns each thread takes (0: threads share the column blocks)">
        :$thread_columns
  );
  let assemblyFormat = [{
    `<` `rows` `=` $rows `,` `columns` `=` $columns `,` `depth` `=` $depth
    `,` `cache` `=` `[` $cache_tiles `]`
    `,` `register` `=` `[` $register_tiles `]`
    `,` `cache_order` `=` `[` $cache_order `]`
    `,` `register_order` `=` `[` $register_order `]`
    `,` `copy` `=` $copied_block_input `,` `pack` `=` $packed_input
    `,` `packed_dim` `=` $packed_dim `,` `panels` `=` $panel_input
    `,` `row_panels` `=` $row_panel_input
    `` custom<OptionalPlanFields>($sized_panel_inputs, $thread_columns) `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TENSORLANG_DIALECT_TL_IR_TLATTRIBUTES_TD
