//===- LoweringUtils.cpp - shared helpers of the tile lowering -------------===//
//
// The index builder, the layouts as IR (instantiations of the formulas of
// LayoutUtils.h), addressing, guarded regions and register access shared by
// the pattern files of TileToNVVM.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::gdn {
using namespace mlir::gdn::tile;

//===----------------------------------------------------------------------===//
// Idx
//===----------------------------------------------------------------------===//

Type Idx::indexTypeAt(OpBuilder &b) {
  // A block not yet in a region has no data layout above it: i64 (the
  // default layout's), which the LLVM verifier rejects next to i32 values
  // of a 32-bit module rather than miscompiling.
  Block *block = b.getInsertionBlock();
  Operation *scope = block ? block->getParentOp() : nullptr;
  if (!scope)
    return b.getI64Type();
  unsigned bits = DataLayout::closest(scope).getTypeSizeInBits(
      IndexType::get(b.getContext()));
  return b.getIntegerType(bits);
}

std::optional<int64_t> Idx::constOf(Value v) {
  if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getInt();
  return std::nullopt;
}
Value Idx::c(int64_t v) {
  return b.create<LLVM::ConstantOp>(loc, index, b.getIntegerAttr(index, v));
}
Value Idx::c32(int64_t v) {
  return b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                    b.getI32IntegerAttr(v));
}
Value Idx::add(Value x, Value y) {
  auto cx = constOf(x), cy = constOf(y);
  if (cx && cy)
    return c(*cx + *cy);
  if (cx && *cx == 0)
    return y;
  if (cy && *cy == 0)
    return x;
  return b.create<LLVM::AddOp>(loc, x, y, LLVM::IntegerOverflowFlags::nsw);
}
Value Idx::mul(Value x, Value y) {
  auto cx = constOf(x), cy = constOf(y);
  if (cx && cy)
    return c(*cx * *cy);
  if ((cx && *cx == 0) || (cy && *cy == 0))
    return c(0);
  if (cx && *cx == 1)
    return y;
  if (cy && *cy == 1)
    return x;
  return b.create<LLVM::MulOp>(loc, x, y, LLVM::IntegerOverflowFlags::nsw);
}
Value Idx::div(Value x, int64_t y) {
  if (auto cx = constOf(x))
    return c(*cx / y);
  if (y == 1)
    return x;
  return b.create<LLVM::UDivOp>(loc, x, c(y));
}
Value Idx::rem(Value x, int64_t y) {
  if (auto cx = constOf(x))
    return c(*cx % y);
  if (y == 1)
    return c(0);
  return b.create<LLVM::URemOp>(loc, x, c(y));
}
Value Idx::xor_(Value x, Value y) {
  auto cx = constOf(x), cy = constOf(y);
  if (cx && cy)
    return c(*cx ^ *cy);
  return b.create<LLVM::XOrOp>(loc, x, y);
}
Value Idx::ult(Value x, Value y) {
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, x, y);
}
Value Idx::ule(Value x, Value y) {
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ule, x, y);
}
Value Idx::and_(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return b.create<LLVM::AndOp>(loc, x, y);
}
Value Idx::toIndex(Value v) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned to = index.getIntOrFloatBitWidth();
  if (from == to)
    return v;
  if (from < to)
    return b.create<LLVM::ZExtOp>(loc, index, v);
  return b.create<LLVM::TruncOp>(loc, index, v);
}
Value Idx::tid() { return toIndex(createThreadId(b, loc)); }
Value Idx::gep(Value base, Type elem, Value index) {
  return b.create<LLVM::GEPOp>(loc, base.getType(), elem, base,
                               ValueRange{index});
}

//===----------------------------------------------------------------------===//
// Kernel facts
//===----------------------------------------------------------------------===//

Value createThreadId(OpBuilder &b, Location loc) {
  Value tid = b.create<NVVM::ThreadIdXOp>(loc, b.getI32Type());
  if (int64_t base = threadBaseAt(b.getInsertionBlock())) {
    Value c = b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                         b.getI32IntegerAttr(base));
    tid = b.create<LLVM::SubOp>(loc, tid, c, LLVM::IntegerOverflowFlags::nuw);
  }
  return tid;
}

