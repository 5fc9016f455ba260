//===- HopperToNVVM.cpp - TMA, mbarriers and warp roles to NVVM ------------===//
//
// Lowers the sm_90a ops of the tile dialect (TileHopperOps.td): TMA tile
// loads to cp.async.bulk.tensor, the mbarrier ops to mbarrier.init /
// arrive(.expect_tx) / try_wait.parity, tile.producer to a branch on the
// producer thread, tile.warp_specialize to a branch on the warpgroup with
// setmaxnreg on each side, tile.gemm_wait to wgmma.wait_group and
// tile.num_programs to %nctaid.
//
//===----------------------------------------------------------------------===//

#include "gdn/Conversion/TileToNVVM/TileToNVVM.h"
#include "LoweringUtils.h"
#include "Patterns.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                    b.getI32IntegerAttr(v));
}
Value constI64(OpBuilder &b, Location loc, int64_t v) {
  return b.create<LLVM::ConstantOp>(loc, b.getI64Type(),
                                    b.getI64IntegerAttr(v));
}
/// An index value (i32 or i64) as the i32 that PTX takes.
Value toI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  return b.create<LLVM::TruncOp>(loc, b.getI32Type(), v);
}
/// The thread index, numbered from the first thread of the
/// tile.producer_task around the insertion point (if any).
Value threadId(OpBuilder &b, Location loc) { return createThreadId(b, loc); }

/// Address of mbarrier `index` (an index value) of a barrier buffer.
Value barrierPtr(OpBuilder &b, Location loc, Value base, Value index) {
  return b.create<LLVM::GEPOp>(loc, base.getType(), b.getI64Type(), base,
                               ValueRange{index});
}

/// Replaces `op` (whose region `body` has a single block without
/// terminator) by `if (cond) { body }`; conversion of the body's ops
/// continues in the inlined block.
void inlineUnderCondition(ConversionPatternRewriter &rewriter, Operation *op,
                          Region &body, Value cond) {
  Location loc = op->getLoc();
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = &body.front();
  rewriter.inlineRegionBefore(body, after);
  rewriter.setInsertionPointToEnd(then);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{}, after);
  rewriter.setInsertionPointToEnd(before);
  rewriter.create<LLVM::CondBrOp>(loc, cond, then, after);
  rewriter.setInsertionPointToStart(after);
}

template <typename Op>
struct HopperPattern : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

/// The boxes of a TMA transfer between `shared` and the tensor of `map` at
/// `coords` (outermost first): calls `emit(sharedPtr, coords)` once per box
/// with the coordinates innermost first (i32, as PTX takes them). Box (r,
/// c) of `boxes` (row box r of span c; tile.tma_load's getBoxes) starts c
/// boxes further along the innermost coordinate and r box heights further
/// along the tile's rows (the box's outer dimension that is not 1), and
/// lies (c * rowBoxes + r) boxes into the buffer (the box order of
/// #tile.swizzle: each span's rows together; rowBoxes = the buffer's rows
/// over the box's, 1 unless the box is shorter).
void forEachTmaBox(ConversionPatternRewriter &rewriter, Location loc,
                   TensorMapType map,
                   ArrayRef<std::pair<int64_t, int64_t>> boxes,
                   int64_t rowBoxes, Value shared,
                   ValueRange coordsOutermostFirst,
                   function_ref<void(Value, ArrayRef<Value>)> emit) {
  ArrayRef<int64_t> boxShape = map.getShape();
  int64_t rank = static_cast<int64_t>(boxShape.size());
  int64_t boxInner = boxShape.back();
  // The rows' coordinate (innermost first), where row boxes are stacked.
  int64_t rowCoord = -1, boxRows = 1;
  for (int64_t d = rank - 2; d >= 0 && rowBoxes > 1; --d)
    if (boxShape[d] != 1) {
      rowCoord = rank - 1 - d;
      boxRows = boxShape[d];
      break;
    }
  assert((rowBoxes == 1 || rowCoord > 0) &&
         "row boxes need a box dimension of more than one row");
  int64_t boxBytes = map.getBoxBytes();
  SmallVector<Value> coords;
  for (Value c : llvm::reverse(coordsOutermostFirst))
    coords.push_back(toI32(rewriter, loc, c));
  SmallVector<Value> base(coords);
  for (auto [r, c] : boxes) {
    Value ptr = shared;
    int64_t at = c * rowBoxes + r;
    if (at != 0)
      ptr = rewriter.create<LLVM::GEPOp>(
          loc, ptr.getType(), rewriter.getI8Type(), ptr,
          ValueRange{constI64(rewriter, loc, at * boxBytes)});
    coords.front() =
        c == 0 ? base.front()
               : rewriter.create<LLVM::AddOp>(
                     loc, base.front(), constI32(rewriter, loc, c * boxInner));
    if (rowCoord > 0)
      coords[rowCoord] =
          r == 0 ? base[rowCoord]
                 : rewriter.create<LLVM::AddOp>(
                       loc, base[rowCoord],
                       constI32(rewriter, loc, r * boxRows));
    emit(ptr, coords);
  }
}

