//===- LoweringUtils.h - shared helpers of the tile lowering ----*- C++ -*-===//
//
// Private to lib/Conversion/TileToNVVM: the index builder (`Idx`), the
// value type the layout formulas of LayoutUtils.h are instantiated with to
// emit IR (`IdxVal`), kernel facts, fragment runs, shared and global
// addressing, guarded regions and fragment register access. The pattern
// files of each op family build on these.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_CONVERSION_TILETONVVM_LOWERINGUTILS_H
#define GDN_LIB_CONVERSION_TILETONVVM_LOWERINGUTILS_H

#include "gdn/Conversion/TileToNVVM/TileToNVVM.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gdn {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Builds index arithmetic with LLVM ops in the kernel's index type (i64, or
/// i32 where the gpu.module's data layout says so: tile-outline-kernels'
/// index-bitwidth), folding constants so that the emitted IR stays readable
/// (LLVM folds the rest). Sums and products are `nsw`: index values are
/// offsets and extents of buffers, which the index type holds by contract
/// (the runtime checks it before a launch of a 32-bit kernel), so LLVM may
/// fold the sign extension of a 32-bit address into the addressing.
struct Idx {
  OpBuilder &b;
  Location loc;
  Type index;

  Idx(OpBuilder &b, Location loc, Type index) : b(b), loc(loc), index(index) {}
  /// The index type of the data layout closest to the insertion point (the
  /// gpu.module's, as convert-tile-to-nvvm's type converter uses it).
  Idx(OpBuilder &b, Location loc) : Idx(b, loc, indexTypeAt(b)) {}
  static Type indexTypeAt(OpBuilder &b);

  static std::optional<int64_t> constOf(Value v);
  Value c(int64_t v);
  Value c32(int64_t v);
  Value add(Value x, Value y);
  Value add(Value x, int64_t y) { return add(x, c(y)); }
  Value mul(Value x, Value y);
  Value mul(Value x, int64_t y) { return mul(x, c(y)); }
  Value div(Value x, int64_t y);
  Value rem(Value x, int64_t y);
  Value xor_(Value x, Value y);
  Value ult(Value x, Value y);
  Value ule(Value x, Value y);
  Value and_(Value x, Value y);
  /// `v` (an integer) zero-extended or truncated to the index type.
  Value toIndex(Value v);
  /// The thread index in the block.
  Value tid();
  Value gep(Value base, Type elem, Value index);
};

/// An index value built by an `Idx`: the integer-like type the formulas of
/// LayoutUtils.h are instantiated with to emit them as IR (constants fold).
struct IdxVal {
  Idx *ix = nullptr;
  Value v;

  IdxVal() = default;
  IdxVal(Idx &ix, Value v) : ix(&ix), v(v) {}
  operator Value() const { return v; }
};

inline IdxVal operator+(const IdxVal &x, const IdxVal &y) {
  return {*x.ix, x.ix->add(x.v, y.v)};
}
inline IdxVal operator+(const IdxVal &x, int64_t y) {
  return {*x.ix, x.ix->add(x.v, y)};
}
inline IdxVal operator+(int64_t x, const IdxVal &y) {
  Value cx = y.ix->c(x);
  return {*y.ix, y.ix->add(cx, y.v)};
}
inline IdxVal operator*(const IdxVal &x, int64_t y) {
  return {*x.ix, x.ix->mul(x.v, y)};
}
inline IdxVal operator/(const IdxVal &x, int64_t y) {
  return {*x.ix, x.ix->div(x.v, y)};
}
inline IdxVal operator%(const IdxVal &x, int64_t y) {
  return {*x.ix, x.ix->rem(x.v, y)};
}
inline IdxVal operator^(const IdxVal &x, const IdxVal &y) {
  return {*x.ix, x.ix->xor_(x.v, y.v)};
}

} // namespace mlir::gdn

namespace mlir::gdn::tile::layout {
template <>
struct LayoutInt<IdxVal> {
  using Pred = Value; // i1
  static IdxVal constant(const IdxVal &like, int64_t v) {
    return {*like.ix, like.ix->c(v)};
  }
  static Value lessThan(const IdxVal &x, int64_t bound) {
    Value b = x.ix->c(bound);
    return x.ix->ult(x.v, b);
  }
};
} // namespace mlir::gdn::tile::layout

