//===- CopyToNVVM.cpp - data movement and addressing to NVVM ---------------===//
//
// tile.copy and tile.async_copy: copies between global and shared memory
// move the vectors of the op's blocked thread mapping (cp.async for async
// copies); copies to or from a fragment walk the fragment's runs. Also the
// addressing ops: tile.view, tile.take and tile.narrow build and narrow
// global buffer descriptors, tile.load reads one element.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

struct ViewLowering : TilePattern<ViewOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getType());
    Type structTy = getTypeConverter()->convertType(type);
    Idx ix(rewriter, op.getLoc());
    Value desc = rewriter.create<LLVM::UndefOp>(op.getLoc(), structTy);
    desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc,
                                                adaptor.getPtr(), 0);
    unsigned dyn = 0;
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      Value v = ShapedType::isDynamic(size) ? adaptor.getSizes()[dyn++]
                                            : ix.c(size);
      sizes.push_back(v);
      desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc, v, d + 1);
    }
    Value stride = ix.c(1); // dense row-major
    for (int64_t d = rank - 1; d >= 0; --d) {
      desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc, stride,
                                                  rank + d + 1);
      stride = ix.mul(stride, sizes[d]);
    }
    rewriter.replaceOp(op, desc);
    return success();
  }
};

/// Copies between global and shared memory (no fragment): each thread moves
/// vectors of the op's blocked thread mapping; async copies use cp.async.
LogicalResult lowerMemToMemCopy(Operation *op, BufferType src, Value srcVal,
                                ValueRange srcOffsets, BufferType dst,
                                Value dstVal, ValueRange dstOffsets,
                                bool masked, Attribute layout, bool async,
                                ConversionPatternRewriter &rewriter) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!blocked)
    return op->emitOpError(
        "copy has no thread mapping; run tile-assign-layouts first");
  Location loc = op->getLoc();
  Idx ix(rewriter, loc);
  int64_t numThreads = numThreadsOf(op);
  ArrayRef<int64_t> shape = src.isGlobal() ? dst.getShape() : src.getShape();
  int64_t v = blocked.getVector();
  int64_t eb = src.getElementBytes();
  int64_t bytes = v * eb;
  if (async && bytes != 4 && bytes != 8 && bytes != 16)
    return op->emitOpError("cp.async moves 4, 8 or 16 bytes, but the thread "
                           "mapping gives ")
           << bytes;
  Value tid = ix.tid();
  BufferType gType = src.isGlobal() ? src : dst;
  BufferType sType = src.isGlobal() ? dst : src;
  Value gDesc = src.isGlobal() ? srcVal : dstVal;
  Value sBase = src.isGlobal() ? dstVal : srcVal;
  ValueRange gOffsets = src.isGlobal() ? srcOffsets : dstOffsets;
  GlobalView view(ix, gDesc, gType.getRank());
  Type elem = src.getElementType();
  Type vt = vecType(elem, v);
  // When every slot of a thread covers the same columns (the threads' vectors
  // span whole rows), slot s is slot 0 moved down s * rowsPerSlot rows: in
  // shared memory by a constant number of bytes (whole swizzle periods), so
  // the addresses are one per-thread base plus immediates instead of one
  // loop-invariant register pair per slot (which an unrolled pipelined loop
  // otherwise keeps live: 28 slots per chunk step in the GDN forward).
  SmallVector<Run> runs = blockedRuns(ix, shape, v, numThreads, tid);
  int64_t cols = shape.back();
  int64_t rowsPerSlot = (numThreads * v) % cols == 0 ? numThreads * v / cols : 0;
  int64_t swz = 0;
  if (auto s = dyn_cast_or_null<SwizzleAttr>(sType.getLayout()))
    swz = s.getBytes();
  int64_t rowBytes = swz ? swz : (cols + sType.getRowPadding()) * eb;
  // A group skew (#tile.padded<P, G, S>) adds S elements every G rows: a
  // step of whole groups is still constant.
  auto [groupRows, groupElems] = sType.getGroupSkew();
  // Every hardware swizzle repeats every 8 box rows (its XOR takes the
  // bits from 128 bytes up: rows % 8, rows / 2 % 4, rows / 4 % 2).
  bool uniformRows = shape.size() == 2 && rowsPerSlot > 0 &&
                     (swz == 0 || rowsPerSlot % 8 == 0) &&
                     (groupRows == 0 || rowsPerSlot % groupRows == 0);
  // In global memory slot s is slot 0 plus s times one row step, and its
  // row bound is slot 0's rows left minus s * rowsPerSlot (signed: the
  // rows left may be negative), so the per-slot values derive from
  // per-iteration ones instead of being loop-invariant registers.
  Value sOff0, gPtr0, rowStep, rowsLeft, colsOk;
  if (uniformRows && !runs.empty()) {
    ArrayRef<Value> c0 = runs.front().coord;
    sOff0 = sharedByteOffset(ix, sType, c0);
    gPtr0 = ix.gep(view.ptr, elem, view.linear(ix, gOffsets, c0));
    rowStep = ix.mul(view.strides[0], rowsPerSlot);
    if (masked) {
      Value first = ix.add(gOffsets[0], c0[0]);
      rowsLeft = rewriter.create<LLVM::SubOp>(loc, view.sizes[0], first);
      colsOk = ix.ule(ix.add(ix.add(gOffsets[1], c0[1]), v), view.sizes[1]);
    }
  }
  Value gPrev;
  for (auto [s, run] : llvm::enumerate(runs)) {
    Value gPtr, sOff, valid;
    if (uniformRows) {
      int64_t slotRows = static_cast<int64_t>(s) * rowsPerSlot;
      gPtr = s == 0 ? gPtr0 : ix.gep(gPrev, elem, rowStep);
      gPrev = gPtr;
      int64_t skewBytes =
          groupRows > 0 ? slotRows / groupRows * groupElems * eb : 0;
      sOff = s == 0 ? sOff0 : ix.add(sOff0, slotRows * rowBytes + skewBytes);
      if (masked)
        valid = ix.and_(rewriter.create<LLVM::ICmpOp>(
                            loc, LLVM::ICmpPredicate::sgt, rowsLeft,
                            ix.c(slotRows)),
                        colsOk);
    } else {
      gPtr = ix.gep(view.ptr, elem, view.linear(ix, gOffsets, run.coord));
      sOff = sharedByteOffset(ix, sType, run.coord);
      if (masked)
        valid = view.inBounds(ix, gOffsets, run.coord, v);
    }
    Value sPtr = ix.gep(sBase, rewriter.getI8Type(), sOff);
    if (async) {
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        // Always with a source size: NVVM then emits the instruction as
        // inline PTX, which takes a 32-bit shared address (LLVM 19 has no
        // pattern for the intrinsic with 32-bit shared pointers).
        Value cpSize = ix.c32(bytes);
        if (valid)
          cpSize = b.create<LLVM::SelectOp>(loc, valid, cpSize, ix.c32(0));
        b.create<NVVM::CpAsyncOp>(
            loc, sPtr, gPtr, static_cast<uint32_t>(bytes),
            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                        : NVVM::LoadCacheModifierKind::CA,
            cpSize);
      });
      continue;
    }
    if (src.isGlobal()) {
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Value val = emitMaskedLoad(rewriter, loc, valid, vt, gPtr, bytes);
        rewriter.create<LLVM::StoreOp>(loc, val, sPtr, bytes);
      });
    } else {
      emitGuarded(rewriter, loc, ix.and_(run.guard, valid), [&](OpBuilder &b) {
        Value val = b.create<LLVM::LoadOp>(loc, vt, sPtr, bytes);
        b.create<LLVM::StoreOp>(loc, val, gPtr, bytes);
      });
    }
  }
  return success();
}

