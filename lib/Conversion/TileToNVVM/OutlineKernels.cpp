//===- OutlineKernels.cpp - record launch interfaces, outline kernels ------===//
//
// The step between the tile passes and the lowering: records the launch
// interface of every tile kernel in the module attribute gdn.kernels (while
// the tile types still say what each parameter is) and moves the kernels
// into a gpu.module with the dynamic shared-memory array. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Conversion/Passes.h"
#include "LoweringUtils.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_TILEOUTLINEKERNELS
#include "gdn/Conversion/Passes.h.inc"

namespace {
using namespace mlir::gdn::tile;

/// The type of a kernel parameter as written in a launch manifest.
std::string manifestType(Type t, unsigned indexBits) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto p = dyn_cast<PtrType>(t))
    os << "ptr<" << p.getElementType() << ">";
  else if (isa<TensorMapType>(t))
    os << "tensormap";
  else if (isa<IndexType>(t))
    os << "i" << indexBits;
  else
    os << t;
  return s;
}

struct TileOutlineKernelsPass
    : impl::TileOutlineKernelsBase<TileOutlineKernelsPass> {
  using TileOutlineKernelsBase::TileOutlineKernelsBase;
  void runOnOperation() override;
};

void TileOutlineKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (indexBitwidth != 32 && indexBitwidth != 64) {
    module.emitError("tile-outline-kernels: index-bitwidth must be 32 or 64, "
                     "got ")
        << indexBitwidth.getValue();
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(TileDialect::getKernelAttrName()))
      kernels.push_back(func);
  if (kernels.empty())
    return;

  // Record the launch interface before the types are gone.
  std::string moduleName =
      (module.getSymName() ? module.getSymName()->str() : "kernels") +
      kernelSuffix;
  SmallVector<NamedAttribute> kernelInfos;
  if (auto existing = module->getAttrOfType<DictionaryAttr>(kKernelsAttrName))
    llvm::append_range(kernelInfos, existing.getValue());
  Builder b(ctx);
  for (func::FuncOp func : kernels) {
    if (!func->hasAttr(TileDialect::getSharedMemoryBytesAttrName())) {
      // Anywhere in the body (allocations in loops, branches and
      // tile.warp_specialize regions too).
      WalkResult unplanned = func.walk([&](AllocOp alloc) {
        if (!cast<BufferType>(alloc.getType()).isShared())
          return WalkResult::advance();
        alloc.emitOpError("kernel uses shared memory but has no plan; run "
                          "tile-plan-shared-memory first");
        return WalkResult::interrupt();
      });
      if (unplanned.wasInterrupted())
        return signalPassFailure();
    }
    SmallVector<Attribute> params;
    SmallVector<NamedAttribute> tensorMaps;
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
      std::string name = "arg" + std::to_string(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(
              i, TileDialect::getArgNameAttrName()))
        name = n.str();
      params.push_back(b.getStringAttr(name + ":" + manifestType(t, indexBitwidth)));
      // A tensor map's host recipe (base, dims, strides from tile-pipeline)
      // with its box and swizzle: the manifest's tensormap.<name> line.
      if (auto map = dyn_cast<TensorMapType>(t)) {
        auto recipe = func.getArgAttrOfType<DictionaryAttr>(
            i, TileDialect::getTensorMapAttrName());
        if (!recipe) {
          func.emitOpError("tensor map argument ")
              << i << " has no " << TileDialect::getTensorMapAttrName();
          return signalPassFailure();
        }
        SmallVector<NamedAttribute> entry(recipe.getValue());
        entry.push_back(
            b.getNamedAttr("box", b.getI64ArrayAttr(map.getShape())));
        entry.push_back(
            b.getNamedAttr("swizzle", b.getI64IntegerAttr(map.getSwizzle())));
        tensorMaps.push_back(b.getNamedAttr(name, b.getDictionaryAttr(entry)));
      }
    }
    int64_t smem = 0;
    if (auto s = func->getAttrOfType<IntegerAttr>(
            TileDialect::getSharedMemoryBytesAttrName()))
      smem = s.getInt();
    SmallVector<NamedAttribute> info{
        b.getNamedAttr("module", b.getStringAttr(moduleName)),
        b.getNamedAttr("params", b.getArrayAttr(params)),
        b.getNamedAttr("block", b.getI64ArrayAttr({blockThreadsOf(func), 1, 1})),
        b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(smem))};
    if (indexBitwidth != 64)
      info.push_back(b.getNamedAttr("index_bits",
                                    b.getI64IntegerAttr(indexBitwidth)));
    // A programmatic dependent launch is the launcher's to set up (unit,
    // "flags" for a kernel that does not wait for its predecessor,
    // "wait_and_flags", or "deferred" for one that waits where its
    // tile.grid_wait ops are).
    if (Attribute dep = func->getAttr(TileDialect::getGridDependencyAttrName()))
      info.push_back(b.getNamedAttr(
          "grid_dependency", isa<StringAttr>(dep) ? dep : b.getUnitAttr()));
    // Launch requirements (tile-assign-layouts) move to the interface.
    if (auto req = func->getAttrOfType<DictionaryAttr>(
            TileDialect::getRequiresMultipleAttrName())) {
      info.push_back(b.getNamedAttr("requires_multiple", req));
      func->removeAttr(TileDialect::getRequiresMultipleAttrName());
    }
    if (!tensorMaps.empty())
      info.push_back(
          b.getNamedAttr("tensormaps", b.getDictionaryAttr(tensorMaps)));
    if (auto meta = func->getAttrOfType<DictionaryAttr>(
            TileDialect::getMetaAttrName()))
      info.push_back(b.getNamedAttr("meta", meta));
    // The suffix names a second build of the same kernels (e.g. `_i64`
    // beside the 32-bit one), so both can sit in one kernel directory.
    if (!kernelSuffix.empty())
      func.setName((func.getName() + kernelSuffix).str());
    kernelInfos.push_back(
        b.getNamedAttr(func.getName(), b.getDictionaryAttr(info)));
  }
  module->setAttr(kKernelsAttrName, b.getDictionaryAttr(kernelInfos));
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // Move the kernels into a gpu.module with the shared-memory array.
  OpBuilder ob(module.getBodyRegion());
  ob.setInsertionPointToEnd(module.getBody());
  auto gpuModule = ob.create<gpu::GPUModuleOp>(module.getLoc(), moduleName);
  if (indexBitwidth != 64)
    gpuModule->setAttr(
        DLTIDialect::kDataLayoutAttrName,
        DataLayoutSpecAttr::get(
            ctx, {DataLayoutEntryAttr::get(
                     IndexType::get(ctx),
                     b.getI32IntegerAttr(static_cast<int32_t>(indexBitwidth)))}));
  OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto smemType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  gb.create<LLVM::GlobalOp>(module.getLoc(), smemType, /*isConstant=*/false,
                            LLVM::Linkage::External, kSharedMemorySymbol,
                            Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  for (func::FuncOp func : kernels)
    func->moveBefore(gpuModule.getBody()->getTerminator());
  numKernels += kernels.size();
}

} // namespace
} // namespace mlir::gdn
