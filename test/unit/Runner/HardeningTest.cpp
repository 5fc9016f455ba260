//===- HardeningTest.cpp - gdn-run on hostile or broken input (no GPU) ----===//
//
// Each test here failed (crashed, hung, allocated without bound or gave a
// silent wrong answer) before the matching fix: sizes that wrap, limits
// checked after allocating, FIFOs and broken symlinks among the inputs,
// module files that are not what the manifest says, targets the device
// cannot run.
//
//===----------------------------------------------------------------------===//

#include "GdnDriver.h"
#include "GdnInputs.h"
#include "KernelImage.h"
#include "KernelLaunch.h"
#include "Manifest.h"
#include "Npy.h"
#include "Operator.h"
#include "gdn/Runtime/KernelContract.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace gdn::run;
using gdn::run::test::TempDir;

namespace {

std::string minimal(const std::string &block = "128,1,1",
                    const std::string &extra = "") {
  return "gdn_manifest = 1\nkernel = k\nptx = k.ptx\ntarget = sm_90a\n"
         "block = " +
         block + "\nshared_bytes = 0\n" + extra;
}

/// Kills the test (a failure) instead of hanging when a read blocks.
struct Watchdog {
  Watchdog() { ::alarm(20); }
  ~Watchdog() { ::alarm(0); }
};

void writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

} // namespace

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

TEST(HardeningTest, BlockProductDoesNotWrap) {
  Manifest m;
  // 4096 * 4096 * 256 = 2^32 wrapped to 0 threads in 32 bits and passed
  // the <= 1024 check.
  Status s = parseManifest(minimal("4096,4096,256"), "w.manifest", m);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "w.manifest:5: error: block: 4294967296 "
                               "threads per block, more than 1024");
  s = parseManifest(minimal("65535,65535,65535"), "w.manifest", m);
  EXPECT_CONTAINS(s.message(), "threads per block, more than 1024");
  s = parseManifest(minimal("1,1,128"), "w.manifest", m);
  EXPECT_CONTAINS(s.message(), "exceeds the block limits (x, y <= 1024, z <= "
                               "64)");
  s = parseManifest(minimal("128,1,1", "cluster = 65535,65535,65535\n"),
                    "w.manifest", m);
  EXPECT_CONTAINS(s.message(), "cluster: 281462092005375 blocks per cluster, "
                               "more than 16");
  ASSERT_TRUE(parseManifest(minimal("32,32,1", "cluster = 2,2,4\n"),
                            "w.manifest", m)
                  .ok());
  EXPECT_EQ(m.threadsPerBlock(), 1024u);
  EXPECT_EQ(m.blocksPerCluster(), 16u);
}

