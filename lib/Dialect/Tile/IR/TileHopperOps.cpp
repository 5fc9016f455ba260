//===- TileHopperOps.cpp - TMA, mbarrier and warp-role ops -----------------===//
//
// Verifiers and builders of the ops in TileHopperOps.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::gdn::tile;

/// A 1-D shared buffer of i64 mbarrier objects.
static LogicalResult verifyBarrierBuffer(Operation *op, Value barriers) {
  auto type = cast<BufferType>(barriers.getType());
  if (!type.isShared() || type.getRank() != 1 ||
      !type.getElementType().isInteger(64) || type.getLayout())
    return op->emitOpError("barriers must be a 1-D shared buffer of i64 "
                           "(one mbarrier each), got ")
           << type;
  return success();
}

/// A constant index operand must address one of the buffer's barriers.
static LogicalResult verifyBarrierIndex(Operation *op, Value barriers,
                                        Value index) {
  auto type = cast<BufferType>(barriers.getType());
  APInt c;
  if (matchPattern(index, m_ConstantInt(&c)) &&
      (c.isNegative() || c.getSExtValue() >= type.getShape()[0]))
    return op->emitOpError("barrier index ")
           << c.getSExtValue() << " is out of bounds for "
           << type.getShape()[0] << " barriers";
  return success();
}

//===----------------------------------------------------------------------===//
// TmaLoadOp
//===----------------------------------------------------------------------===//

/// The shared side of a TMA transfer (`what`: "destination" or "source"):
/// the map's box, possibly repeated along the innermost dimension, with the
/// map's element type and swizzle.
static LogicalResult verifyTmaBox(Operation *op, TensorMapType map,
                                  BufferType buf, size_t numCoords,
                                  StringRef what,
                                  std::optional<int64_t> blockLower = {}) {
  if (!buf.isShared())
    return op->emitOpError(what) << " must be a shared buffer";
  if (buf.getElementType() != map.getElementType())
    return op->emitOpError(what)
           << " element type " << buf.getElementType()
           << " differs from the tensor map's " << map.getElementType();
  if (static_cast<int64_t>(numCoords) != map.getRank())
    return op->emitOpError("expected ")
           << map.getRank() << " coordinates (one per tensor dimension), got "
           << numCoords;
  // The buffer is the box without its dimensions of 1 (a box that takes
  // one index of a tensor dimension), except that it may repeat the box
  // along the innermost dimension.
  ArrayRef<int64_t> fullBox = map.getShape();
  int64_t swizzle = 0;
  if (auto swz = dyn_cast_or_null<SwizzleAttr>(buf.getLayout()))
    swizzle = swz.getBytes();
  auto checkSwizzle = [&]() -> LogicalResult {
    if (swizzle != map.getSwizzle())
      return op->emitOpError(what)
             << " swizzle (" << swizzle << " bytes) differs from the tensor "
             << "map's (" << map.getSwizzle() << " bytes)";
    return success();
  };
  if (blockLower) {
    // A column of K-row boxes per swizzle span: dest [n, n], box K rows of
    // one span (the map's other dimensions 1: taken ones).
    int64_t k = *blockLower, swz = swizzle;
    ArrayRef<int64_t> bs = buf.getShape();
    SmallVector<int64_t> outer(llvm::make_filter_range(
        fullBox.drop_back(), [](int64_t d) { return d != 1; }));
    if (buf.getRank() != 2 || bs[0] != bs[1] || bs[0] % k != 0 ||
        outer != SmallVector<int64_t>{k} || swz == 0 ||
        fullBox.back() * buf.getElementBytes() != swz || k % fullBox.back())
      return op->emitOpError("block_lower = ")
             << k << " needs a square 2-D swizzled " << what
             << " that it divides and a box of " << k
             << " rows of one swizzle span that divides it; got " << buf
             << " and " << map;
    return checkSwizzle();
  }
  SmallVector<int64_t> box, shape;
  for (size_t d = 0; d + 1 < fullBox.size(); ++d)
    if (fullBox[d] != 1)
      box.push_back(fullBox[d]);
  for (size_t d = 0; d + 1 < buf.getShape().size(); ++d)
    if (buf.getShape()[d] != 1)
      shape.push_back(buf.getShape()[d]);
  if (box != shape)
    return op->emitOpError(what) << " " << buf << " does not hold the box of "
                                 << map;
  if (buf.getShape().back() % fullBox.back() != 0)
    return op->emitOpError(what)
           << " innermost dimension " << buf.getShape().back()
           << " is not a multiple of the box's " << fullBox.back();
  if (buf.getRowPadding())
    return op->emitOpError(what)
           << " " << buf << " has padded rows, which TMA cannot address";
  if (failed(checkSwizzle()))
    return failure();
  int64_t boxes = buf.getShape().back() / fullBox.back();
  // Without a swizzle the boxes would lie box-major (box b at b times the
  // box's bytes), not in the buffer's row-major order.
  if (boxes > 1 && swizzle == 0)
    return op->emitOpError("an unswizzled ")
           << what << " takes exactly one box; " << buf << " holds "
           << boxes << " boxes of " << map;
  if (boxes > 1 && swizzle != 0 &&
      fullBox.back() * buf.getElementBytes() != swizzle)
    return op->emitOpError("several boxes along the innermost dimension need "
                           "box rows of exactly the swizzle width");
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyBarrierBuffer(*this, getBarriers())) ||
      failed(verifyBarrierIndex(*this, getBarriers(), getIndex())))
    return failure();
  return verifyTmaBox(*this, getMap().getType(),
                      cast<BufferType>(getDest().getType()),
                      getCoords().size(), "destination", getBlockLower());
}