Value createWarpUniformIndex(OpBuilder &b, Location loc, int64_t threads) {
  assert(threads > 0 && threads % 32 == 0 && "whole warps");
  Idx ix(b, loc);
  Value index =
      b.create<LLVM::UDivOp>(loc, createThreadId(b, loc), ix.c32(threads));
  return b.create<NVVM::ShflOp>(loc, b.getI32Type(), ix.c32(-1), index,
                                ix.c32(0), ix.c32(31), NVVM::ShflKind::idx,
                                UnitAttr());
}

void createNamedBarrier(OpBuilder &b, Location loc, int64_t id,
                        int64_t threads) {
  Value idValue = b.create<LLVM::ConstantOp>(
      loc, b.getI32Type(), b.getI32IntegerAttr(static_cast<int32_t>(id)));
  Value count = b.create<LLVM::ConstantOp>(
      loc, b.getI32Type(), b.getI32IntegerAttr(static_cast<int32_t>(threads)));
  b.create<NVVM::BarrierOp>(loc, idValue, count);
}

int64_t threadBaseAt(Block *block) {
  Operation *scope = block ? block->getParentOp() : nullptr;
  for (Operation *p = scope; p; p = p->getParentOp())
    if (auto task = dyn_cast<tile::ProducerTaskOp>(p))
      return task.getThreadBase().value_or(0);
  return 0;
}

int64_t numThreadsOf(Operation *op) {
  if (std::optional<int64_t> warps = getWarpsAt(op))
    return 32 * *warps;
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto ntid = p->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getMaxntidAttrName()))
      return ntid[0];
  return 0;
}

int64_t blockThreadsOf(Operation *kernel) {
  int64_t threads = numThreadsOf(kernel);
  if (auto p = kernel->getAttrOfType<IntegerAttr>(
          TileDialect::getProducerWarpsAttrName()))
    threads += 32 * p.getInt();
  return threads;
}

void createAsyncProxyFence(OpBuilder &b, Location loc) {
  MLIRContext *ctx = b.getContext();
  b.create<NVVM::FenceProxyOp>(
      loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

void createComputeBarrier(OpBuilder &b, Location loc, Operation *op) {
  if (auto task = op->getParentOfType<tile::ProducerTaskOp>()) {
    createNamedBarrier(b, loc, producerBarrierId(task.getGroupIndex()),
                       32 * task.getNumWarps());
    return;
  }
  bool specialized = false;
  for (Operation *p = op; p && !specialized; p = p->getParentOp())
    specialized = isa<tile::WarpSpecializeOp>(p) ||
                  p->hasAttr(TileDialect::getProducerWarpsAttrName());
  if (!specialized) {
    b.create<NVVM::Barrier0Op>(loc);
    return;
  }
  createNamedBarrier(b, loc, kConsumerBarrierId, numThreadsOf(op));
}

LogicalResult requireLayouts(Operation *op, ValueRange fragments) {
  for (Value v : fragments)
    if (!cast<BufferType>(v.getType()).getLayout())
      return op->emitOpError("fragments have no layout; run "
                             "tile-assign-layouts first");
  return success();
}

bool usesWgmma(Operation *op) { return getMmaEngineAt(op) == "wgmma"; }

bool usesTmaStores(Operation *op) {
  Operation *func = op->getParentOfType<FunctionOpInterface>().getOperation();
  if (!func)
    return false;
  return func
      ->walk([](Operation *o) {
        return isa<TmaStoreOp, NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(o)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t fragmentRegs(BufferType type, int64_t numThreads) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(type.getLayout()))
    return mmaFragmentSize(type.getShape()[0], type.getShape()[1],
                           mma.getWarps()[0], mma.getWarps()[1]);
  auto blocked = cast<BlockedLayoutAttr>(type.getLayout());
  return blockedSlots(type.getNumElements(), blocked.getVector(), numThreads) *
         blocked.getVector();
}

//===----------------------------------------------------------------------===//
// Layouts as IR
//===----------------------------------------------------------------------===//

/// layout::Run<IdxVal> -> Run.
static SmallVector<Run> toRuns(std::vector<layout::Run<IdxVal>> runs) {
  SmallVector<Run> result;
  result.reserve(runs.size());
  for (layout::Run<IdxVal> &run : runs) {
    Run r{run.reg, run.len, {}, run.guard ? *run.guard : Value()};
    for (const IdxVal &c : run.coord)
      r.coord.push_back(c);
    result.push_back(std::move(r));
  }
  return result;
}

SmallVector<Run> blockedRuns(Idx &ix, ArrayRef<int64_t> shape, int64_t vector,
                             int64_t numThreads, Value tid) {
  return toRuns(
      layout::blockedRuns<IdxVal>(IdxVal(ix, tid), shape, vector, numThreads));
}

SmallVector<Run> fragmentRuns(Idx &ix, BufferType type, int64_t numThreads,
                              Value tid) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(type.getLayout()))
    return blockedRuns(ix, type.getShape(), blocked.getVector(), numThreads,
                       tid);
  auto mma = cast<MmaLayoutAttr>(type.getLayout());
  return toRuns(layout::mmaFragmentRuns<IdxVal>(
      IdxVal(ix, tid), type.getShape()[0], type.getShape()[1],
      mma.getWarps()[0], mma.getWarps()[1],
      mma.getEngine() == MmaEngine::Wgmma));
}

Value sharedByteOffset(Idx &ix, BufferType type, ArrayRef<Value> coord) {
  SmallVector<IdxVal> c;
  for (Value v : coord)
    c.push_back(IdxVal(ix, v));
  auto swz = dyn_cast_or_null<SwizzleAttr>(type.getLayout());
  auto [groupRows, groupElems] = type.getGroupSkew();
  return layout::sharedOffset<IdxVal>(c, type.getShape(),
                                      type.getElementBytes(),
                                      swz ? swz.getBytes() : 0,
                                      type.getRowPadding(), groupRows,
                                      groupElems);
}

//===----------------------------------------------------------------------===//
// Addressing and control flow
//===----------------------------------------------------------------------===//

GlobalView::GlobalView(Idx &ix, Value desc, int64_t rank) {
  ptr = ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, 0);
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, d + 1));
  for (int64_t d = 0; d < rank; ++d)
    strides.push_back(
        ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, rank + d + 1));
}