/// An integer constant (LLVM or arith), if `v` is one.
std::optional<int64_t> constantOf(Value v) {
  if (std::optional<int64_t> c = Idx::constOf(v))
    return c;
  return getConstantIntValue(v);
}

/// `v` with single-input unrealized casts and reads of lowered descriptor
/// fields (an extractvalue of an insertvalue chain) looked through.
Value lookThrough(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(def)) {
      if (cast.getInputs().size() != 1)
        break;
      v = cast.getInputs()[0];
      continue;
    }
    auto extract = dyn_cast<LLVM::ExtractValueOp>(def);
    if (!extract)
      break;
    Value container = extract.getContainer(), found;
    while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
      if (insert.getPosition() == extract.getPosition()) {
        found = insert.getValue();
        break;
      }
      container = insert.getContainer();
    }
    if (!found)
      break;
    v = found;
  }
  return v;
}

/// How many low bits of `v` (an integer index) are zero by construction,
/// capped at 16: constants, products (the factors' zeros add up), left
/// shifts, sums (the smaller count), through casts and the fields of a
/// lowered view descriptor.
int64_t knownTrailingZeros(Value v) {
  constexpr int64_t kCap = 16;
  v = lookThrough(v);
  if (std::optional<int64_t> c = constantOf(v))
    return *c == 0 ? kCap
                   : std::min<int64_t>(kCap, llvm::countr_zero(
                                                 static_cast<uint64_t>(*c)));
  Operation *def = v.getDefiningOp();
  if (!def)
    return 0;
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp, LLVM::SExtOp,
          LLVM::ZExtOp>(def))
    return knownTrailingZeros(def->getOperand(0));
  if (isa<LLVM::MulOp, arith::MulIOp>(def))
    return std::min(kCap, knownTrailingZeros(def->getOperand(0)) +
                              knownTrailingZeros(def->getOperand(1)));
  if (isa<LLVM::ShlOp, arith::ShLIOp>(def)) {
    std::optional<int64_t> c = constantOf(def->getOperand(1));
    return std::min(kCap, knownTrailingZeros(def->getOperand(0)) +
                              (c && *c > 0 ? *c : 0));
  }
  if (isa<LLVM::AddOp, arith::AddIOp>(def))
    return std::min(knownTrailingZeros(def->getOperand(0)),
                    knownTrailingZeros(def->getOperand(1)));
  return 0;
}

/// Whether `v` (an index) is a multiple of two by construction.
bool isKnownEven(Value v) { return knownTrailingZeros(v) >= 1; }

