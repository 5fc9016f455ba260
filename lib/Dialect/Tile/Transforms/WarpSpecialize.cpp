//===- WarpSpecialize.cpp - producer/consumer warpgroups -------------------===//
//
// Splits a kernel whose loops tile-pipeline put on TMA/mbarrier rings into a
// producer warpgroup, which runs the rings' producer steps and the
// kernel's tile.producer_task regions, and the consumer warps, which run
// everything else. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

constexpr int64_t kWarpgroupWarps = 4;

struct WarpSpecializePass
    : impl::TileWarpSpecializeBase<WarpSpecializePass> {
  using TileWarpSpecializeBase::TileWarpSpecializeBase;
  void runOnOperation() override;
};

/// Each loop's `producer_loop_annotation` (carried from its tile.for by
/// tile-pipeline) becomes the `loop_annotation` of its copy in the producer
/// region and is dropped from the consumers' copy, which keeps its own
/// `loop_annotation`: e.g. LICM off in a low-register producer task whose
/// hoisted addresses would spill, LICM on in the consumers, whose
/// addresses it keeps out of the loop (docs/perf-notes.md v60).
void applyRoleLoopAnnotations(WarpSpecializeOp ws) {
  StringRef own = TileDialect::getLoopAnnotationAttrName();
  StringRef producer = TileDialect::getProducerLoopAnnotationAttrName();
  ws.getProducer().walk([&](scf::ForOp loop) {
    if (Attribute a = loop->getAttr(producer)) {
      loop->setAttr(own, a);
      loop->removeAttr(producer);
    }
  });
  ws.getConsumer().walk([&](scf::ForOp loop) { loop->removeAttr(producer); });
}

