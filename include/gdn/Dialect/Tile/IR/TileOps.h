//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//

#ifndef GDN_DIALECT_TILE_IR_TILEOPS_H
#define GDN_DIALECT_TILE_IR_TILEOPS_H

#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "gdn/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::gdn::tile {
/// Whether the innermost dimension of global buffer `v` is contiguous
/// (stride 1): views are dense and only a tile.take of the innermost
/// dimension makes it strided. Unknown origins count as strided.
bool hasContiguousInnermost(Value v);
} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_IR_TILEOPS_H
