//===- TileDialect.cpp - tile dialect registration and attribute checks ---===//
//
// Registers the dialect's ops, types and attributes and verifies the
// discardable `tile.*` attributes that configure a kernel.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Runtime/KernelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::gdn::tile;

#include "gdn/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "gdn/Dialect/Tile/IR/TileEnums.cpp.inc"

namespace {
/// Tile ops carry no symbol or region invariants tied to their function, so
/// a kernel's body can be written once as a private function and
/// specialized per entry point by `inline` + `canonicalize` (the GDN forward
/// kernels do this). The one place they may not go is the scalar body of a
/// `tile.map` or `tile.reduce`, which runs once per element: nothing is
/// inlined there (the dialect has no call ops of its own).
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  static bool inElementBody(Region *dest) {
    for (Operation *op = dest->getParentOp(); op; op = op->getParentOp())
      if (isa<MapOp, ReduceOp>(op))
        return true;
    return false;
  }
  bool isLegalToInline(Region *dest, Region *, bool, IRMapping &) const final {
    return !inElementBody(dest);
  }
  bool isLegalToInline(Operation *, Region *dest, bool,
                       IRMapping &) const final {
    return !inElementBody(dest);
  }
};
} // namespace

/// Checks a value of `tile.meta`, which gdn-export-ptx writes into a
/// `key = value` line of the launch manifest: integers, floats, booleans,
/// unit, strings without control characters or '#', and arrays of these.
static LogicalResult verifyMetaValue(Operation *op, StringRef key,
                                     Attribute value) {
  auto fail = [&](const Twine &why) {
    return op->emitError() << "'" << TileDialect::getMetaAttrName()
                           << "' entry '" << key << "' " << why;
  };
  if (isa<IntegerAttr>(value)) {
    if (!getInt64(value))
      return fail("is an integer that does not fit in 64 bits");
    return success();
  }
  if (isa<FloatAttr, UnitAttr, BoolAttr>(value))
    return success();
  if (auto str = dyn_cast<StringAttr>(value)) {
    for (char c : str.getValue())
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '#')
        return fail("contains a control character or '#', which a manifest "
                    "line cannot hold");
    return success();
  }
  if (auto arr = dyn_cast<ArrayAttr>(value)) {
    for (Attribute e : arr)
      if (isa<ArrayAttr>(e) || failed(verifyMetaValue(op, key, e)))
        return isa<ArrayAttr>(e) ? fail("nests arrays") : failure();
    return success();
  }
  return fail("must be an integer, float, boolean, string or array of "
              "these");
}

/// Whether `key` can be a manifest key: `[A-Za-z_][A-Za-z0-9_.]*`.
static bool isManifestKey(StringRef key) {
  if (key.empty() || !(llvm::isAlpha(key.front()) || key.front() == '_'))
    return false;
  return llvm::all_of(key, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.';
  });
}