/// The alignment in bytes a global pointer has by construction: a kernel
/// parameter is 16-byte aligned (the kernel ABI; gdn-run and
/// libgdn_runtime check it), a GEP keeps what its base and its offset
/// (elements times element bytes) both have; anything else counts as 1.
int64_t knownAlignment(Value ptr) {
  if (auto arg = dyn_cast<BlockArgument>(ptr))
    return arg.getOwner()->isEntryBlock() &&
                   isa<FunctionOpInterface>(arg.getOwner()->getParentOp())
               ? 16
               : 1;
  Value base = lookThrough(ptr);
  if (base != ptr)
    return knownAlignment(base);
  auto gep = ptr.getDefiningOp<LLVM::GEPOp>();
  if (!gep || gep.getIndices().size() != 1)
    return 1;
  Type elem = gep.getElemType();
  if (!elem.isIntOrFloat())
    return 1;
  int64_t elemBytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  auto index = gep.getIndices()[0];
  int64_t zeros = 0;
  if (auto v = dyn_cast<Value>(index))
    zeros = knownTrailingZeros(v);
  else if (auto attr = dyn_cast<IntegerAttr>(index))
    zeros = attr.getInt() == 0 ? 16 : llvm::countr_zero(
                                          static_cast<uint64_t>(attr.getInt()));
  int64_t offsetAlign =
      elemBytes << std::min<int64_t>(zeros, 4); // at least 16 when zeros >= 4
  return std::min({knownAlignment(gep.getBase()), offsetAlign, int64_t(16)});
}

/// The 8x8 atoms of an f32 mma accumulator fragment (either engine) as this
/// lane holds them: lane (g, t) = (lane / 4, lane % 4) has the pair (g, 2t),
/// (g, 2t + 1) of each atom, one unguarded run of two registers per atom.
struct AccumulatorAtoms {
  struct Atom {
    int64_t reg;   // the pair's first register
    Value row, col; // the atom's origin in the fragment
  };
  Value lane, g, t2; // lane, lane / 4, 2 (lane % 4)
  SmallVector<Atom> atoms;
};

/// Fails (emitting only dead index arithmetic) unless `frag` is a 2-D f32,
/// f16 or bf16 fragment with an mma layout whose runs are all unguarded
/// pairs.
FailureOr<AccumulatorAtoms> accumulatorAtoms(Operation *op, BufferType frag,
                                             Idx &ix) {
  // The distribution does not depend on the element type: a 16-bit
  // fragment in an mma layout (a wgmma register A operand) has the f32
  // accumulator's pairs, so the same atoms serve it (the moves convert).
  Type elem = frag.getElementType();
  if (!isa<MmaLayoutAttr>(frag.getLayout()) ||
      !(elem.isF32() || elem.isF16() || elem.isBF16()) || frag.getRank() != 2)
    return failure();
  Value tid = ix.tid();
  SmallVector<Run> runs = fragmentRuns(ix, frag, numThreadsOf(op), tid);
  if (llvm::any_of(runs, [](const Run &r) { return r.len != 2 || r.guard; }))
    return failure();
  AccumulatorAtoms a;
  a.lane = ix.rem(tid, 32);
  a.g = ix.div(a.lane, 4);
  a.t2 = ix.mul(ix.rem(a.lane, 4), 2);
  for (Run &run : runs)
    a.atoms.push_back({run.reg,
                       ix.b.create<LLVM::SubOp>(ix.loc, run.coord[0], a.g),
                       ix.b.create<LLVM::SubOp>(ix.loc, run.coord[1], a.t2)});
  return a;
}

/// Whether the accumulator `acc` moves to or from the shared tile `mem` by
/// x4 ldmatrix/stmatrix.trans: a rank-2 16-bit shared tile whose rows are
/// whole 16 bytes (the instructions address 16-byte rows), four atoms per
/// instruction.
bool quadTransposeFits(BufferType mem, const AccumulatorAtoms &acc) {
  return mem.getElementBytes() == 2 && mem.isShared() && mem.getRank() == 2 &&
         (mem.getShape()[1] * 2) % 16 == 0 && acc.atoms.size() % 4 == 0;
}

/// The shared address this lane gives an x4 ldmatrix/stmatrix.trans of the
/// four atoms from `first`: row lane % 8 of atom lane / 8, which in the
/// transposed tile is memory row atomCol + lane % 8 at column atomRow (16
/// bytes).
Value transposedQuadAddress(Idx &ix, const AccumulatorAtoms &acc,
                            size_t first, BufferType mem, Value memVal) {
  Value quad = ix.div(acc.lane, 8), row8 = ix.rem(acc.lane, 8);
  Value offset;
  for (int64_t k = 3; k >= 0; --k) {
    const AccumulatorAtoms::Atom &atom = acc.atoms[first + k];
    Value off = sharedByteOffset(ix, mem, {ix.add(atom.col, row8), atom.row});
    offset = offset ? ix.b.create<LLVM::SelectOp>(
                          ix.loc,
                          ix.b.create<LLVM::ICmpOp>(
                              ix.loc, LLVM::ICmpPredicate::eq, quad, ix.c(k)),
                          off, offset)
                    : off;
  }
  return ix.gep(memVal, ix.b.getI8Type(), offset);
}

/// movmatrix.trans of one b16 pair: lane (g, t) gives (X[g][2t],
/// X[g][2t + 1]) of an 8x8 16-bit matrix X and gets (X[2t][g],
/// X[2t + 1][g]).
Value moveMatrix(OpBuilder &b, Location loc, Value pair) {
  return emitInlineAsm(b, loc, b.getI32Type(), pair,
                       "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r",
                       /*hasSideEffects=*/true);
}

