//===- ContractionUtils.h - Helpers of the contraction tiler ----*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the plan and the rewrites of tl-tile-contractions share: questions
// about a contraction's loops, and the tiling steps built on
// scf::tileUsingSCF.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_LIB_TRANSFORMS_TENSOR_CONTRACTIONUTILS_H
#define TENSORLANG_LIB_TRANSFORMS_TENSOR_CONTRACTIONUTILS_H

#include "tensorlang/Transforms/ContractionPlan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace tensorlang {

inline bool isReduction(mlir::linalg::GenericOp op, unsigned dim) {
  return mlir::linalg::isReductionIterator(op.getIteratorTypesArray()[dim]);
}

/// Bytes per element of the result (at least 1).
inline int64_t elementBytes(mlir::linalg::GenericOp op) {
  auto type = mlir::cast<mlir::ShapedType>(op.getDpsInits().front().getType());
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The loop extents of `op` when all are static and every indexing map is a
/// projected permutation: the loop nests the rewrites here understand.
std::optional<llvm::SmallVector<int64_t>>
staticLoopExtents(mlir::linalg::GenericOp op);

/// The iterations of `op` (all loops) or, with `reductionsOnly`, the terms
/// each element of its result sums.
int64_t productOfExtents(mlir::linalg::GenericOp op,
                         llvm::ArrayRef<int64_t> extents, bool reductionsOnly);

/// The loop extents of `op` with each size replaced by
/// kPlanningExtentOfSize, where every indexing map is a projected
/// permutation: what the planner and the rewrites before it weigh.
std::optional<llvm::SmallVector<int64_t>>
planningLoopExtents(mlir::linalg::GenericOp op);

/// Whether `op` sums at least `manyTerms` terms into each element over
/// several reductions (sizes counted as planned): the contractions whose
/// reductions collapseContractionReductions merges into one depth.
bool sumsManyTermsOverSeveralReductions(mlir::linalg::GenericOp op,
                                        int64_t manyTerms);
bool sumsManyTermsOverSeveralReductions(const ContractionShape &shape,
                                        int64_t manyTerms);

/// How many times a contraction of `iterations` uses each element of its
/// input `input`, on average, in its shape `planned` (sizes at their
/// planning extents: ContractionShape::withPlanningExtents).
int64_t usesPerElement(const ContractionShape &planned, int64_t iterations,
                       unsigned input);

/// How collapseContractionReductions turns a contraction into a matrix
/// product: some inputs copied with their dimensions permuted, then groups
/// of adjacent loops collapsed into one each.
struct ReductionCollapse {
  /// Each input copied, and the permutation of its copy (dimension i of
  /// the copy is dimension perm[i] of the operand).
  llvm::SmallVector<std::pair<unsigned, llvm::SmallVector<int64_t>>> copies;
  /// The indexing maps once the copies are read.
  llvm::SmallVector<mlir::AffineMap> maps;
  /// The loops that collapse into one each, the reductions first.
  llvm::SmallVector<mlir::ReassociationIndices> groups;
};

/// The copies and the collapse of the consecutive reductions of `shape`
/// (with the runs of free dimensions they make adjacent), where its
/// operands each are used many times per element; failure, with the reason
/// in `whyNot`, where the contraction is not collapsed.
mlir::FailureOr<ReductionCollapse>
planReductionCollapse(const ContractionShape &shape,
                      const TileContractionsConfig &config,
                      std::string *whyNot = nullptr);

/// `shape` as `collapse` leaves it: the contraction that the planner sees
/// after collapseContractionReductions.
ContractionShape collapsedShape(const ContractionShape &shape,
                                const ReductionCollapse &collapse);

/// Tiles `op` by `sizes` (0: untiled) with the loops in `order`, replaces
/// it, and returns the tiled op inside the loops.
mlir::FailureOr<mlir::linalg::GenericOp>
tile(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
     llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> order,
     mlir::scf::SCFTilingOptions::LoopType loopType =
         mlir::scf::SCFTilingOptions::LoopType::ForOp);

/// tile() with sizes that may be values computed at run time.
mlir::FailureOr<mlir::linalg::GenericOp>
tile(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
     llvm::ArrayRef<mlir::OpFoldResult> sizes, llvm::ArrayRef<int64_t> order,
     mlir::scf::SCFTilingOptions::LoopType loopType);

/// Whether the accumulator of `op` is a fill (of zeros), and the tiles
/// `sizes` leave every reduction whole: each tile then sums its elements
/// from start to end, and can fill its own slice first.
bool canFillPerTile(mlir::linalg::GenericOp op, llvm::ArrayRef<int64_t> sizes);

/// Tiles `op` like tile(), and fuses the fill of its accumulator into the
/// tile loops (canFillPerTile must hold).
mlir::FailureOr<mlir::scf::SCFTileAndFuseResult>
tileAndFuseFill(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> order,
                mlir::scf::SCFTilingOptions::LoopType loopType =
                    mlir::scf::SCFTilingOptions::LoopType::ForOp);

mlir::FailureOr<mlir::scf::SCFTileAndFuseResult>
tileAndFuseFill(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                llvm::ArrayRef<mlir::OpFoldResult> sizes,
                llvm::ArrayRef<int64_t> order,
                mlir::scf::SCFTilingOptions::LoopType loopType);

/// tileAndFuseFill, returning the tiled op inside the loops.
mlir::FailureOr<mlir::linalg::GenericOp>
tileFillingPerTile(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                   llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> order,
                   mlir::scf::SCFTilingOptions::LoopType loopType =
                       mlir::scf::SCFTilingOptions::LoopType::ForOp);
mlir::FailureOr<mlir::linalg::GenericOp>
tileFillingPerTile(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                   llvm::ArrayRef<mlir::OpFoldResult> sizes,
                   llvm::ArrayRef<int64_t> order,
                   mlir::scf::SCFTilingOptions::LoopType loopType);

/// `map`, the indexing map of an operand, for the operand's copy whose
/// dimension i is its dimension perm[i] (readPermutedCopy).
mlir::AffineMap permutedOperandMap(mlir::AffineMap map,
                                   llvm::ArrayRef<int64_t> perm);

/// Makes `op` read `input` through a copy with its dimensions permuted
/// (dimension i of the copy is dimension perm[i] of the operand), and
/// updates its indexing map in `maps` (set on `op` by the caller).
void readPermutedCopy(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                      mlir::OpOperand *input, llvm::ArrayRef<int64_t> perm,
                      llvm::SmallVectorImpl<mlir::AffineMap> &maps);

} // namespace tensorlang

#endif // TENSORLANG_LIB_TRANSFORMS_TENSOR_CONTRACTIONUTILS_H