TEST(HardeningTest, HugeGdnBatchIsRejectedBeforeAllocating) {
  // --B 2147483647 used to allocate tens of GB (the segmentation of B + 1
  // boundaries, then the inputs) before any limit was checked: the test
  // process would be killed. Now prepare() says how much memory it needs.
  std::vector<std::unique_ptr<Manifest>> owned;
  std::vector<const Manifest *> ptrs;
  ASSERT_TRUE(test::parseManifestTexts(
                  {"gdn_manifest = 1\nkernel = fwd\nptx = f.ptx\n"
                   "target = sm_90a\nblock = 128,1,1\nshared_bytes = 0\n"
                   "param = q:ptr<f16>\nparam = o:ptr<f16>\n"
                   "param = ht:ptr<f32>\nparam = B:i32\n"
                   "meta.op = gdn_prefill\nmeta.stage = fwd\n"
                   "meta.order = 0\nmeta.grid = 1, 1, B\n"},
                  owned, ptrs)
                  .ok());
  for (const char *t : {"4096", "1"}) {
    RunOptions options;
    ASSERT_TRUE(parseCommandLine({"--op", "gdn_prefill", "--B", "2147483647",
                                  "--T", t, "--H", "1", "m0.manifest"},
                                 options)
                    .ok());
    GdnDriver gdn;
    gdn.setHostMemoryLimit(uint64_t(64) << 30);
    Status s = gdn.prepare(ptrs, options);
    EXPECT_EQ(s.code(), ExitCode::BadInput);
    EXPECT_CONTAINS(s.message(), "gdn_prefill problem 2147483647x");
    EXPECT_CONTAINS(s.message(), "GiB of host memory");
    EXPECT_CONTAINS(s.message(), "more than this machine's 64.0 GiB");
  }
  // A small problem fits in the same limit.
  GdnProblem p;
  p.B = 1;
  p.T = 4096;
  EXPECT_LT(gdnHostBytes(p), double(uint64_t(1) << 30));
  EXPECT_TRUE(checkHostMemory("x", 1e9, uint64_t(2) << 30).ok());
  EXPECT_CONTAINS(checkHostMemory("GEMM shape 1x1x1", 3.0 * (1ull << 30),
                                  uint64_t(2) << 30)
                      .message(),
                  "GEMM shape 1x1x1 needs 3.0 GiB of host memory");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

TEST(HardeningTest, FifosAreRefusedNotRead) {
  Watchdog watchdog; // opening a FIFO without a writer blocked forever
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("m.manifest").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(dir.file("q.npy").c_str(), 0600), 0);
  Manifest m;
  Status s = loadManifest(dir.file("m.manifest"), m);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "m.manifest: error: cannot read manifest: is a "
                               "FIFO, not a regular file");
  std::string text;
  s = readFile(dir.file("q.npy"), "PTX file", text);
  EXPECT_CONTAINS(s.message(), "cannot read PTX file: is a FIFO");
  NpyArray a;
  s = readNpy(dir.file("q.npy"), a);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "q.npy: error: cannot read .npy file: is a "
                               "FIFO, not a regular file");
  NpyHeader h;
  s = readNpyHeader(dir.file("q.npy"), h);
  EXPECT_CONTAINS(s.message(), "is a FIFO");
  GdnProblem p;
  GdnLoadPlan plan;
  s = inspectGdnInputs(dir.path, GdnLayout::BTHD, false, p, plan);
  EXPECT_CONTAINS(s.message(), "q.npy: error: cannot read .npy file: is a "
                               "FIFO");
  s = readFile(dir.path, "manifest", text);
  EXPECT_CONTAINS(s.message(), "cannot read manifest: is a directory");
  s = readFile("/dev/null", "manifest", text);
  EXPECT_CONTAINS(s.message(), "is a device, not a regular file");
  s = readFile(dir.file("absent"), "manifest", text);
  EXPECT_CONTAINS(s.message(), "cannot read manifest: No such file");
}

TEST(HardeningTest, BrokenOptionalInputIsAnErrorNotAbsent) {
  TempDir dir;
  bool present = true;
  ASSERT_TRUE(optionalFilePresent(dir.file("h0.npy"), present).ok());
  EXPECT_FALSE(present);
  writeText(dir.file("real.npy"), "x");
  ASSERT_TRUE(optionalFilePresent(dir.file("real.npy"), present).ok());
  EXPECT_TRUE(present);
  ASSERT_EQ(::symlink("real.npy", dir.file("link.npy").c_str()), 0);
  ASSERT_TRUE(optionalFilePresent(dir.file("link.npy"), present).ok());
  EXPECT_TRUE(present);
  // A dangling symlink used to read as "absent": varlen inputs then ran as
  // one sequence per batch row, an initial state as zero.
  for (const char *name : {"cu_seqlens.npy", "h0.npy"}) {
    SCOPED_TRACE(name);
    TempDir d;
    const int64_t B = 1, T = 3, H = 1;
    std::vector<float> x(B * T * H * 128, 0.25f), gate(B * T * H, -0.5f);
    for (const char *t : {"q", "k", "v"})
      ASSERT_TRUE(writeNpy(d.file(std::string(t) + ".npy"), NpyType::F32,
                           {B, T, H, 128}, x.data(), x.size() * 4)
                      .ok());
    for (const char *t : {"g", "beta"})
      ASSERT_TRUE(writeNpy(d.file(std::string(t) + ".npy"), NpyType::F32,
                           {B, T, H}, gate.data(), gate.size() * 4)
                      .ok());
    GdnProblem p;
    GdnLoadPlan plan;
    ASSERT_TRUE(inspectGdnInputs(d.path, GdnLayout::BTHD, false, p, plan).ok());
    ASSERT_EQ(::symlink("missing-target.npy", d.file(name).c_str()), 0);
    Status s = inspectGdnInputs(d.path, GdnLayout::BTHD, false, p, plan);
    EXPECT_EQ(s.code(), ExitCode::BadInput);
    EXPECT_CONTAINS(s.message(), std::string(name) + ": error: is a broken "
                                                     "symbolic link");
  }
}