/// The same for a pair of 32-bit elements (as i32): their low halves and
/// their high halves move as two b16 matrices and are put back together,
/// bit for bit. Returns (X[2t][g], X[2t + 1][g]).
std::pair<Value, Value> moveMatrix32(OpBuilder &b, Location loc, Value x0,
                                     Value x1) {
  Type i32 = b.getI32Type();
  auto c = [&](uint32_t v) {
    return b.create<LLVM::ConstantOp>(loc, i32, b.getI32IntegerAttr(v))
        .getResult();
  };
  Value lowMask = c(0xffffu);
  Value highMask = c(0xffff0000u);
  Value sixteen = c(16);
  // (low of a, low of v) and (high of a, high of v) as b16 pairs (each op
  // made in its own statement: a fixed order of the emitted IR).
  auto lows = [&](Value a, Value v) -> Value {
    Value low = b.create<LLVM::AndOp>(loc, a, lowMask);
    Value up = b.create<LLVM::ShlOp>(loc, v, sixteen);
    return b.create<LLVM::OrOp>(loc, low, up);
  };
  auto highs = [&](Value a, Value v) -> Value {
    Value low = b.create<LLVM::LShrOp>(loc, a, sixteen);
    Value up = b.create<LLVM::AndOp>(loc, v, highMask);
    return b.create<LLVM::OrOp>(loc, low, up);
  };
  Value lo = moveMatrix(b, loc, lows(x0, x1));
  Value hi = moveMatrix(b, loc, highs(x0, x1));
  Value first = lows(lo, hi);
  return {first, highs(lo, hi)};
}

/// moveMatrix32 of a vector<2xi32> pair.
Value moveMatrix32(Idx &ix, Value pair) {
  OpBuilder &b = ix.b;
  Location loc = ix.loc;
  Value e0 = b.create<LLVM::ExtractElementOp>(loc, pair, ix.c32(0));
  Value e1 = b.create<LLVM::ExtractElementOp>(loc, pair, ix.c32(1));
  auto [x0, x1] = moveMatrix32(b, loc, e0, e1);
  Value moved = b.create<LLVM::UndefOp>(loc, pair.getType());
  moved = b.create<LLVM::InsertElementOp>(loc, moved, x0, ix.c32(0));
  return b.create<LLVM::InsertElementOp>(loc, moved, x1, ix.c32(1));
}

/// Whether the element pairs of a transposed accumulator copy are whole
/// aligned accesses of `view` (elements of `elemBytes`): the tile's first
/// element aligned to a pair, even row stride and column offset, and when
/// masked an even column extent (a pair is moved whole or not at all).
bool pairsAligned(const GlobalView &view, ValueRange memOffsets,
                  int64_t elemBytes, bool masked) {
  return knownAlignment(view.ptr) >= 2 * elemBytes &&
         isKnownEven(view.strides[0]) && isKnownEven(memOffsets[1]) &&
         (!masked || isKnownEven(view.sizes[1]));
}

/// A transposed store of an f32 mma accumulator (either engine) into a 2-D
/// 16-bit or f32 global or (whole, no offsets) shared tile. In the
/// accumulator every warp holds 8x8
/// atoms, lane (g, t) = (lane / 4, lane % 4) the pair (g, 2t), (g, 2t + 1)
/// of each; movmatrix.trans gives lane (g, t) the pair (2t, g), (2t + 1, g)
/// instead, which is two consecutive elements of memory row atomCol + g:
/// one 4-byte (16-bit tile: one movmatrix of the pair) or 8-byte (f32
/// tile: one movmatrix for the low halves, one for the high halves) store
/// and one bounds check per pair instead of two single-element ones. Needs
/// the tile's first element aligned to the pair and its row stride and
/// column offset even, all proven from the index arithmetic (kernel
/// parameters are 16-byte aligned by the ABI), and, when masked, an even
/// column extent; returns failure where that is not known or the fragment
/// is not an mma accumulator, so that the caller moves single elements (an
/// emitted index computation may be left dead). In shared memory a pair
/// stays contiguous under every layout (rows are 16-byte aligned, padding
/// adds whole 16-byte steps, swizzles move 16-byte chunks), so only the
/// element size is checked there.
LogicalResult lowerTransposedAccumulatorStore(
    CopyOp op, BufferType frag, BufferType mem, Value memVal,
    ValueRange memOffsets, Regs regs, ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Idx ix(rewriter, loc);
  int64_t eb = mem.getElementBytes();
  bool f32 = mem.getElementType().isF32();
  if ((eb != 2 && !f32) || mem.getRank() != 2)
    return failure();
  std::optional<GlobalView> view;
  if (mem.isGlobal()) {
    if (!hasContiguousInnermost(op.getDest()))
      return failure();
    view.emplace(ix, memVal, 2);
    if (!pairsAligned(*view, memOffsets, eb, op.getMasked()))
      return failure();
  } else if (!mem.isShared() || !memOffsets.empty()) {
    return failure();
  }
  FailureOr<AccumulatorAtoms> acc = accumulatorAtoms(op, frag, ix);
  if (failed(acc))
    return failure();
  Type memElem = mem.getElementType();
  Type i32 = rewriter.getI32Type();
  auto i32x2 = VectorType::get({2}, i32);
  if (!view && quadTransposeFits(mem, *acc)) {
    // A 16-bit shared tile with whole 16-byte rows: stmatrix.trans stores
    // four atoms per instruction, the mirror of the ldmatrix.trans load
    // below. Atom k's column j is memory row atomCol + j, the 16 bytes at
    // columns atomRow..atomRow + 7, whose address lane 8k + j gives; each
    // lane passes its (g, 2t), (g, 2t + 1) pair of every atom unmoved.
    for (size_t first = 0; first < acc->atoms.size(); first += 4) {
      SmallVector<Value, 4> pairs;
      for (int64_t k = 0; k < 4; ++k)
        pairs.push_back(rewriter.create<LLVM::BitcastOp>(
            loc, i32, regs.loadVec(ix, acc->atoms[first + k].reg, 2, memElem)));
      Value ptr = transposedQuadAddress(ix, *acc, first, mem, memVal);
      rewriter.create<NVVM::StMatrixOp>(loc, ptr, pairs, NVVM::MMALayout::col);
    }
    return success();
  }
  for (AccumulatorAtoms::Atom &atom : acc->atoms) {
    Value moved;
    if (f32) {
      moved = moveMatrix32(ix, rewriter.create<LLVM::BitcastOp>(
                                   loc, i32x2,
                                   regs.loadVec(ix, atom.reg, 2, memElem)));
    } else {
      Value pair = rewriter.create<LLVM::BitcastOp>(
          loc, i32, regs.loadVec(ix, atom.reg, 2, memElem));
      moved = moveMatrix(rewriter, loc, pair);
    }
    SmallVector<Value> coord = {ix.add(atom.col, acc->g),
                                ix.add(atom.row, acc->t2)};
    Value ptr, valid;
    if (view) {
      ptr = ix.gep(view->ptr, memElem, view->linear(ix, memOffsets, coord));
      if (op.getMasked())
        valid = view->inBounds(ix, memOffsets, coord, 2);
    } else {
      ptr = ix.gep(memVal, rewriter.getI8Type(),
                   sharedByteOffset(ix, mem, coord));
    }
    emitGuarded(rewriter, loc, valid, [&](OpBuilder &b) {
      b.create<LLVM::StoreOp>(loc, moved, ptr, /*alignment=*/2 * eb);
    });
  }
  return success();
}