Value GlobalView::linear(Idx &ix, ValueRange offsets, ArrayRef<Value> coord) {
  Value lin = ix.c(0);
  for (size_t d = 0; d < coord.size(); ++d)
    lin = ix.add(lin, ix.mul(ix.add(offsets[d], coord[d]), strides[d]));
  return lin;
}

Value GlobalView::inBounds(Idx &ix, ValueRange offsets, ArrayRef<Value> coord,
                           int64_t len) {
  Value ok;
  for (size_t d = 0; d < coord.size(); ++d) {
    Value pos = ix.add(offsets[d], coord[d]);
    Value cmp = d + 1 == coord.size() ? ix.ule(ix.add(pos, len), sizes[d])
                                      : ix.ult(pos, sizes[d]);
    ok = ix.and_(ok, cmp);
  }
  return ok;
}

Type vecType(Type elem, int64_t len) {
  return len == 1 ? elem : VectorType::get({len}, elem);
}

void emitGuarded(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                 function_ref<void(OpBuilder &)> body) {
  if (!cond) {
    body(rewriter);
    return;
  }
  Block *cur = rewriter.getInsertionBlock();
  Block *cont = rewriter.splitBlock(cur, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(cont);
  rewriter.setInsertionPointToEnd(cur);
  rewriter.create<LLVM::CondBrOp>(loc, cond, then, cont);
  rewriter.setInsertionPointToStart(then);
  body(rewriter);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{}, cont);
  rewriter.setInsertionPointToStart(cont);
}