/// tile.tma_load -> one cp.async.bulk.tensor per box (forEachTmaBox).
struct TmaLoadLowering : HopperPattern<TmaLoadOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierPtr(rewriter, loc, adaptor.getBarriers(),
                           adaptor.getIndex());
    int64_t rowBoxes = 1;
    if (std::optional<int64_t> k = op.getBlockLower())
      rowBoxes = cast<BufferType>(op.getDest().getType()).getShape()[0] / *k;
    Value policy;
    if (std::optional<L2Hint> hint = op.getL2Hint())
      policy = emitL2Policy(rewriter, loc, *hint);
    forEachTmaBox(rewriter, loc, op.getMap().getType(), op.getBoxes(),
                  rowBoxes, adaptor.getDest(), adaptor.getCoords(),
                  [&](Value dstPtr, ArrayRef<Value> coords) {
                    rewriter.create<
                        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
                        loc, dstPtr, adaptor.getMap(), coords, bar,
                        ValueRange{}, /*multicastMask=*/Value(),
                        /*l2CacheHint=*/policy, /*predicate=*/Value());
                  });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_store -> one cp.async.bulk.tensor.global.shared::cta per box
/// (forEachTmaBox), then cp.async.bulk.commit_group.
struct TmaStoreLowering : HopperPattern<TmaStoreOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<std::pair<int64_t, int64_t>> boxes;
    for (int64_t c = 0; c < op.getNumBoxes(); ++c)
      boxes.push_back({0, c});
    forEachTmaBox(rewriter, loc, op.getMap().getType(), boxes, /*rowBoxes=*/1,
                  adaptor.getSource(), adaptor.getCoords(),
                  [&](Value srcPtr, ArrayRef<Value> coords) {
                    rewriter.create<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
                        loc, adaptor.getMap(), srcPtr, coords,
                        /*predicate=*/Value());
                  });
    rewriter.create<NVVM::CpAsyncBulkCommitGroupOp>(loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_store_wait -> cp.async.bulk.wait_group[.read] pending.
struct TmaStoreWaitLowering : HopperPattern<TmaStoreWaitOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, static_cast<int32_t>(op.getPending()),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

/// tile.mbarrier_init -> mbarrier.init of every barrier, then
/// fence.mbarrier_init so that the asynchronous proxy sees them.
struct MBarrierInitLowering : HopperPattern<MBarrierInitOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getBarriers().getType());
    Value count = constI32(rewriter, loc, op.getCount());
    for (int64_t i = 0; i < type.getShape()[0]; ++i)
      rewriter.create<NVVM::MBarrierInitSharedOp>(
          loc,
          barrierPtr(rewriter, loc, adaptor.getBarriers(),
                     constI64(rewriter, loc, i)),
          count, /*predicate=*/Value());
    rewriter.create<NVVM::FenceMbarrierInitOp>(loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : HopperPattern<MBarrierArriveOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierPtr(rewriter, loc, adaptor.getBarriers(),
                           adaptor.getIndex());
    if (auto tx = op.getExpectTx())
      rewriter.create<NVVM::MBarrierArriveExpectTxSharedOp>(
          loc, bar, constI32(rewriter, loc, *tx), /*predicate=*/Value());
    else
      rewriter.create<NVVM::MBarrierArriveSharedOp>(loc, rewriter.getI64Type(),
                                                    bar);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.mbarrier_wait -> mbarrier.try_wait.parity in a loop.
struct MBarrierWaitLowering : HopperPattern<MBarrierWaitOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierPtr(rewriter, loc, adaptor.getBarriers(),
                           adaptor.getIndex());
    Value parity = toI32(rewriter, loc, adaptor.getParity());
    parity = rewriter.create<LLVM::AndOp>(loc, parity,
                                          constI32(rewriter, loc, 1));
    // The suspend-time hint of CUTLASS's ClusterBarrier::wait.
    rewriter.create<NVVM::MBarrierTryWaitParitySharedOp>(
        loc, bar, parity, constI32(rewriter, loc, 0x989680));
    rewriter.eraseOp(op);
    return success();
  }
};