/// Whether `op` only allocates (or has no memory effects at all).
bool onlyAllocates(Operation *op) {
  if (isPure(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](auto &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

/// Whether every memory effect of `op` reads global memory.
bool onlyReadsGlobal(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](auto &e) {
    if (!isa<MemoryEffects::Read>(e.getEffect()) || !e.getValue())
      return false;
    auto type = dyn_cast<BufferType>(e.getValue().getType());
    return type && type.isGlobal();
  });
}

/// Whether every region of `op` holds only terminators.
bool onlyTerminators(Operation &op) {
  return llvm::all_of(op.getRegions(), [](Region &r) {
    return llvm::all_of(r, [](Block &b) {
      return llvm::all_of(b, [](Operation &o) {
        return o.hasTrait<OpTrait::IsTerminator>();
      });
    });
  });
}

/// Whether stripToProducer keeps `op` whatever its uses: a tile.producer
/// region (a ring's step; the others it drops) or task, and the ready-flag
/// and grid waits that order the producer's reads.
bool producerKeeps(Operation *op) {
  return isa<ProducerOp, ProducerTaskOp, FlagWaitOp, GridWaitOp>(op);
}

/// Whether nothing under `op`'s regions is the producer's to keep: a
/// branch or loop of only consumer work, which the producer drops whole
/// when it needs none of its results (e.g. a branch yielding a consumer
/// vote).
bool onlyConsumerWork(Operation &op) {
  WalkResult kept = op.walk([](Operation *o) {
    return producerKeeps(o) ? WalkResult::interrupt()
                            : WalkResult::advance();
  });
  return !kept.wasInterrupted();
}

/// Whether `prod` is a ring's producer step (it issues TMA loads), which the
/// producer warpgroup runs; other tile.producer regions are one consumer
/// thread's work and stay with the consumers.
bool issuesTma(ProducerOp prod) {
  return prod.getBody()
      .walk([](TmaLoadOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Replaces a block-wide `barrier` by the named barrier `id` over `threads`
/// threads (one warp-specialized role's).
void toNamedBarrier(BarrierOp barrier, int64_t id, int64_t threads) {
  auto named =
      OpBuilder(barrier).create<BarrierOp>(barrier.getLoc(), id, threads);
  named.setProxyFenceAttr(barrier.getProxyFenceAttr());
  barrier.erase();
}

/// The producer's program: keeps control flow, pure ops, allocations, the
/// rings' producer steps (with `issue`; dropped without) and the producer
/// tasks (whole, with their thread base and named barriers); drops every
/// other op with memory effects (also tile.producer regions that issue no
/// TMA load). Walks the block backwards so that an op's users are gone
/// before the op is looked at: an op whose result the kept control flow
/// still uses (a loop
/// bound loaded from global memory) stays when it only reads global memory,
/// and is an error otherwise. Ready-flag waits stay too: a global read the
/// producer repeats may read what another block releases behind a flag
/// (e.g. a CP summary's window, read before its loop), and the producer
/// must read it after the same wait as the consumers, or the two roles
/// could compute different loop bounds. A tile.grid_wait stays for the
/// same reason: the producer's loads come after it as the consumers' do.
LogicalResult stripToProducer(Block &block, int64_t producerThread,
                              bool issue) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    if (auto task = dyn_cast<ProducerTaskOp>(op)) {
      // The task's producer warpgroup (its group) runs it whole; its
      // threads are numbered from that warpgroup's first one, and its
      // block barriers become the warpgroup's named barrier.
      int64_t group = task.getGroupIndex();
      task.setThreadBase(producerThreadBase(producerThread, group));
      int64_t threads = 32 * task.getNumWarps();
      task.getBody().walk([&](BarrierOp barrier) {
        if (!barrier.getId())
          toNamedBarrier(barrier, producerBarrierId(group), threads);
      });
      task.getBody().walk([&](AnyOp any) {
        if (!any.getId()) {
          OpBuilder b(any);
          any.setIdAttr(b.getI64IntegerAttr(producerBarrierId(group)));
          any.setThreadsAttr(b.getI64IntegerAttr(threads));
        }
      });
      continue;
    }
    if (auto prod = dyn_cast<ProducerOp>(op)) {
      if (issue && issuesTma(prod))
        prod.setThread(producerThread);
      else
        prod.erase();
      continue;
    }
    // (Tasks and tile.producer regions were handled above: the waits.)
    if (op.hasTrait<OpTrait::IsTerminator>() || producerKeeps(&op))
      continue;
    if (isa<scf::IfOp, scf::ForOp>(op) && op.use_empty() &&
        onlyConsumerWork(op)) {
      op.erase();
      continue;
    }
    if (op.getNumRegions() != 0 &&
        !isa<MapOp, ReduceOp, AnyOp, WarpAnyOp>(op)) {
      for (Region &r : op.getRegions())
        for (Block &b : r)
          if (failed(stripToProducer(b, producerThread, issue)))
            return failure();
      // A branch or loop left with nothing to do goes now, so that its
      // condition or bounds (maybe read from shared memory, which the
      // producer cannot repeat) are dead when the walk reaches them.
      if (isa<scf::IfOp, scf::ForOp>(op) && op.getNumResults() == 0 &&
          onlyTerminators(op))
        op.erase();
      continue;
    }
    if (isOpTriviallyDead(&op)) {
      op.erase();
      continue;
    }
    if (onlyAllocates(&op))
      continue;
    if (!op.use_empty()) {
      if (onlyReadsGlobal(&op))
        continue;
      return op.emitOpError("computes a value the producer warpgroup "
                            "needs (its control flow, a ready-flag wait or "
                            "a tile.producer_task), but only global-memory "
                            "reads can be repeated by the producer");
    }
    op.erase();
  }
  return success();
}

/// Round-robin TMA issue over `groups` producer warpgroups: each ring
/// producer step (a tile.producer that issues TMA loads, outside the
/// tasks) in the producer region is replaced by one copy per warpgroup, on
/// that warpgroup's first thread, under `stage mod groups == g` (stage:
/// the ring barrier index of its loads). A stage is thus always issued by
/// the same warpgroup, in the order of today's single issuer; with
/// `groups` dividing the stage count, the warpgroup of stage s is the one
/// whose tasks run in the iterations on stage s. Where its loads fall in
/// its program order relative to its tasks is the kernel's schedule (the
/// ring issues iteration i + stages - 1 in iteration i).
LogicalResult issueRoundRobin(Region &producer, int64_t producerThread,
                              int64_t groups) {
  SmallVector<ProducerOp> steps;
  producer.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // A task's own tile.producer regions are its threads' (numbered from
    // its base), not the ring's.
    if (isa<ProducerTaskOp>(op))
      return WalkResult::skip();
    if (auto prod = dyn_cast<ProducerOp>(op); prod && issuesTma(prod))
      steps.push_back(prod);
    return WalkResult::advance();
  });
  for (ProducerOp prod : steps) {
    Value stage;
    WalkResult mixed = prod.getBody().walk([&](TmaLoadOp load) {
      if (stage && stage != load.getIndex())
        return WalkResult::interrupt();
      stage = load.getIndex();
      return WalkResult::advance();
    });
    if (mixed.wasInterrupted())
      return prod.emitOpError("loads into different ring stages; the "
                              "round-robin TMA issue assigns a producer "
                              "warpgroup per stage");
    if (prod.getBody().isAncestor(stage.getParentRegion()))
      return prod.emitOpError("computes its ring stage inside itself; the "
                              "round-robin TMA issue needs it outside");
    OpBuilder b(prod);
    Location loc = prod.getLoc();
    Value n = b.create<arith::ConstantIndexOp>(loc, groups);
    Value which = b.create<arith::RemUIOp>(loc, stage, n);
    for (int64_t g = 0; g < groups; ++g) {
      Value gv = b.create<arith::ConstantIndexOp>(loc, g);
      Value mine =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, which, gv);
      auto branch = b.create<scf::IfOp>(loc, mine, /*withElseRegion=*/false);
      OpBuilder inner = branch.getThenBodyBuilder();
      auto copy = cast<ProducerOp>(inner.clone(*prod));
      copy.setThread(producerThreadBase(producerThread, g));
    }
    prod.erase();
  }
  return success();
}

