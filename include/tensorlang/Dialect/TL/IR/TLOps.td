//===- TLOps.td - Operations of the tl dialect --------------*- tablegen -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_DIALECT_TL_IR_TLOPS_TD
#define TENSORLANG_DIALECT_TL_IR_TLOPS_TD

include "tensorlang/Dialect/TL/IR/TLDialect.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TL_Op<string mnemonic, list<Trait> traits = []>
    : Op<TL_Dialect, mnemonic, traits>;

// The values of the language: tensors of f32 or f64 (rank 0 is a scalar)
// whose extents are numbers or sizes (`tl.size`): a sized dimension is
// dynamic, and the encoding names its size, `tensor<?x11xf64, [@E]>`.
// Extents are positive; the limits on rank and size are checked by the
// typing rules, which name them in their messages.
def TL_Tensor : Type<
    And<[AnyRankedTensor.predicate,
         CPred<"::tensorlang::tl::isLanguageTensorType($_self)">]>,
    "tensor of f32 or f64 whose dynamic dimensions are sizes",
    "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Program structure
//===----------------------------------------------------------------------===//

def TL_ProgramOp : TL_Op<"program", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "A program: variable declarations followed by statements";
  let description = [{
    A program of the model language. Its body holds the `tl.var`
    declarations (which form the static context, rules `s-empty`/`s-var`)
    followed by the `tl.assign` statements, executed in order (`ev-seq`).
    All variables share one element type, `f64` or `f32`.

    A batch program (`batch N`, the language's `batch` declaration) runs
    once for each of N elements. Its `batched` variables hold one value per
    element: their type has an extra dimension of extent N, the first one
    (or the last one, with `last`), which statements do not see: a `tl.use`
    of a batched variable has the type of one element, and a statement
    assigns one element. Unbatched variables are shared by all elements.
    Two rules keep the elements independent, so that they can run in any
    order and statements that read no batched variable can run once:
    a statement whose value reads a batched variable assigns a batched
    variable (rule `t-batch`), and no statement reads an unbatched variable
    that the program assigns before its first assignment (rule
    `t-batch-shared`).

    ```mlir
    tl.program @interpolate batch 4000 {
      tl.var input @A : tensor<11x11xf64>
      tl.var input @u batched : tensor<4000x11xf64>
      tl.var output @v batched : tensor<4000x11xf64>
      tl.assign @v = {
        %a = tl.use @A : tensor<11x11xf64>
        %u = tl.use @u : tensor<11xf64>
        %p = tl.outer %a, %u : tensor<11x11xf64>, tensor<11xf64>
        %c = tl.contract %p [[2, 3]] : tensor<11x11x11xf64>
        tl.yield %c : tensor<11xf64>
      }
    }
    ```

    ```mlir
    tl.program @matmul {
      tl.var input @A : tensor<300x400xf64>
      tl.var input @B : tensor<400x500xf64>
      tl.var output @C : tensor<300x500xf64>
      tl.assign @C = {
        %a = tl.use @A : tensor<300x400xf64>
        %b = tl.use @B : tensor<400x500xf64>
        %p = tl.outer %a, %b : tensor<300x400xf64>, tensor<400x500xf64>
        %c = tl.contract %p [[1, 2]] : tensor<300x400x400x500xf64>
        tl.yield %c : tensor<300x500xf64>
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$batch,
                       UnitAttr:$batch_last);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $sym_name (`batch` $batch^)? (`last` $batch_last^)? attr-dict-with-keyword
    $bodyRegion
  }];
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    /// The declarations, in order.
    ::llvm::iterator_range<::mlir::Block::op_iterator<VarOp>> getVars();
    /// The sizes, in order of declaration.
    ::llvm::iterator_range<::mlir::Block::op_iterator<SizeOp>> getSizes();
    /// The statements, in execution order.
    ::llvm::iterator_range<::mlir::Block::op_iterator<AssignOp>> getStatements();
    /// The declaration of `name`, or null.
    VarOp lookupVar(::llvm::StringRef name);
    /// The element type shared by all variables (f64 for a program without
    /// variables).
    ::mlir::FloatType getElementType();
    /// Whether any variable has a qualifier. Then `input` variables alone
    /// are defined on entry and `output` variables alone are live-out;
    /// otherwise every variable is both (the report's base semantics).
    bool hasQualifiers();
    /// Checks rules t-batch and t-batch-shared (part of the verifier).
    ::mlir::LogicalResult verifyBatchRules();
    /// The batch dimension of a batched variable of `rank` dimensions in
    /// all (its element's and the batch's).
    unsigned getBatchDim(unsigned rank) {
      return getBatchLast() ? rank - 1 : 0;
    }
    /// The stored type of a batched value of type `valueType` (one
    /// element's): the batch dimension inserted. The inverse of
    /// VarOp::getValueType. Requires a batch.
    ::mlir::RankedTensorType getStoredType(::mlir::RankedTensorType valueType);
  }];
}

def TL_SizeOp : TL_Op<"size", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "A size: an extent known only at run time";
  let description = [{
    Declares a size of the program (the language's `size E`): a positive
    integer that the caller gives when it runs the program, through the
    shapes of its inputs or explicitly. Types name it in their encoding,
    for the dynamic dimensions that stand for it:

    ```mlir
    tl.size @E
    tl.var input @u : tensor<?x11xf64, [@E]>
    ```

    The typing rules compare extents syntactically: `@E` matches `@E`
    only. The program's meaning for a value of `E` is the program with
    `E` replaced by that value.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let assemblyFormat = "$sym_name attr-dict";
}

def TL_VarOp : TL_Op<"var", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "A variable declaration (rule s-var)";
  let description = [{
    Declares a tensor variable of the program. Its extents may be sizes
    of the program (see `tl.size`). The optional qualifiers are
    the report's extension (section 5): an `input` variable is defined on
    entry (rule `d-in-var`), an `output` variable is live-out. A program
    without any qualifier keeps the base semantics: every variable is part of
    its interface.

    A padded program (see `--tl-pad`) records each variable's extents before
    padding in `real_shape` (a sized dimension, never padded, has the
    dynamic-extent sentinel `ShapedType::kDynamic` there); the tensor type holds the padded extents, and
    elements outside the real region are zero.

    A `batched` variable of a batch program holds one value per element:
    its type is the element's with the batch dimension added (see
    `tl.program`), and statements see one element (`getValueType`). The
    batch dimension is never padded.

    ```mlir
    tl.var input @A : tensor<4x4xf64>
    tl.var input output @s : tensor<f64>
    tl.var @B {real_shape = array<i64: 5, 11>} : tensor<8x16xf64>
    tl.var input @u batched : tensor<200x4xf64>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<TL_Tensor>:$tensor_type,
                       UnitAttr:$input, UnitAttr:$output, UnitAttr:$batched,
                       OptionalAttr<DenseI64ArrayAttr>:$real_shape);
  let assemblyFormat = [{
    (`input` $input^)? (`output` $output^)? $sym_name (`batched` $batched^)?
    attr-dict `:` $tensor_type
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getTensorType());
    }
    /// Whether the program's caller defines this variable on entry.
    bool isDefinedOnEntry();
    /// Whether the variable's final value is observable by the caller.
    bool isLiveOut();
    /// Whether the variable is part of the program's interface: the
    /// caller's store holds it (an argument of the compiled function). With
    /// qualifiers, `input` and `output` variables; without, every variable.
    /// The others are intermediates, internal to the program.
    bool isInterface() { return isDefinedOnEntry() || isLiveOut(); }
    /// The extents before padding: real_shape if set, else the type's.
    ::llvm::ArrayRef<int64_t> getRealShapeOrShape() {
      if (auto real = getRealShapeAttr())
        return real.asArrayRef();
      return getType().getShape();
    }
    /// The batch dimension of the type, for a batched variable.
    ::std::optional<unsigned> getBatchDim();
    /// The type of the variable's value in a statement: one element's for a
    /// batched variable, the declared type otherwise.
    ::mlir::RankedTensorType getValueType();
    /// The extents of one element before padding.
    ::llvm::SmallVector<int64_t> getRealValueShape();
  }];
}