struct ProducerLowering : HopperPattern<ProducerOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(ProducerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value isProducer = rewriter.create<LLVM::ICmpOp>(
        loc, LLVM::ICmpPredicate::eq, threadId(rewriter, loc),
        constI32(rewriter, loc, op.getThread()));
    Operation *lastWait = leadingWaits(op);
    if (!lastWait) {
      inlineUnderCondition(rewriter, op, op.getBody(), isProducer);
      rewriter.eraseOp(op);
      return success();
    }
    // The body opens with mbarrier waits (a ring's producer step: the
    // wait for a free stage): the thread's whole warp runs them, under a
    // condition ptxas can see is warp-uniform (the warp index broadcast
    // from lane 0), and only the thread the rest. A spin loop inside a
    // one-thread branch makes ptxas treat the enclosing loop as divergent,
    // so it keeps the loop's uniform values (e.g. wgmma descriptors) in
    // per-thread registers and moves them over on every use (the fused
    // kernel's consumers: 1,153 -> 992 instructions per chunk step,
    // docs/perf-notes.md v60). A wait only reads its barrier, so the
    // other lanes change nothing.
    Value warp = createWarpUniformIndex(rewriter, loc, 32);
    Value isWarp = rewriter.create<LLVM::ICmpOp>(
        loc, LLVM::ICmpPredicate::eq, warp,
        constI32(rewriter, loc, op.getThread() / 32));
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *head = &op.getBody().front();
    Block *tail =
        rewriter.splitBlock(head, std::next(lastWait->getIterator()));
    rewriter.inlineRegionBefore(op.getBody(), after);
    rewriter.setInsertionPointToEnd(head);
    rewriter.create<LLVM::CondBrOp>(loc, isProducer, tail, after);
    rewriter.setInsertionPointToEnd(tail);
    rewriter.create<LLVM::BrOp>(loc, ValueRange{}, after);
    rewriter.setInsertionPointToEnd(before);
    rewriter.create<LLVM::CondBrOp>(loc, isWarp, head, after);
    rewriter.setInsertionPointToStart(after);
    rewriter.eraseOp(op);
    return success();
  }

  /// The last of the body's leading mbarrier waits, if the body opens with
  /// waits and side-effect-free ops (their operands) and has one after
  /// them; null otherwise.
  static Operation *leadingWaits(ProducerOp op) {
    Operation *last = nullptr;
    for (Operation &inner : op.getBody().front()) {
      if (isa<MBarrierWaitOp>(inner))
        last = &inner;
      else if (!isPure(&inner))
        return last;
    }
    return nullptr;
  }
};