//===----------------------------------------------------------------------===//
// Module files and targets
//===----------------------------------------------------------------------===//

namespace {

const char *const kPtx = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n"
                         ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
                         "\t// .globl\tk\n"
                         "/* .entry commented_out( */\n"
                         ".visible .entry k(\n\t.param .u64 k_param_0,\n"
                         "\t.param .align 64 .b8 k_param_1[128]\n)\n{\n"
                         "\tret;\n}\n"
                         ".visible .entry k_other(\n)\n{\n\tret;\n}\n";

/// kPtx's `k`: a pointer and a tensor map.
const char *const kParamsOfK =
    "param = a:ptr<f16>\nparam = tm:tensormap\n"
    "tensormap.tm = base=a; dims=64, 4; strides=64; box=64, 1; swizzle=none\n";

Manifest manifestFor(const std::string &kernel,
                     const std::string &target = "sm_90a",
                     const std::string &params = "") {
  Manifest m;
  std::string text = minimal("128,1,1", params);
  text.replace(text.find("kernel = k"), 10, "kernel = " + kernel);
  text.replace(text.find("target = sm_90a"), 15, "target = " + target);
  Status s = parseManifest(text, "d/k.manifest", m);
  EXPECT_TRUE(s.ok()) << s.message();
  return m;
}

/// A minimal 64-bit little-endian ELF with one symbol table holding
/// function `func` (and an object symbol `object`).
std::string makeElf(uint16_t machine, const std::string &func,
                    const std::string &object, bool withSymtab = true) {
  std::string strtab = std::string("\0", 1) + func + '\0' + object + '\0';
  std::string syms(24 * 3, '\0');
  auto put = [](std::string &s, size_t at, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
      s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(syms, 24 + 0, 1, 4);                    // name: func
  syms[24 + 4] = 0x12;                        // GLOBAL FUNC
  put(syms, 48 + 0, 2 + func.size(), 4);      // name: object
  syms[48 + 4] = 0x11;                        // GLOBAL OBJECT
  std::string elf(64, '\0');
  elf[0] = 0x7f;
  elf[1] = 'E';
  elf[2] = 'L';
  elf[3] = 'F';
  elf[4] = 2; // 64-bit
  elf[5] = 1; // little-endian
  elf[6] = 1;
  put(elf, 16, 2, 2); // ET_EXEC
  put(elf, 18, machine, 2);
  const size_t strOff = elf.size();
  elf += strtab;
  const size_t symOff = elf.size();
  elf += syms;
  const size_t shoff = elf.size();
  std::string sh(64 * 3, '\0');
  // [0] null, [1] .strtab, [2] .symtab (link 1)
  put(sh, 64 + 4, 3, 4); // SHT_STRTAB
  put(sh, 64 + 0x18, strOff, 8);
  put(sh, 64 + 0x20, strtab.size(), 8);
  put(sh, 128 + 4, withSymtab ? 2 : 1, 4); // SHT_SYMTAB or PROGBITS
  put(sh, 128 + 0x18, symOff, 8);
  put(sh, 128 + 0x20, syms.size(), 8);
  put(sh, 128 + 0x28, 1, 4);
  put(sh, 128 + 0x38, 24, 8);
  elf += sh;
  put(elf, 0x28, shoff, 8);
  put(elf, 0x3A, 64, 2);
  put(elf, 0x3C, 3, 2);
  return elf;
}

} // namespace

TEST(HardeningTest, PtxIsCheckedOnTheHost) {
  EXPECT_EQ(ptxEntryNames(kPtx), (std::vector<std::string>{"k", "k_other"}));
  EXPECT_TRUE(
      validateKernelImage(manifestFor("k", "sm_90a", kParamsOfK), kPtx).ok());
  EXPECT_TRUE(validateKernelImage(manifestFor("k_other"), kPtx).ok());
  Status s = validateKernelImage(manifestFor("commented_out"), kPtx);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "d/k.ptx: error: kernel 'commented_out' has no "
                               "'.entry commented_out' in the PTX (entries: "
                               "k, k_other) (named by d/k.manifest)");
  s = validateKernelImage(manifestFor("k_"), kPtx);
  EXPECT_CONTAINS(s.message(), "kernel 'k_' has no '.entry k_'");
  s = validateKernelImage(manifestFor("k", "sm_80", kParamsOfK), kPtx);
  EXPECT_CONTAINS(s.message(), "the PTX is compiled for .target sm_90a, but "
                               "the manifest says target = sm_80");
  s = validateKernelImage(manifestFor("k"), "hello world\n");
  EXPECT_CONTAINS(s.message(), "no '.version X.Y' directive: not a PTX file");
  s = validateKernelImage(manifestFor("k"), ".version 8.0\n.entry k(\n)\n");
  EXPECT_CONTAINS(s.message(), "no '.target sm_XX' directive");
  s = validateKernelImage(manifestFor("k"), std::string("PK\x03\x04\0\0", 6));
  EXPECT_CONTAINS(s.message(), "contains NUL bytes");
  s = validateKernelImage(manifestFor("k"), "");
  EXPECT_CONTAINS(s.message(), "d/k.ptx: error: the file is empty");
}

