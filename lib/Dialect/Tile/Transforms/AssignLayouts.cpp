//===- AssignLayouts.cpp - distribute tiles over warps and threads ---------===//
//
// Thread distribution of a tile kernel: chooses the mma warp grid of every
// gemm accumulator, propagates it through elementwise maps, gives every other
// fragment a blocked layout, swizzles the shared operands of gemms, picks the
// vector width of global<->shared copies and provides reduction scratch.
//
//===----------------------------------------------------------------------===//

#include "Divisibility.h"
#include "RingUtils.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// Widest power-of-two vector (at most 16 bytes) dividing `inner`.
int64_t chooseVector(int64_t inner, int64_t elemBytes) {
  int64_t v = std::max<int64_t>(1, 16 / elemBytes);
  while (v > 1 && inner % v != 0)
    v /= 2;
  return v;
}

/// The manifest name of the kernel's integer argument that `v` is (through
/// integer casts): its `tile.name`, else `argN`; "" for anything else.
std::string scalarArgName(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
             arith::ExtUIOp>(def))
      return "";
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getBody().front() ||
      !arg.getType().isIntOrIndex())
    return "";
  auto name = func.getArgAttrOfType<StringAttr>(
      arg.getArgNumber(), TileDialect::getArgNameAttrName());
  return name ? name.str() : "arg" + std::to_string(arg.getArgNumber());
}

/// What a copy's accesses of `width` elements to or from the global buffer
/// `global` (innermost offset `offsets.back()`) need of its alignment:
/// every row start must be a multiple of the access width. The facts come
/// from the root view's row length (its innermost size), the innermost
/// offsets of the narrows on the way and of the copy: constants and
/// provable multiples (knownMultiple) are checked here; a dynamic one that
/// is a named integer kernel argument becomes a launch requirement
/// (`requires`: name -> multiple, checked by the launcher from the
/// manifest's requires_multiple lines). Returns the largest width <=
/// `width` that the remaining facts allow (`width` when all hold).
int64_t alignedWidth(Value global, ValueRange offsets, int64_t width,
                     llvm::StringMap<int64_t> &requires) {
  int64_t v = width;
  // Arguments that must be multiples of the final width (recorded once the
  // other facts have narrowed it).
  SmallVector<std::string> required;
  auto fact = [&](Value q) {
    if (!q || v == 1)
      return;
    int64_t m = knownMultiple(q);
    if (m % v == 0)
      return;
    if (std::optional<int64_t> c = getConstantIntValue(q); !c) {
      std::string name = scalarArgName(q);
      if (!name.empty()) {
        required.push_back(name);
        return;
      }
    }
    while (v > 1 && m % v != 0)
      v /= 2;
  };
  if (!offsets.empty())
    fact(offsets.back());
  Value root = global;
  while (Operation *def = root.getDefiningOp()) {
    if (auto take = dyn_cast<TakeOp>(def)) {
      root = take.getSource();
    } else if (auto narrow = dyn_cast<NarrowOp>(def)) {
      auto type = cast<BufferType>(narrow.getSource().getType());
      // Along the innermost dimension both the start and the extent: a
      // masked access keeps a vector only when all of it is in bounds.
      if (static_cast<int64_t>(narrow.getDim()) == type.getRank() - 1) {
        fact(narrow.getStart());
        fact(narrow.getSize());
      }
      root = narrow.getSource();
    } else {
      break;
    }
  }
  if (auto view = root.getDefiningOp<ViewOp>()) {
    auto type = cast<BufferType>(view.getType());
    int64_t rowElems = type.getShape().back();
    if (!ShapedType::isDynamic(rowElems)) {
      while (v > 1 && rowElems % v != 0)
        v /= 2;
    } else {
      // The dynamic sizes are the view's operands, in order: the innermost
      // is the last.
      fact(view.getSizes().back());
    }
  }
  if (v > 1)
    for (const std::string &name : required) {
      int64_t &need = requires[name];
      need = std::max(need, v);
    }
  return v;
}