namespace mlir::gdn {

//===----------------------------------------------------------------------===//
// Kernel facts
//===----------------------------------------------------------------------===//

/// Threads that run `op`: 32 * num_warps of the tile.producer_task around
/// it, else of the kernel (tile.num_warps), or the nvvm.maxntid of the
/// kernel once it has been converted to llvm.func.
int64_t numThreadsOf(Operation *op);

/// %tid.x (i32) numbered from the first thread of the tile.producer_task
/// around `b`'s insertion point (threadBaseAt), if any.
Value createThreadId(OpBuilder &b, Location loc);

/// createThreadId / `threads` as an i32 for `threads` a multiple of 32
/// (the warp index for 32, the warpgroup index for 128), broadcast from
/// lane 0 (shfl.sync.idx over the full warp): the same value in every lane,
/// which ptxas then keeps on the uniform datapath (a value computed from
/// %tid.x is a per-thread register to it), so that addresses and wgmma
/// descriptors built from it stay uniform registers and branches on it
/// are uniform branches. Every lane of the warp must reach it.
Value createWarpUniformIndex(OpBuilder &b, Location loc, int64_t threads);

/// bar.sync `id`, `threads` (a named barrier over `threads` threads).
void createNamedBarrier(OpBuilder &b, Location loc, int64_t id,
                        int64_t threads);

/// The index of the first thread that runs code inserted in `block`: the
/// thread_base of the tile.producer_task around it (tile-warp-specialize
/// sets it), 0 elsewhere. The lowering numbers a task's threads from it.
int64_t threadBaseAt(Block *block);

/// Threads per block of a kernel: its compute warps plus the producer
/// warpgroup that tile-warp-specialize added (tile.producer_warps).
int64_t blockThreadsOf(Operation *kernel);

/// A barrier over the compute threads of the kernel around `op`: bar.sync 0
/// for the whole block, or, in a warp-specialized kernel (whose compute
/// threads are the consumers; the producer warpgroup never reaches it), the
/// consumers' named barrier 1 (bar.sync 1, 32 * tile.num_warps), or, in a
/// tile.producer_task, the producer warpgroup's named barrier 2.
void createComputeBarrier(OpBuilder &b, Location loc, Operation *op);

/// fence.proxy.async.shared::cta: orders this thread's generic-proxy
/// shared-memory accesses before later async-proxy ones (wgmma operand
/// reads, TMA loads and stores).
void createAsyncProxyFence(OpBuilder &b, Location loc);

/// Whether the gemms at `op` use wgmma (tile.mma_engine = "wgmma" on the
/// kernel, or mma_engine of the tile.producer_task around `op`).
bool usesWgmma(Operation *op);

/// Whether the kernel around `op` stores from shared memory with TMA
/// (tile.tma_store, or its NVVM form once converted): its barriers must
/// order generic-proxy shared writes before those async-proxy reads.
bool usesTmaStores(Operation *op);

/// Fails with "fragments have no layout" on `op` unless every value (a
/// fragment buffer) has a layout.
LogicalResult requireLayouts(Operation *op, ValueRange fragments);

/// Number of registers per thread of a fragment.
int64_t fragmentRegs(tile::BufferType type, int64_t numThreads);

//===----------------------------------------------------------------------===//
// Layouts as IR
//===----------------------------------------------------------------------===//

/// A run of `len` consecutive registers of one thread that hold elements
/// adjacent along the innermost dimension, starting at `coord`
/// (layout::Run<IdxVal> as plain values).
struct Run {
  int64_t reg;
  int64_t len;
  SmallVector<Value> coord;
  Value guard; // i1: whether this thread owns the run; null = always
};

/// The runs of a blocked distribution of `shape` over numThreads threads
/// (layout::blockedRuns).
SmallVector<Run> blockedRuns(Idx &ix, ArrayRef<int64_t> shape, int64_t vector,
                             int64_t numThreads, Value tid);

/// The runs of a fragment's layout (layout::blockedRuns or
/// layout::mmaFragmentRuns).
SmallVector<Run> fragmentRuns(Idx &ix, tile::BufferType type,
                              int64_t numThreads, Value tid);

/// Byte offset of `coord` in a shared buffer (layout::sharedOffset with the
/// buffer's swizzle or row padding).
Value sharedByteOffset(Idx &ix, tile::BufferType type, ArrayRef<Value> coord);

//===----------------------------------------------------------------------===//
// Addressing and control flow
//===----------------------------------------------------------------------===//

/// A global buffer's base pointer and sizes, unpacked from its struct.
struct GlobalView {
  Value ptr;
  SmallVector<Value> sizes;
  SmallVector<Value> strides; // in elements

