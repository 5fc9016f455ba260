//===- TileDialect.h - tile dialect declaration -----------------*- C++ -*-===//
//
// The tile dialect: its attributes and types. Include TileOps.h for ops.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEDIALECT_H
#define GDN_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "gdn/Dialect/Tile/IR/TileDialect.h.inc"
#include "gdn/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "gdn/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "gdn/Dialect/Tile/IR/TileTypes.h.inc"

#endif // GDN_DIALECT_TILE_IR_TILEDIALECT_H
