//===- Divisibility.h - known power-of-two factors of index values -*- C++ -*-===//
//
// Shared by tile-assign-layouts (vector widths of copies) and tile-pipeline
// (TMA coordinates must lie on 16 bytes).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_TRANSFORMS_DIVISIBILITY_H
#define GDN_DIALECT_TILE_TRANSFORMS_DIVISIBILITY_H

#include "mlir/IR/Value.h"

#include <cstdint>

namespace mlir::gdn::tile {

/// The largest power of two, up to kMaxKnownMultiple, that provably divides
/// the integer `v` modulo 2^32 and 2^64 (so it holds whatever width the
/// index arithmetic is lowered to): from constants (0 counts as the cap) and
/// the operations that keep divisibility: + and - (the smaller of the two),
/// * (the product), << by a constant, & (the larger: a mask with k low
/// zero bits gives 2^k), min/max/select (the smaller), integer casts and
/// truncations, and the induction variables of tile.for and scf.for (lower
/// bound and step). 1 when nothing is known.
int64_t knownMultiple(Value v);

/// The cap of knownMultiple: 2^30.
constexpr int64_t kMaxKnownMultiple = int64_t(1) << 30;

} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_TRANSFORMS_DIVISIBILITY_H