/// The vector width of a copy moving `inner` contiguous elements per tile
/// row to or from the global buffer `global` (no fragment): chooseVector of
/// the tile, narrowed to what alignedWidth proves or requires. 1 for a
/// strided innermost dimension.
int64_t copyVector(Value global, ValueRange offsets, int64_t inner,
                   int64_t elemBytes, llvm::StringMap<int64_t> &requires) {
  if (!hasContiguousInnermost(global))
    return 1;
  return alignedWidth(global, offsets, chooseVector(inner, elemBytes),
                      requires);
}

/// A small union-find over fragment values.
struct FragmentClasses {
  DenseMap<Value, Value> parent;
  void insert(Value v) { parent.try_emplace(v, v); }
  bool contains(Value v) const { return parent.count(v); }
  Value getLeaderValue(Value v) {
    Value p = parent.lookup(v);
    if (p == v)
      return v;
    Value root = getLeaderValue(p);
    parent[v] = root;
    return root;
  }
  void unionSets(Value a, Value b) {
    Value ra = getLeaderValue(a), rb = getLeaderValue(b);
    if (ra != rb)
      parent[rb] = ra;
  }
};

struct AssignLayoutsPass
    : impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  void runOnOperation() override;
};

void AssignLayoutsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (!func->hasAttr(TileDialect::getKernelAttrName()))
    return;
  if (overlapTrilInverse > 2) {
    func.emitError("tile-assign-layouts: overlap-tril-inverse must be 0, 1 "
                   "or 2, got ")
        << static_cast<unsigned>(overlapTrilInverse);
    return signalPassFailure();
  }
  // The kernel's own choice (verified to be 0, 1 or 2) over the option's.
  unsigned overlapMode = overlapTrilInverse;
  if (auto a = func->getAttrOfType<IntegerAttr>(
          TileDialect::getOverlapTrilInverseAttrName()))
    overlapMode = a.getInt();
  MLIRContext *ctx = &getContext();

  // Fragments that must share one layout: the operands of each tile.map.
  FragmentClasses classes;
  func.walk([&](AllocOp alloc) {
    if (cast<BufferType>(alloc.getType()).isFragment())
      classes.insert(alloc.getResult());
  });
  // A scan's source and destination share one layout too.
  func.walk([&](ScanOp scan) {
    if (classes.contains(scan.getSource()) && classes.contains(scan.getDest()))
      classes.unionSets(scan.getSource(), scan.getDest());
  });
  func.walk([&](MapOp map) {
    Value first;
    for (Value v : map->getOperands()) {
      if (!classes.contains(v))
        continue;
      if (!first)
        first = v;
      else
        classes.unionSets(first, v);
    }
  });

  // Each class's layout: mma if it holds a gemm accumulator.
  DenseMap<Value, Attribute> classLayout;
  auto setClassLayout = [&](Value v, Attribute layout,
                            Operation *why) -> LogicalResult {
    Value leader = classes.getLeaderValue(v);
    auto [it, inserted] = classLayout.try_emplace(leader, layout);
    if (!inserted && it->second != layout)
      return why->emitOpError("needs layout ")
             << layout << " but the fragment already has " << it->second;
    return success();
  };

  // Layouts already present constrain their class.
  WalkResult preset = func.walk([&](AllocOp alloc) {
    auto type = cast<BufferType>(alloc.getType());
    if (type.isFragment() && type.getLayout() &&
        failed(setClassLayout(alloc.getResult(), type.getLayout(), alloc)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (preset.wasInterrupted())
    return signalPassFailure();

  // A register operand A (wgmma RS) has the accumulator's layout: its
  // registers are exactly the wgmma A fragment of each k-slice.
  auto shareWithA = [&](GemmOp gemm, Attribute layout) -> LogicalResult {
    Value a = gemm.getA();
    if (!cast<BufferType>(a.getType()).isFragment())
      return success();
    auto mma = dyn_cast<MmaLayoutAttr>(layout);
    if (!mma || mma.getEngine() != MmaEngine::Wgmma)
      return gemm.emitOpError("a fragment A (register operand) needs the "
                              "wgmma engine (tile.mma_engine = \"wgmma\")");
    if (mma.getWarps()[1] != 1)
      return gemm.emitOpError("a fragment A (register operand) needs every "
                              "warpgroup along M (warps [4k, 1]): with "
                              "warpgroups splitting N each would need all of "
                              "A's columns");
    if (!classes.contains(a))
      return gemm.emitOpError("a fragment A must be a tile.alloc fragment");
    return setClassLayout(a, layout, gemm);
  };
  WalkResult result = func.walk([&](GemmOp gemm) {
    Value c = gemm.getC();
    auto ct = cast<BufferType>(c.getType());
    if (ct.getLayout()) {
      if (failed(shareWithA(gemm, ct.getLayout())))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (!classes.contains(c)) {
      gemm.emitOpError("accumulator must be a tile.alloc fragment");
      return WalkResult::interrupt();
    }
    // The warps and engine of the gemm: the kernel's, or those of the
    // tile.producer_task around it.
    int64_t numWarps = getWarpsAt(gemm).value_or(0);
    bool wgmma = getMmaEngineAt(gemm) == "wgmma";
    std::optional<std::pair<int64_t, int64_t>> grid;
    if (wgmma) {
      // One m64 block per warpgroup along M, 16 rows per warp; the
      // warpgroups left over split N (each issues m64 x N/wn).
      int64_t m = ct.getShape()[0], n = ct.getShape()[1];
      int64_t wm = m / 16;
      if (numWarps % 4 != 0 || m % 64 != 0 || numWarps % wm != 0 ||
          n % (8 * (numWarps / wm)) != 0 || n / (numWarps / wm) > 256) {
        gemm.emitOpError("wgmma needs M a multiple of 64 with M / 16 "
                         "dividing num_warps (one 64-row block per "
                         "warpgroup, the other warpgroups split N) and "
                         "N / (warpgroups along N) a multiple of 8 up to "
                         "256, got ")
            << m << "x" << n << " with " << numWarps << " warps";
        return WalkResult::interrupt();
      }
      grid = std::make_pair(wm, numWarps / wm);
    } else {
      grid = chooseWarpGrid(ct.getShape()[0], ct.getShape()[1], numWarps);
    }
    if (!grid) {
      gemm.emitOpError("cannot distribute a ")
          << ct.getShape()[0] << "x" << ct.getShape()[1]
          << " accumulator over " << numWarps
          << " warps in 16x8 mma atoms";
      return WalkResult::interrupt();
    }
    auto layout = MmaLayoutAttr::get(ctx, {grid->first, grid->second},
                                     wgmma ? MmaEngine::Wgmma
                                           : MmaEngine::MmaSync);
    if (failed(setClassLayout(c, layout, gemm)) ||
        failed(shareWithA(gemm, layout)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return signalPassFailure();

  // A scan's fragments: blocked, their vectors on the first lanes of one
  // warp (n <= 32 v), so that the lowering needs shuffles only.
  result = func.walk([&](ScanOp scan) {
    auto type = cast<BufferType>(scan.getSource().getType());
    int64_t n = type.getShape()[0];
    for (Value operand : {scan.getSource(), scan.getDest()}) {
      if (!classes.contains(operand)) {
        scan.emitOpError("operands must be tile.alloc fragments");
        return WalkResult::interrupt();
      }
    }
    // A layout the class already has (written in the kernel, or an mma
    // accumulator's) must be one the lowering takes.
    auto it = classLayout.find(classes.getLeaderValue(scan.getSource()));
    if (it != classLayout.end()) {
      if (ScanOp::fitsOneWarp(it->second, n))
        return WalkResult::advance();
      scan.emitOpError("operands have the layout ")
          << it->second
          << ", which does not put them on one warp (a #tile.blocked with "
             "32 x vector >= "
          << n << ")";
      return WalkResult::interrupt();
    }
    std::optional<int64_t> v = ScanOp::chooseVector(n);
    if (!v) {
      scan.emitOpError("cannot lay out a scan of ")
          << type.getShape()[0]
          << " elements on one warp (needs a power-of-two vector v dividing "
             "it with 32 v >= it)";
      return WalkResult::interrupt();
    }
    if (failed(setClassLayout(scan.getSource(),
                              BlockedLayoutAttr::get(ctx, *v), scan)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return signalPassFailure();

  // Reduction results are spread one element per thread: each element is a
  // serial sum over a row, so more threads means a shorter critical path.
  DenseSet<Value> reduceResults;
  func.walk([&](ReduceOp reduce) { reduceResults.insert(reduce.getDest()); });

  // Fragments whose global memory traffic all goes through a strided
  // innermost dimension (e.g. one head's gates, HV elements apart): their
  // copies move single elements whatever the layout, so a wider vector
  // only puts the tile on fewer threads, with more registers each, for
  // nothing (in the fused kernel's 88-register task, the next chunk's g
  // and beta at four and eight elements a thread spilled). One element a
  // thread. Class leader -> every global copy strided.
  DenseMap<Value, bool> stridedOnly;
  func.walk([&](CopyOp copy) {
    Value frag;
    if (cast<BufferType>(copy.getSource().getType()).isFragment())
      frag = copy.getSource();
    else if (cast<BufferType>(copy.getDest().getType()).isFragment())
      frag = copy.getDest();
    if (!frag || !classes.contains(frag))
      return;
    Value other = frag == copy.getSource() ? copy.getDest() : copy.getSource();
    if (!cast<BufferType>(other.getType()).isGlobal())
      return;
    bool strided = !copy.getTranspose() && !hasContiguousInnermost(other);
    auto [it, inserted] =
        stridedOnly.try_emplace(classes.getLeaderValue(frag), strided);
    if (!inserted)
      it->second = it->second && strided;
  });
  auto onlyStrided = [&](Value frag) {
    return stridedOnly.lookup(classes.getLeaderValue(frag));
  };

  // Rewrite fragment allocation types.
  func.walk([&](AllocOp alloc) {
    auto type = cast<BufferType>(alloc.getType());
    if (!type.isFragment() || type.getLayout())
      return;
    Attribute layout;
    auto it = classLayout.find(classes.getLeaderValue(alloc.getResult()));
    if (it != classLayout.end()) {
      layout = it->second;
      ++numMmaFragments;
    } else {
      int64_t vector =
          reduceResults.contains(alloc.getResult()) ||
                  onlyStrided(alloc.getResult())
              ? 1
              : chooseVector(type.getShape().back(), type.getElementBytes());
      layout = BlockedLayoutAttr::get(ctx, vector);
      ++numBlockedFragments;
    }
    alloc.getResult().setType(type.withLayout(layout));
  });

  // Swizzle shared tiles whose rows are whole 128-byte boxes and that are
  // read in 16-byte rows of 8x8 blocks: gemm operands, and the sources of
  // transposed copies into fragments (ldmatrix.trans), so that the eight
  // rows of a block fall in different banks.
  auto swizzle = [&](Value v) {
    auto alloc = v.getDefiningOp<AllocOp>();
    if (!alloc)
      return;
    auto type = cast<BufferType>(alloc.getType());
    if (type.getLayout() || !type.isShared())
      return;
    int64_t rowBytes = type.getShape().back() * type.getElementBytes();
    if (rowBytes % 128 != 0)
      return;
    alloc.getResult().setType(type.withLayout(SwizzleAttr::get(ctx, 128)));
    ++numSwizzled;
  };
  func.walk([&](GemmOp gemm) {
    swizzle(gemm.getA());
    swizzle(gemm.getB());
  });
  func.walk([&](CopyOp copy) {
    auto dst = cast<BufferType>(copy.getDest().getType());
    if (copy.getTranspose() && dst.isFragment() &&
        cast<BufferType>(copy.getSource().getType()).getElementBytes() == 2)
      swizzle(copy.getSource());
  });

  // Pad the rows of 32-bit shared tiles whose rows are a multiple of 128
  // bytes and that only registers touch: copies to and from fragments (an
  // mma accumulator's stores write 8 rows per instruction), tile.load, and
  // the triangular inverse's row-strided phases. Such rows all start on bank 0, so the 8
  // rows an instruction touches conflict up to 8-way; 16 bytes of padding
  // per row (#tile.padded<4>) put them on distinct banks and keep the
  // buffer linear. Tiles that global memory reaches directly (TMA or
  // cp.async destinations, copies to global) or that feed the tensor cores
  // from shared memory keep their layout.
  auto onlyRegisterAccess = [&](Value root) {
    return forEachBufferUser(root, [](Operation *user, Value v) {
      if (auto copy = dyn_cast<CopyOp>(user)) {
        Value other =
            copy.getSource() == v ? copy.getDest() : copy.getSource();
        return cast<BufferType>(other.getType()).isFragment();
      }
      return isa<LoadOp, TrilInverseOp, TrilInverseDiagOp,
                 TrilInverseLevelOp, TrilInverseMergeOp>(user);
    });
  };
  func.walk([&](AllocOp alloc) {
    auto type = cast<BufferType>(alloc.getType());
    // (Not through tile.slice: a slice's type carries its source's layout,
    // and this rewrites the allocation's type only.)
    if (!type.isShared() || type.getLayout() || type.getRank() < 2 ||
        type.getElementBytes() != 4 ||
        (type.getShape().back() * 4) % 128 != 0 ||
        llvm::any_of(alloc.getResult().getUsers(),
                     [](Operation *u) { return isa<SliceOp>(u); }) ||
        !onlyRegisterAccess(alloc.getResult()))
      return;
    // The triangular inverse's destination (not packed) gets rows of 8
    // words of padding plus 4 more words after every fourth row
    // (#tile.padded<8, 4, 4>): its phases read B operands (T blocks, the
    // staged Y) as rows t, t + 4 at column g (lane (g, t)), which needs a
    // row stride of 8 or 24 (mod 32) words, and A operands (T2) by ldmatrix
    // (8 rows x 16 bytes), which needs one of 4 (mod 8); the skew gives
    // both (row r on 16-byte chunk 2 r + r / 4 mod 8; rows t of one 4-row
    // group at banks 8 t + g), and the mma accumulator's 8-byte stores
    // (rows g over a half warp) are conflict free too. Every step the
    // phases take (multiples of 4 rows, or rows from a 16-aligned block
    // corner) stays a constant offset. The source keeps 4 words, so that
    // ldmatrix rows (8 rows x 16 bytes) land on distinct 4-bank groups (the
    // same skew there would free the Gram's 8-byte stores into it too, but
    // cost the GDN prep its sixth block per SM: 1 KB more). With
    // overlap-tril-inverse the source takes the destination's layout too:
    // tile-plan-shared-memory then lays the two over each other, half a
    // matrix apart, where the inverse's phases leave that legal (its
    // "Triangular inverses" rule), which saves far more than the 1 KB.
    auto isInverseOperand = [&](Operation *user, bool dest) {
      Value v = alloc.getResult();
      if (auto inv = dyn_cast<TrilInverseOp>(user))
        return !inv.getPacked() &&
               (dest ? inv.getDest() : inv.getSource()) == v &&
               inv.getSource() != inv.getDest();
      if (auto diag = dyn_cast<TrilInverseDiagOp>(user))
        return !diag.getPacked() &&
               (dest ? diag.getDest() : diag.getSource()) == v &&
               diag.getSource() != diag.getDest();
      return false;
    };
    // overlap-tril-inverse = 2 gives both the source's 4 words instead:
    // the pair 2 KB smaller at n = 64, the phases' column reads of T
    // 2-way conflicted.
    auto users = alloc.getResult().getUsers();
    bool skewed = overlapMode != 2 &&
                  llvm::any_of(users, [&](Operation *user) {
                    return isInverseOperand(user, true);
                  });
    skewed |= overlapMode == 1 &&
              llvm::any_of(users, [&](Operation *user) {
                return isInverseOperand(user, false);
              });
    alloc.getResult().setType(type.withLayout(
        skewed ? PaddedAttr::get(ctx, 8, 4, 4) : PaddedAttr::get(ctx, 4)));
    ++numPadded;
  });

  // Thread mapping of copies that involve no fragment, and the alignment
  // facts of every global access (requirements on named kernel arguments
  // collect in `requires`).
  llvm::StringMap<int64_t> requires;
  // A mapping written in the kernel is checked the same way: its vector
  // must be one the global side keeps aligned (or requires).
  auto checkPreset = [&](Operation *copy, Attribute layout, Value global,
                         ValueRange offsets) -> LogicalResult {
    auto blocked = dyn_cast<BlockedLayoutAttr>(layout);
    if (!blocked || !hasContiguousInnermost(global))
      return success();
    int64_t ok = alignedWidth(global, offsets, blocked.getVector(), requires);
    if (ok == blocked.getVector())
      return success();
    return copy->emitOpError("maps vectors of ")
           << blocked.getVector()
           << " elements but the global rows or offsets are only provably "
              "multiples of "
           << ok << " elements";
  };
  WalkResult badPreset = func.walk([&](Operation *op) {
    LogicalResult r = success();
    if (auto copy = dyn_cast<CopyOp>(op)) {
      auto src = cast<BufferType>(copy.getSource().getType());
      auto dst = cast<BufferType>(copy.getDest().getType());
      if (copy.getLayout() && !src.isFragment() && !dst.isFragment() &&
          (src.isGlobal() || dst.isGlobal()))
        r = checkPreset(copy, copy.getLayoutAttr(),
                        src.isGlobal() ? copy.getSource() : copy.getDest(),
                        src.isGlobal() ? copy.getSourceOffsets()
                                       : copy.getDestOffsets());
    } else if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      if (copy.getLayout())
        r = checkPreset(copy, copy.getLayoutAttr(), copy.getSource(),
                        copy.getSourceOffsets());
    }
    return failed(r) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (badPreset.wasInterrupted())
    return signalPassFailure();
  func.walk([&](CopyOp copy) {
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getDest().getType());
    if (copy.getLayout() || src.isFragment() || dst.isFragment())
      return;
    bool fromGlobal = src.isGlobal();
    int64_t vector = copyVector(
        fromGlobal ? copy.getSource() : copy.getDest(),
        fromGlobal ? copy.getSourceOffsets() : copy.getDestOffsets(),
        copy.getTileShape().back(), src.getElementBytes(), requires);
    copy.setLayoutAttr(BlockedLayoutAttr::get(ctx, vector));
  });
  // A fragment moves runs of its layout's width (mma: element pairs;
  // blocked: its vector) to or from global memory; their alignment must
  // hold by construction or as a launch requirement (transposed copies and
  // strided rows move single elements).
  WalkResult misaligned = func.walk([&](CopyOp copy) {
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getDest().getType());
    if (copy.getTranspose() || !(src.isFragment() || dst.isFragment()) ||
        !(src.isGlobal() || dst.isGlobal()))
      return WalkResult::advance();
    Value global = src.isGlobal() ? copy.getSource() : copy.getDest();
    if (!hasContiguousInnermost(global))
      return WalkResult::advance();
    BufferType frag = src.isFragment() ? src : dst;
    int64_t run = 1;
    if (isa_and_nonnull<MmaLayoutAttr>(frag.getLayout()))
      run = 2;
    else if (auto blocked =
                 dyn_cast_or_null<BlockedLayoutAttr>(frag.getLayout()))
      run = blocked.getVector();
    ValueRange offsets =
        src.isGlobal() ? copy.getSourceOffsets() : copy.getDestOffsets();
    int64_t ok = alignedWidth(global, offsets, run, requires);
    if (ok == run)
      return WalkResult::advance();
    copy.emitOpError("moves runs of ")
        << run << " elements (the fragment's layout) but the global rows or "
        << "offsets are only provably multiples of " << ok
        << " elements; make them multiples (constants, or products with "
           "constants), or pass the row length as a named kernel argument "
           "(a launch requirement)";
    return WalkResult::interrupt();
  });
  if (misaligned.wasInterrupted())
    return signalPassFailure();
  // Asynchronous copies written in the kernel (tile-pipeline's carry the
  // mapping of the copy they replace) map the same way.
  func.walk([&](AsyncCopyOp copy) {
    if (copy.getLayout())
      return;
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getDest().getType());
    int64_t vector =
        copyVector(copy.getSource(), copy.getSourceOffsets(),
                   dst.getShape().back(), src.getElementBytes(), requires);
    copy.setLayoutAttr(BlockedLayoutAttr::get(ctx, vector));
  });
  // The launch requirements: tile.requires_multiple = {name = multiple}.
  if (!requires.empty()) {
    SmallVector<NamedAttribute> entries;
    if (auto old = func->getAttrOfType<DictionaryAttr>(
            TileDialect::getRequiresMultipleAttrName()))
      for (NamedAttribute e : old)
        if (auto i = dyn_cast<IntegerAttr>(e.getValue()))
          requires[e.getName()] = std::max(requires[e.getName()], i.getInt());
    for (auto &e : requires)
      entries.push_back(NamedAttribute(
          StringAttr::get(ctx, e.getKey()),
          IntegerAttr::get(IntegerType::get(ctx, 64), e.getValue())));
    func->setAttr(TileDialect::getRequiresMultipleAttrName(),
                  DictionaryAttr::get(ctx, entries));
  }

  // Reductions go through a shared scratch tile. A row reduction whose
  // source rows are each held by an aligned lane group of one warp (the
  // blocked layouts whose rows are 1 to 32 vectors, a divisor of 32)
  // combines in registers and warp shuffles and needs only one element per
  // row ([M]): no full-tile round trip through shared memory, no serial
  // chain of N loads (the q/k L2 norm's [16, 128] rows: 4 adds per lane and
  // 5 shuffles instead of 128 dependent loads and adds on 16 threads).
  // Otherwise a row reduction (dim 1) has each thread read one row of the
  // [M, N] scratch serially, 16 bytes at a time where
  // the rows allow, while the threads of a warp take consecutive rows
  // (a quarter warp per 128-byte wavefront). Rows of a multiple of 32 words
  // all start on bank 0: the 8 rows of a wavefront hit the same four banks,
  // an 8-way conflict on every load. Such rows get 4 words of padding
  // (#tile.padded<4>, a
  // stride of 4 x odd words: 8 consecutive rows on 32 distinct banks, and
  // still 16-byte aligned). Shorter rows conflict at most 4-way, which
  // costs less than the padding's shared memory and addressing (a kernel
  // with 6 blocks per SM at its limit, such as the GDN prep, would lose one
  // to 16 more bytes per row).
  bool badReduce = false;
  func.walk([&](ReduceOp reduce) {
    if (reduce.getScratch())
      return;
    auto src = cast<BufferType>(reduce.getSource().getType());
    OpBuilder b(reduce);
    if (cast<BufferType>(reduce.getDest().getType()).isShared()) {
      // Straight into shared memory: only the in-warp lowering can.
      if (!ReduceOp::getInWarpLanes(src, reduce.getDim())) {
        reduce.emitOpError("reduces into shared memory, but its source's "
                           "layout ")
            << src.getLayout()
            << " spreads a row over more than one warp (row length / "
               "vector must divide 32)";
        badReduce = true;
        return;
      }
      ++numInWarpReductions;
      return;
    }
    if (ReduceOp::getInWarpLanes(src, reduce.getDim())) {
      auto dst = cast<BufferType>(reduce.getDest().getType());
      // A single row needs none (ReduceOp::isScratchFree).
      if (reduce.isScratchFree()) {
        ++numInWarpReductions;
        return;
      }
      Value scratch = b.create<AllocOp>(
          reduce.getLoc(),
          BufferType::get(dst.getShape(), b.getF32Type(), MemorySpace::Shared),
          nullptr);
      reduce.getScratchMutable().assign(scratch);
      ++numInWarpReductions;
      return;
    }
    Attribute pad;
    if (reduce.getDim() == 1 && src.getShape()[1] % 32 == 0)
      pad = PaddedAttr::get(ctx, 4);
    auto scratchType = BufferType::get(src.getShape(), b.getF32Type(),
                                       MemorySpace::Shared, pad);
    Value scratch = b.create<AllocOp>(reduce.getLoc(), scratchType, nullptr);
    reduce.getScratchMutable().assign(scratch);
  });
  if (badReduce)
    signalPassFailure();
}

} // namespace
} // namespace mlir::gdn::tile