def TL_AssignOp : TL_Op<"assign", [
    HasParent<"ProgramOp">, SingleBlock, NoRegionArguments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "An assignment statement `x = e` (rules ok-stmt, ev-stmt)";
  let description = [{
    Evaluates its region against the store as it is before the statement and
    then replaces every element of the target variable with the yielded
    value (rule `ev-stmt`). The yielded type must be the variable's type
    (rule `ok-stmt`), one element's for a batched variable.
  }];
  let arguments = (ins FlatSymbolRefAttr:$target);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = "$target attr-dict-with-keyword `=` $bodyRegion";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The value assigned (the operand of the region's tl.yield).
    ::mlir::Value getValue();
    /// The variables the right-hand side reads, each once, in order.
    ::llvm::SmallVector<::mlir::StringAttr> getReadVariables();
  }];
}

def TL_YieldOp : TL_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"AssignOp">]> {
  let summary = "The value of a statement's right-hand side";
  let arguments = (ins TL_Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

def TL_UseOp : TL_Op<"use", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Read a variable from the store (rule t-var)";
  let description = [{
    The value of a declared variable in the store the enclosing statement
    reads. The store does not change while a statement's right-hand side is
    evaluated, which is why reading it is `Pure` within a statement region.
  }];
  let arguments = (ins FlatSymbolRefAttr:$var);
  let results = (outs TL_Tensor:$result);
  let assemblyFormat = "$var attr-dict `:` type($result)";
}

// Expression ops infer their result type with the report's typing rule, so
// the printed form shows operand types only.
class TL_ExprOp<string mnemonic, list<Trait> traits = []>
    : TL_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let results = (outs TL_Tensor:$result);
}

