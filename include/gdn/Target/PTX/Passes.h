//===- Passes.h - PTX emission ----------------------------------*- C++ -*-===//

#ifndef GDN_TARGET_PTX_PASSES_H
#define GDN_TARGET_PTX_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gdn {

#define GEN_PASS_DECL
#include "gdn/Target/PTX/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gdn/Target/PTX/Passes.h.inc"

} // namespace mlir::gdn

#endif // GDN_TARGET_PTX_PASSES_H