/// Removes dead ops (bottom-up, until nothing changes), including loops and
/// branches whose bodies no longer do anything.
void eraseDeadOps(Region &region) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> ops;
    region.walk<WalkOrder::PostOrder>([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      if (op->hasTrait<OpTrait::IsTerminator>())
        continue;
      bool dead = isOpTriviallyDead(op);
      if (!dead && op->getNumResults() == 0 && op->getNumRegions() != 0 &&
          isa<scf::ForOp, scf::IfOp, ForOp>(op)) {
        // A loop or branch whose bodies hold only terminators.
        dead = onlyTerminators(*op);
      }
      if (dead) {
        op->erase();
        changed = true;
      }
    }
  }
}

void WarpSpecializePass::runOnOperation() {
  func::FuncOp kernel = getOperation();
  auto request = kernel->getAttrOfType<DictionaryAttr>(
      TileDialect::getWarpSpecializeAttrName());
  if (!request || kernel.isExternal())
    return;
  auto intOf = [&](StringRef key, int64_t fallback) {
    if (auto v = request.getAs<IntegerAttr>(key))
      return v.getInt();
    return fallback;
  };
  int64_t producerRegs = intOf("producer_registers", 40);
  int64_t consumerRegs = intOf("consumer_registers", 232);
  auto warpsAttr =
      kernel->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName());
  if (!kernel->hasAttr(TileDialect::getKernelAttrName()) || !warpsAttr) {
    kernel.emitError("tile.warp_specialize applies to tile kernels "
                     "(tile.kernel with tile.num_warps)");
    return signalPassFailure();
  }
  int64_t numWarps = warpsAttr.getInt();
  int64_t consumerThreads = 32 * numWarps;
  if (numWarps % kWarpgroupWarps != 0) {
    kernel.emitError("warp specialization needs whole consumer warpgroups: "
                     "tile.num_warps = ")
        << numWarps << " is not a multiple of 4";
    return signalPassFailure();
  }
  // One producer warpgroup per task group (0 .. groups - 1), at least one
  // (the rings' TMA issue).
  int64_t groups = 1;
  bool anyTask = false;
  kernel.walk([&](ProducerTaskOp task) {
    groups = std::max(groups, task.getGroupIndex() + 1);
    anyTask = true;
  });
  int64_t producerWarps = kWarpgroupWarps * groups;
  if (numWarps + producerWarps > 32) {
    InFlightDiagnostic d = kernel.emitError("warp specialization adds ");
    if (groups == 1)
      d << "a warpgroup";
    else
      d << groups << " producer warpgroups (tile.producer_task groups 0 .. "
        << groups - 1 << ")";
    d << " to the " << numWarps << " warps; a block has at most 32";
    return signalPassFailure();
  }
  // (The dialect verifies the value: "first", "round_robin" or
  // "consumer".)
  StringRef issue = TileDialect::getTmaIssue(kernel);
  if (issue == "consumer" && !anyTask) {
    kernel.emitError("tile.warp_specialize with tma_issue = \"consumer\" "
                     "needs a tile.producer_task: the consumers issue the "
                     "rings' loads, so a producer warpgroup without a task "
                     "would only hold registers");
    return signalPassFailure();
  }
  // setmaxnreg moves registers between the warpgroups of a block: every
  // thread starts with what ptxas allocates for the whole block (at most
  // 65536 / threads, rounded down to 8, and at most the kernel's
  // tile.max_registers, its .maxnreg: a kernel capped below the register
  // file leaves room for another kernel's blocks on the SM), the producer
  // gives some back with .dec and the consumers take them with .inc, which
  // blocks until the registers are there. So P <= entry <= C and
  // P x 128 x groups + C x consumers must fit in entry x threads, or the
  // consumers wait forever.
  int64_t threads = 32 * (numWarps + producerWarps);
  int64_t entryRegs = std::min<int64_t>(256, 65536 / threads / 8 * 8);
  if (auto cap = kernel->getAttrOfType<IntegerAttr>(
          TileDialect::getMaxRegistersAttrName())) {
    // ptxas starts every thread at the cap itself (.maxnreg), and
    // setmaxnreg counts in 8s from there: an odd cap would leave the
    // entry count between two setmaxnreg values.
    if (cap.getInt() % 8 != 0) {
      kernel.emitError("tile.max_registers = ")
          << cap.getInt() << " must be a multiple of 8 with "
          << "tile.warp_specialize (setmaxnreg moves registers in 8s from "
             "the entry count)";
      return signalPassFailure();
    }
    entryRegs = std::min<int64_t>(entryRegs, cap.getInt());
  }
  int64_t needed = producerRegs * 32 * producerWarps +
                   consumerRegs * consumerThreads;
  if (producerRegs > entryRegs || consumerRegs < entryRegs ||
      needed > entryRegs * threads) {
    kernel.emitError("register budget of the warpgroups: producer")
        << (groups > 1 ? "s " : " ") << producerRegs << " x "
        << 32 * producerWarps << " + consumers " << consumerRegs << " x "
        << consumerThreads << " = " << needed
        << " registers must fit the block's " << entryRegs << " x "
        << threads << " = " << entryRegs * threads
        << ", with producer_registers <= " << entryRegs
        << " <= consumer_registers";
    return signalPassFailure();
  }

  // The split point: after the block barrier that follows the rings'
  // initialization at the kernel's entry (tile-pipeline puts it there).
  Block &entry = kernel.getBody().front();
  Operation *split = nullptr;
  for (Operation &op : entry) {
    auto prod = dyn_cast<ProducerOp>(op);
    if (!prod || prod.getBody().front().empty() ||
        !llvm::all_of(prod.getBody().front(),
                      [](Operation &o) { return isa<MBarrierInitOp>(o); }))
      continue;
    if (auto barrier = dyn_cast_or_null<BarrierOp>(op.getNextNode()))
      split = barrier;
  }
  if (!split) {
    kernel.emitError("tile.warp_specialize needs a loop that tile-pipeline "
                     "put on a TMA ring (tile.copy_engine = \"tma\" and a "
                     "tile.for with stages >= 2)");
    return signalPassFailure();
  }

  // Move the rest of the body into the consumer region, clone it into the
  // producer region.
  OpBuilder b(kernel.getContext());
  b.setInsertionPointAfter(split);
  auto ws = b.create<WarpSpecializeOp>(
      kernel.getLoc(), b.getI64IntegerAttr(producerWarps),
      b.getI64IntegerAttr(producerRegs), b.getI64IntegerAttr(consumerRegs));
  Block *consumer = b.createBlock(&ws.getConsumer());
  Block *producer = b.createBlock(&ws.getProducer());
  Operation *terminator = entry.getTerminator();
  consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                   std::next(ws->getIterator()),
                                   terminator->getIterator());
  IRMapping mapping;
  OpBuilder pb = OpBuilder::atBlockEnd(producer);
  for (Operation &op : *consumer)
    pb.clone(op, mapping);

  // tma_issue = "consumer": the rings' producer steps stay with the
  // consumers (their thread 0, after its release of the stage it reuses
  // last), so the producer warpgroups run only their tasks.
  bool consumerIssue = issue == "consumer";
  if (failed(stripToProducer(*producer, consumerThreads, !consumerIssue)))
    return signalPassFailure();
  if (issue == "round_robin" && groups > 1 &&
      failed(issueRoundRobin(ws.getProducer(), consumerThreads, groups)))
    return signalPassFailure();
  eraseDeadOps(ws.getProducer());

  consumer->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto prod = dyn_cast<ProducerOp>(op)) {
      if (issuesTma(prod) && !consumerIssue)
        prod.erase();
      return WalkResult::skip();
    }
    if (isa<ProducerTaskOp>(op)) {
      op->erase();
      return WalkResult::skip();
    }
    if (auto barrier = dyn_cast<BarrierOp>(op); barrier && !barrier.getId()) {
      toNamedBarrier(barrier, kConsumerBarrierId, consumerThreads);
      ++numNamedBarriers;
      return WalkResult::skip();
    }
    // A consumer vote is over the consumer warpgroups (their named
    // barrier); the producer's copy of it went with stripToProducer.
    if (auto any = dyn_cast<AnyOp>(op); any && !any.getId()) {
      any.setIdAttr(b.getI64IntegerAttr(kConsumerBarrierId));
      any.setThreadsAttr(b.getI64IntegerAttr(consumerThreads));
      ++numNamedBarriers;
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  eraseDeadOps(ws.getConsumer());
  applyRoleLoopAnnotations(ws);

  kernel->setAttr(TileDialect::getProducerWarpsAttrName(),
                  b.getI64IntegerAttr(producerWarps));
  ++numSpecialized;
}

} // namespace
} // namespace mlir::gdn::tile
