//===- TmaPlan.cpp - TMA box copies of tile.copy ops ----------------------===//
//
// See TmaPlan.h.
//
//===----------------------------------------------------------------------===//

#include "TmaPlan.h"
#include "Divisibility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"

#include <numeric>

namespace mlir::gdn::tile {

std::optional<std::string> hostExpr(Value v, func::FuncOp kernel,
                                    int depth) {
  if (depth > 16)
    return std::nullopt;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return std::to_string(c.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &kernel.getBody().front() ||
        !isa<IntegerType>(arg.getType()))
      return std::nullopt;
    if (auto name = kernel.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), TileDialect::getArgNameAttrName()))
      return name.str();
    return "arg" + std::to_string(arg.getArgNumber());
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(def))
    return hostExpr(def->getOperand(0), kernel, depth + 1);
  const char *sym = nullptr;
  bool ceil = false;
  if (isa<arith::MulIOp>(def))
    sym = "*";
  else if (isa<arith::AddIOp>(def))
    sym = "+";
  else if (isa<arith::SubIOp>(def))
    sym = "-";
  else if (isa<arith::DivUIOp>(def))
    sym = "/"; // floor division; sizes are not negative
  else if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def))
    ceil = true;
  if (!sym && !ceil)
    return std::nullopt;
  auto lhs = hostExpr(def->getOperand(0), kernel, depth + 1);
  auto rhs = hostExpr(def->getOperand(1), kernel, depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  if (ceil)
    return "cdiv(" + *lhs + ", " + *rhs + ")";
  return "(" + *lhs + ")" + sym + "(" + *rhs + ")";
}