/// Boxes of `map` side by side along the innermost dimension of `tile`.
static int64_t numTmaBoxes(TensorMapType map, Type tile) {
  return cast<BufferType>(tile).getShape().back() / map.getShape().back();
}

SmallVector<std::pair<int64_t, int64_t>> TmaLoadOp::getBoxes() {
  SmallVector<std::pair<int64_t, int64_t>> boxes;
  int64_t spans = numTmaBoxes(getMap().getType(), getDest().getType());
  std::optional<int64_t> k = getBlockLower();
  if (!k) {
    for (int64_t c = 0; c < spans; ++c)
      boxes.push_back({0, c});
    return boxes;
  }
  // Span c lies in block column c * span / K; row box r is block row r.
  int64_t span = getMap().getType().getShape().back();
  int64_t rows = cast<BufferType>(getDest().getType()).getShape()[0];
  for (int64_t c = 0; c < spans; ++c)
    for (int64_t r = 0; r < rows / *k; ++r)
      if (c * span / *k <= r)
        boxes.push_back({r, c});
  return boxes;
}

int64_t TmaLoadOp::getNumBoxes() {
  return static_cast<int64_t>(getBoxes().size());
}

int64_t TmaLoadOp::getNumBytes() {
  return getNumBoxes() * getMap().getType().getBoxBytes();
}

//===----------------------------------------------------------------------===//
// TmaStoreOp
//===----------------------------------------------------------------------===//

LogicalResult TmaStoreOp::verify() {
  return verifyTmaBox(*this, getMap().getType(),
                      cast<BufferType>(getSource().getType()),
                      getCoords().size(), "source");
}

int64_t TmaStoreOp::getNumBoxes() {
  return numTmaBoxes(getMap().getType(), getSource().getType());
}

//===----------------------------------------------------------------------===//
// MBarrier ops
//===----------------------------------------------------------------------===//

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyBarrierBuffer(*this, getBarriers())))
    return failure();
  // mbarrier arrival counts are 20 bits wide.
  if (getCount() >= (int64_t(1) << 20))
    return emitOpError("arrival count ")
           << getCount() << " exceeds the mbarrier limit of 2^20 - 1";
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyBarrierBuffer(*this, getBarriers())) ||
      failed(verifyBarrierIndex(*this, getBarriers(), getIndex())))
    return failure();
  if (getExpectTx() && *getExpectTx() >= (int64_t(1) << 20))
    return emitOpError("expect_tx of ")
           << *getExpectTx()
           << " bytes exceeds the mbarrier transaction limit of 2^20 - 1";
  return success();
}

