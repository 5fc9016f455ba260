//===- ExportPTX.cpp - write PTX and launch manifests ----------------------===//
//
// Ahead-of-time emission: the PTX text of each gpu.binary goes to a .ptx file
// and the launch interface of each kernel to a .manifest file for gdn-run.
//
//===----------------------------------------------------------------------===//

#include "gdn/Target/PTX/Passes.h"
#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Runtime/KernelContract.h"

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
  os.close();
  if (os.has_error())
    return op->emitError("cannot write '")
           << path << "': " << os.error().message();
  return success();
}

/// `<outputDir>/<name><ext>`, for a `name` that is a PTX identifier (so no
/// separator, dot or `..` can take the file out of `outputDir`).
FailureOr<SmallString<256>> outputPath(Operation *op, StringRef outputDir,
                                       StringRef what, StringRef name,
                                       StringRef ext) {
  if (!tile::isPtxIdentifier(name))
    return op->emitError() << what << " name '" << name
                           << "' is not a PTX identifier "
                              "([A-Za-z_$][A-Za-z0-9_$]*); it would name "
                              "the file '"
                           << name << ext << "'";
  SmallString<256> path(outputDir);
  llvm::sys::path::append(path, name + ext);
  // Belt and braces: the file is a direct child of outputDir.
  if (llvm::sys::path::filename(path) != (name + ext).str() ||
      llvm::sys::path::has_parent_path(name))
    return op->emitError() << "refusing to write '" << path
                           << "' outside the output directory '" << outputDir
                           << "'";
  return path;
}

/// The parameter types gdn-run binds.
bool isBindableParamType(StringRef type) {
  static constexpr llvm::StringLiteral kTypes[] = {
      "ptr<f16>", "ptr<bf16>", "ptr<f32>", "ptr<i32>", "ptr<i64>",
      "i32",      "i64",       "f32",      "tensormap"};
  return llvm::is_contained(kTypes, type);
}

/// Writes a launch manifest: `key = value` lines, every key
/// `[A-Za-z_][A-Za-z0-9_.]*` and every value free of control characters and
/// '#' (which would start a new line or a comment in the reader). Nothing
/// that fails the check is written; the first failure is reported.
class ManifestWriter {
public:
  explicit ManifestWriter(Operation *op, StringRef kernel)
      : op(op), kernel(kernel.str()) {
    text = "# launch manifest written by gdn-opt (gdn-export-ptx)\n";
  }

  /// Adds a line; false (with an error) when the key or value is unsafe.
  bool add(StringRef key, StringRef value) {
    if (failed)
      return false;
    if (!isKey(key))
      return fail("key '" + key.str() + "' is not [A-Za-z_][A-Za-z0-9_.]*");
    for (char c : value)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '#')
        return fail("value of '" + key.str() +
                    "' contains a control character or '#'");
    text += key.str() + " = " + value.str() + "\n";
    return true;
  }
  /// Adds `key = <attribute>`, formatted as a manifest value.
  bool add(StringRef key, Attribute value) {
    std::string s;
    if (!format(value, s))
      return fail("value of '" + key.str() +
                  "' is not an integer, float, string or array of these");
    return add(key, s);
  }
  bool ok() const { return !failed; }
  StringRef getText() const { return text; }

