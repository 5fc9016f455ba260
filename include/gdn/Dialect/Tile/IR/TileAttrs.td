//===- TileAttrs.td - tile dialect enums and attributes ---*- tablegen -*-===//
//
// Enums (memory space, grid dimension, reduction kind) and the layout
// attributes that tile-assign-layouts attaches to buffer types.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEATTRS_TD
#define GDN_DIALECT_TILE_IR_TILEATTRS_TD

include "gdn/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_MemorySpace : I32EnumAttr<"MemorySpace", "where a tile buffer lives", [
    I32EnumAttrCase<"Global", 0, "global">,
    I32EnumAttrCase<"Shared", 1, "shared">,
    I32EnumAttrCase<"Fragment", 2, "fragment">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn::tile";
}

def Tile_Dim : I32EnumAttr<"Dim", "a grid dimension", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn::tile";
}
def Tile_DimAttr : EnumAttr<Tile_Dialect, Tile_Dim, "dim">;

def Tile_MmaEngine : I32EnumAttr<"MmaEngine", "a tensor-core instruction family", [
    I32EnumAttrCase<"MmaSync", 0, "mma_sync">,
    I32EnumAttrCase<"Wgmma", 1, "wgmma">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind">;

def Tile_L2Hint : I32EnumAttr<"L2Hint",
    "the L2 eviction priority of a copy's global accesses", [
    I32EnumAttrCase<"EvictNormal", 0, "evict_normal">,
    I32EnumAttrCase<"EvictFirst", 1, "evict_first">,
    I32EnumAttrCase<"EvictLast", 2, "evict_last">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn::tile";
}
def Tile_L2HintAttr : EnumAttr<Tile_Dialect, Tile_L2Hint, "l2_hint"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_MmaLayoutAttr : Tile_Attr<"MmaLayout", "mma"> {
  let summary = "fragment layout of mma.sync m16n8 accumulators over a warp grid";
  let description = [{
    A 2-D fragment `[M, N]` is split over a `warps[0] x warps[1]` grid of
    warps; each warp owns an `(M / warps[0]) x (N / warps[1])` block, tiled
    by 16x8 atoms. In an atom, lane `l` (`g = l / 4`, `q = l % 4`) owns
    `(g, 2q)`, `(g, 2q+1)`, `(g+8, 2q)`, `(g+8, 2q+1)`: the accumulator
    layout of `mma.sync.m16n8k16` (and, per 64-row block, of wgmma).

    `engine` says which instruction produces the fragment: `mma_sync` (the
    default, omitted when printed; warp `w` sits at row `w / warps[1]`,
    column `w % warps[1]`) or `wgmma`, the warpgroup MMA. A `wgmma` layout
    has `warps = [4k, n]` and 16 rows per warp, and its warps are ordered
    column-major (warp `w` at row `w % warps[0]`, column `w / warps[0]`), so
    that the four warps of a warpgroup hold one m64 accumulator: warpgroup
    `g` owns rows `64 (g % k) ..` and columns `(g / k) N / n ..`, an
    `m64 x (N / n)` wgmma tile (warpgroups k along M, n along N).
    `tile-assign-layouts` chooses it for kernels with
    `tile.mma_engine = "wgmma"`; the lowering of `tile.gemm` follows the
    accumulator's engine.

    Examples: `#tile.mma<warps = [2, 2]>`, `#tile.mma<warps = [8, 1], engine = wgmma>`,
    `#tile.mma<warps = [4, 2], engine = wgmma>`
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$warps,
                        DefaultValuedParameter<"::mlir::gdn::tile::MmaEngine",
                            "::mlir::gdn::tile::MmaEngine::MmaSync">:$engine);
  let assemblyFormat = "`<` `warps` `=` `[` $warps `]` (`,` `engine` `=` $engine^)? `>`";
  let genVerifyDecl = 1;
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked"> {
  let summary = "fragment layout: row-major vectors dealt round-robin to threads";
  let description = [{
    The tile is read in row-major order as consecutive vectors of `vector`
    elements; vector `c` belongs to thread `c % numThreads`, as its
    `c / numThreads`-th vector. Loads and stores of such a fragment are
    coalesced and `vector`-wide.

    Example: `#tile.blocked<vector = 4>`
  }];
  let parameters = (ins "int64_t":$vector);
  let assemblyFormat = "`<` `vector` `=` $vector `>`";
  let genVerifyDecl = 1;
}

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "shared-memory layout in swizzled boxes (TMA/wgmma compatible)";
  let description = [{
    A shared tile `[R, C]` whose rows span `C * elementBytes = n * bytes`
    is stored as `n` boxes of `[R][bytes]`, box `b` at byte `b * R * bytes`.
    Inside a box, the 16-byte chunk `j` of row `r` is stored at chunk
    `j ^ ((r * bytes / 128) % (bytes / 16))`: the hardware's swizzle of
    that width (`CU_TENSOR_MAP_SWIZZLE_{32B,64B,128B}`, wgmma swizzle modes
    3, 2, 1), which XORs address bits [4, 4 + log2(bytes / 16)) with the
    bits from 7 up, so rows pair with chunks every 128 bytes: `j ^ (r % 8)`
    for 128, `j ^ ((r / 2) % 4)` for 64, `j ^ ((r / 4) % 2)` for 32 bytes.
    `ldmatrix` reads and 16-byte writes of a 128-byte-swizzled tile are
    free of bank conflicts, and TMA and wgmma address all three directly.

    Example: `#tile.swizzle<128>`, `#tile.swizzle<64>`
  }];
  let parameters = (ins "int64_t":$bytes);
  let assemblyFormat = "`<` $bytes `>`";
  let genVerifyDecl = 1;
}

def Tile_PaddedAttr : Tile_Attr<"Padded", "padded"> {
  let summary = "shared-memory layout: row-major with padded rows";
  let description = [{
    A shared tile `[..., R, C]` stored row-major with a row stride of
    `C + elements` elements: `elements` unused elements follow every row
    (of every leading index). Padding moves consecutive rows onto different
    banks: rows of a multiple of 128 bytes all start on bank 0, so the 8
    rows that a quarter warp's 16-byte accesses (or the 8 row groups of an
    mma fragment) touch conflict 8-way; 16 bytes of padding put them on
    distinct banks. Unlike `#tile.swizzle` the layout stays linear (an
    element's neighbours lie at constant byte steps, which the lowering
    folds into immediates), but TMA and wgmma cannot address it. The
    padding is a multiple of 16 bytes, so rows keep the alignment they had.

    Example: `!tile.buffer<64x64xf32, shared, #tile.padded<4>>` (a row
    stride of 272 bytes).

    With a group skew, `#tile.padded<P, G, S>`, `S` more elements follow
    every `G` rows: row `r` starts at element `r (C + P) + S floor(r / G)`.
    No constant row stride can put both the 8 rows of an `ldmatrix` (16
    bytes each) and the 4 rows x 8 columns of an mma B operand read by
    column on distinct banks of a 32-bit tile (the first needs a stride of
    4 mod 8 words, the second 8 or 24 mod 32); `#tile.padded<8, 4, 4>` does
    both (rows of 72 words, 4 more after every fourth). A step of a
    multiple of `G` rows is still a constant number of bytes.

    Example: `!tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>`.
  }];
  let parameters = (ins "int64_t":$elements,
                        DefaultValuedParameter<"int64_t", "0">:$groupRows,
                        DefaultValuedParameter<"int64_t", "0">:$groupElements);
  let assemblyFormat = "`<` $elements (`,` $groupRows^ `,` $groupElements)? `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$elements), [{
      return $_get($_ctxt, elements, 0, 0);
    }]>
  ];
}

#endif // GDN_DIALECT_TILE_IR_TILEATTRS_TD
