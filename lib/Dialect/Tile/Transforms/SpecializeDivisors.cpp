//===- SpecializeDivisors.cpp - power-of-two uniform divisors as shifts ---===//
//
// An unsigned division or remainder by a block-uniform runtime value becomes
// a branch: a shift or a mask where the divisor is a power of two, the
// division otherwise. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILESPECIALIZEDIVISORS
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// Which values are the same in every thread of a block: constants, the
/// kernel's parameters, program ids and counts, and arith ops of such
/// values. Memoized; chains deeper than kMaxDepth count as not uniform.
class Uniformity {
public:
  explicit Uniformity(func::FuncOp func)
      : entry(func->hasAttr(TileDialect::getKernelAttrName()) &&
                      !func.getBody().empty()
                  ? &func.getBody().front()
                  : nullptr) {}

  bool isUniform(Value v, unsigned depth = 0) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    bool uniform = compute(v, depth);
    memo[v] = uniform;
    return uniform;
  }

private:
  static constexpr unsigned kMaxDepth = 64;
  Block *entry;
  DenseMap<Value, bool> memo;

  bool compute(Value v, unsigned depth) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return entry && arg.getOwner() == entry;
    Operation *def = v.getDefiningOp();
    if (matchPattern(v, m_Constant()) || isa<ProgramIdOp, NumProgramsOp>(def))
      return true;
    if (depth >= kMaxDepth || def->getNumRegions() != 0 ||
        def->getNumOperands() == 0 ||
        !isa_and_nonnull<arith::ArithDialect>(def->getDialect()))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return isUniform(operand, depth + 1);
    });
  }
};

/// Whether a branch may be put at `op`: every op enclosing it up to the
/// function is scf control flow or a warp-specialization region (a tile.map
/// body, say, is instantiated per element).
bool branchAllowed(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<func::FuncOp>(parent); parent = parent->getParentOp())
    if (!isa_and_nonnull<scf::SCFDialect>(parent->getDialect()) &&
        !isa<WarpSpecializeOp, ProducerOp, ProducerTaskOp>(parent))
      return false;
  return true;
}

/// x / d or x % d -> scf.if (d is a power of two) { x >> cttz(d) or
/// x & (d - 1) } else { the op itself }.
void specialize(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0), d = op->getOperand(1);
  Type type = d.getType();
  auto constant = [&](int64_t c) -> Value {
    return b.create<arith::ConstantOp>(loc, type, b.getIntegerAttr(type, c));
  };
  Value zero = constant(0);
  Value mask = b.create<arith::SubIOp>(loc, d, constant(1));
  Value low = b.create<arith::AndIOp>(loc, d, mask);
  Value single =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, low, zero);
  Value nonzero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, d, zero);
  Value pow2 = b.create<arith::AndIOp>(loc, single, nonzero);
  bool isDiv = isa<arith::DivUIOp>(op);
  // log2(d) of a power of two d is popcount(d - 1). An index goes through
  // i64 (the LLVM bit-count intrinsics take integers; with 32-bit indices
  // LLVM folds the zero extension into a 32-bit popc).
  auto log2 = [&](OpBuilder &tb, Location l) -> Value {
    if (!type.isIndex())
      return tb.create<math::CtPopOp>(l, mask);
    Type i64 = tb.getI64Type();
    Value wide = tb.create<arith::IndexCastUIOp>(l, i64, mask);
    return tb.create<arith::IndexCastUIOp>(
        l, type, tb.create<math::CtPopOp>(l, wide));
  };
  auto branch = b.create<scf::IfOp>(
      loc, pow2,
      [&](OpBuilder &tb, Location l) {
        Value fast = isDiv ? tb.create<arith::ShRUIOp>(l, x, log2(tb, l))
                                   .getResult()
                             : tb.create<arith::AndIOp>(l, x, mask).getResult();
        tb.create<scf::YieldOp>(l, fast);
      },
      [&](OpBuilder &eb, Location l) {
        eb.create<scf::YieldOp>(l, op->getResult(0));
      });
  op->getResult(0).replaceAllUsesExcept(branch.getResult(0),
                                        branch.elseYield());
  op->moveBefore(branch.elseYield());
}

struct TileSpecializeDivisorsPass
    : impl::TileSpecializeDivisorsBase<TileSpecializeDivisorsPass> {
  void runOnOperation() override {
    Uniformity uniformity(getOperation());
    // Decide on the function as written, then rewrite (a divisor that an
    // earlier rewrite turns into a branch result was uniform before it).
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::DivUIOp, arith::RemUIOp>(op))
        return;
      Value d = op->getOperand(1);
      if (!d.getType().isIntOrIndex() || matchPattern(d, m_Constant()) ||
          !uniformity.isUniform(d) || !branchAllowed(op))
        return;
      ops.push_back(op);
    });
    for (Operation *op : ops)
      specialize(op);
    numSpecialized += ops.size();
  }
};

} // namespace
} // namespace mlir::gdn::tile
