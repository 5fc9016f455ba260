//===- TileLimitsTest.cpp - checked size arithmetic and limits -------------===//

#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::gdn::tile;

TEST(TileLimits, CheckedSizes) {
  EXPECT_EQ(checkedSizeInBytes({128, 64}, 2), 16384);
  EXPECT_EQ(checkedNumElements({1}), 1);
  // 2^32 x 2^32 x 4 bytes wraps to 0 in int64 arithmetic.
  EXPECT_EQ(checkedSizeInBytes({int64_t(1) << 32, int64_t(1) << 32}, 4),
            std::nullopt);
  EXPECT_EQ(checkedNumElements({int64_t(1) << 62, 2}), std::nullopt);
  EXPECT_EQ(checkedNumElements({int64_t(1) << 62, 1}), int64_t(1) << 62);
  EXPECT_EQ(checkedSizeInBytes({int64_t(1) << 62}, 2), std::nullopt);
  EXPECT_EQ(checkedNumElements({ShapedType::kDynamic, 4}), std::nullopt);
  EXPECT_EQ(checkedNumElements({0}), std::nullopt);
  EXPECT_EQ(checkedAdd(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checkedMul(INT64_MIN, -1), std::nullopt);
}

TEST(TileLimits, Identifiers) {
  EXPECT_TRUE(isPtxIdentifier("gemm_f16_128x128x64"));
  EXPECT_TRUE(isPtxIdentifier("$x"));
  EXPECT_TRUE(isPtxIdentifier("_"));
  EXPECT_FALSE(isPtxIdentifier(""));
  EXPECT_FALSE(isPtxIdentifier("a b"));
  EXPECT_FALSE(isPtxIdentifier("../x"));
  EXPECT_FALSE(isPtxIdentifier("1k"));
  EXPECT_FALSE(isPtxIdentifier("k.ptx"));
  EXPECT_FALSE(isPtxIdentifier(llvm::StringRef("k\0x", 3)));
  EXPECT_TRUE(isCIdentifier("A_1"));
  EXPECT_FALSE(isCIdentifier("$x"));
  EXPECT_FALSE(isCIdentifier("a:b"));
}

TEST(TileLimits, Int64Attributes) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(getInt64(b.getI64IntegerAttr(-5)), -5);
  EXPECT_EQ(getInt64(b.getIndexAttr(7)), 7);
  EXPECT_EQ(getInt64(b.getBoolAttr(true)), 1);
  EXPECT_EQ(getInt64(b.getStringAttr("7")), std::nullopt);
  EXPECT_EQ(getInt64(Attribute()), std::nullopt);
  APInt big = APInt::getSignedMaxValue(128);
  EXPECT_EQ(getInt64(b.getIntegerAttr(b.getIntegerType(128), big)),
            std::nullopt);
  EXPECT_EQ(getInt64(b.getIntegerAttr(b.getIntegerType(128), 42)), 42);
  EXPECT_EQ(getInt64(b.getIntegerAttr(b.getIntegerType(64, false),
                                      APInt::getMaxValue(64))),
            std::nullopt);
}

TEST(TileLimits, FragmentRegisters) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  Builder b(&ctx);
  auto frag = [&](ArrayRef<int64_t> shape, Type t, Attribute layout = {}) {
    return BufferType::get(&ctx, shape, t, MemorySpace::Fragment, layout);
  };
  // 128x128 f32 over 128 threads: 128 registers, with or without layout.
  EXPECT_EQ(estimateFragmentRegisters(frag({128, 128}, b.getF32Type()), 128),
            128);
  EXPECT_EQ(estimateFragmentRegisters(
                frag({128, 128}, b.getF32Type(),
                     MmaLayoutAttr::get(&ctx, {2, 2}, MmaEngine::MmaSync)),
                128),
            128);
  // f16 packs two per register.
  EXPECT_EQ(estimateFragmentRegisters(frag({64, 64}, b.getF16Type()), 128),
            16);
  // Blocked: whole vectors per thread (65 elements / 4 = 17 vectors).
  EXPECT_EQ(estimateFragmentRegisters(
                frag({65}, b.getF32Type(), BlockedLayoutAttr::get(&ctx, 1)),
                16),
            5);
  EXPECT_EQ(estimateFragmentRegisters(frag({1024, 1024}, b.getF32Type()), 128),
            8192);
  EXPECT_EQ(estimateFragmentRegisters(frag({64}, b.getF32Type()), 0),
            std::nullopt);
}
