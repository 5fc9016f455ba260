//===- Passes.h - conversions out of the tile dialect -----------*- C++ -*-===//

#ifndef GDN_CONVERSION_PASSES_H
#define GDN_CONVERSION_PASSES_H

#include "gdn/Conversion/TileToNVVM/TileToNVVM.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gdn {

#define GEN_PASS_DECL
#include "gdn/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gdn/Conversion/Passes.h.inc"

} // namespace mlir::gdn

#endif // GDN_CONVERSION_PASSES_H
