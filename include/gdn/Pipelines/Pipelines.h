//===- Pipelines.h - named pass pipelines -----------------------*- C++ -*-===//

#ifndef GDN_PIPELINES_PIPELINES_H
#define GDN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::gdn {

/// Options of gdn-lower-to-ptx.
/// Options of gdn-lower-to-cpu: the kernels as written, for the CPU
/// emulator (docs/gdn-run.md, "Without a GPU").
struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {
  PassOptions::Option<bool> poison{
      *this, "poison",
      llvm::cl::desc("Fill shared and fragment buffers with NaN / 0xAA "
                     "bytes (convert-tile-to-loops' poison)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> flagHooks{
      *this, "flag-hooks",
      llvm::cl::desc("Flag waits and releases call the runner's hooks "
                     "(convert-tile-to-loops' flag-hooks; the CUDA emulator "
                     "defines them)"),
      llvm::cl::init(true)};
};

/// symbol-dce, convert-tile-to-loops.
void buildLowerToCPUPipeline(OpPassManager &pm,
                             const LowerToCPUOptions &options);

struct LowerToPTXOptions : public PassPipelineOptions<LowerToPTXOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("GPU architecture"),
                                        llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> lsr{
      *this, "lsr",
      llvm::cl::desc("Run LLVM's loop strength reduction before the NVPTX "
                     "back end (off by default: it gives each address of a "
                     "chunk loop its own 64-bit pointer induction variable, "
                     "which costs registers that ptxas cannot recover)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> zeroInitGemm{
      *this, "zero-init-gemm",
      llvm::cl::desc("Fold a gemm accumulator's zero fill into the gemm "
                     "(tile-fold-zero-init: scale-d 0 on the first wgmma "
                     "k-step instead of zeroed registers; on by default: "
                     "-2..-4 % on the GDN forward, docs/perf-notes.md v21)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> proxyFences{
      *this, "proxy-fences",
      llvm::cl::desc("Fence only the barriers after which wgmma or a TMA "
                     "store may read shared memory (tile-proxy-fences; on "
                     "by default: GDN prep -3..-4 %, docs/perf-notes.md "
                     "v38); 0 fences every barrier of such kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> pow2Divisors{
      *this, "pow2-divisors",
      llvm::cl::desc("Divide by a block-uniform runtime value with a shift "
                     "where it is a power of two (tile-specialize-divisors "
                     "after arith-expand; on by default: the GDN prep's "
                     "three divisions per block, docs/perf-notes.md v47)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> asyncGemm{
      *this, "async-gemm",
      llvm::cl::desc("Overlap independent wgmma gemms (tile-async-gemm after "
                     "tile-insert-barriers); off by default until measured "
                     "on the GDN kernels"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> mergeByRows{
      *this, "merge-by-rows",
      llvm::cl::desc("tile-expand-tril-inverse's merge-by-rows: the size-32 "
                     "merge of lower_only inverses one task per block row "
                     "and column block (fewer operand splits, one barrier "
                     "more); off: measured +6 % on the GDN prep, "
                     "docs/perf-notes.md v40"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> stageLo{
      *this, "stage-lo",
      llvm::cl::desc("tile-expand-tril-inverse's stage-lo: the final merge "
                     "of a lower_only inverse reads L21's tf32 low parts, "
                     "split once by the diagonal phase's idle threads, "
                     "instead of splitting L21 on every warp; off until "
                     "measured (docs/perf-notes.md v47)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> fmaMerges{
      *this, "fma-merges",
      llvm::cl::desc("tile-expand-tril-inverse's fma-merges: where the "
                     "inverse's merges of sizes 16 and 32 run on the CUDA "
                     "cores (never, tasks: inside producer tasks, whose "
                     "tensor cores the consumers' wgmma keep busy, or "
                     "always); never: tasks measured +15 % on the fused "
                     "GDN stage, docs/perf-notes.md v76"),
      llvm::cl::init("never")};
  PassOptions::Option<unsigned> trilOverlap{
      *this, "tril-overlap",
      llvm::cl::desc("tile-assign-layouts' overlap-tril-inverse: a "
                     "triangular inverse's source and destination take one "
                     "layout, and tile-plan-shared-memory lays the two over "
                     "each other (3n / 2 rows instead of 2n): 1 rows of 72 "
                     "words and a skew (the GDN prep in 28,804 bytes, seven "
                     "blocks per SM with a 72-register cap), 2 rows of 68 "
                     "(26,756 bytes, eight blocks with 64 registers; T's "
                     "column reads 2-way conflicted); 0 (off) until "
                     "measured (docs/perf-notes.md v48)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bit width of index arithmetic in the kernels (32 or "
                     "64; 32 halves the integer work of addressing, and the "
                     "manifest's index_bits = 32 makes the launcher check "
                     "that every buffer offset fits)"),
      llvm::cl::init(64)};
  PassOptions::Option<std::string> kernelSuffix{
      *this, "kernel-suffix",
      llvm::cl::desc("Appended to every kernel's and the module's name"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> outputDir{
      *this, "output-dir",
      llvm::cl::desc("If set, write .ptx files and launch manifests there"),
      llvm::cl::init("")};
};

/// tile kernels -> layouts -> pipelining -> shared memory plan -> NVVM ->
/// PTX (in gpu.binary), optionally exported to files.
void buildLowerToPTXPipeline(OpPassManager &pm,
                             const LowerToPTXOptions &options);

/// Registers gdn-lower-to-ptx.
void registerGdnPipelines();

} // namespace mlir::gdn

#endif // GDN_PIPELINES_PIPELINES_H
