//===- TileLimits.h - hardware limits and checked size arithmetic -*- C++ -*-===//
//
// What a Hopper (sm_90a) thread block can hold, and the overflow-checked
// arithmetic that every size, count and offset computed from IR goes
// through. The verifiers bound the IR by these limits before any pass
// expands anything (pipeline stages, prologues, fragments in registers).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILELIMITS_H
#define GDN_DIALECT_TILE_IR_TILELIMITS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::gdn::tile {

class BufferType;

/// Threads and warps of one block.
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxWarpsPerBlock = kMaxThreadsPerBlock / 32;
/// 32-bit registers one thread may use (PTX .maxnreg).
constexpr int64_t kMaxRegistersPerThread = 255;
/// Dynamic shared memory of one block (H100/H200 opt-in limit, 227 KiB).
constexpr int64_t kMaxSharedBytesPerBlock = 232448;
/// Pipeline stages of a tile.for (each is a copy of its shared buffers).
constexpr int64_t kMaxPipelineStages = 16;
/// cp.async groups a tile.async_wait may leave in flight (at most one per
/// pipeline stage).
constexpr int64_t kMaxPendingGroups = kMaxPipelineStages;

/// `a * b` / `a + b`, or nothing on int64 overflow.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);

/// Number of elements of a static shape, or nothing on overflow (or a
/// dynamic / non-positive dimension).
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);

/// Bytes of a static buffer of `shape` with `elementBytes`-byte elements, or
/// nothing on overflow.
std::optional<int64_t> checkedSizeInBytes(llvm::ArrayRef<int64_t> shape,
                                          int64_t elementBytes);

/// The value of an integer attribute if it fits in int64.
std::optional<int64_t> getInt64(Attribute attr);

/// Whether `name` is a PTX identifier `[A-Za-z_$][A-Za-z0-9_$]*` (kernel
/// and module symbols, which also name output files).
bool isPtxIdentifier(llvm::StringRef name);

/// Whether `name` is a C identifier `[A-Za-z_][A-Za-z0-9_]*` (kernel
/// parameter names in launch manifests).
bool isCIdentifier(llvm::StringRef name);

/// Whether `bytes` is an L2 promotion a TMA tensor map can ask for: 0
/// (none), 64, 128 or 256 (a `tile.tensor_map` recipe's l2_promotion).
bool isL2PromotionBytes(int64_t bytes);

/// Threads per block of the kernel around `op` (32 * tile.num_warps), or
/// nothing when `op` is not in a function with a valid tile.num_warps.
std::optional<int64_t> getKernelThreads(Operation *op);

/// Estimated 32-bit registers per thread that a fragment of `type` needs in
/// a block of `numThreads` threads (a lower bound: the elements each thread
/// owns under the fragment's layout, or an even share without a layout), or
/// nothing on overflow.
std::optional<int64_t> estimateFragmentRegisters(BufferType type,
                                                 int64_t numThreads);

/// "128x64xf16" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape, Type elementType);

} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_IR_TILELIMITS_H