/// tile.warp_specialize -> if (tid >= consumers) { setmaxnreg.dec; producer }
/// else { setmaxnreg.inc; consumer }. The condition is uniform per
/// warpgroup, as setmaxnreg requires.
struct WarpSpecializeLowering : HopperPattern<WarpSpecializeOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The consumers are the kernel's first threads: all but the producer
    // warpgroup (the kernel may already be an llvm.func with maxntid).
    auto kernel = op->getParentOfType<FunctionOpInterface>();
    int64_t consumerThreads = 0;
    if (auto warps = kernel ? kernel->getAttrOfType<IntegerAttr>(
                                  TileDialect::getNumWarpsAttrName())
                            : IntegerAttr())
      consumerThreads = 32 * warps.getInt();
    else if (auto ntid = kernel ? kernel->getAttrOfType<DenseI32ArrayAttr>(
                                      NVVM::NVVMDialect::getMaxntidAttrName())
                                : DenseI32ArrayAttr())
      consumerThreads = ntid[0] - 32 * op.getProducerWarps();
    if (consumerThreads <= 0)
      return op.emitOpError("is not inside a tile kernel");
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *producer = &op.getProducer().front();
    Block *consumer = &op.getConsumer().front();
    rewriter.inlineRegionBefore(op.getProducer(), after);
    rewriter.inlineRegionBefore(op.getConsumer(), after);
    rewriter.setInsertionPointToStart(producer);
    rewriter.create<NVVM::SetMaxRegisterOp>(
        loc, op.getProducerRegisters(), NVVM::SetMaxRegisterAction::decrease);
    rewriter.setInsertionPointToEnd(producer);
    rewriter.create<LLVM::BrOp>(loc, ValueRange{}, after);
    rewriter.setInsertionPointToStart(consumer);
    rewriter.create<NVVM::SetMaxRegisterOp>(
        loc, op.getConsumerRegisters(), NVVM::SetMaxRegisterAction::increase);
    rewriter.setInsertionPointToEnd(consumer);
    rewriter.create<LLVM::BrOp>(loc, ValueRange{}, after);
    rewriter.setInsertionPointToEnd(before);
    Value isProducer = rewriter.create<LLVM::ICmpOp>(
        loc, LLVM::ICmpPredicate::uge, threadId(rewriter, loc),
        constI32(rewriter, loc, consumerThreads));
    rewriter.create<LLVM::CondBrOp>(loc, isProducer, producer, consumer);
    rewriter.setInsertionPointToStart(after);
    rewriter.eraseOp(op);
    return success();
  }
};

struct GemmWaitLowering : HopperPattern<GemmWaitOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(GemmWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op,
                                                            op.getPending());
    return success();
  }
};

struct NumProgramsLowering : HopperPattern<NumProgramsOp> {
  using HopperPattern::HopperPattern;
  LogicalResult
  matchAndRewrite(NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value n;
    switch (op.getDim()) {
    case Dim::X:
      n = rewriter.create<NVVM::GridDimXOp>(op.getLoc(), i32);
      break;
    case Dim::Y:
      n = rewriter.create<NVVM::GridDimYOp>(op.getLoc(), i32);
      break;
    case Dim::Z:
      n = rewriter.create<NVVM::GridDimZOp>(op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, Idx(rewriter, op.getLoc()).toIndex(n));
    return success();
  }
};

} // namespace

void populateHopperToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<TmaLoadLowering, TmaStoreLowering, TmaStoreWaitLowering,
               MBarrierInitLowering, MBarrierArriveLowering,
               MBarrierWaitLowering, ProducerLowering, WarpSpecializeLowering,
               GemmWaitLowering, NumProgramsLowering>(converter);
}

} // namespace mlir::gdn