TEST(HardeningTest, PtxParametersAreTheManifests) {
  // A variant's PTX beside the base build's manifest: the launch binds
  // arguments by the manifest's param lines, so a different list (here a
  // tensor map fewer, or a type that differs) would pass garbage or hang
  // a TMA load on bytes its tensor map never brings. Bad input instead.
  const std::string ptx =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(\n\t.param .u64 .ptr .global .align 16 k_param_0,"
      "\n\t.param .u32 k_param_1,\n\t.param .f32 k_param_2,\n"
      "\t.param .align 64 .b8 k_param_3[128]\n)\n{\n\tret;\n}\n"
      ".visible .entry none()\n{\n\tret;\n}\n";
  const std::string tm =
      "tensormap.tm = base=a; dims=64, 4; strides=64; box=64, 1; swizzle=none\n";
  // The declarations as read (the CPU emulator takes their widths).
  std::vector<PtxParam> decls;
  ASSERT_TRUE(ptxEntryParams(ptx, "k", decls));
  ASSERT_EQ(decls.size(), 4u);
  EXPECT_EQ(decls[0].type, ".u64");
  EXPECT_EQ(decls[0].align, 16u);
  EXPECT_EQ(decls[3].type, ".b8");
  EXPECT_EQ(decls[3].count, 128u);
  std::vector<size_t> bytes;
  for (const PtxParam &d : decls)
    bytes.push_back(d.bytes());
  EXPECT_EQ(bytes, (std::vector<size_t>{8, 4, 4, 128}));
  EXPECT_FALSE(ptxEntryParams(ptx, "absent", decls));
  auto check = [&](const std::string &kernel, const std::string &params) {
    return validateKernelImage(manifestFor(kernel, "sm_90a", params), ptx);
  };
  EXPECT_TRUE(check("k", "param = a:ptr<f16>\nparam = n:i32\n"
                         "param = x:f32\nparam = tm:tensormap\n" + tm)
                  .ok());
  EXPECT_TRUE(check("none", "").ok());
  Status s = check("k", "param = a:ptr<f16>\nparam = n:i32\n"
                        "param = x:f32\n");
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(),
                  "d/k.ptx: error: kernel 'k' takes 4 parameters in the PTX, "
                  "but the manifest declares 3 (param lines): the PTX and "
                  "the manifest are not from one build (named by "
                  "d/k.manifest)");
  s = check("none", "param = n:i32\n");
  EXPECT_CONTAINS(s.message(), "kernel 'none' takes 0 parameters in the "
                               "PTX, but the manifest declares 1");
  s = check("k", "param = a:ptr<f16>\nparam = n:i64\nparam = x:f32\n"
                 "param = tm:tensormap\n" + tm);
  EXPECT_CONTAINS(s.message(),
                  "parameter 1 of kernel 'k' is '.param .u32 k_param_1' in "
                  "the PTX, but the manifest's 'n:i64' (d/k.manifest:8) is "
                  "passed as a 64-bit integer (.u64, .s64 or .b64)");
  s = check("k", "param = a:ptr<f16>\nparam = n:i32\nparam = x:i32\n"
                 "param = tm:tensormap\n" + tm);
  EXPECT_CONTAINS(s.message(), "parameter 2 of kernel 'k' is '.param .f32 "
                               "k_param_2' in the PTX, but the manifest's "
                               "'x:i32'");
  s = check("k", "param = tm:tensormap\nparam = n:i32\nparam = x:f32\n"
                 "param = a:ptr<f16>\n" + tm);
  EXPECT_CONTAINS(s.message(), "parameter 0 of kernel 'k' is '.param .u64 "
                               ".ptr .global .align 16 k_param_0' in the "
                               "PTX, but the manifest's 'tm:tensormap' "
                               "(d/k.manifest:7) is passed as a 128-byte "
                               "CUtensorMap by value (.param .align 64 .b8 "
                               "NAME[128])");
  // A tensor map in a byte array of another size or alignment.
  std::string small = ptx;
  small.replace(small.find("[128]"), 5, "[64]");
  s = validateKernelImage(
      manifestFor("k", "sm_90a",
                  "param = a:ptr<f16>\nparam = n:i32\nparam = x:f32\n"
                  "param = tm:tensormap\n" + tm),
      small);
  EXPECT_CONTAINS(s.message(), "parameter 3 of kernel 'k' is '.param "
                               ".align 64 .b8 k_param_3[64]'");
}

