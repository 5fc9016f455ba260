//===- FoldZeroInit.cpp - a gemm's zero fill folded into the gemm ----------===//
//
// tile.fill %c, +0.0 followed in its block by tile.gemm .., %c, with nothing
// between them touching %c, becomes tile.gemm .., %c {zero_init}. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEFOLDZEROINIT
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// Whether `op` or an op nested in it has `v` as an operand.
bool touches(Operation *op, Value v) {
  bool found = false;
  op->walk([&](Operation *nested) {
    if (llvm::is_contained(nested->getOperands(), v)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Whether `value` is the constant +0.0 (not -0.0: A x B need not give the
/// same zero signs as -0.0 + A x B).
bool isPositiveZero(Value value) {
  FloatAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  APFloat f = attr.getValue();
  return f.isZero() && !f.isNegative();
}

struct TileFoldZeroInitPass
    : impl::TileFoldZeroInitBase<TileFoldZeroInitPass> {
  void runOnOperation() override {
    SmallVector<std::pair<FillOp, GemmOp>> folds;
    getOperation().walk([&](GemmOp gemm) {
      if (gemm.getZeroInit())
        return;
      Value c = gemm.getC();
      // The closest earlier op of the block that touches C must be the
      // fill.
      for (Operation *op = gemm->getPrevNode(); op; op = op->getPrevNode()) {
        if (!touches(op, c))
          continue;
        auto fill = dyn_cast<FillOp>(op);
        if (fill && fill.getDest() == c && isPositiveZero(fill.getValue()))
          folds.push_back({fill, gemm});
        return;
      }
    });
    for (auto [fill, gemm] : folds) {
      gemm.setZeroInit(true);
      fill.erase();
      ++numFolded;
    }
  }
};

} // namespace
} // namespace mlir::gdn::tile
