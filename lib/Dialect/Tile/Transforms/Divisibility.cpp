//===- Divisibility.cpp - known power-of-two factors of index values -------===//

#include "Divisibility.h"

#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <algorithm>

namespace mlir::gdn::tile {

namespace {

int64_t known(Value v, int depth) {
  constexpr int64_t kMax = kMaxKnownMultiple;
  if (depth > 32)
    return 1;
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    if (*c == 0)
      return kMax;
    uint64_t bits = static_cast<uint64_t>(*c);
    return std::min<int64_t>(static_cast<int64_t>(bits & (~bits + 1)), kMax);
  }
  auto rec = [&](Value x) { return known(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast_or_null<ForOp>(owner))
      if (arg == loop.getInductionVar())
        return std::min(rec(loop.getLowerBound()), rec(loop.getStep()));
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner))
      if (arg == loop.getInductionVar())
        return std::min(rec(loop.getLowerBound()), rec(loop.getStep()));
    return 1;
  }
  Operation *def = v.getDefiningOp();
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(def))
    return rec(def->getOperand(0));
  if (isa<arith::MulIOp>(def))
    return std::min(kMax, rec(def->getOperand(0)) * rec(def->getOperand(1)));
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinSIOp, arith::MaxSIOp,
          arith::MinUIOp, arith::MaxUIOp>(def))
    return std::min(rec(def->getOperand(0)), rec(def->getOperand(1)));
  if (isa<arith::SelectOp>(def))
    return std::min(rec(def->getOperand(1)), rec(def->getOperand(2)));
  if (isa<arith::AndIOp>(def))
    return std::max(rec(def->getOperand(0)), rec(def->getOperand(1)));
  if (isa<arith::ShLIOp>(def))
    if (std::optional<int64_t> k = getConstantIntValue(def->getOperand(1)))
      if (*k >= 0 && *k < 30)
        return std::min(kMax, rec(def->getOperand(0)) << *k);
  return 1;
}

} // namespace

int64_t knownMultiple(Value v) { return known(v, 0); }

} // namespace mlir::gdn::tile