TEST(HardeningTest, PtxHashBindsTheManifestToItsPtx) {
  // gdn-opt records ptxHash() of the PTX it wrote with each manifest; a PTX
  // that differs (another build whose parameters happen to agree, e.g. a
  // tensor map with another box, or a hand-edited file) is refused unless
  // GDN_ALLOW_PTX_EDITS=1.
  const std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry k()\n{\n\tret;\n}\n";
  const std::string hash = gdn::run::ptxHash(ptx);
  EXPECT_EQ(hash.size(), 25u);
  EXPECT_EQ(hash.rfind("fnv1a64w:", 0), 0u);
  EXPECT_NE(hash, gdn::run::ptxHash(ptx + " "));
  EXPECT_NE(gdn::run::ptxHash(""), gdn::run::ptxHash(std::string(1, '\0')));
  const Manifest m =
      manifestFor("k", "sm_90a", "ptx_hash = " + hash + "\n");
  EXPECT_EQ(m.ptxHash, hash);
  EXPECT_TRUE(validateKernelImage(m, ptx).ok());
  std::string edited = ptx;
  edited.replace(edited.find("ret;"), 4, "exit;");
  ::unsetenv("GDN_ALLOW_PTX_EDITS");
  Status s = validateKernelImage(m, edited);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(),
                  "d/k.ptx: error: the PTX's hash is " +
                      gdn::run::ptxHash(edited) +
                      ", but the manifest says ptx_hash = " + hash +
                      " (d/k.manifest:7): the PTX is not the one gdn-opt "
                      "wrote with this manifest");
  ::setenv("GDN_ALLOW_PTX_EDITS", "1", 1);
  EXPECT_TRUE(validateKernelImage(m, edited).ok());
  ::unsetenv("GDN_ALLOW_PTX_EDITS");
  // A manifest without ptx_hash (hand-written) is not checked.
  EXPECT_TRUE(validateKernelImage(manifestFor("k"), edited).ok());
  for (const char *bad : {"fnv1a64:0123456789abcdef", "fnv1a64w:0123",
                          "fnv1a64w:0123456789ABCDEF"}) {
    Manifest x;
    Status p = parseManifest(minimal("128,1,1", std::string("ptx_hash = ") +
                                                    bad + "\n"),
                             "d/k.manifest", x);
    EXPECT_EQ(p.code(), ExitCode::BadInput) << bad;
    EXPECT_CONTAINS(p.message(), "d/k.manifest:7: error: ptx_hash: expected "
                                 "'fnv1a64w:' and 16 lowercase hex digits");
  }
}