SmallVector<Value>
emitCountedLoop(ConversionPatternRewriter &rewriter, Idx &ix, Value ub,
                int64_t step, ValueRange inits,
                function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  assert(step > 0 && &ix.b == &rewriter && "a forward loop on the rewriter");
  Location loc = ix.loc;
  SmallVector<Type> types{ix.index};
  llvm::append_range(types, inits.getTypes());
  ArrayRef<Type> carried = ArrayRef<Type>(types).drop_front();
  Block *cur = rewriter.getInsertionBlock();
  Block *cont = rewriter.splitBlock(cur, rewriter.getInsertionPoint());
  Block *header = rewriter.createBlock(
      cont, types, SmallVector<Location>(types.size(), loc));
  Block *loop = rewriter.createBlock(cont);
  Block *exit = rewriter.createBlock(
      cont, carried, SmallVector<Location>(carried.size(), loc));
  rewriter.setInsertionPointToEnd(cur);
  SmallVector<Value> first{ix.c(0)};
  llvm::append_range(first, inits);
  rewriter.create<LLVM::BrOp>(loc, first, header);
  rewriter.setInsertionPointToEnd(header);
  Value iv = header->getArgument(0);
  ValueRange iters = header->getArguments().drop_front();
  rewriter.create<LLVM::CondBrOp>(loc, ix.ult(iv, ub), loop, ValueRange{},
                                  exit, iters);
  rewriter.setInsertionPointToEnd(loop);
  SmallVector<Value> next{Value()};
  llvm::append_range(next, body(iv, iters));
  assert(next.size() == types.size() && "one next value per carried value");
  next[0] = ix.add(iv, step);
  rewriter.create<LLVM::BrOp>(loc, next, header);
  rewriter.setInsertionPointToEnd(exit);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{}, cont);
  rewriter.setInsertionPointToStart(cont);
  return SmallVector<Value>(exit->getArguments());
}

Value emitInlineAsm(OpBuilder &b, Location loc, Type result,
                    ValueRange operands, StringRef code, StringRef constraints,
                    bool hasSideEffects) {
  return b
      .create<LLVM::InlineAsmOp>(
          loc, result, operands, code, constraints, hasSideEffects,
          /*is_align_stack=*/false,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          ArrayAttr())
      .getRes();
}

Value emitL2Policy(OpBuilder &b, Location loc, tile::L2Hint hint) {
  std::string code = ("createpolicy.fractional.L2::" +
                      tile::stringifyL2Hint(hint) + ".b64 $0, 1.0;")
                         .str();
  return emitInlineAsm(b, loc, b.getI64Type(), ValueRange{}, code, "=l",
                       /*hasSideEffects=*/false);
}

bool emitStoreWithL2Policy(OpBuilder &b, Location loc, Value val, Value ptr,
                           Value policy) {
  Type type = val.getType();
  int64_t bits = 0;
  if (auto vec = dyn_cast<VectorType>(type))
    bits = vec.getNumElements() * vec.getElementTypeBitWidth();
  else if (type.isIntOrFloat())
    bits = type.getIntOrFloatBitWidth();
  Type voidType = LLVM::LLVMVoidType::get(b.getContext());
  if (bits >= 128 && bits % 128 == 0) {
    // 64-bit words, two per st.global...v2.b64, 16 bytes apart.
    Idx ix(b, loc);
    auto words = VectorType::get({bits / 64}, b.getI64Type());
    Value v = b.create<LLVM::BitcastOp>(loc, words, val);
    for (int64_t i = 0; i < bits / 64; i += 2) {
      Value at = i == 0 ? ptr : ix.gep(ptr, b.getI8Type(), ix.c(8 * i));
      Value lo = b.create<LLVM::ExtractElementOp>(loc, v, ix.c32(i));
      Value hi = b.create<LLVM::ExtractElementOp>(loc, v, ix.c32(i + 1));
      emitInlineAsm(b, loc, voidType, ValueRange{at, lo, hi, policy},
                    "st.global.L2::cache_hint.v2.b64 [$0], {$1, $2}, $3;",
                    "l,l,l,l,~{memory}", /*hasSideEffects=*/true);
    }
    return true;
  }
  if (bits != 16 && bits != 32 && bits != 64)
    return false;
  Value word = b.create<LLVM::BitcastOp>(loc, b.getIntegerType(bits), val);
  const char *reg = bits == 16 ? "h" : bits == 32 ? "r" : "l";
  std::string code =
      "st.global.L2::cache_hint.b" + std::to_string(bits) + " [$0], $1, $2;";
  emitInlineAsm(b, loc, voidType, ValueRange{ptr, word, policy}, code,
                (Twine("l,") + reg + ",l,~{memory}").str(),
                /*hasSideEffects=*/true);
  return true;
}

