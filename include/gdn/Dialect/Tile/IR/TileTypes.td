//===- TileTypes.td - tile dialect types ------------------*- tablegen -*-===//

#ifndef GDN_DIALECT_TILE_IR_TILETYPES_TD
#define GDN_DIALECT_TILE_IR_TILETYPES_TD

include "gdn/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "a pointer to global memory";
  let description = [{
    A kernel argument pointing at global memory with elements of
    `elementType`. `tile.view` gives it a shape. Lowers to one `.u64`
    kernel parameter (`!llvm.ptr<1>`).

    Example: `!tile.ptr<f16>`
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_BufferType : Tile_Type<"Buffer", "buffer"> {
  let summary = "a tile buffer in global, shared or register (fragment) memory";
  let description = [{
    A row-major buffer with a shape (dimensions may be dynamic, `?`, only in
    global memory), an element type, a memory space and an optional layout:

    * `global`: a view of device memory (from `tile.view`);
    * `shared`: a block's shared memory, placed by `tile-plan-shared-memory`;
      its layout is a `#tile.swizzle`, a `#tile.padded` (row-major with
      padded rows) or none (plain row-major);
    * `fragment`: registers, distributed over the block's threads by a
      `#tile.mma` or `#tile.blocked` layout (assigned by
      `tile-assign-layouts`).

    Examples:
    ```mlir
    !tile.buffer<?x?xf16, global>
    !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::gdn::tile::MemorySpace":$memorySpace,
    DefaultValuedParameter<"::mlir::Attribute", "::mlir::Attribute()">:$layout);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::mlir::gdn::tile::MemorySpace":$space,
        CArg<"::mlir::Attribute", "{}">:$layout), [{
      return $_get(elementType.getContext(), shape, elementType, space, layout);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// Number of elements; only for static shapes.
    int64_t getNumElements() const;
    bool hasStaticShape() const;
    bool isGlobal() const { return getMemorySpace() == MemorySpace::Global; }
    bool isShared() const { return getMemorySpace() == MemorySpace::Shared; }
    bool isFragment() const { return getMemorySpace() == MemorySpace::Fragment; }
    /// Size of one element in bytes.
    int64_t getElementBytes() const;
    /// The same buffer type with another layout.
    BufferType withLayout(::mlir::Attribute layout) const;
    /// Elements of padding after each row (#tile.padded), else 0.
    int64_t getRowPadding() const;
    /// The group skew of a #tile.padded layout: {rows, elements} (S more
    /// elements after every G rows), else {0, 0}.
    std::pair<int64_t, int64_t> getGroupSkew() const;
    /// The shape as stored: the innermost dimension with its row padding;
    /// with a group skew, enough more leading rows to hold the skews.
    ::llvm::SmallVector<int64_t> getStorageShape() const;
  }];
}


def Tile_TensorMapType : Tile_Type<"TensorMap", "tensormap"> {
  let summary = "a TMA tensor map (CUtensorMap) kernel parameter";
  let description = [{
    A 128-byte tensor map that the host builds with `cuTensorMapEncodeTiled`
    and passes by value (`__grid_constant__`): a global tensor and the box
    of `shape` (outermost first; a box dimension of 1 selects one index of
    a tensor dimension) that one TMA instruction moves, with `swizzle`
    bytes of shared-memory swizzle (0, 32, 64 or 128; the box's innermost
    row must fit into it). The kernel argument's `tile.tensor_map`
    attribute says which pointer argument and which sizes the host takes
    (see `tile-pipeline`, which creates these arguments).

    Example: `!tile.tensormap<128x64xf16, swizzle = 128>`
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType, "int64_t":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// Bytes of one box.
    int64_t getBoxBytes() const;
  }];
}

#endif // GDN_DIALECT_TILE_IR_TILETYPES_TD