TEST(HardeningTest, GridDependencyNeedsTheWait) {
  // grid_dependency = 1 lets the launcher start a kernel before its
  // predecessor completes: the PTX entry must wait itself. The wait of
  // another entry, or one in a comment, does not count.
  const std::string ptx =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry waits(\n)\n{\n\t{ .reg .b32 r; }\n"
      "\tgriddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;\n"
      "\tret;\n}\n"
      ".visible .entry plain(\n)\n{\n\t// griddepcontrol.wait;\n"
      "\t{ .reg .b32 r; }\n\tret;\n}\n"
      ".visible .entry plain2(\n)\n{\n\tret;\n}\n";
  Manifest m = manifestFor("waits");
  m.gridDependency = true;
  EXPECT_TRUE(validateKernelImage(m, ptx).ok());
  for (const char *kernel : {"plain", "plain2"}) {
    m = manifestFor(kernel);
    EXPECT_TRUE(validateKernelImage(m, ptx).ok()) << kernel;
    m.gridDependency = true;
    Status s = validateKernelImage(m, ptx);
    EXPECT_EQ(s.code(), ExitCode::BadInput) << kernel;
    EXPECT_CONTAINS(s.message(),
                    std::string("d/k.ptx: error: the manifest says "
                                "grid_dependency = 1, but kernel '") +
                        kernel +
                        "' has no griddepcontrol.wait: launched early it "
                        "could read its predecessor's outputs before they "
                        "are written (named by d/k.manifest)");
  }
  // A cubin's SASS is not scanned: a note says so.
  m = manifestFor("k");
  m.gridDependency = true;
  std::string note;
  EXPECT_TRUE(
      validateKernelImage(m, makeElf(190, "k", "k_data"), &note).ok());
  EXPECT_CONTAINS(note, "griddepcontrol.wait (grid_dependency = 1) is not "
                        "checked on the host");
}

TEST(HardeningTest, FlagDependencyNeedsAFlagWait) {
  // grid_dependency = 2: the kernel runs beside its predecessor and must
  // wait for its data through ready flags (an ld.acquire in its entry);
  // griddepcontrol.wait alone does not count, nor another entry's acquire.
  const std::string ptx =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry flags(\n)\n{\n\tgriddepcontrol.launch_dependents;\n"
      "\t{ .reg .b32 v; ld.acquire.gpu.global.b32 v, [%rd1]; }\n\tret;\n}\n"
      ".visible .entry waits(\n)\n{\n\tgriddepcontrol.wait;\n"
      "\tgriddepcontrol.launch_dependents;\n\tret;\n}\n";
  Manifest m = manifestFor("flags");
  m.gridDependency = 2;
  EXPECT_TRUE(validateKernelImage(m, ptx).ok());
  m = manifestFor("waits");
  m.gridDependency = 2;
  Status s = validateKernelImage(m, ptx);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(),
                  "d/k.ptx: error: the manifest says grid_dependency = 2, but "
                  "kernel 'waits' has no ld.acquire (a ready-flag wait): "
                  "launched early it could read an earlier kernel's outputs "
                  "before they are written (named by d/k.manifest)");
  m.gridDependency = 1;
  EXPECT_TRUE(validateKernelImage(m, ptx).ok());
  // grid_dependency = 3 needs both waits in the entry.
  const std::string both =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry both(\n)\n{\n\tgriddepcontrol.wait;\n"
      "\tgriddepcontrol.launch_dependents;\n"
      "\t{ .reg .b32 v; ld.acquire.gpu.global.b32 v, [%rd1]; }\n\tret;\n}\n";
  m = manifestFor("both");
  m.gridDependency = 3;
  EXPECT_TRUE(validateKernelImage(m, both).ok());
  m = manifestFor("waits");
  m.gridDependency = 3;
  s = validateKernelImage(m, ptx);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "the manifest says grid_dependency = 3, but "
                               "kernel 'waits' has no ld.acquire");
  m = manifestFor("flags");
  m.gridDependency = 3;
  s = validateKernelImage(m, ptx);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(),
                  "the manifest says grid_dependency = 3, but kernel 'flags' "
                  "has no griddepcontrol.wait: launched early it could read "
                  "its predecessor's outputs");
  std::string note;
  m = manifestFor("k");
  m.gridDependency = 2;
  EXPECT_TRUE(
      validateKernelImage(m, makeElf(190, "k", "k_data"), &note).ok());
  EXPECT_CONTAINS(note, "ready-flag wait (grid_dependency = 2) is not "
                        "checked on the host");
  note.clear();
  m.gridDependency = 3;
  EXPECT_TRUE(
      validateKernelImage(m, makeElf(190, "k", "k_data"), &note).ok());
  EXPECT_CONTAINS(note, "griddepcontrol.wait and ready-flag wait "
                        "(grid_dependency = 3) are not checked on the host");
}