/// A transposed load of a 2-D f32 global tile into an f32 mma accumulator
/// (either engine): the mirror of the store above. Lane (g, t) loads the
/// pair at memory row atomCol + g, columns atomRow + 2t.. (8 bytes, one
/// bounds check), which is the atom's (2t, g), (2t + 1, g); one movmatrix
/// per 16-bit half turns it into the accumulator's (g, 2t), (g, 2t + 1).
/// Same conditions as the store; a masked pair outside the view reads as
/// zeros.
LogicalResult lowerTransposedAccumulatorGlobalLoad(
    CopyOp op, BufferType frag, BufferType mem, Value memVal,
    ValueRange memOffsets, Regs regs, ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Idx ix(rewriter, loc);
  if (!mem.getElementType().isF32() || !mem.isGlobal() ||
      mem.getRank() != 2 || !hasContiguousInnermost(op.getSource()))
    return failure();
  GlobalView view(ix, memVal, 2);
  if (!pairsAligned(view, memOffsets, 4, op.getMasked()))
    return failure();
  FailureOr<AccumulatorAtoms> acc = accumulatorAtoms(op, frag, ix);
  if (failed(acc))
    return failure();
  auto i32x2 = VectorType::get({2}, rewriter.getI32Type());
  auto f32x2 = VectorType::get({2}, rewriter.getF32Type());
  for (AccumulatorAtoms::Atom &atom : acc->atoms) {
    SmallVector<Value> coord = {ix.add(atom.col, acc->g),
                                ix.add(atom.row, acc->t2)};
    Value ptr = ix.gep(view.ptr, mem.getElementType(),
                       view.linear(ix, memOffsets, coord));
    Value valid;
    if (op.getMasked())
      valid = view.inBounds(ix, memOffsets, coord, 2);
    Value pair = emitMaskedLoad(rewriter, loc, valid, i32x2, ptr, 8);
    Value moved = moveMatrix32(ix, pair);
    regs.storeVec(ix, atom.reg, 2,
                  rewriter.create<LLVM::BitcastOp>(loc, f32x2, moved));
  }
  return success();
}

/// A transposed load of a 2-D 16-bit shared tile into an f32 mma accumulator
/// fragment (either engine): the fragment's 8x8 atom at (atomRow, atomCol)
/// is the shared block at rows atomCol.., columns atomRow.., and
/// ldmatrix.trans of that block gives lane (g, t) exactly the atom's pair
/// (g, 2t), (g, 2t + 1). Four atoms per ldmatrix.x4 (lanes 8k..8k+7 address
/// the rows of atom k): one instruction per four pairs instead of eight
/// 2-byte loads. Returns failure (possibly leaving dead index arithmetic)
/// unless every run of the fragment is an unguarded pair and their number
/// is a multiple of four.
LogicalResult lowerTransposedAccumulatorLoad(CopyOp op, BufferType frag,
                                             BufferType mem, Value memVal,
                                             Regs regs,
                                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Idx ix(rewriter, loc);
  if (mem.getElementBytes() != 2 || !mem.isShared() || mem.getRank() != 2)
    return failure();
  FailureOr<AccumulatorAtoms> acc = accumulatorAtoms(op, frag, ix);
  if (failed(acc) || !quadTransposeFits(mem, *acc))
    return failure();
  Type i32 = rewriter.getI32Type();
  auto x4 = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                             {i32, i32, i32, i32});
  auto halfType = VectorType::get({2}, mem.getElementType());
  for (size_t first = 0; first < acc->atoms.size(); first += 4) {
    Value ptr = transposedQuadAddress(ix, *acc, first, mem, memVal);
    Value res = rewriter.create<NVVM::LdMatrixOp>(loc, x4, ptr, 4,
                                                  NVVM::MMALayout::col);
    for (int64_t k = 0; k < 4; ++k) {
      Value pair = rewriter.create<LLVM::BitcastOp>(
          loc, halfType, rewriter.create<LLVM::ExtractValueOp>(loc, res, k));
      regs.storeVec(ix, acc->atoms[first + k].reg, 2, pair);
    }
  }
  return success();
}

