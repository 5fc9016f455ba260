//===- SyncToNVVM.cpp - block and copy synchronization to NVVM -------------===//
//
// tile.barrier (bar.sync 0, after fence.proxy.async where it orders writes
// before wgmma or TMA-store reads),
// tile.async_commit and tile.async_wait (cp.async groups), and the ready
// flags between blocks: tile.flag_release (barrier, then one thread's
// st.release.gpu) and tile.flag_wait (an ld.acquire.gpu spin with a
// timeout, then fence.proxy.async.global).
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

/// The address of flags[index] (a 1-D global buffer of i32).
Value flagAddress(Idx &ix, Value flags, Value index) {
  GlobalView view(ix, flags, 1);
  return ix.gep(view.ptr, ix.b.getI32Type(),
                view.linear(ix, ValueRange{ix.c(0)}, {index}));
}

/// tile.flag_release -> barrier over the threads that run it; then the
/// first of them: in a kernel with TMA stores, cp.async.bulk.wait_group 0
/// (its stores' global writes complete: tile-tma-store waits only for
/// their shared reads, and the issuing thread is the first), then
/// fence.proxy.async.global (those async-proxy writes before the generic
/// release), st.release.gpu.global.b32 (cumulative: the barrier made the
/// other threads' writes its own to publish).
struct FlagReleaseLowering : TilePattern<FlagReleaseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(FlagReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Value ptr = flagAddress(ix, adaptor.getFlags(), adaptor.getIndex());
    createComputeBarrier(rewriter, loc, op);
    Value first = rewriter.create<LLVM::ICmpOp>(
        loc, LLVM::ICmpPredicate::eq, createThreadId(rewriter, loc),
        rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI32Type(),
                                          rewriter.getI32IntegerAttr(0)));
    Value value = adaptor.getValue();
    std::string code = usesTmaStores(op) ? "cp.async.bulk.wait_group 0;\n\t" : "";
    code += "fence.proxy.async.global;\n\tst.release.gpu.global.b32 [$0], $1;";
    emitGuarded(rewriter, loc, first, [&](OpBuilder &b) {
      emitInlineAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()),
                    ValueRange{ptr, value}, code, "l,r,~{memory}",
                    /*hasSideEffects=*/true);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The PTX of tile.flag_wait: spin on ld.acquire.gpu until the flag minus
/// the value is not negative (wrap-around order), with nanosleep between
/// polls and, for a timeout, %globaltimer and a trap; then order the
/// thread's later async-proxy global reads (TMA) after the acquire. The
/// braces scope the labels (the asm may be duplicated).
std::string flagWaitAsm(int64_t timeoutMs) {
  std::string s = "{\n\t.reg .pred fw_p;\n\t.reg .b32 fw_v;\n\t";
  if (timeoutMs)
    s += ".reg .b64 fw_t0, fw_t1;\n\tmov.u64 fw_t0, %globaltimer;\n\t";
  s += "fw_wait:\n\t"
       "ld.acquire.gpu.global.b32 fw_v, [$0];\n\t"
       "sub.s32 fw_v, fw_v, $1;\n\t"
       "setp.ge.s32 fw_p, fw_v, 0;\n\t"
       "@fw_p bra fw_done;\n\t"
       "nanosleep.u32 32;\n\t";
  if (timeoutMs)
    s += "mov.u64 fw_t1, %globaltimer;\n\t"
         "sub.u64 fw_t1, fw_t1, fw_t0;\n\t"
         "setp.lt.u64 fw_p, fw_t1, " +
         std::to_string(timeoutMs * 1000000) +
         ";\n\t"
         "@fw_p bra fw_wait;\n\t"
         "trap;\n\t";
  else
    s += "bra fw_wait;\n\t";
  s += "fw_done:\n\tfence.proxy.async.global;\n\t}";
  return s;
}

struct FlagWaitLowering : TilePattern<FlagWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(FlagWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Value ptr = flagAddress(ix, adaptor.getFlags(), adaptor.getIndex());
    emitInlineAsm(rewriter, loc, LLVM::LLVMVoidType::get(getContext()),
                  ValueRange{ptr, adaptor.getValue()},
                  flagWaitAsm(op.getTimeoutMs()), "l,r,~{memory}",
                  /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The wait for the stream predecessor's grid where the block executes
/// it (a "deferred" kernel's, or a second wait in one that waits at entry;
/// KernelToNVVM refuses it elsewhere). The memory clobber keeps LLVM from
/// moving loads above it.
struct GridWaitLowering : TilePattern<GridWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(GridWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitInlineAsm(rewriter, op.getLoc(),
                  LLVM::LLVMVoidType::get(getContext()), ValueRange{},
                  "griddepcontrol.wait;", "~{memory}",
                  /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateSyncToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<BarrierLowering, AsyncCommitLowering, AsyncWaitLowering,
               FlagReleaseLowering, FlagWaitLowering, GridWaitLowering>(
      converter);
}

} // namespace mlir::gdn