namespace {
/// What the launcher handed the driver (the fakes below record it).
struct LaunchRecord {
  int plain = 0, ex = 0;
  std::vector<CUlaunchAttributeID> attrs;
  unsigned clusterX = 0, programmatic = 0;
} gLaunch;

CUresult fakeLaunch(CUfunction, unsigned, unsigned, unsigned, unsigned,
                    unsigned, unsigned, unsigned, CUstream, void **, void **) {
  ++gLaunch.plain;
  return CUDA_SUCCESS;
}

CUresult fakeLaunchEx(const CUlaunchConfig *config, CUfunction, void **,
                      void **) {
  ++gLaunch.ex;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &a = config->attrs[i];
    gLaunch.attrs.push_back(a.id);
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      gLaunch.clusterX = a.value.clusterDim.x;
    if (a.id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      gLaunch.programmatic = a.value.programmaticStreamSerializationAllowed;
  }
  return CUDA_SUCCESS;
}
} // namespace

TEST(HardeningTest, LaunchAttributesFollowTheManifest) {
  // GDN_NO_PDL is read once per process; these expectations assume it unset.
  if (programmaticLaunchDisabled())
    GTEST_SKIP() << "GDN_NO_PDL is set";
  CudaDriver driver; // not loaded: only the launches are set
  driver.cuLaunchKernel = &fakeLaunch;
  driver.cuLaunchKernelEx = &fakeLaunchEx;
  auto launch = [&](bool dependent, unsigned clusterX) {
    Manifest m = manifestFor("k");
    m.gridDependency = dependent;
    m.cluster = {clusterX, 1, 1};
    Kernel k;
    k.manifest = &m;
    gLaunch = LaunchRecord();
    Status s = launchKernel(driver, k, Dim3{2, 1, 1}, nullptr, nullptr);
    EXPECT_TRUE(s.ok()) << s.message();
  };
  launch(false, 1); // plain: cuLaunchKernel
  EXPECT_EQ(gLaunch.plain, 1);
  EXPECT_EQ(gLaunch.ex, 0);
  launch(true, 1); // programmatic stream serialization only
  EXPECT_EQ(gLaunch.plain, 0);
  EXPECT_EQ(gLaunch.attrs, (std::vector<CUlaunchAttributeID>{
                               CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION}));
  EXPECT_EQ(gLaunch.programmatic, 1u);
  launch(true, 2); // both attributes
  EXPECT_EQ(gLaunch.attrs,
            (std::vector<CUlaunchAttributeID>{
                CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION}));
  EXPECT_EQ(gLaunch.clusterX, 2u);
  EXPECT_EQ(gLaunch.programmatic, 1u);
  launch(false, 2); // the cluster alone
  EXPECT_EQ(gLaunch.attrs, (std::vector<CUlaunchAttributeID>{
                               CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION}));
}

TEST(HardeningTest, CubinIsCheckedOnTheHost) {
  std::string note;
  EXPECT_TRUE(validateKernelImage(manifestFor("k"),
                                  makeElf(190, "k", "k_data"), &note)
                  .ok());
  EXPECT_TRUE(note.empty());
  Status s = validateKernelImage(manifestFor("k_data"),
                                 makeElf(190, "k", "k_data"));
  EXPECT_CONTAINS(s.message(), "kernel 'k_data' is not a function symbol of "
                               "the cubin");
  s = validateKernelImage(manifestFor("k"), makeElf(62, "k", "x"));
  EXPECT_CONTAINS(s.message(), "ELF e_machine is 62, not EM_CUDA (190)");
  std::string elf32 = makeElf(190, "k", "x");
  elf32[4] = 1;
  s = validateKernelImage(manifestFor("k"), elf32);
  EXPECT_CONTAINS(s.message(), "not a 64-bit ELF file");
  s = validateKernelImage(manifestFor("k"), std::string("\x7f" "ELF\2\1", 6));
  EXPECT_CONTAINS(s.message(), "truncated ELF header");
  // No symbol table: accepted with a note.
  note.clear();
  EXPECT_TRUE(validateKernelImage(manifestFor("anything"),
                                  makeElf(190, "k", "x", false), &note)
                  .ok());
  EXPECT_CONTAINS(note, "cubin has no symbol table; kernel 'anything' not "
                        "checked");
  // Section headers pointing outside the file: a note, no crash.
  std::string broken = makeElf(190, "k", "x");
  broken[0x28 + 5] = 0x7f;
  note.clear();
  EXPECT_TRUE(validateKernelImage(manifestFor("k"), broken, &note).ok());
  EXPECT_CONTAINS(note, "without readable section headers");
}