  GlobalView(Idx &ix, Value desc, int64_t rank);
  /// Element offset of offsets + coord.
  Value linear(Idx &ix, ValueRange offsets, ArrayRef<Value> coord);
  /// Whether the run [coord, coord + len) along the innermost dim is in
  /// bounds.
  Value inBounds(Idx &ix, ValueRange offsets, ArrayRef<Value> coord,
                 int64_t len);
};

/// `elem`, or a vector of `len` of them.
Type vecType(Type elem, int64_t len);

/// Runs `body` under `cond` (if non-null), as LLVM control flow. The
/// rewriter continues after the guarded region.
void emitGuarded(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                 function_ref<void(OpBuilder &)> body);

/// A counted loop `for (iv = 0; iv < ub; iv += step)` (unsigned, in the
/// index type of `ix`, step > 0) as LLVM control flow, carrying `inits`:
/// `body` gets the induction variable and the carried values and returns
/// their next values (it may emit control flow of its own). Returns the
/// values after the last iteration; the rewriter continues after the loop.
/// `ix` must build with `rewriter`.
SmallVector<Value>
emitCountedLoop(ConversionPatternRewriter &rewriter, Idx &ix, Value ub,
                int64_t step, ValueRange inits,
                function_ref<SmallVector<Value>(Value, ValueRange)> body);

/// One PTX instruction as AT&T-dialect inline asm (the forms NVVM 19 has no
/// op for); its result (a struct for several outputs).
Value emitInlineAsm(OpBuilder &b, Location loc, Type result,
                    ValueRange operands, StringRef code, StringRef constraints,
                    bool hasSideEffects);

/// The 64-bit L2 cache policy of `hint` (createpolicy.fractional, the
/// whole access range: fraction 1.0), the `.L2::cache_hint` operand of a
/// global access. Pure: LLVM may merge equal policies.
Value emitL2Policy(OpBuilder &b, Location loc, tile::L2Hint hint);

/// A store of `val` to the global address `ptr` with the L2 cache policy
/// `policy` (st.global.L2::cache_hint), where `val`'s plain store would be
/// an llvm.store: one instruction for 2, 4, 8 or 16 bytes, 16-byte pieces
/// for a multiple of 16 bytes. False (nothing emitted) for other sizes,
/// which the caller stores without the hint.
bool emitStoreWithL2Policy(OpBuilder &b, Location loc, Value val, Value ptr,
                           Value policy);

/// `valid ? load(ptr) : 0`, without touching memory when not valid.
Value emitMaskedLoad(ConversionPatternRewriter &rewriter, Location loc,
                     Value valid, Type type, Value ptr, int64_t align);

/// Two f32 values rounded to f16 or bf16 (`to`) by one packed
/// cvt.rn.{f16,bf16}x2.f32, the same rounding to nearest even as two scalar
/// conversions: a vector<2 x to> of {lo, hi} (the instruction's first
/// operand goes to the upper half).
Value packedTruncF32(OpBuilder &b, Location loc, Type to, Value lo, Value hi);

/// Loads/stores of fragment registers.
struct Regs {
  Value base;
  Type elem;
  Value load(Idx &ix, int64_t reg);
  void store(Idx &ix, int64_t reg, Value v);
  Value loadVec(Idx &ix, int64_t reg, int64_t len, Type to);
  void storeVec(Idx &ix, int64_t reg, int64_t len, Value v);
  static Value convert(Idx &ix, Value v, Type to);
};

/// Base of the tile op lowerings.
template <typename Op>
struct TilePattern : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

} // namespace mlir::gdn

#endif // GDN_LIB_CONVERSION_TILETONVVM_LOWERINGUTILS_H