LogicalResult MBarrierWaitOp::verify() {
  if (failed(verifyBarrierBuffer(*this, getBarriers())) ||
      failed(verifyBarrierIndex(*this, getBarriers(), getIndex())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ProducerOp, WarpSpecializeOp
//===----------------------------------------------------------------------===//

void ProducerOp::build(OpBuilder &builder, OperationState &state,
                       int64_t thread) {
  state.addAttribute(getThreadAttrName(state.name),
                     builder.getI64IntegerAttr(thread));
  Region *body = state.addRegion();
  body->emplaceBlock();
}

LogicalResult ProducerOp::verify() {
  if (getBody().front().getNumArguments() != 0)
    return emitOpError("body takes no arguments");
  if ((*this)->getParentOfType<ProducerOp>())
    return emitOpError("producer regions do not nest");
  // One thread runs the body: a barrier there waits for threads that never
  // come.
  WalkResult r = getBody().walk([&](Operation *op) {
    if (isa<BarrierOp, ReduceOp>(op)) {
      emitOpError("body runs on one thread and must not contain '")
          << op->getName() << "' (it waits for other threads)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  // The thread must exist among those that run the region: a producer
  // task's (numbered from its first thread), else the kernel's block.
  if (auto task = (*this)->getParentOfType<ProducerTaskOp>()) {
    int64_t taskThreads = 32 * static_cast<int64_t>(task.getNumWarps());
    if (static_cast<int64_t>(getThread()) >= taskThreads)
      return emitOpError("thread ")
             << getThread() << " is not a thread of the enclosing "
             << "tile.producer_task's " << 32 * task.getNumWarps()
             << " threads";
  } else if (auto func = (*this)->getParentOfType<FunctionOpInterface>()) {
    auto warps = func->getAttrOfType<IntegerAttr>(
        TileDialect::getNumWarpsAttrName());
    auto extra = func->getAttrOfType<IntegerAttr>(
        TileDialect::getProducerWarpsAttrName());
    int64_t producerWarps = extra ? extra.getInt() : 0;
    if (auto ws = (*this)->getParentOfType<WarpSpecializeOp>())
      producerWarps = ws.getProducerWarps();
    // (The attribute is non-negative by its ODS constraint.)
    int64_t blockThreads = 32 * (warps ? warps.getInt() + producerWarps : 0);
    if (warps && warps.getInt() > 0 &&
        static_cast<int64_t>(getThread()) >= blockThreads)
      return emitOpError("thread ")
             << getThread() << " is not a thread of the kernel's block of "
             << blockThreads << " threads";
  }
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  for (Region *r : {&getProducer(), &getConsumer()})
    if (r->front().getNumArguments() != 0)
      return emitOpError("regions take no arguments");
  if (getProducerWarps() % 4 != 0)
    return emitOpError("producer_warps must be whole warpgroups (a multiple "
                       "of 4), got ")
           << getProducerWarps();
  for (int64_t regs : {getProducerRegisters(), getConsumerRegisters()})
    if (regs % 8 != 0)
      return emitOpError("setmaxnreg register counts must be multiples of 8, "
                         "got ")
             << regs;
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("warp_specialize does not nest");
  // The lowering sizes the block (maxntid, the task guards) from the
  // kernel's tile.producer_warps: it must say the same.
  if (auto func = (*this)->getParentOfType<FunctionOpInterface>()) {
    auto attr = func->getAttrOfType<IntegerAttr>(
        TileDialect::getProducerWarpsAttrName());
    if (attr && attr.getInt() != static_cast<int64_t>(getProducerWarps()))
      return emitOpError("producer_warps = ")
             << getProducerWarps() << " disagrees with the kernel's "
             << TileDialect::getProducerWarpsAttrName() << " = "
             << attr.getInt();
    if (!attr && func->hasAttr(TileDialect::getKernelAttrName()))
      return emitOpError("in a tile kernel needs the kernel's ")
             << TileDialect::getProducerWarpsAttrName() << " = "
             << getProducerWarps()
             << " (tile-warp-specialize sets both; the lowering sizes the "
                "block from it)";
  }
  // Block-wide barriers would wait for the other role's warps, which never
  // reach them: the regions synchronize with named barriers only (the
  // barriers of tile.reduce lower to the consumers' named barrier).
  for (Region *r : {&getProducer(), &getConsumer()}) {
    WalkResult w = r->walk([&](Operation *op) {
      auto barrier = dyn_cast<BarrierOp>(op);
      if (barrier && !barrier.getId()) {
        emitOpError("regions must not contain block-wide barriers ('")
            << op->getName() << "'); use a named tile.barrier";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (w.wasInterrupted())
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProducerTaskOp
//===----------------------------------------------------------------------===//

LogicalResult ProducerTaskOp::verify() {
  if (getBody().front().getNumArguments() != 0)
    return emitOpError("body takes no arguments");
  if (getNumWarps() != 4)
    return emitOpError("runs on the producer warpgroup: num_warps must be "
                       "4, got ")
           << getNumWarps();
  if (getGroupIndex() >= kMaxProducerGroups)
    return emitOpError("group ")
           << getGroupIndex() << " is out of range: a block holds at most "
           << kMaxProducerGroups
           << " producer warpgroups beside the consumers (groups 0 .. "
           << kMaxProducerGroups - 1 << ")";
  if (auto engine = getMmaEngine();
      engine && *engine != "mma.sync" && *engine != "wgmma")
    return emitOpError("mma_engine must be \"mma.sync\" or \"wgmma\", got \"")
           << *engine << "\"";
  if (getAsyncGemm() && getMmaEngine() == "mma.sync")
    return emitOpError("async_gemm schedules wgmma gemms, but the task's "
                       "mma_engine is \"mma.sync\"");
  if ((*this)->getParentOfType<ProducerTaskOp>())
    return emitOpError("producer tasks do not nest");
  if ((*this)->getParentOfType<ProducerOp>())
    return emitOpError("must not be inside a tile.producer (one thread)");
  // Before tile-warp-specialize the task is in the kernel body, after it in
  // the producer region (with its thread base), never with the consumers.
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (ws && ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError("must not be in the consumer region of "
                       "tile.warp_specialize");
  if (getThreadBase() && !ws)
    return emitOpError("has a thread base outside tile.warp_specialize (the "
                       "pass sets it when it moves the task into the "
                       "producer region)");
  // In the producer region, group g runs on producer warpgroup g: it must
  // exist, and the thread base is its first thread.
  if (ws) {
    int64_t group = getGroupIndex();
    if (static_cast<int64_t>(ws.getProducerWarps()) < 4 * (group + 1))
      return emitOpError("group ")
             << group << " needs " << group + 1
             << " producer warpgroups; tile.warp_specialize has "
             << ws.getProducerWarps() << " producer warps";
    auto func = (*this)->getParentOfType<FunctionOpInterface>();
    auto warps = func ? func->getAttrOfType<IntegerAttr>(
                            TileDialect::getNumWarpsAttrName())
                      : IntegerAttr();
    int64_t consumers = warps ? 32 * warps.getInt() : 0;
    int64_t base = producerThreadBase(consumers, group);
    if (warps && getThreadBase() &&
        static_cast<int64_t>(*getThreadBase()) != base)
      return emitOpError("thread base ")
             << *getThreadBase() << " is not the first thread of producer "
             << "warpgroup " << group << " (" << base << ", after the "
             << consumers << " consumer threads)";
  }
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (func && func->hasAttr(TileDialect::getKernelAttrName()) &&
      !func->hasAttr(TileDialect::getWarpSpecializeAttrName()) &&
      !(*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("needs a warp-specialized kernel (tile.warp_specialize): "
                       "its warps are the producer warpgroup");
  // Fragments are laid out over the warps that run them: the task's own.
  WalkResult r = getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      auto type = dyn_cast<BufferType>(v.getType());
      if (!type || !type.isFragment())
        continue;
      Operation *def = v.getDefiningOp();
      Region *where = def ? def->getParentRegion() : v.getParentRegion();
      if (!getBody().isAncestor(where)) {
        op->emitOpError("uses a fragment defined outside its "
                        "tile.producer_task: the task's warps hold only "
                        "their own fragments");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

std::optional<int64_t> mlir::gdn::tile::getWarpsAt(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (auto task = dyn_cast<ProducerTaskOp>(p))
      return task.getNumWarps();
    if (auto warps = p->getAttrOfType<IntegerAttr>(
            TileDialect::getNumWarpsAttrName()))
      return warps.getInt();
  }
  return std::nullopt;
}

StringRef mlir::gdn::tile::getMmaEngineAt(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (auto task = dyn_cast<ProducerTaskOp>(p))
      if (auto engine = task.getMmaEngine())
        return *engine;
    if (auto engine = p->getAttrOfType<StringAttr>(
            TileDialect::getMmaEngineAttrName()))
      return engine.getValue();
  }
  return "mma.sync";
}

//===----------------------------------------------------------------------===//
// BarrierOp
//===----------------------------------------------------------------------===//

LogicalResult
mlir::gdn::tile::verifyNamedBarrier(Operation *op, std::optional<uint64_t> id,
                                    std::optional<uint64_t> threads) {
  if (id.has_value() != threads.has_value())
    return op->emitOpError("a named barrier needs both 'id' and 'threads'");
  if (threads && (*threads % 32 != 0 || *threads > 1024))
    return op->emitOpError("a named barrier's thread count must be a "
                           "multiple of 32 up to 1024, got ")
           << *threads;
  // In a producer task, a named barrier is its warpgroup's: any other id
  // would meet another group's (or the consumers') warps.
  if (auto task = op->getParentOfType<ProducerTaskOp>(); task && id) {
    int64_t want = producerBarrierId(task.getGroupIndex());
    int64_t count = 32 * static_cast<int64_t>(task.getNumWarps());
    if (static_cast<int64_t>(*id) != want ||
        static_cast<int64_t>(*threads) != count)
      return op->emitOpError("in a group ")
             << task.getGroupIndex() << " tile.producer_task must be named "
             << "barrier " << want << " over " << count
             << " threads (its warpgroup's), got id " << *id << " over "
             << *threads;
  }
  return success();
}

LogicalResult BarrierOp::verify() {
  return verifyNamedBarrier(*this, getId(), getThreads());
}
