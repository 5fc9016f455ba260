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

/// The values that are the same in every thread of a block: constants, the
/// kernel's parameters (its entry block's arguments), program ids and
/// counts, and the results of arith ops of such values. One walk in
/// program order (a definition comes before its uses), no recursion.
DenseSet<Value> uniformValues(func::FuncOp func) {
  DenseSet<Value> uniform;
  if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
    return uniform;
  for (BlockArgument arg : func.getArguments())
    uniform.insert(arg);
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool source = isa<ProgramIdOp, NumProgramsOp>(op) ||
                  op->hasTrait<OpTrait::ConstantLike>();
    bool derived = isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
                   op->getNumRegions() == 0 && op->getNumOperands() != 0 &&
                   llvm::all_of(op->getOperands(), [&](Value operand) {
                     return uniform.contains(operand);
                   });
    if (source || derived)
      uniform.insert(op->result_begin(), op->result_end());
  });
  return uniform;
}

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

/// x / d or x % d -> scf.if (d is a power of two) { x >> popcount(d - 1)
/// or x & (d - 1) } else { the op itself }.
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
    DenseSet<Value> uniform = uniformValues(getOperation());
    // Decide on the function as written, then rewrite (a divisor that an
    // earlier rewrite turns into a branch result was uniform before it).
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::DivUIOp, arith::RemUIOp>(op))
        return;
      Value d = op->getOperand(1);
      if (!d.getType().isIntOrIndex() || matchPattern(d, m_Constant()) ||
          !uniform.contains(d) || !branchAllowed(op))
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
