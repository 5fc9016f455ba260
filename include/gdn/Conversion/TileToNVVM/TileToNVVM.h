//===- TileToNVVM.h - tile to NVVM/LLVM conversion --------------*- C++ -*-===//

#ifndef GDN_CONVERSION_TILETONVVM_TILETONVVM_H
#define GDN_CONVERSION_TILETONVVM_TILETONVVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::gdn {

/// Adds the tile buffer and pointer types to an LLVM type converter:
/// `!tile.ptr` and global buffers' base pointers in address space 1, global
/// buffers as `{ptr<1>, i64 x rank}` (base and sizes), shared buffers as
/// `!llvm.ptr<3>`, fragments as a pointer to a private register array.
void populateTileTypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering tile ops (and tile kernel functions) to NVVM/LLVM.
void populateTileToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);

/// Name of the dynamic shared-memory array all shared buffers live in.
constexpr StringLiteral kSharedMemorySymbol = "__tile_smem";

/// Module attribute holding the launch interface of each kernel.
constexpr StringLiteral kKernelsAttrName = "gdn.kernels";

} // namespace mlir::gdn

#endif // GDN_CONVERSION_TILETONVVM_TILETONVVM_H