void TileDialect::initialize() {
  registerTypesAndAttributes();
  addOperations<
#define GET_OP_LIST
#include "gdn/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

/// A kernel attribute's integer the way the passes read it
/// (IntegerAttr::getInt): signless integers of at least 8 bits or index
/// only, so that `1 : i1` (getInt: -1) or an unsigned type (getInt
/// asserts) never reaches them.
static std::optional<int64_t> getKernelInt(Attribute attr) {
  auto i = dyn_cast_or_null<IntegerAttr>(attr);
  if (!i)
    return std::nullopt;
  Type t = i.getType();
  if (!t.isIndex() && !(t.isSignlessInteger() && t.getIntOrFloatBitWidth() >= 8))
    return std::nullopt;
  return getInt64(attr);
}

int TileDialect::getGridDependencyMode(Attribute value) {
  if (isa_and_nonnull<UnitAttr>(value))
    return 1;
  auto mode = dyn_cast_or_null<StringAttr>(value);
  if (!mode)
    return 0;
  if (mode.getValue() == "flags")
    return 2;
  if (mode.getValue() == "deferred")
    return 1;
  return mode.getValue() == "wait_and_flags" ? 3 : 0;
}

bool TileDialect::isDeferredGridDependency(Attribute value) {
  auto mode = dyn_cast_or_null<StringAttr>(value);
  return mode && mode.getValue() == "deferred";
}

StringRef TileDialect::getTmaIssue(Operation *kernel) {
  if (auto request =
          kernel->getAttrOfType<DictionaryAttr>(getWarpSpecializeAttrName()))
    if (auto s = request.getAs<StringAttr>("tma_issue"))
      return s.getValue();
  return "first";
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getKernelAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' may only be set on a function";
    auto func = cast<FunctionOpInterface>(op);
    if (!func->hasAttr(getNumWarpsAttrName()))
      return op->emitError() << "a tile kernel needs '" << getNumWarpsAttrName()
                             << "'";
    // The name becomes a PTX entry symbol and a file name.
    if (!isPtxIdentifier(func.getName()))
      return op->emitError() << "tile kernel name '" << func.getName()
                             << "' is not a PTX identifier "
                                "([A-Za-z_$][A-Za-z0-9_$]*)";
    // Kernels are written directly in a module (the gdn-lower-to-ptx
    // pipeline also rejects kernels in nested modules, which the parser's
    // own container makes indistinguishable here); tile-outline-kernels
    // then moves them into a gpu.module for convert-tile-to-nvvm.
    if (!isa_and_nonnull<ModuleOp, gpu::GPUModuleOp>(op->getParentOp()))
      return op->emitError() << "a tile kernel must be defined directly in a "
                                "module, not in "
                             << op->getParentOp()->getName().getStringRef();
    // Parameter names are unique (they name the manifest's parameters).
    llvm::StringSet<> names;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      std::string argName = "arg" + std::to_string(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(i, getArgNameAttrName()))
        argName = n.str();
      if (!names.insert(argName).second)
        return op->emitError() << "tile kernel parameter name '" << argName
                               << "' is used twice";
    }
    if (func.getResultTypes().size() != 0)
      return op->emitError() << "a tile kernel must not return values";
    for (Type t : func.getArgumentTypes())
      if (!isa<PtrType, TensorMapType, IntegerType, FloatType, IndexType>(t))
        return op->emitError() << "tile kernel arguments must be !tile.ptr, "
                                  "!tile.tensormap or scalars, got "
                               << t;
    return success();
  }
  if (name == getNumWarpsAttrName()) {
    std::optional<int64_t> v = getKernelInt(attr.getValue());
    if (!v || *v <= 0 || *v > kMaxWarpsPerBlock)
      return op->emitError() << "'" << name << "' must be an integer in [1, "
                             << kMaxWarpsPerBlock << "] (at most "
                             << kMaxThreadsPerBlock << " threads per block)";
    return success();
  }
  if (name == getMaxRegistersAttrName()) {
    std::optional<int64_t> v = getKernelInt(attr.getValue());
    if (!v || *v < 24 || *v > kMaxRegistersPerThread)
      return op->emitError() << "'" << name
                             << "' must be an integer in [24, 255]";
    return success();
  }
  if (name == getOverlapTrilInverseAttrName()) {
    std::optional<int64_t> v = getKernelInt(attr.getValue());
    if (!v || *v < 0 || *v > 2)
      return op->emitError() << "'" << name << "' must be 0, 1 or 2";
    return success();
  }
  if (name == getMmaEngineAttrName()) {
    auto v = dyn_cast<StringAttr>(attr.getValue());
    if (!v || (v.getValue() != "mma.sync" && v.getValue() != "wgmma"))
      return op->emitError() << "'" << name
                             << "' must be \"mma.sync\" or \"wgmma\"";
    return success();
  }
  if (name == getSharedMemoryBytesAttrName()) {
    std::optional<int64_t> v = getKernelInt(attr.getValue());
    if (!v || *v < 0)
      return op->emitError() << "'" << name
                             << "' must be a non-negative integer";
    return success();
  }
  if (name == getRequiresMultipleAttrName()) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!d || !func)
      return op->emitError() << "'" << name
                             << "' must be a dictionary on a function";
    for (NamedAttribute e : d) {
      std::optional<int64_t> m = getKernelInt(e.getValue());
      if (!m || *m < 1 || (*m & (*m - 1)) != 0)
        return op->emitError()
               << "'" << name << "': " << e.getName().getValue()
               << " must be a positive power of two";
      // The manifest's parameter names: tile.name, else argN.
      bool found = false;
      for (unsigned i = 0, n = func.getNumArguments(); i < n && !found; ++i) {
        auto argName =
            func.getArgAttrOfType<StringAttr>(i, getArgNameAttrName());
        std::string paramName =
            argName ? argName.str() : "arg" + std::to_string(i);
        found = paramName == e.getName().getValue() &&
                func.getArgumentTypes()[i].isIntOrIndex();
      }
      if (!found)
        return op->emitError()
               << "'" << name << "': " << e.getName().getValue()
               << " names no integer argument (tile.name or argN)";
    }
    return success();
  }
  if (name == getCopyEngineAttrName()) {
    auto v = dyn_cast<StringAttr>(attr.getValue());
    if (!v || (v.getValue() != "cp.async" && v.getValue() != "tma"))
      return op->emitError() << "'" << name
                             << "' must be \"cp.async\" or \"tma\"";
    return success();
  }
  // Unit attributes that request something of a kernel (the grid
  // dependency also "flags": launch early, wait through ready flags,
  // "wait_and_flags": wait at entry and through ready flags, and
  // "deferred": wait where tile.grid_wait is).
  if (name == getGridDependencyAttrName() || name == getAsyncGemmAttrName()) {
    bool grid = name == getGridDependencyAttrName();
    if (grid ? getGridDependencyMode(attr.getValue()) == 0
             : !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute"
                             << (grid ? ", \"flags\", \"wait_and_flags\" "
                                        "or \"deferred\""
                                      : "");
    if (!op->hasAttr(getKernelAttrName()))
      return op->emitError() << "'" << name << "' is only valid on a "
                             << "tile.kernel function";
    return success();
  }
  if (name == getWarpSpecializeAttrName()) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!d)
      return op->emitError() << "'" << name << "' must be a dictionary";
    for (NamedAttribute e : d) {
      StringRef key = e.getName().getValue();
      if (key == "tma_issue") {
        auto s = dyn_cast<StringAttr>(e.getValue());
        if (!s || !llvm::is_contained({"first", "round_robin", "consumer"},
                                      s.getValue()))
          return op->emitError() << "'" << name
                                 << "' tma_issue must be \"first\", "
                                    "\"round_robin\" or \"consumer\"";
        continue;
      }
      std::optional<int64_t> v = getKernelInt(e.getValue());
      if (key != "producer_registers" && key != "consumer_registers")
        return op->emitError()
               << "'" << name << "' takes 'producer_registers', "
               << "'consumer_registers' and 'tma_issue', not '" << key
               << "'";
      if (!v || *v < 24 || *v > 256 || *v % 8 != 0)
        return op->emitError() << "'" << name << "' " << key
                               << " must be a multiple of 8 in [24, 256]";
    }
    return success();
  }
  if (name == getProducerWarpsAttrName()) {
    std::optional<int64_t> v = getKernelInt(attr.getValue());
    if (!v || *v <= 0 || *v % 4 != 0)
      return op->emitError() << "'" << name
                             << "' must be a positive multiple of 4";
    return success();
  }
  if (name == getMetaAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    for (NamedAttribute entry : dict) {
      StringRef key = entry.getName().getValue();
      if (!isManifestKey(key))
        return op->emitError() << "'" << name << "' key '" << key
                               << "' is not a manifest key "
                                  "([A-Za-z_][A-Za-z0-9_.]*)";
      if (failed(verifyMetaValue(op, key, entry.getValue())))
        return failure();
    }
    // The kernel <-> runtime contract (gdn/Runtime/KernelContract.h): the
    // runtime's own parser checks grid and workspace expressions here.
    std::vector<::gdn::run::KernelMetaEntry> entries;
    for (NamedAttribute e : dict) {
      ::gdn::run::KernelMetaEntry entry;
      entry.key = e.getName().getValue().str();
      if (auto s = dyn_cast<StringAttr>(e.getValue())) {
        entry.text = s.getValue().str();
      } else if (auto i = dyn_cast<IntegerAttr>(e.getValue());
                 i && isa<IntegerType>(i.getType())) {
        entry.text = std::to_string(i.getInt());
        entry.isInt = true;
      } else {
        llvm::raw_string_ostream os(entry.text);
        e.getValue().print(os);
        entry.isOther = true;
      }
      entries.push_back(std::move(entry));
    }
    std::string problem = ::gdn::run::verifyKernelMeta(entries);
    if (!problem.empty())
      return op->emitError() << "'" << name << "': " << problem;
    return success();
  }
  return op->emitError() << "unknown tile dialect attribute '" << name << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned,
                                                    NamedAttribute attr) {
  if (attr.getName().getValue() == getTensorMapAttrName()) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!d || !d.getAs<StringAttr>("base") || !d.getAs<ArrayAttr>("dims") ||
        !d.getAs<ArrayAttr>("strides"))
      return op->emitError() << "'" << getTensorMapAttrName()
                             << "' must be a dictionary with 'base' (a "
                                "string), 'dims' and 'strides' (arrays)";
    // Nothing else: a misspelt key would otherwise be dropped silently.
    for (NamedAttribute e : d)
      if (!llvm::is_contained({"base", "dims", "strides", "l2_promotion"},
                              e.getName().getValue()))
        return op->emitError()
               << "'" << getTensorMapAttrName() << "' takes 'base', 'dims', "
               << "'strides' and 'l2_promotion', not '"
               << e.getName().getValue() << "'";
    // The L2 promotion (bytes, 0 for none; 256 where absent): one of the
    // sizes cuTensorMapEncodeTiled knows.
    if (Attribute l2 = d.get("l2_promotion")) {
      auto n = dyn_cast<IntegerAttr>(l2);
      if (!n || !isL2PromotionBytes(n.getInt()))
        return op->emitError()
               << "'" << getTensorMapAttrName()
               << "' has l2_promotion " << l2
               << ", not one of 0 (none), 64, 128 or 256 bytes";
    }
    return success();
  }
  if (attr.getName().getValue() != getArgNameAttrName())
    return op->emitError() << "unknown tile argument attribute '"
                           << attr.getName().getValue() << "'";
  auto str = dyn_cast<StringAttr>(attr.getValue());
  if (!str)
    return op->emitError() << "'" << getArgNameAttrName()
                           << "' must be a string";
  if (!isCIdentifier(str.getValue()))
    return op->emitError() << "'" << getArgNameAttrName() << "' '"
                           << str.getValue()
                           << "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  return success();
}