struct AsyncCopyLowering : TilePattern<AsyncCopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(lowerMemToMemCopy(
            op, cast<BufferType>(op.getSource().getType()),
            adaptor.getSource(), adaptor.getSourceOffsets(),
            cast<BufferType>(op.getDest().getType()), adaptor.getDest(), {},
            op.getMasked(), op.getLayoutAttr(), /*async=*/true, rewriter)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct CopyLowering : TilePattern<CopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<BufferType>(op.getSource().getType());
    auto dst = cast<BufferType>(op.getDest().getType());
    if (!src.isFragment() && !dst.isFragment()) {
      if (failed(lowerMemToMemCopy(op, src, adaptor.getSource(),
                                   adaptor.getSourceOffsets(), dst,
                                   adaptor.getDest(), adaptor.getDestOffsets(),
                                   op.getMasked(), op.getLayoutAttr(),
                                   /*async=*/false, rewriter)))
        return failure();
      rewriter.eraseOp(op);
      return success();
    }
    if (src.isFragment() && dst.isFragment())
      return op.emitOpError("fragment to fragment copies are not supported");
    // One side is a fragment: walk its runs.
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    bool load = dst.isFragment();
    BufferType frag = load ? dst : src;
    BufferType mem = load ? src : dst;
    Value memVal = load ? adaptor.getSource() : adaptor.getDest();
    ValueRange memOffsets =
        load ? adaptor.getSourceOffsets() : adaptor.getDestOffsets();
    Regs regs{load ? adaptor.getDest() : adaptor.getSource(),
              frag.getElementType()};
    if (!frag.getLayout())
      return op.emitOpError(
          "fragment has no layout; run tile-assign-layouts first");
    Type memElem = mem.getElementType();
    int64_t eb = mem.getElementBytes();
    Value tid = ix.tid();
    // diagonal: each element (i, i) the thread holds, alone, to [i] of
    // the 1-D shared buffer (the verifier checked the shapes).
    if (op.getDiagonal()) {
      for (Run &run : fragmentRuns(ix, frag, numThreadsOf(op), tid)) {
        for (int64_t e = 0; e < run.len; ++e) {
          Value col = ix.add(run.coord[1], e);
          Value onDiag = rewriter.create<LLVM::ICmpOp>(
              loc, LLVM::ICmpPredicate::eq, run.coord[0], col);
          Value ptr = ix.gep(memVal, rewriter.getI8Type(),
                             sharedByteOffset(ix, mem, {run.coord[0]}));
          emitGuarded(rewriter, loc, ix.and_(run.guard, onDiag),
                      [&](OpBuilder &b) {
                        Idx bx(b, loc);
                        Value val = regs.loadVec(bx, run.reg + e, 1, memElem);
                        b.create<LLVM::StoreOp>(loc, val, ptr, eb);
                      });
        }
      }
      rewriter.eraseOp(op);
      return success();
    }
    std::optional<GlobalView> view;
    if (mem.isGlobal())
      view.emplace(ix, memVal, mem.getRank());
    // A strided innermost dimension is moved one element at a time, and so
    // is a transposed tile (a run along the fragment's row is a column of
    // memory), whose coordinates are swapped into memory order.
    bool transpose = op.getTranspose();
    // A sub-tile of a shared buffer (shared offsets): the generic path
    // below, with the offsets added to every run's coordinates.
    bool sharedSubTile = mem.isShared() && !memOffsets.empty();
    // With block_lower, a transposed copy moves single elements (the
    // generic path below, which checks the blocks in memory coordinates):
    // lane (g, t) of an mma accumulator then stores its elements (g, 2 t +
    // e) at memory (2 t + e, g), and into f32 rows of 4 (mod 32) words of
    // stride (#tile.padded<4>) that is banks 8 t + 4 e + g, one wavefront
    // per warp-wide store, where the fragment's own 8-byte pairs (or the
    // movmatrix pairs of the paths below) conflict two ways. (Measured on
    // the GDN prep's symmetric Gram matrix stored into L: bit-identical,
    // 4 % fewer shared wavefronts, 2.5 % more instructions, no faster;
    // docs/perf-notes.md v39.)
    bool elementwise = transpose && op.getBlockLower();
    if (transpose && load && !sharedSubTile && !elementwise &&
        (succeeded(lowerTransposedAccumulatorLoad(op, frag, mem, memVal, regs,
                                                  rewriter)) ||
         succeeded(lowerTransposedAccumulatorGlobalLoad(
             op, frag, mem, memVal, memOffsets, regs, rewriter)))) {
      rewriter.eraseOp(op);
      return success();
    }
    if (transpose && !load && !sharedSubTile && !elementwise &&
        succeeded(lowerTransposedAccumulatorStore(op, frag, mem, memVal,
                                                  memOffsets, regs,
                                                  rewriter))) {
      rewriter.eraseOp(op);
      return success();
    }
    bool contiguous =
        !transpose && (!mem.isGlobal() ||
                       hasContiguousInnermost(load ? op.getSource()
                                                   : op.getDest()));
    SmallVector<Run> runs;
    for (Run &run : fragmentRuns(ix, frag, numThreadsOf(op), tid)) {
      if (contiguous || run.len == 1) {
        runs.push_back(run);
      } else {
        for (int64_t i = 0; i < run.len; ++i) {
          Run one = run;
          one.reg = run.reg + i;
          one.len = 1;
          one.coord.back() = ix.add(run.coord.back(), i);
          runs.push_back(one);
        }
      }
    }
    if (transpose)
      for (Run &run : runs)
        std::swap(run.coord[0], run.coord[1]);
    // A store to global memory with an L2 eviction priority: one policy
    // for all its runs (single bytes go without it; the transposed
    // accumulator stores above take none).
    Value policy;
    if (std::optional<L2Hint> hint = op.getL2Hint(); hint && !load && view)
      policy = emitL2Policy(rewriter, loc, *hint);
    for (Run &run : runs) {
      Value ptr, valid;
      if (view) {
        ptr = ix.gep(view->ptr, memElem,
                     view->linear(ix, memOffsets, run.coord));
        if (op.getMasked())
          valid = view->inBounds(ix, memOffsets, run.coord, run.len);
      } else {
        SmallVector<Value> coord(run.coord);
        for (auto [d, off] : llvm::enumerate(memOffsets))
          coord[d] = ix.add(coord[d], off);
        ptr = ix.gep(memVal, rewriter.getI8Type(),
                     sharedByteOffset(ix, mem, coord));
      }
      Type vt = vecType(memElem, run.len);
      int64_t align = run.len * eb;
      // block_diagonal = K (stores) or block_lower = K: only runs in the
      // diagonal K x K blocks, or in those on and below the diagonal (a run
      // never straddles two blocks: K is a multiple of its length, checked
      // here, and runs start at multiples of their length); a load gives the
      // others zeros.
      std::optional<int64_t> blockDiag = op.getBlockDiagonal();
      std::optional<int64_t> k = blockDiag;
      if (!k)
        k = op.getBlockLower();
      if (k) {
        if (*k % run.len != 0)
          return op.emitOpError(blockDiag ? "block_diagonal = "
                                          : "block_lower = ")
                 << *k << " is not a multiple of the layout's runs ("
                 << run.len << " elements)";
        Value inside = rewriter.create<LLVM::ICmpOp>(
            loc,
            blockDiag ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::uge,
            ix.div(run.coord[0], *k), ix.div(run.coord[1], *k));
        valid = ix.and_(valid, inside);
      }
      if (load) {
        emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          Value val = emitMaskedLoad(rewriter, loc, valid, vt, ptr, align);
          regs.storeVec(bx, run.reg, run.len, val);
        });
      } else {
        emitGuarded(rewriter, loc, ix.and_(run.guard, valid),
                    [&](OpBuilder &b) {
                      Idx bx(b, loc);
                      Value val = regs.loadVec(bx, run.reg, run.len, memElem);
                      if (!policy ||
                          !emitStoreWithL2Policy(b, loc, val, ptr, policy))
                        b.create<LLVM::StoreOp>(loc, val, ptr, align);
                    });
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TakeLowering : TilePattern<TakeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcT = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    GlobalView view(ix, adaptor.getSource(), srcT.getRank());
    Value offset = ix.c(0);
    for (auto [d, i] : llvm::zip(op.getDims(), adaptor.getIndices()))
      offset = ix.add(offset, ix.mul(i, view.strides[d]));
    Value ptr = ix.gep(view.ptr, srcT.getElementType(), offset);
    Type resT = getTypeConverter()->convertType(op.getType());
    Value desc = rewriter.create<LLVM::UndefOp>(loc, resT);
    desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, ptr, 0);
    int64_t resRank = srcT.getRank() - op.getDims().size();
    int64_t k = 0;
    for (int64_t d = 0; d < srcT.getRank(); ++d) {
      if (llvm::is_contained(op.getDims(), d))
        continue;
      desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, view.sizes[d],
                                                  k + 1);
      desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, view.strides[d],
                                                  resRank + k + 1);
      ++k;
    }
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct NarrowLowering : TilePattern<NarrowOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(NarrowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcT = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t dim = op.getDim();
    GlobalView view(ix, adaptor.getSource(), srcT.getRank());
    Value ptr = ix.gep(view.ptr, srcT.getElementType(),
                       ix.mul(adaptor.getStart(), view.strides[dim]));
    Value desc = rewriter.create<LLVM::InsertValueOp>(loc, adaptor.getSource(),
                                                      ptr, 0);
    desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, adaptor.getSize(),
                                                dim + 1);
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct LoadLowering : TilePattern<LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    SmallVector<Value> coord(adaptor.getIndices());
    Value ptr;
    if (t.isShared()) {
      ptr = ix.gep(adaptor.getSource(), rewriter.getI8Type(),
                   sharedByteOffset(ix, t, coord));
    } else {
      GlobalView view(ix, adaptor.getSource(), t.getRank());
      SmallVector<Value> zeros(t.getRank(), ix.c(0));
      ptr = ix.gep(view.ptr, t.getElementType(),
                   view.linear(ix, zeros, coord));
    }
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, t.getElementType(), ptr);
    return success();
  }
};