Value emitMaskedLoad(ConversionPatternRewriter &rewriter, Location loc,
                     Value valid, Type type, Value ptr, int64_t align) {
  if (!valid)
    return rewriter.create<LLVM::LoadOp>(loc, type, ptr, align);
  Block *cur = rewriter.getInsertionBlock();
  Block *cont = rewriter.splitBlock(cur, rewriter.getInsertionPoint());
  cont->addArgument(type, loc);
  Block *then = rewriter.createBlock(cont);
  rewriter.setInsertionPointToEnd(cur);
  Value zero = rewriter.create<LLVM::ZeroOp>(loc, type);
  rewriter.create<LLVM::CondBrOp>(loc, valid, then, ValueRange{}, cont,
                                  ValueRange{zero});
  rewriter.setInsertionPointToStart(then);
  Value v = rewriter.create<LLVM::LoadOp>(loc, type, ptr, align);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{v}, cont);
  rewriter.setInsertionPointToStart(cont);
  return cont->getArgument(0);
}

Value packedTruncF32(OpBuilder &b, Location loc, Type to, Value lo,
                     Value hi) {
  assert((to.isF16() || to.isBF16()) && "f16 or bf16");
  StringRef name =
      to.isF16() ? "llvm.nvvm.ff2f16x2.rn" : "llvm.nvvm.ff2bf16x2.rn";
  return b
      .create<LLVM::CallIntrinsicOp>(loc, VectorType::get({2}, to), name,
                                     ValueRange{hi, lo})
      .getResult(0);
}

Value Regs::load(Idx &ix, int64_t reg) {
  return ix.b.create<LLVM::LoadOp>(ix.loc, elem, ix.gep(base, elem, ix.c(reg)));
}
void Regs::store(Idx &ix, int64_t reg, Value v) {
  ix.b.create<LLVM::StoreOp>(ix.loc, v, ix.gep(base, elem, ix.c(reg)));
}
Value Regs::loadVec(Idx &ix, int64_t reg, int64_t len, Type to) {
  if (len == 1)
    return convert(ix, load(ix, reg), to);
  // f32 pairs to f16 / bf16: one packed cvt.rn.{f16,bf16}x2.f32 per pair
  // (the same rounding as two scalar ones). As an intrinsic it also keeps
  // LLVM from narrowing a select on the f32 values into one per 16-bit
  // half, which ptxas turns into byte permutes (PRMT) and selects per half.
  if (len % 2 == 0 && elem.isF32() && (to.isF16() || to.isBF16())) {
    OpBuilder &b = ix.b;
    auto pairAt = [&](int64_t i) -> Value {
      Value hi = load(ix, reg + i + 1); // loaded first, as always
      Value lo = load(ix, reg + i);
      return packedTruncF32(b, ix.loc, to, lo, hi);
    };
    if (len == 2)
      return pairAt(0);
    // Longer runs: the pairs as the 32-bit words of one vector.
    Type i32 = b.getI32Type();
    Value words =
        b.create<LLVM::UndefOp>(ix.loc, VectorType::get({len / 2}, i32));
    for (int64_t i = 0; i < len; i += 2)
      words = b.create<LLVM::InsertElementOp>(
          ix.loc, words, b.create<LLVM::BitcastOp>(ix.loc, i32, pairAt(i)),
          ix.c32(i / 2));
    return b.create<LLVM::BitcastOp>(ix.loc, VectorType::get({len}, to),
                                     words);
  }
  Value vec = ix.b.create<LLVM::UndefOp>(ix.loc, VectorType::get({len}, to));
  for (int64_t i = 0; i < len; ++i)
    vec = ix.b.create<LLVM::InsertElementOp>(
        ix.loc, vec, convert(ix, load(ix, reg + i), to), ix.c32(i));
  return vec;
}
void Regs::storeVec(Idx &ix, int64_t reg, int64_t len, Value v) {
  if (len == 1) {
    store(ix, reg, convert(ix, v, elem));
    return;
  }
  for (int64_t i = 0; i < len; ++i)
    store(ix, reg + i,
          convert(ix, ix.b.create<LLVM::ExtractElementOp>(ix.loc, v, ix.c32(i)),
                  elem));
}
Value Regs::convert(Idx &ix, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return ix.b.create<LLVM::FPTruncOp>(ix.loc, to, v);
  return ix.b.create<LLVM::FPExtOp>(ix.loc, to, v);
}

} // namespace mlir::gdn