FailureOr<TmaPlan> planTma(Value global, ValueRange offsets, BufferType sType,
                           bool masked, TmaUse use, func::FuncOp kernel,
                           std::string &why, int64_t blockLower) {
  auto gType = cast<BufferType>(global.getType());
  Type elem = sType.getElementType();
  if (!elem.isF16() && !elem.isBF16() && !elem.isF32()) {
    why = "element type is not f16, bf16 or f32";
    return failure();
  }
  if (sType.getRowPadding()) {
    why = "the shared tile's rows are padded (#tile.padded), which a TMA "
          "box cannot address";
    return failure();
  }
  if (masked && use == TmaUse::Store) {
    why = "a masked store (a TMA box is stored whole)";
    return failure();
  }
  TmaPlan plan;
  // The view, through tile.take ops (each fixes some dimensions) and
  // tile.narrow ops (each offsets one dimension's coordinate).
  Value v = global;
  SmallVector<Operation *> chain; // innermost (nearest the copy) first
  while (true) {
    if (auto take = v.getDefiningOp<TakeOp>()) {
      chain.push_back(take);
      v = take.getSource();
    } else if (auto narrow = v.getDefiningOp<NarrowOp>()) {
      chain.push_back(narrow);
      v = narrow.getSource();
    } else {
      break;
    }
  }
  auto view = v.getDefiningOp<ViewOp>();
  if (!view) {
    why = "the source is not a tile.view (through tile.take and tile.narrow) "
          "of a kernel pointer";
    return failure();
  }
  auto ptr = dyn_cast<BlockArgument>(view.getPtr());
  if (!ptr || ptr.getOwner() != &kernel.getBody().front()) {
    why = "the viewed pointer is not a kernel argument";
    return failure();
  }
  plan.base = ptr;
  auto viewType = cast<BufferType>(view.getType());
  int64_t rank = viewType.getRank();
  if (rank > 5) {
    why = "TMA tensors have at most 5 dimensions";
    return failure();
  }
  SmallVector<Value> sizes;
  unsigned dyn = 0;
  for (int64_t d : viewType.getShape()) {
    if (ShapedType::isDynamic(d)) {
      Value s = view.getSizes()[dyn++];
      auto e = hostExpr(s, kernel);
      if (!e) {
        why = "a view size is not an expression of the launch parameters";
        return failure();
      }
      plan.dims.push_back(*e);
    } else {
      plan.dims.push_back(std::to_string(d));
    }
  }
  for (int64_t d = 0; d + 1 < rank; ++d) {
    std::string stride = plan.dims[d + 1];
    for (int64_t e = d + 2; e < rank; ++e)
      stride = "(" + stride + ")*(" + plan.dims[e] + ")";
    plan.strides.push_back(stride);
  }
  // Which view dimensions the takes fixed (innermost take first in
  // `takes`; map each back to the view's numbering).
  SmallVector<int64_t> viewDimOf; // remaining dim -> view dim
  for (int64_t d = 0; d < rank; ++d)
    viewDimOf.push_back(d);
  plan.coordSource.assign(rank, 0);
  plan.coordAdd.assign(rank, {});
  // The narrowest extent of each view dimension (the tile.narrow nearest
  // the copy wins: a masked copy stops at its source's end).
  SmallVector<Value> narrowSize(rank);
  SmallVector<bool> taken(rank, false);
  for (Operation *op : llvm::reverse(chain)) {
    if (auto narrow = dyn_cast<NarrowOp>(op)) {
      int64_t d = viewDimOf[narrow.getDim()];
      plan.coordAdd[d].push_back(narrow.getStart());
      narrowSize[d] = narrow.getSize();
      continue;
    }
    auto take = cast<TakeOp>(op);
    SmallVector<int64_t> remaining;
    for (auto [i, d] : llvm::enumerate(take.getDims())) {
      plan.coordSource[viewDimOf[d]] =
          -1 - static_cast<int64_t>(plan.takeIndices.size() + i);
      taken[viewDimOf[d]] = true;
    }
    for (Value idx : take.getIndices())
      plan.takeIndices.push_back(idx);
    for (int64_t d = 0; d < static_cast<int64_t>(viewDimOf.size()); ++d)
      if (!llvm::is_contained(take.getDims(), d))
        remaining.push_back(viewDimOf[d]);
    viewDimOf = remaining;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (taken[d] && narrowSize[d]) {
      why = "a narrowed dimension is taken";
      return failure();
    }
  if (static_cast<int64_t>(viewDimOf.size()) != gType.getRank() ||
      gType.getRank() != sType.getRank()) {
    why = "the copied tile's rank differs from the source's";
    return failure();
  }
  // The innermost tensor dimension must be the tile's innermost, dense.
  if (viewDimOf.back() != rank - 1) {
    why = "the innermost tensor dimension is taken";
    return failure();
  }
  for (auto [i, d] : llvm::enumerate(viewDimOf))
    plan.coordSource[d] = i;
  // A masked copy: TMA fills zeros past the tensor's end; past a narrowed
  // extent the rows are zeroed after the load, which the ring supports
  // along the tile's dimension 0 only.
  if (masked) {
    for (auto [i, d] : llvm::enumerate(viewDimOf)) {
      if (!narrowSize[d])
        continue;
      if (i != 0) {
        why = "a masked copy is narrowed along a dimension other than the "
              "tile's first";
        return failure();
      }
      plan.maskSize = narrowSize[d];
      plan.maskOffset = 0;
    }
  }
  // The box: the tile, with one box per swizzle span along the innermost
  // dimension.
  int64_t eb = sType.getElementBytes();
  // A box's first element along the contiguous dimension must lie on 16
  // bytes (measured on the H200: a TMA load from a coordinate off that
  // raises an illegal-instruction fault), so its coordinate, the copy's
  // offset plus the narrow starts, must be a provable multiple of 16 / eb.
  {
    int64_t need = std::max<int64_t>(1, 16 / eb);
    int64_t at = plan.coordSource[rank - 1];
    int64_t div = at < static_cast<int64_t>(offsets.size())
                      ? knownMultiple(offsets[at])
                      : kMaxKnownMultiple;
    for (Value start : plan.coordAdd[rank - 1])
      div = std::min(div, knownMultiple(start));
    if (div % need != 0) {
      why = "the innermost coordinate is not provably a multiple of " +
            std::to_string(need) + " elements (16 bytes)";
      return failure();
    }
  }
  if (auto swz = dyn_cast_or_null<SwizzleAttr>(sType.getLayout()))
    plan.swizzle = swz.getBytes();
  // #tile.swizzle<32|64|128> is the TMA swizzle of that width.
  plan.box.assign(rank, 1);
  for (auto [i, d] : llvm::enumerate(viewDimOf))
    plan.box[d] = sType.getShape()[i];
  if (plan.swizzle)
    plan.box[rank - 1] = plan.swizzle / eb;
  // block_lower = K: the tile's rows in boxes of K (only those on and
  // below the diagonal blocks are loaded; the tensor dimension of the
  // tile's rows steps by K); each span (the box's width) must lie inside
  // one block column. A span wider than K takes the blocks of lcm(K, span)
  // instead, a superset of those asked for (32-row blocks for 16 under a
  // 32-column span), while they are smaller than the tile.
  if (blockLower) {
    int64_t rows = sType.getShape()[0];
    int64_t block = plan.swizzle ? std::lcm(blockLower, plan.box[rank - 1])
                                 : 0;
    if (sType.getRank() != 2 || !block || block >= rows || rows % block) {
      why = "a block_lower load needs a swizzled 2-D tile whose blocks, "
            "widened to whole swizzle spans, are smaller than the tile";
      return failure();
    }
    plan.box[viewDimOf[0]] = block;
    plan.blockLower = block;
    plan.l2Promotion = 0;
  }
  for (int64_t b : plan.box)
    if (b > 256) {
      why = "a box dimension exceeds 256 elements";
      return failure();
    }
  if ((plan.box[rank - 1] * eb) % 16 != 0) {
    why = "the box's innermost row is not a multiple of 16 bytes";
    return failure();
  }
  if (sType.getShape().back() % plan.box[rank - 1] != 0) {
    why = "the tile's rows are not whole boxes";
    return failure();
  }
  // Each stage of a ring is a TMA destination: 128-byte aligned, and
  // aligned to the swizzle's period, 8 rows of the box (1024 bytes for
  // 128, 512 for 64, 256 for 32). The N-stage buffer's base is aligned by
  // tile-plan-shared-memory; the stages follow at multiples of the tile's
  // bytes. (A stored buffer is whole: tile-plan-shared-memory aligns it.)
  int64_t tileBytes = sType.getNumElements() * eb;
  int64_t align = std::max<int64_t>(128, 8 * plan.swizzle);
  if (use == TmaUse::RingLoad && tileBytes % align != 0) {
    why = "the tile's " + std::to_string(tileBytes) +
          " bytes would put ring stages off the " + std::to_string(align) +
          "-byte alignment TMA destinations need";
    return failure();
  }
  // Tensor strides must be multiples of 16 bytes; the runtime checks the
  // symbolic ones, static ones are checked here (cp.async has no such
  // limit, so a kernel falls back rather than fail at launch).
  for (int64_t d = 0; d + 1 < rank; ++d) {
    int64_t stride = eb;
    bool known = true;
    for (int64_t e = d + 1; e < rank && known; ++e) {
      int64_t n = viewType.getShape()[e];
      known = !ShapedType::isDynamic(n);
      stride *= known ? n : 1;
    }
    if (known && stride % 16 != 0) {
      why = "tensor dimension " + std::to_string(d) + " has a stride of " +
            std::to_string(stride) + " bytes, not a multiple of 16";
      return failure();
    }
  }
  return plan;
}

SmallVector<Value> tmaCoords(OpBuilder &b, Location loc, const TmaPlan &plan,
                             ValueRange offsets,
                             function_ref<Value(Value)> value) {
  SmallVector<Value> coords;
  for (auto [d, src] : llvm::enumerate(plan.coordSource)) {
    Value x = src >= 0 ? offsets[src] : value(plan.takeIndices[-1 - src]);
    for (Value start : plan.coordAdd[d])
      x = b.create<arith::AddIOp>(loc, value(start), x);
    coords.push_back(x);
  }
  return coords;
}

/// The key of a tensor map: base pointer, tensor, box, swizzle and L2
/// promotion.
static std::string mapKey(StringRef base, ArrayRef<std::string> dims,
                          ArrayRef<int64_t> box, int64_t swizzle,
                          int64_t l2Promotion) {
  std::string key = base.str() + "|" + llvm::join(dims, ",") + "|";
  for (int64_t b : box)
    key += std::to_string(b) + ",";
  key += "|" + std::to_string(swizzle) + "|" + std::to_string(l2Promotion);
  return key;
}

/// A recipe's L2 promotion: its `l2_promotion` (bytes, 0 for none), 256
/// where it has none.
static int64_t recipeL2Promotion(DictionaryAttr recipe) {
  if (auto l2 = recipe.getAs<IntegerAttr>("l2_promotion"))
    return l2.getInt();
  return 256;
}

TensorMaps::TensorMaps(func::FuncOp kernel) : kernel(kernel) {
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    // The function type, not the entry block's arguments: a declaration
    // (no body) has none.
    auto type = dyn_cast<TensorMapType>(kernel.getArgumentTypes()[i]);
    auto recipe = kernel.getArgAttrOfType<DictionaryAttr>(
        i, TileDialect::getTensorMapAttrName());
    if (!type || !recipe)
      continue;
    auto base = recipe.getAs<StringAttr>("base");
    auto dims = recipe.getAs<ArrayAttr>("dims");
    if (!base || !dims)
      continue;
    SmallVector<std::string> dimStrings;
    for (Attribute d : dims)
      if (auto s = dyn_cast<StringAttr>(d))
        dimStrings.push_back(s.str());
    byKey[mapKey(base.getValue(), dimStrings, type.getShape(),
                 type.getSwizzle(), recipeL2Promotion(recipe))] = i;
  }
}

