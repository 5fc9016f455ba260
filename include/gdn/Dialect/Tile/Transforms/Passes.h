//===- Passes.h - tile dialect transformations ------------------*- C++ -*-===//

#ifndef GDN_DIALECT_TILE_TRANSFORMS_PASSES_H
#define GDN_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gdn::tile {

#define GEN_PASS_DECL
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_TRANSFORMS_PASSES_H
