//===- SyncToNVVM.cpp - block and copy synchronization to NVVM -------------===//
//
// tile.barrier (bar.sync 0, after fence.proxy.async where it orders writes
// before wgmma or TMA-store reads),
// tile.async_commit and tile.async_wait (cp.async groups).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// An operand-less tile op that is one NVVM op: tile.barrier -> bar.sync 0,
/// tile.async_commit -> cp.async.commit_group.
template <typename SrcOp, typename DstOp>
struct OneToOneLowering : TilePattern<SrcOp> {
  using TilePattern<SrcOp>::TilePattern;
  LogicalResult
  matchAndRewrite(SrcOp op, typename SrcOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<DstOp>(op);
    return success();
  }
};
/// tile.barrier -> bar.sync 0. Where its proxy_fence says so (or, without
/// it, in wgmma kernels, kernels with TMA stores and producer tasks) each
/// thread first orders its generic-proxy shared-memory writes (stores,
/// cp.async) before the async-proxy reads of wgmma and TMA stores
/// (fence.proxy.async.shared::cta).
struct BarrierLowering : TilePattern<BarrierOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A producer task's writes are handed to the consumers, whose wgmma
    // and TMA stores may read them.
    std::optional<bool> decided = op.getProxyFence();
    if (decided ? *decided
                : usesWgmma(op) || usesTmaStores(op) ||
                      op->getParentOfType<ProducerTaskOp>())
      createAsyncProxyFence(rewriter, op.getLoc());
    if (op.getId()) {
      createNamedBarrier(rewriter, op.getLoc(), *op.getId(), *op.getThreads());
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};
using AsyncCommitLowering =
    OneToOneLowering<AsyncCommitOp, NVVM::CpAsyncCommitGroupOp>;

struct AsyncWaitLowering : TilePattern<AsyncWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void populateSyncToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<BarrierLowering, AsyncCommitLowering, AsyncWaitLowering>(
      converter);
}

} // namespace mlir::gdn
