//===- Patterns.h - the op families of the tile lowering --------*- C++ -*-===//
//
// Private to lib/Conversion/TileToNVVM: one populate function per op family,
// each defined in its own pattern file (<Family>ToNVVM.cpp) and called by
// populateTileToNVVMConversionPatterns (TileToNVVM.cpp). A new family is one
// new file and one line here and there.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_CONVERSION_TILETONVVM_PATTERNS_H
#define GDN_LIB_CONVERSION_TILETONVVM_PATTERNS_H

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace mlir::gdn {

/// Kernel functions and their scaffolding (KernelToNVVM.cpp): func.func
/// kernels, func.return, tile.program_id, tile.alloc, tile.slice.
void populateKernelToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);

/// Data movement and addressing (CopyToNVVM.cpp): tile.copy,
/// tile.async_copy, tile.view, tile.take, tile.narrow, tile.load.
void populateCopyToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// Synchronization (SyncToNVVM.cpp): tile.barrier, tile.async_commit,
/// tile.async_wait.
void populateSyncToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// Register-level compute (ElementwiseToNVVM.cpp): tile.fill, tile.map,
/// tile.reduce and math.exp.
void populateElementwiseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);

/// tile.gemm in kernels without an mma engine attribute: ldmatrix +
/// mma.sync (GemmMmaSyncToNVVM.cpp).
void populateGemmMmaSyncToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);

/// tile.gemm in kernels with tile.mma_engine = "wgmma": wgmma.mma_async
/// from shared-memory descriptors (GemmWgmmaToNVVM.cpp).
void populateGemmWgmmaToNVVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);

/// tile.tril_inverse (TrilInverseToNVVM.cpp).
void populateTrilInverseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);

/// The sm_90a ops (HopperToNVVM.cpp): tile.tma_load, the mbarrier ops,
/// tile.producer, tile.warp_specialize, tile.gemm_wait, tile.num_programs.
void populateHopperToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);

} // namespace mlir::gdn

#endif // GDN_LIB_CONVERSION_TILETONVVM_PATTERNS_H
