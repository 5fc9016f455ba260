//===- ExpandTrilInverse.cpp - the blocked tril_inverse as phases ----------===//
//
// Rewrites tile.tril_inverse into the barrier-free phases of the blocked
// exact inverse, so that tile-insert-barriers sees (and places) every
// barrier the algorithm needs. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEEXPANDTRILINVERSE
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

struct ExpandTrilInversePass
    : impl::TileExpandTrilInverseBase<ExpandTrilInversePass> {
  using TileExpandTrilInverseBase::TileExpandTrilInverseBase;
  void runOnOperation() override;
};

void ExpandTrilInversePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (fmaMerges != "never" && fmaMerges != "tasks" && fmaMerges != "always") {
    func.emitError("tile-expand-tril-inverse: fma-merges must be never, "
                   "tasks or always, got '")
        << fmaMerges << "'";
    return signalPassFailure();
  }
  if (!func->hasAttr(TileDialect::getKernelAttrName()) ||
      !func->hasAttr(TileDialect::getNumWarpsAttrName()))
    return;
  SmallVector<TrilInverseOp> ops;
  func.walk([&](TrilInverseOp op) { ops.push_back(op); });
  for (TrilInverseOp op : ops) {
    // The warps that run it: the kernel's, or a producer task's.
    int64_t numThreads = 32 * getWarpsAt(op).value_or(0);
    int64_t n = cast<BufferType>(op.getSource().getType()).getShape()[0];
    if (n % 16 != 0 || n < 32 || n > numThreads)
      continue;
    int64_t nb = n / 16;
    Value src = op.getSource(), dst = op.getDest();
    Location loc = op.getLoc();
    OpBuilder b(op);
    bool packed = op.getPacked();
    bool doubling = !packed && llvm::isPowerOf2_64(nb);
    // Doubling steps: log2(nb) phases (barriers) instead of nb - 1; the
    // first (size 16) on the warps of the diagonal phase, without a
    // barrier (merge_pairs: warp w holds diagonal blocks 2 w and 2 w + 1).
    // stage-lo: the diagonal phase's idle threads (n .. numThreads - 1)
    // split the final merge's L21 into dest's upper block, which
    // lower_only leaves free (at n = 64, by_rows stages Y there instead).
    bool stage = stageLo && doubling && op.getLowerOnly() && nb >= 4 &&
                 numThreads > n && !mergeByRows;
    // fma: the merges of sizes 16 and 32 on the CUDA cores, where asked
    // (inside a producer task, the consumers' wgmma keep the tensor
    // cores busy). Not with stage-lo: its staged low parts are the
    // split-tf32 final merge's.
    bool inTask = op->getParentOfType<ProducerTaskOp>() != nullptr;
    bool fma = doubling && !stage &&
               (fmaMerges == "always" || (fmaMerges == "tasks" && inTask));
    b.create<TrilInverseDiagOp>(loc, src, dst, packed, op.getLowerOnly(),
                                /*merge_pairs=*/doubling, stage, fma);
    if (doubling) {
      for (int64_t size = 32; size < n; size *= 2) {
        auto merge = b.create<TrilInverseMergeOp>(loc, src, dst, size);
        if (fma && size <= 32)
          merge.setFma(true);
        if (mergeByRows && op.getLowerOnly() && size <= 32 && !merge.getFma())
          merge.setByRows(true);
        if (stage && 2 * size == n)
          merge.setStagedLo(true);
      }
    } else {
      for (int64_t d = 1; d < nb; ++d)
        b.create<TrilInverseLevelOp>(loc, src, dst, d, packed);
    }
    op.erase();
    ++numExpanded;
  }
}

} // namespace
} // namespace mlir::gdn::tile