private:
  static bool isKey(StringRef key) {
    if (key.empty() || !(llvm::isAlpha(key.front()) || key.front() == '_'))
      return false;
    return llvm::all_of(key, [](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '.';
    });
  }
  static bool format(Attribute a, std::string &out) {
    llvm::raw_string_ostream os(out);
    if (auto b = dyn_cast<BoolAttr>(a)) {
      os << (b.getValue() ? 1 : 0);
    } else if (isa<IntegerAttr>(a)) {
      std::optional<int64_t> v = tile::getInt64(a);
      if (!v)
        return false;
      os << *v;
    } else if (auto f = dyn_cast<FloatAttr>(a)) {
      os << f.getValueAsDouble();
    } else if (auto s = dyn_cast<StringAttr>(a)) {
      os << s.getValue();
    } else if (isa<UnitAttr>(a)) {
      os << 1;
    } else if (auto arr = dyn_cast<ArrayAttr>(a)) {
      for (auto [i, e] : llvm::enumerate(arr)) {
        if (i)
          os << ",";
        if (isa<ArrayAttr>(e) || !format(e, out))
          return false;
      }
    } else {
      return false;
    }
    return true;
  }
  bool fail(const std::string &why) {
    op->emitError("cannot write the launch manifest of kernel '")
        << kernel << "': " << why;
    failed = true;
    return false;
  }

  Operation *op;
  std::string kernel;
  std::string text;
  bool failed = false;
};

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
  llvm::StringMap<std::string> hashes; // ptxHash() of each file written
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
      FailureOr<SmallString<256>> path =
          outputPath(binary, outputDir, "module", binary.getName(), ".ptx");
      if (failed(path))
        return signalPassFailure();
      std::string text = ptx.str();
      if (!StringRef(text).ends_with("\n"))
        text += "\n";
      if (failed(writeFile(binary, *path, text)))
        return signalPassFailure();
      hashes[binary.getName()] = ::gdn::run::ptxHash(text);
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
        chips[binary.getName()] = nvvm.getChip().str();
      ++numPtx;
    }
  }

  auto kernels = module->getAttrOfType<DictionaryAttr>("gdn.kernels");
  if (!kernels)
    return;
  for (NamedAttribute kernel : kernels) {
    StringRef kernelName = kernel.getName().getValue();
    auto info = dyn_cast<DictionaryAttr>(kernel.getValue());
    auto moduleName = info ? info.getAs<StringAttr>("module") : StringAttr();
    if (!moduleName || !chips.count(moduleName.getValue())) {
      module.emitError("no PTX for kernel '") << kernelName << "'";
      return signalPassFailure();
    }
    FailureOr<SmallString<256>> path =
        outputPath(module, outputDir, "kernel", kernelName, ".manifest");
    if (failed(path))
      return signalPassFailure();

    ManifestWriter w(module, kernelName);
    w.add("gdn_manifest", "1");
    w.add("kernel", kernelName);
    w.add("ptx", (moduleName.getValue() + ".ptx").str());
    w.add("ptx_hash", hashes[moduleName.getValue()]);
    w.add("target", chips[moduleName.getValue()]);

    // block = x,y,z: positive, at most kMaxThreadsPerBlock threads.
    auto block = info.getAs<ArrayAttr>("block");
    std::optional<int64_t> threads = 1;
    if (block && block.size() == 3) {
      for (Attribute d : block) {
        std::optional<int64_t> v = tile::getInt64(d);
        threads = v && *v > 0 && threads ? tile::checkedMul(*threads, *v)
                                         : std::nullopt;
      }
    }
    if (!block || block.size() != 3 || !threads ||
        *threads > tile::kMaxThreadsPerBlock) {
      module.emitError("kernel '")
          << kernelName << "': block must be three positive sizes of at most "
          << tile::kMaxThreadsPerBlock << " threads in all";
      return signalPassFailure();
    }
    w.add("block", block);

    std::optional<int64_t> smem = tile::getInt64(info.get("shared_bytes"));
    if (!smem || *smem < 0 || *smem > tile::kMaxSharedBytesPerBlock) {
      module.emitError("kernel '")
          << kernelName << "': shared_bytes must be an integer in [0, "
          << tile::kMaxSharedBytesPerBlock << "]";
      return signalPassFailure();
    }
    w.add("shared_bytes", std::to_string(*smem));

    // index_bits = 32: the kernel's offsets are 32-bit (the launcher checks
    // that the problem's buffers fit); absent for 64-bit kernels.
    if (Attribute bits = info.get("index_bits")) {
      std::optional<int64_t> v = tile::getInt64(bits);
      if (!v || (*v != 32 && *v != 64)) {
        module.emitError("kernel '")
            << kernelName << "': index_bits must be 32 or 64";
        return signalPassFailure();
      }
      if (*v == 32)
        w.add("index_bits", "32");
    }

    // grid_dependency = 1: launch with programmatic stream serialization
    // (the kernel waits for its predecessor itself, tile.grid_dependency,
    // at entry or, "deferred", where its tile.grid_wait ops are); 2: the
    // same launch, but the kernel waits through ready flags
    // (tile.grid_dependency = "flags"); 3: both ("wait_and_flags").
    if (Attribute dep = info.get("grid_dependency")) {
      const int mode = tile::TileDialect::getGridDependencyMode(dep);
      if (mode == 0) {
        module.emitError("kernel '")
            << kernelName
            << "': grid_dependency must be a unit attribute, \"flags\", "
               "\"wait_and_flags\" or \"deferred\"";
        return signalPassFailure();
      }
      w.add("grid_dependency", std::to_string(mode));
    }

    // requires_multiple.<name> = m: the launcher checks scalar <name>.
    if (auto req = info.getAs<DictionaryAttr>("requires_multiple")) {
      for (NamedAttribute e : req) {
        std::optional<int64_t> m = tile::getInt64(e.getValue());
        if (!m || *m < 1) {
          module.emitError("kernel '")
              << kernelName << "': requires_multiple." << e.getName().getValue()
              << " must be a positive integer";
          return signalPassFailure();
        }
        w.add(("requires_multiple." + e.getName().getValue()).str(),
              std::to_string(*m));
      }
    }

    // param = name:type, a type gdn-run can bind.
    auto params = info.getAs<ArrayAttr>("params");
    if (!params) {
      module.emitError("kernel '") << kernelName << "' has no params";
      return signalPassFailure();
    }
    for (Attribute p : params) {
      auto str = dyn_cast<StringAttr>(p);
      auto [name, type] = str ? str.getValue().split(':')
                              : std::make_pair(StringRef(), StringRef());
      if (!str || !tile::isCIdentifier(name)) {
        module.emitError("kernel '")
            << kernelName << "': parameter " << p
            << " is not 'name:type' with an identifier name";
        return signalPassFailure();
      }
      if (!isBindableParamType(type)) {
        module.emitError("kernel '")
            << kernelName << "': parameter '" << name << "' has type '"
            << type
            << "', which gdn-run cannot bind (supported: ptr<f16|bf16|f32|"
               "i32|i64>, i32, i64, f32, tensormap)";
        return signalPassFailure();
      }
      w.add("param", str.getValue());
    }
    // Tensor maps: the manifest lists dims, strides and box innermost
    // first, as cuTensorMapEncodeTiled takes them; strides in elements.
    if (Attribute mapsAttr = info.get("tensormaps")) {
      auto maps = dyn_cast<DictionaryAttr>(mapsAttr);
      if (!maps) {
        module.emitError("kernel '") << kernelName
                                     << "': tensormaps must be a dictionary";
        return signalPassFailure();
      }
      for (NamedAttribute m : maps) {
        auto d = dyn_cast<DictionaryAttr>(m.getValue());
        auto base = d ? d.getAs<StringAttr>("base") : StringAttr();
        auto swizzle = d ? d.getAs<IntegerAttr>("swizzle") : IntegerAttr();
        std::string fields[4];
        const char *keys[4] = {"dims", "strides", "box", nullptr};
        bool ok = base && swizzle && tile::isCIdentifier(base.getValue());
        for (int k = 0; ok && keys[k]; ++k) {
          auto list = d.getAs<ArrayAttr>(keys[k]);
          if (!list) {
            ok = false;
            break;
          }
          SmallVector<std::string> items;
          for (Attribute a : list) {
            std::string item;
            if (auto str = dyn_cast<StringAttr>(a))
              item = str.getValue().str();
            else if (std::optional<int64_t> v = tile::getInt64(a))
              item = std::to_string(*v);
            else
              ok = false;
            items.push_back(item);
          }
          std::reverse(items.begin(), items.end());
          fields[k] = llvm::join(items, ", ");
        }
        if (!ok) {
          module.emitError("kernel '")
              << kernelName << "': tensor map '" << m.getName().getValue()
              << "' needs base (an identifier), dims, strides, box and "
                 "swizzle";
          return signalPassFailure();
        }
        std::string swz = swizzle.getInt() ? std::to_string(swizzle.getInt())
                                           : std::string("none");
        // L2 promotion: the recipe's (tile-pipeline leaves it out where it
        // is the default 256 bytes; the manifest always says, since its
        // reader takes a missing `l2=` as none).
        int64_t l2Bytes = 256;
        if (Attribute l2Attr = d.get("l2_promotion")) {
          auto l2 = dyn_cast<IntegerAttr>(l2Attr);
          if (!l2 || !tile::isL2PromotionBytes(l2.getInt())) {
            module.emitError("kernel '")
                << kernelName << "': tensor map '" << m.getName().getValue()
                << "' has l2_promotion " << l2Attr
                << ", not one of 0 (none), 64, 128 or 256 bytes";
            return signalPassFailure();
          }
          l2Bytes = l2.getInt();
        }
        std::string l2 = l2Bytes ? std::to_string(l2Bytes) : "none";
        w.add(("tensormap." + m.getName().getValue()).str(),
              "base=" + base.getValue().str() + "; dims=" + fields[0] +
                  "; strides=" + fields[1] + "; box=" + fields[2] +
                  "; swizzle=" + swz + "; l2=" + l2 + "; fill=zero");
      }
    }
    if (Attribute metaAttr = info.get("meta")) {
      auto meta = dyn_cast<DictionaryAttr>(metaAttr);
      if (!meta) {
        module.emitError("kernel '") << kernelName << "': meta must be a "
                                        "dictionary";
        return signalPassFailure();
      }
      for (NamedAttribute m : meta)
        w.add(("meta." + m.getName().getValue()).str(), m.getValue());
    }
    if (!w.ok())
      return signalPassFailure();
    if (failed(writeFile(module, *path, w.getText())))
      return signalPassFailure();
    ++numManifests;
  }
}

} // namespace
} // namespace mlir::gdn