def TL_OuterOp : TL_ExprOp<"outer"> {
  let summary = "Outer product `e0 # e1` (rule t-prod)";
  let description = [{
    The result's type concatenates the operand types; its element
    `(i, j)` is `lhs[i] * rhs[j]`.
  }];
  let arguments = (ins TL_Tensor:$lhs, TL_Tensor:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def TL_ContractOp : TL_ExprOp<"contract"> {
  let summary = "Contraction `e . [[m n] ...]` (rule t-contr)";
  let description = [{
    Sums over each listed pair of dimensions of the operand at once; all
    dimensions named are distinct, each pair's extents are equal, and all of
    them are dropped from the result type. Indices are 0-based. A single
    pair is the report's contraction; several pairs are the multi-pair
    extension, equal to a sequence of single contractions.

    ```mlir
    %c = tl.contract %p [[1, 2]] : tensor<300x400x400x500xf64>
    ```
  }];
  let arguments = (ins TL_Tensor:$operand, DenseI64ArrayAttr:$pairs);
  let assemblyFormat = [{
    $operand custom<IndexPairs>($pairs) attr-dict `:` type($operand)
  }];
}

def TL_StackOp : TL_ExprOp<"stack"> {
  let summary = "Tensor stack `[e1 e2 ... ek]` (rule t-stack)";
  let description = [{
    A new leading dimension of extent k over operands of one type: element
    `(i, j...)` is element `j...` of operand `i`. CFDlang's gradient kernels
    build a [3 ...] tensor from three this way. A stack is never stored by
    itself when something consumes it element by element (a contraction,
    an outer product): the lowering selects the operand by index.

    In a padded program (`--tl-pad`), `padded_extent` rounds the leading
    extent up; the elements beyond the k operands are zero.

    ```mlir
    %g = tl.stack %a, %b, %c : tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64>
    %p = tl.stack %a, %b, %c padded to 4 : tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>
    ```
  }];
  let arguments = (ins Variadic<TL_Tensor>:$elements,
                       OptionalAttr<I64Attr>:$padded_extent);
  let assemblyFormat = [{
    $elements (`padded` `to` $padded_extent^)? attr-dict `:` type($elements)
  }];
}

def TL_TransposeOp : TL_ExprOp<"transpose"> {
  let summary = "Transposition `e ^ [[m n] ...]` (rule t-trans)";
  let description = [{
    Swaps dimensions `m` and `n` of the operand, for each pair in turn from
    left to right. Indices are 0-based. A pair `[m m]` swaps nothing.

    Folds to its operand when the swaps compose to the identity, absorbs a
    transposition it is applied to, and otherwise keeps the fewest swaps
    that give the same permutation.
  }];
  let hasFolder = 1;
  let arguments = (ins TL_Tensor:$operand, DenseI64ArrayAttr:$pairs);
  let assemblyFormat = [{
    $operand custom<IndexPairs>($pairs) attr-dict `:` type($operand)
  }];
}

def TL_ZeroPaddingOp : TL_ExprOp<"zero_padding"> {
  let summary = "Zero every element outside a real region (padding)";
  let description = [{
    The operand with every element whose index lies outside `real_shape`
    (in some dimension, at or beyond the real extent) replaced by zero.
    Not part of the source language: `--tl-pad` inserts it where a
    statement could leave non-zero values in its variable's padding, which
    keeps the padded implementation's invariant (padding is zero) exact.

    A sized dimension is never padded; its real extent is `?`.

    ```mlir
    %z = tl.zero_padding %v [5, 11] : tensor<8x16xf64>
    %w = tl.zero_padding %u [?, 11] : tensor<?x16xf64, [@E]>
    ```
  }];
  let arguments = (ins TL_Tensor:$operand, DenseI64ArrayAttr:$real_shape);
  let assemblyFormat = [{
    $operand custom<RealShape>($real_shape) attr-dict `:` type($operand)
  }];
}

class TL_ArithOp<string mnemonic, string sym, string rules>
    : TL_ExprOp<mnemonic> {
  let summary = "Element-wise `e0 " # sym # " e1` (" # rules # ")";
  let arguments = (ins TL_Tensor:$lhs, TL_Tensor:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

// Every binary element-wise op takes operands of the same type (rule
// t-elem) or a scalar and a tensor in either order (rule t-scalar, which
// generalizes the report's t-smul `s * e` and t-sdiv `e / s`): the scalar
// applies to every element.
def TL_AddOp : TL_ArithOp<"add", "+", "rules t-elem, t-scalar"> {
  let description = [{ Undefined if either operand is. }];
}
def TL_SubOp : TL_ArithOp<"sub", "-", "rules t-elem, t-scalar"> {
  let description = [{ Undefined if either operand is. }];
}
def TL_MulOp : TL_ArithOp<"mul", "*", "rules t-elem, t-smul, t-scalar"> {
  let description = [{ Undefined if either operand is, even if the other is 0. }];
}
def TL_DivOp : TL_ArithOp<"div", "/", "rules t-elem, t-sdiv, t-scalar"> {
  let description = [{
    The report's controlled division (definition 5): `0/0 = 0`,
    `0/undef = 0`, `v/0 = undef` for `v != 0`, `undef/w = undef`.
  }];
}
def TL_MinOp : TL_ArithOp<"min", "min", "rules t-elem, t-scalar"> {
  let summary = "Element-wise minimum `min(e0, e1)` (rules t-elem, t-scalar)";
  let description = [{
    The smaller operand; undefined if either operand is (IEEE 754-2019
    `minimum`, `arith.minimumf`: `-0 < +0`).
  }];
}
def TL_MaxOp : TL_ArithOp<"max", "max", "rules t-elem, t-scalar"> {
  let summary = "Element-wise maximum `max(e0, e1)` (rules t-elem, t-scalar)";
  let description = [{
    The larger operand; undefined if either operand is (IEEE 754-2019
    `maximum`, `arith.maximumf`).
  }];
}

// Unary element-wise ops keep their operand's type (rule t-fun).
class TL_UnaryOp<string mnemonic, string source> : TL_ExprOp<mnemonic> {
  let summary = "Element-wise `" # source # "` (rule t-fun)";
  let arguments = (ins TL_Tensor:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def TL_NegOp : TL_UnaryOp<"neg", "-e"> {
  let description = [{ Negation; undefined where the operand is. }];
}
def TL_SqrtOp : TL_UnaryOp<"sqrt", "sqrt(e)"> {
  let description = [{
    Square root; undefined for a negative or undefined operand
    (`sqrt(-0) = -0`).
  }];
}
def TL_AbsOp : TL_UnaryOp<"abs", "abs(e)"> {
  let description = [{ Absolute value; undefined where the operand is. }];
}
def TL_ExpOp : TL_UnaryOp<"exp", "exp(e)"> {
  let description = [{
    Exponential; undefined where the operand is. Overflow gives infinity,
    as `+` and `*` do.
  }];
}
def TL_LogOp : TL_UnaryOp<"log", "log(e)"> {
  let description = [{
    Natural logarithm; undefined for a negative, zero or undefined operand
    (like the report's `v / 0`, `log 0` is undefined rather than minus
    infinity).
  }];
}

def TL_ConstantOp : TL_Op<"constant", [Pure]> {
  let summary = "A numeric literal: a scalar constant (rule t-lit)";
  let description = [{
    The value of a literal of the source (`2`, `0.5`, `1e-3`), a scalar of
    the program's element type. The value is kept in double precision as
    written; an f32 program rounds it once, when it is lowered or
    interpreted. The value is finite and, in an f32 program, within the
    range of f32.

    ```mlir
    %half = tl.constant 5.000000e-01 : tensor<f64>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs TensorRankOf<[F32, F64], [0]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TENSORLANG_DIALECT_TL_IR_TLOPS_TD
