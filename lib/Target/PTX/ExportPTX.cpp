//===- ExportPTX.cpp - write PTX and launch manifests ----------------------===//
//
// Ahead-of-time emission: the PTX text of each gpu.binary goes to a .ptx file
// and the launch interface of each kernel to a .manifest file for gdn-run.
//
//===----------------------------------------------------------------------===//

#include "gdn/Target/PTX/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNEXPORTPTX
#include "gdn/Target/PTX/Passes.h.inc"

namespace {

struct ExportPTXPass : impl::GdnExportPTXBase<ExportPTXPass> {
  using GdnExportPTXBase::GdnExportPTXBase;
  void runOnOperation() override;
};

LogicalResult writeFile(Operation *op, StringRef path, StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return op->emitError("cannot write '") << path << "': " << ec.message();
  os << text;
  return success();
}

/// Writes an attribute value the way a manifest wants it.
void printValue(llvm::raw_ostream &os, Attribute a) {
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    if (i.getType().isInteger(1))
      os << (i.getValue().getBoolValue() ? 1 : 0);
    else
      os << i.getInt();
  } else if (auto f = dyn_cast<FloatAttr>(a)) {
    os << f.getValueAsDouble();
  } else if (auto s = dyn_cast<StringAttr>(a)) {
    os << s.getValue();
  } else if (isa<UnitAttr>(a)) {
    os << 1;
  } else if (auto arr = dyn_cast<ArrayAttr>(a)) {
    llvm::interleave(
        arr, os, [&](Attribute e) { printValue(os, e); }, ",");
  } else {
    os << a;
  }
}

void ExportPTXPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (outputDir.empty()) {
    module.emitError("gdn-export-ptx needs an output-dir");
    return signalPassFailure();
  }
  if (!llvm::sys::fs::is_directory(outputDir)) {
    module.emitError("output directory '") << outputDir << "' does not exist";
    return signalPassFailure();
  }

  // PTX files, and the chip each module was compiled for.
  llvm::StringMap<std::string> chips;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError("gdn-export-ptx needs PTX; run gpu-module-to-binary "
                         "with format=isa");
        return signalPassFailure();
      }
      StringRef ptx = object.getObject().getValue();
      ptx = ptx.rtrim(StringRef("\0", 1)); // ptxas rejects a trailing NUL
      if (binary.getObjects().size() != 1) {
        binary.emitError("gdn-export-ptx expects one object per gpu.binary, "
                         "got ")
            << binary.getObjects().size();
        return signalPassFailure();
      }
      SmallString<256> path(outputDir);
      llvm::sys::path::append(path, binary.getName() + ".ptx");
      std::string text = ptx.str();
      if (!StringRef(text).ends_with("\n"))
        text += "\n";
      if (failed(writeFile(binary, path, text)))
        return signalPassFailure();
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
        chips[binary.getName()] = nvvm.getChip().str();
      ++numPtx;
    }
  }

  auto kernels = module->getAttrOfType<DictionaryAttr>("gdn.kernels");
  if (!kernels)
    return;
  for (NamedAttribute kernel : kernels) {
    auto info = cast<DictionaryAttr>(kernel.getValue());
    auto moduleName = info.getAs<StringAttr>("module");
    if (!moduleName || !chips.count(moduleName.getValue())) {
      module.emitError("no PTX for kernel '")
          << kernel.getName().getValue() << "'";
      return signalPassFailure();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "# launch manifest written by gdn-opt (gdn-export-ptx)\n";
    os << "gdn_manifest = 1\n";
    os << "kernel = " << kernel.getName().getValue() << "\n";
    os << "ptx = " << moduleName.getValue() << ".ptx\n";
    os << "target = " << chips[moduleName.getValue()] << "\n";
    os << "block = ";
    printValue(os, info.get("block"));
    os << "\nshared_bytes = ";
    printValue(os, info.get("shared_bytes"));
    os << "\n";
    for (Attribute p : info.getAs<ArrayAttr>("params"))
      os << "param = " << cast<StringAttr>(p).getValue() << "\n";
    // Tensor maps: the manifest lists dims, strides and box innermost
    // first, as cuTensorMapEncodeTiled takes them; strides in elements.
    if (auto maps = info.getAs<DictionaryAttr>("tensormaps"))
      for (NamedAttribute m : maps) {
        auto d = cast<DictionaryAttr>(m.getValue());
        auto list = [&](StringRef key) {
          SmallVector<std::string> items;
          for (Attribute a : d.getAs<ArrayAttr>(key)) {
            std::string s;
            llvm::raw_string_ostream is(s);
            printValue(is, a);
            items.push_back(s);
          }
          std::reverse(items.begin(), items.end());
          return llvm::join(items, ", ");
        };
        os << "tensormap." << m.getName().getValue()
           << " = base=" << d.getAs<StringAttr>("base").getValue()
           << "; dims=" << list("dims") << "; strides=" << list("strides")
           << "; box=" << list("box") << "; swizzle=";
        int64_t swizzle = d.getAs<IntegerAttr>("swizzle").getInt();
        if (swizzle)
          os << swizzle;
        else
          os << "none";
        os << "; l2=256; fill=zero\n";
      }
    if (auto meta = info.getAs<DictionaryAttr>("meta"))
      for (NamedAttribute m : meta) {
        os << "meta." << m.getName().getValue() << " = ";
        printValue(os, m.getValue());
        os << "\n";
      }
    SmallString<256> path(outputDir);
    llvm::sys::path::append(path, kernel.getName().getValue() + ".manifest");
    if (failed(writeFile(module, path, text)))
      return signalPassFailure();
    ++numManifests;
  }
}

} // namespace
} // namespace mlir::gdn
