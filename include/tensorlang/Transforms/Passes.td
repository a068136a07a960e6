//===- Passes.td - TensorLang passes on upstream IR ---------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TRANSFORMS_PASSES_TD
#define TENSORLANG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VectorizeParallelLoops
    : Pass<"tl-vectorize-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Vectorize the innermost affine loops that are parallel";
  let description = [{
    Vectorizes, with upstream's affine vectorizer, every innermost
    `affine.for` that dependence analysis proves parallel, by `vector-lanes`
    elements. Trip counts that are not a multiple of the width are handled
    by masked transfers.

    Upstream's `--affine-super-vectorize` picks its loops by memory access
    pattern alone; given a reduction that accumulates through memory (a
    contraction to a scalar, lowered from linalg) it vectorizes the
    reduction loop and produces invalid IR. This pass only offers it loops
    without loop-carried dependences.
  }];
  let options = [
    Option<"vectorLanes", "vector-lanes", "unsigned", "8",
           "Elements per vector">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def StripAnnotations : Pass<"tl-strip-annotations", "::mlir::func::FuncOp"> {
  let summary = "Remove the tl.* attributes that document a function";
  let description = [{
    `--convert-tl-to-linalg` names each argument after its variable
    (`tl.name`, `tl.input`, `tl.output`) so that the IR of every stage can
    be read against the source. LLVM has no use for them, and the LLVM IR
    translation warns about attributes it does not know; the lowering to
    LLVM removes them first.
  }];
}

def ParallelizeOuterLoops
    : Pass<"tl-parallelize-outer-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn the outermost parallel loop of each nest into "
                "affine.parallel";
  let description = [{
    For multi-threaded code: the outermost `affine.for` of every loop nest
    of depth two or more becomes an `affine.parallel` when affine dependence
    analysis proves its iterations independent (a loop over a result
    dimension of a statement; never a reduction). Inner loops stay
    sequential and are vectorized as before. `lower-affine` then gives
    `scf.parallel`, which `convert-scf-to-openmp` turns into an OpenMP
    work-sharing loop. Single loops are left alone: they are vectorized
    instead.
  }];
}

#endif // TENSORLANG_TRANSFORMS_PASSES_TD