TEST(HardeningTest, TargetsKnownOnHostAndMatchedToDevice) {
  for (const char *t : {"sm_90a", "sm_90", "sm_80", "sm_86", "sm_100a",
                        "sm_100f", "sm_120", "sm_121a", "sm_89"})
    EXPECT_TRUE(isKnownTarget(t)) << t;
  for (const char *t : {"sm_91", "sm_80a", "sm_90f", "sm_9", "sm_090",
                        "sm_1000", "sm_", "compute_90", "sm_90b"})
    EXPECT_FALSE(isKnownTarget(t)) << t;
  Manifest m;
  Status s = parseManifest(
      "gdn_manifest = 1\nkernel = k\nptx = k.ptx\ntarget = sm_91\n"
      "block = 1,1,1\nshared_bytes = 0\n",
      "t.manifest", m);
  EXPECT_CONTAINS(s.message(), "t.manifest:4: error: target: unknown CUDA "
                               "architecture 'sm_91'");

  int major = 0, minor = 0;
  char suffix = 0;
  ASSERT_TRUE(parseTarget("sm_121a", major, minor, suffix));
  EXPECT_EQ(major, 12);
  EXPECT_EQ(minor, 1);
  EXPECT_EQ(suffix, 'a');

  const std::string dev = "device 0: Test GPU";
  // sm_90a: exactly 9.0.
  EXPECT_TRUE(checkTargetForDevice(manifestFor("k"), false, 9, 0, dev).ok());
  s = checkTargetForDevice(manifestFor("k"), false, 8, 0, dev);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "d/k.manifest: error: kernel k is compiled for "
                               "sm_90a, but the device (device 0: Test GPU) "
                               "is sm_80 (compute capability 8.0): "
                               "architecture-specific (sm_XXa) code runs only "
                               "on compute capability 9.0");
  EXPECT_FALSE(checkTargetForDevice(manifestFor("k"), false, 10, 0, dev).ok());
  // Plain PTX runs forward; a plain cubin only within its major.
  EXPECT_TRUE(
      checkTargetForDevice(manifestFor("k", "sm_80"), false, 9, 0, dev).ok());
  EXPECT_FALSE(
      checkTargetForDevice(manifestFor("k", "sm_80"), true, 9, 0, dev).ok());
  EXPECT_TRUE(
      checkTargetForDevice(manifestFor("k", "sm_80"), true, 8, 6, dev).ok());
  EXPECT_FALSE(
      checkTargetForDevice(manifestFor("k", "sm_86"), false, 8, 0, dev).ok());
  // Family-specific: same major, minor at least.
  EXPECT_TRUE(
      checkTargetForDevice(manifestFor("k", "sm_100f"), false, 10, 3, dev)
          .ok());
  EXPECT_FALSE(
      checkTargetForDevice(manifestFor("k", "sm_100f"), false, 12, 0, dev)
          .ok());
}

TEST(HardeningTest, NonFiniteInputsAreFoundAndNamed) {
  GdnProblem p;
  p.B = 1;
  p.T = 300;
  p.H = 1;
  p.HV = 2;
  p.hasH0 = true;
  GdnInputs in;
  generateGdnInputs(p, GdnFamily::Weak, 1, /*withValues=*/false, in);
  EXPECT_EQ(findNonFiniteInputs(p, in).count, 0u);
  EXPECT_EQ(findNonFiniteInputs(p, in).first, "");
  const uint16_t nan16 = 0x7E00;
  std::memcpy(&in.q.bytes[2 * 1000], &nan16, 2); // q[0,7,0,104]
  const float inf = INFINITY, minusInf = -INFINITY;
  std::memcpy(&in.g.bytes[4 * 5], &inf, 4); // g[0,2,1]
  std::memcpy(&in.h0.bytes[4 * (128 * 128 + 3)], &minusInf, 4);
  GdnNonFinite nf = findNonFiniteInputs(p, in);
  EXPECT_EQ(nf.count, 3u);
  EXPECT_EQ(nf.first, "q[0,7,0,104] = nan");
  std::memcpy(&in.q.bytes[2 * 1000], &in.q.bytes[0], 2);
  EXPECT_EQ(findNonFiniteInputs(p, in).first, "g[0,2,1] = inf");
  std::memcpy(&in.g.bytes[4 * 5], &in.g.bytes[0], 4);
  EXPECT_EQ(findNonFiniteInputs(p, in).first, "h0[0,1,0,3] = -inf");
}