/// tile.prefetch: units of the tile dealt round-robin to the block's
/// threads (a static count, so each thread's loop is unrolled): with a
/// contiguous innermost dimension each row's run of n elements is
/// ceil(n * eb / 128) + 1 units, unit k at byte min(128 k, n eb - 1) of the
/// run (the first byte of each 128 and the last: every line the run
/// touches, wherever it starts); otherwise one unit per element. A unit
/// whose row (index along dimension 0) lies past the buffer's extent is
/// skipped. Each is one `prefetch.global.L2`.
struct PrefetchLowering : TilePattern<PrefetchOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(PrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    const int64_t rank = type.getRank();
    ArrayRef<int64_t> shape = op.getShape();
    const int64_t eb = type.getElementBytes();
    const int64_t n = shape.back();
    const bool contiguous = hasContiguousInnermost(op.getSource());
    // Units per row (contiguous runs) or elements per row.
    const int64_t perRow = op.getUnitsPerRow();
    const int64_t units = op.getNumRows() * perRow;
    const int64_t threads = numThreadsOf(op);
    GlobalView view(ix, adaptor.getSource(), rank);
    SmallVector<Value> offsets(adaptor.getOffsets());
    Value tid = ix.tid();
    Value extent = view.sizes[0];
    for (int64_t first = 0; first < units; first += threads) {
      // Unit u = first + tid: row u / perRow, unit k = u % perRow.
      Value u = ix.add(tid, first);
      Value inUnits = ix.ult(u, ix.c(units));
      Value row = ix.div(u, perRow);
      Value k = ix.rem(u, perRow);
      // The row's coordinates (all dimensions but the innermost).
      SmallVector<Value> coord(rank);
      Value rest = row;
      for (int64_t d = rank - 2; d >= 0; --d) {
        coord[d] = ix.rem(rest, shape[d]);
        rest = ix.div(rest, shape[d]);
      }
      Value col = contiguous ? ix.c(0) : k;
      coord[rank - 1] = col;
      Value firstRow = rank > 1 ? coord[0] : col;
      Value valid =
          ix.and_(inUnits, ix.ult(ix.add(offsets[0], firstRow), extent));
      Value elemPtr = ix.gep(view.ptr, type.getElementType(),
                             view.linear(ix, offsets, coord));
      Value ptr = elemPtr;
      if (contiguous) {
        // Byte min(128 k, last) of the run, last = n eb - 1, or for a 1-D
        // buffer (whose run is along dimension 0) the last byte inside it.
        Value last = ix.c(n * eb - 1);
        if (rank == 1) {
          Value left = rewriter.create<LLVM::SubOp>(loc, extent, offsets[0]);
          Value inside = rewriter.create<LLVM::SelectOp>(
              loc, ix.ult(left, ix.c(n)), left, ix.c(n));
          last = rewriter.create<LLVM::SubOp>(loc, ix.mul(inside, eb), ix.c(1));
        }
        Value byte = ix.mul(k, 128);
        Value over = ix.ult(last, byte);
        byte = rewriter.create<LLVM::SelectOp>(loc, over, last, byte);
        ptr = ix.gep(elemPtr, rewriter.getI8Type(), byte);
      }
      emitGuarded(rewriter, loc, valid, [&](OpBuilder &b) {
        emitInlineAsm(b, loc, LLVM::LLVMVoidType::get(b.getContext()),
                      ValueRange{ptr}, "prefetch.global.L2 [$0];", "l",
                      /*hasSideEffects=*/true);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.zero_tail: the block's threads share the buffer in groups of up to
/// 16 bytes along the innermost dimension (one element for a 1-D buffer,
/// whose "rows" are its elements); a thread stores zeros to each of its
/// groups whose row (index along dimension 0) is at least `from`. The
/// swizzle moves 16-byte units only, so every group stays contiguous. Each
/// thread then fences its stores against the async proxy
/// (fence.proxy.async.shared::cta): the buffer is a TMA ring stage, which
/// the next TMA load overwrites and wgmma may read.
struct ZeroTailLowering : TilePattern<ZeroTailOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ZeroTailOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getDest().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = type.getRank();
    int64_t eb = type.getElementBytes();
    int64_t inner = shape.back();
    int64_t vec = rank == 1 ? 1 : std::max<int64_t>(1, 16 / eb);
    while (vec > 1 && inner % vec != 0)
      vec /= 2;
    int64_t rowElems = 1;
    for (int64_t d = 1; d < rank; ++d)
      rowElems *= shape[d];
    int64_t groupsPerRow = rowElems / vec;
    int64_t groups = shape[0] * groupsPerRow;
    int64_t numThreads = numThreadsOf(op);
    Type store = vecType(type.getElementType(), vec);
    Value zero = rewriter.create<LLVM::ZeroOp>(loc, store);
    Value from = adaptor.getFrom();
    Value tid = ix.tid();
    for (int64_t k = 0; k * numThreads < groups; ++k) {
      Value g = ix.add(tid, k * numThreads);
      Value row = ix.div(g, groupsPerRow);
      Value cond = rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::sge,
                                                 row, from);
      if ((k + 1) * numThreads > groups)
        cond = ix.and_(cond, ix.ult(g, ix.c(groups)));
      emitGuarded(rewriter, loc, cond, [&](OpBuilder &b) {
        Idx bx(b, loc);
        SmallVector<Value> coord(rank);
        coord[0] = bx.div(g, groupsPerRow);
        Value rest = bx.mul(bx.rem(g, groupsPerRow), vec);
        for (int64_t d = rank - 1; d >= 1; --d) {
          coord[d] = d == 1 ? rest : bx.rem(rest, shape[d]);
          if (d > 1)
            rest = bx.div(rest, shape[d]);
        }
        Value ptr = bx.gep(adaptor.getDest(), b.getI8Type(),
                           sharedByteOffset(bx, type, coord));
        b.create<LLVM::StoreOp>(loc, zero, ptr, /*alignment=*/vec * eb);
      });
    }
    createAsyncProxyFence(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateCopyToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<ViewLowering, CopyLowering, AsyncCopyLowering, TakeLowering,
               NarrowLowering, LoadLowering, ZeroTailLowering,
               PrefetchLowering>(converter);
}

} // namespace mlir::gdn