Value TensorMaps::get(const TmaPlan &plan, Type elem) {
  auto type = TensorMapType::get(kernel.getContext(), plan.box, elem,
                                 plan.swizzle);
  std::string base = "arg" + std::to_string(plan.base.getArgNumber());
  if (auto name = kernel.getArgAttrOfType<StringAttr>(
          plan.base.getArgNumber(), TileDialect::getArgNameAttrName()))
    base = name.str();
  std::string key =
      mapKey(base, plan.dims, plan.box, plan.swizzle, plan.l2Promotion);
  auto it = byKey.find(key);
  if (it != byKey.end())
    return kernel.getArgument(it->second);
  Builder b(kernel.getContext());
  std::string name = base + "_tma";
  unsigned n = 0;
  for (auto &[k, idx] : byKey)
    if (StringRef(k).starts_with(base + "|"))
      ++n;
  if (n)
    name += std::to_string(n);
  SmallVector<Attribute> dims, strides;
  for (const std::string &d : plan.dims)
    dims.push_back(b.getStringAttr(d));
  for (const std::string &s : plan.strides)
    strides.push_back(b.getStringAttr(s));
  NamedAttrList attrs;
  attrs.append(TileDialect::getArgNameAttrName(), b.getStringAttr(name));
  SmallVector<NamedAttribute> recipe{
      b.getNamedAttr("base", b.getStringAttr(base)),
      b.getNamedAttr("dims", b.getArrayAttr(dims)),
      b.getNamedAttr("strides", b.getArrayAttr(strides))};
  // The default promotion (256 bytes) goes unsaid.
  if (plan.l2Promotion != 256)
    recipe.push_back(b.getNamedAttr(
        "l2_promotion", b.getI64IntegerAttr(plan.l2Promotion)));
  attrs.append(TileDialect::getTensorMapAttrName(),
               b.getDictionaryAttr(recipe));
  unsigned idx = kernel.getNumArguments();
  kernel.insertArgument(idx, type, attrs.getDictionary(kernel.getContext()),
                        kernel.getLoc());
  byKey[key] = idx;
  return kernel.getArgument(idx);
}

} // namespace mlir::gdn::tile
