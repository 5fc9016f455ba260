//===- coresidency-probe.cpp - do blocks of two kernels share an SM? ------===//
//
// A standalone probe (CUDA driver API only, libcuda dlopen()ed, PTX written
// here and JIT-compiled by the driver) that answers: on this GPU, do thread
// blocks of two *different* kernels run on the same SM at the same time, and
// under which launch conditions (programmatic dependent launch or plain
// concurrent streams, shared-memory size, shared-memory carveout)?
//
// Kernel "holder" (A): thread 0 of each block records (%smid, %globaltimer
// at start, %globaltimer at end); optionally executes
// griddepcontrol.launch_dependents at its start; every thread spins until
// globaltimer passes start + spin_ns while keeping ~KA values live (so the
// kernel uses ~80 registers, as the production kernel does).
// Kernel "guest" (B): the same code with ~KB live values (~136 registers),
// never executes griddepcontrol.launch_dependents nor griddepcontrol.wait.
// "guest_lowreg": the guest with no extra live values. "guest_ws": the
// guest as a warp-specialized kernel like the GDN forward (.maxnreg 136,
// setmaxnreg 24 / 192 for its warpgroups).
//
// Usage: coresidency-probe [--dump-ptx DIR] [--reps N] [--spin-us US]
//                          [--guest-spin-us US]
// Exit 1 when there is no CUDA driver or no GPU, or on any CUDA error.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Driver entry points (cuda.h #defines some names to versioned symbols; the
// member and the dlsym string are both produced after macro expansion, as
// in lib/Runtime/CudaDriver.h, whose list this one does not reuse: that
// list is what gdn-run needs and the CPU emulator exports, and the probe
// needs the occupancy query besides).
//===----------------------------------------------------------------------===//

#define PROBE_DRIVER_FUNCTIONS(X)                                              \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8)                                                                \
  X(cuLaunchKernelEx)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)

#define PROBE_SYMBOL_IMPL(name) #name
#define PROBE_SYMBOL(name) PROBE_SYMBOL_IMPL(name)

struct Driver {
#define PROBE_DECLARE(name) decltype(&::name) name = nullptr;
  PROBE_DRIVER_FUNCTIONS(PROBE_DECLARE)
#undef PROBE_DECLARE
} drv;

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "coresidency-probe: error: %s\n", msg.c_str());
  std::exit(1);
}

std::string describe(CUresult r) {
  const char *name = nullptr, *text = nullptr;
  std::string s = "CUresult " + std::to_string(static_cast<int>(r));
  if (drv.cuGetErrorName && drv.cuGetErrorName(r, &name) == CUDA_SUCCESS &&
      name)
    s = name;
  if (drv.cuGetErrorString && drv.cuGetErrorString(r, &text) == CUDA_SUCCESS &&
      text)
    s += std::string(" (") + text + ")";
  return s;
}

#define CU(fn, ...)                                                            \
  do {                                                                         \
    CUresult r_ = drv.fn(__VA_ARGS__);                                         \
    if (r_ != CUDA_SUCCESS)                                                    \
      die(std::string(#fn) + " failed: " + describe(r_));                      \
  } while (0)

void loadDriver() {
  dlerror();
  // GDN_CUDA_LIBRARY names another driver library, as for gdn-run (the
  // tests use a missing one to see the error without a GPU).
  const char *lib = std::getenv("GDN_CUDA_LIBRARY");
  if (!lib || !*lib)
    lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    die(std::string("no CUDA driver: cannot load ") + lib + ": " +
        (why ? why : "unknown dlopen error"));
  }
  std::string missing;
#define PROBE_RESOLVE(name)                                                    \
  drv.name =                                                                   \
      reinterpret_cast<decltype(drv.name)>(dlsym(h, PROBE_SYMBOL(name)));      \
  if (!drv.name)                                                               \
    missing += std::string(missing.empty() ? "" : ", ") + PROBE_SYMBOL(name);
  PROBE_DRIVER_FUNCTIONS(PROBE_RESOLVE)
#undef PROBE_RESOLVE
  if (!missing.empty())
    die("libcuda.so.1 lacks " + missing + " (driver too old?)");
}

//===----------------------------------------------------------------------===//
// PTX
//===----------------------------------------------------------------------===//

// Live 32-bit values kept across the spin loop, tuned with ptxas -v
// (sm_90a, ptxas 13.0) so that holder uses 80 and guest 136 registers.
constexpr int kHolderLive = 68;
constexpr int kGuestLive = 124;

// One kernel: params (u64 rec, u64 spin_ns, u32 flags); flags bit 0 =
// execute griddepcontrol.launch_dependents at the start. Record per block
// (32 bytes): u64 smid, u64 start, u64 end, u32 sink. `warpSpecialized`:
// the kernel as the GDN forward is built (384 threads, .maxnreg 136, one
// block per SM): warpgroup 2 gives registers back (setmaxnreg.dec 24) and
// only spins, warpgroups 0-1 take them (setmaxnreg.inc 192: 136 x 384 =
// 24 x 128 + 192 x 256) and spin with the live values; it never triggers.
std::string kernelPtx(const std::string &name, int live,
                      bool warpSpecialized = false) {
  std::string s;
  auto line = [&](const std::string &l) { s += l + "\n"; };
  line(".visible .entry " + name + "(");
  line("  .param .u64 p_rec,");
  line("  .param .u64 p_spin,");
  line("  .param .u32 p_flags)");
  if (warpSpecialized) {
    line("  .maxntid 384, 1, 1");
    line("  .maxnreg 136");
    line("  .minnctapersm 1");
  }
  line("{");
  line("  .reg .pred %p<4>;");
  line("  .reg .b32 %r<12>;");
  line("  .reg .b64 %rd<12>;");
  if (live > 0)
    line("  .reg .b32 %a<" + std::to_string(live) + ">;");
  line("  mov.u64 %rd1, %globaltimer;");
  line("  mov.u32 %r1, %smid;");
  line("  ld.param.u64 %rd2, [p_rec];");
  line("  ld.param.u64 %rd3, [p_spin];");
  if (!warpSpecialized) {
    line("  ld.param.u32 %r2, [p_flags];");
    line("  and.b32 %r3, %r2, 1;");
    line("  setp.ne.u32 %p1, %r3, 0;");
    line("  @!%p1 bra $L_no_trigger;");
    line("  griddepcontrol.launch_dependents;");
    line("$L_no_trigger:");
  }
  line("  mov.u32 %r4, %tid.x;");
  line("  add.u64 %rd4, %rd1, %rd3;");
  line("  mov.u32 %r6, 0;");
  if (warpSpecialized) {
    line("  setp.ge.u32 %p1, %r4, 256;");
    line("  @%p1 bra $L_producer;");
    line("  setmaxnreg.inc.sync.aligned.u32 192;");
  }
  line("  mov.u32 %r5, %clock;");
  for (int i = 0; i < live; ++i)
    line("  mad.lo.u32 %a" + std::to_string(i) + ", %r5, " +
         std::to_string(2 * i + 3) + ", %r4;");
  line("$L_spin:");
  for (int i = 0; i < live; ++i)
    line("  mad.lo.u32 %a" + std::to_string(i) + ", %a" + std::to_string(i) +
         ", 1664525, %a" + std::to_string((i + 1) % live) + ";");
  line("  mov.u64 %rd5, %globaltimer;");
  line("  setp.lt.u64 %p2, %rd5, %rd4;");
  line("  @%p2 bra $L_spin;");
  for (int i = 0; i < live; ++i)
    line("  add.u32 %r6, %r6, %a" + std::to_string(i) + ";");
  if (warpSpecialized) {
    line("  bra.uni $L_join;");
    line("$L_producer:");
    line("  setmaxnreg.dec.sync.aligned.u32 24;");
    line("$L_pspin:");
    line("  mov.u64 %rd5, %globaltimer;");
    line("  setp.lt.u64 %p2, %rd5, %rd4;");
    line("  @%p2 bra $L_pspin;");
    line("$L_join:");
  }
  line("  bar.sync 0;");
  line("  mov.u64 %rd6, %globaltimer;");
  line("  setp.ne.u32 %p3, %r4, 0;");
  line("  @%p3 bra $L_done;");
  line("  mov.u32 %r7, %ctaid.x;");
  line("  mul.wide.u32 %rd7, %r7, 32;");
  line("  add.u64 %rd8, %rd2, %rd7;");
  line("  cvt.u64.u32 %rd9, %r1;");
  line("  st.global.u64 [%rd8], %rd9;");
  line("  st.global.u64 [%rd8+8], %rd1;");
  line("  st.global.u64 [%rd8+16], %rd6;");
  line("  st.global.u32 [%rd8+24], %r6;");
  line("$L_done:");
  line("  ret;");
  line("}");
  return s;
}

std::string modulePtx() {
  std::string s = "//\n// coresidency-probe kernels\n//\n"
                  ".version 8.0\n.target sm_90a\n.address_size 64\n\n";
  s += kernelPtx("holder", kHolderLive) + "\n";
  s += kernelPtx("guest", kGuestLive) + "\n";
  s += kernelPtx("guest_lowreg", 0) + "\n";
  s += kernelPtx("guest_ws", kGuestLive, /*warpSpecialized=*/true);
  return s;
}

//===----------------------------------------------------------------------===//
// Scenarios
//===----------------------------------------------------------------------===//

constexpr int kNoCarveout = -2; // leave CU_FUNC_ATTRIBUTE_..._CARVEOUT unset

struct Scenario {
  const char *name;
  int aBlocks, aThreads, aSmem;
  int bBlocks, bThreads, bSmem;
  const char *bKernel; // "guest", "guest_lowreg" or "guest_ws"
  bool pdl;     // B on A's stream with PROGRAMMATIC_STREAM_SERIALIZATION = 1
  bool trigger; // A executes griddepcontrol.launch_dependents at its start
  int carveout; // both kernels, or kNoCarveout
};

constexpr int KB = 1024;
const Scenario kScenarios[] = {
    {"1 pdl A37K B140K/384t", 132, 128, 37 * KB, 132, 384, 140 * KB, "guest",
     true, true, kNoCarveout},
    {"2 2str A37K B140K/384t", 132, 128, 37 * KB, 132, 384, 140 * KB, "guest",
     false, true, kNoCarveout},
    {"2c 2str ... carve100", 132, 128, 37 * KB, 132, 384, 140 * KB, "guest",
     false, true, 100},
    {"3 pdl A0K B0K/384t", 132, 128, 0, 132, 384, 0, "guest", true, true,
     kNoCarveout},
    {"4 pdl ... carve100", 132, 128, 37 * KB, 132, 384, 140 * KB, "guest", true,
     true, 100},
    {"5 pdl A66 B140K", 66, 128, 37 * KB, 132, 384, 140 * KB, "guest", true,
     true, kNoCarveout},
    {"5c pdl A66 ... carve100", 66, 128, 37 * KB, 132, 384, 140 * KB, "guest",
     true, true, 100},
    {"6 pdl B64K/256t", 132, 128, 37 * KB, 132, 256, 64 * KB, "guest", true,
     true, kNoCarveout},
    {"6c pdl B64K/256t carve100", 132, 128, 37 * KB, 132, 256, 64 * KB, "guest",
     true, true, 100},
    {"7 2str A0K B0K/384t", 132, 128, 0, 132, 384, 0, "guest", false, true,
     kNoCarveout},
    {"8 pdl A128 ... carve100", 128, 128, 37 * KB, 132, 384, 140 * KB, "guest",
     true, true, 100},
    {"9 pdl B lowreg carve100", 132, 128, 37 * KB, 132, 384, 140 * KB,
     "guest_lowreg", true, true, 100},
    {"10 pdl no trigger carve100", 132, 128, 37 * KB, 132, 384, 140 * KB,
     "guest", true, false, 100},
    {"11 pdl  A128 B ws carve100", 128, 128, 37 * KB, 132, 384, 140 * KB,
     "guest_ws", true, true, 100},
    {"12 pdl  A128 B ws", 128, 128, 37 * KB, 132, 384, 140 * KB, "guest_ws",
     true, true, kNoCarveout},
    {"13 2str A128 B ws carve100", 128, 128, 37 * KB, 132, 384, 140 * KB,
     "guest_ws", false, true, 100},
};

struct Record {
  uint64_t smid, start, end;
  uint32_t sink, pad;
};

struct Result {
  int before = 0, beside = 0, onIdleSm = 0, aSms = 0, bSms = 0;
  double firstUs = 0, firstVsAEndUs = 0, totalMs = 0;
  bool complete = true;
};

int intAttr(CUfunction f, CUfunction_attribute a) {
  int v = 0;
  CU(cuFuncGetAttribute, &v, a, f);
  return v;
}

void configure(CUfunction f, int smem, int carveout) {
  CU(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
     smem);
  if (carveout != kNoCarveout)
    CU(cuFuncSetAttribute, f,
       CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout);
}

void printResources(const char *label, CUfunction f, int threads, int smem) {
  int occ = 0;
  CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &occ, f, threads,
     static_cast<size_t>(smem));
  std::printf("resources %-13s NUM_REGS=%d SHARED_SIZE_BYTES=%d "
              "LOCAL_SIZE_BYTES=%d threads=%d dyn_smem=%d "
              "occupancy_blocks_per_SM=%d\n",
              label, intAttr(f, CU_FUNC_ATTRIBUTE_NUM_REGS),
              intAttr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
              intAttr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), threads, smem,
              occ);
}

CUmodule loadModule(const std::string &ptx) {
  static char log[16384], errLog[16384];
  CUjit_option opts[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, reinterpret_cast<void *>(sizeof(log)), errLog,
                  reinterpret_cast<void *>(sizeof(errLog))};
  CUmodule m = nullptr;
  CUresult r = drv.cuModuleLoadDataEx(&m, ptx.c_str(), 4, opts, vals);
  if (r != CUDA_SUCCESS)
    die("cuModuleLoadDataEx failed: " + describe(r) + "\n" + errLog);
  return m;
}

void launch(CUfunction f, int blocks, int threads, int smem, CUstream s,
            bool pdl, CUdeviceptr rec, uint64_t spinNs, uint32_t flags) {
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  cfg.gridDimX = blocks;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = threads;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = smem;
  cfg.hStream = s;
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  if (pdl) {
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  void *args[] = {&rec, &spinNs, &flags};
  CU(cuLaunchKernelEx, &cfg, f, args, nullptr);
}

Result runOnce(const Scenario &sc, CUfunction fa, CUfunction fb, CUstream s1,
               CUstream s2, CUdeviceptr recA, CUdeviceptr recB, uint64_t spinA,
               uint64_t spinB) {
  CU(cuMemsetD8, recA, 0, 64 * KB);
  CU(cuMemsetD8, recB, 0, 64 * KB);
  CU(cuCtxSynchronize);
  launch(fa, sc.aBlocks, sc.aThreads, sc.aSmem, s1, false, recA, spinA,
         sc.trigger ? 1u : 0u);
  launch(fb, sc.bBlocks, sc.bThreads, sc.bSmem, sc.pdl ? s1 : s2, sc.pdl, recB,
         spinB, 0u);
  CU(cuCtxSynchronize);
  std::vector<Record> a(sc.aBlocks), b(sc.bBlocks);
  CU(cuMemcpyDtoH, a.data(), recA, a.size() * sizeof(Record));
  CU(cuMemcpyDtoH, b.data(), recB, b.size() * sizeof(Record));

  Result res;
  uint64_t aFirst = UINT64_MAX, aLastEnd = 0, bFirst = UINT64_MAX, lastEnd = 0;
  std::vector<int> aPerSm(1024, 0), bPerSm(1024, 0);
  for (const Record &r : a) {
    if (!r.end || r.smid >= 1024) {
      res.complete = false;
      continue;
    }
    aFirst = std::min(aFirst, r.start);
    aLastEnd = std::max(aLastEnd, r.end);
    lastEnd = std::max(lastEnd, r.end);
    if (aPerSm[r.smid]++ == 0)
      ++res.aSms;
  }
  for (const Record &r : b) {
    if (!r.end || r.smid >= 1024) {
      res.complete = false;
      continue;
    }
    bFirst = std::min(bFirst, r.start);
    lastEnd = std::max(lastEnd, r.end);
    if (bPerSm[r.smid]++ == 0)
      ++res.bSms;
    if (r.start < aLastEnd)
      ++res.before;
    if (aPerSm[r.smid] == 0)
      ++res.onIdleSm;
    for (const Record &q : a)
      if (q.smid == r.smid && q.start <= r.start && r.start < q.end) {
        ++res.beside;
        break;
      }
  }
  res.firstUs = (static_cast<double>(bFirst) - aFirst) / 1e3;
  res.firstVsAEndUs = (static_cast<double>(bFirst) - aLastEnd) / 1e3;
  res.totalMs = (static_cast<double>(lastEnd) - aFirst) / 1e6;
  return res;
}

void dumpPtx(const std::string &dir) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    die("cannot create " + dir + ": " + std::strerror(errno));
  std::string path = dir + "/coresidency-probe.ptx";
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    die("cannot write " + path + ": " + std::strerror(errno));
  std::string ptx = modulePtx();
  std::fwrite(ptx.data(), 1, ptx.size(), f);
  std::fclose(f);
  std::printf("wrote %s\n", path.c_str());
}

void usage() {
  std::printf(
      "usage: coresidency-probe [--dump-ptx DIR] [--reps N] [--spin-us US] "
      "[--guest-spin-us US]\n"
      "  Runs holder (A) and guest (B) kernels in the scenarios listed in\n"
      "  the source and prints, per scenario: B blocks started before A's\n"
      "  last block ended, B blocks started on an SM running an A block\n"
      "  (one value per repetition), B's first start relative to A's first\n"
      "  start and to A's last end (us), total time (ms).\n"
      "  --dump-ptx DIR writes the PTX and exits (no GPU needed).\n");
}

} // namespace

/// The value of option `name`: a number in (0, max] (whole for --reps), or
/// an error naming the option.
static double positive(const std::string &name, const char *text, double max) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  bool whole =
      name != "--reps" || v == static_cast<double>(static_cast<long>(v));
  if (end == text || *end != '\0' || errno != 0 || !(v > 0) || v > max ||
      !whole)
    die(name + " needs a " + (name == "--reps" ? "whole " : "") +
        "number in (0, " + std::to_string(static_cast<long>(max)) + "], got '" +
        text + "'");
  return v;
}

int main(int argc, char **argv) {
  int reps = 3;
  double spinUs = 200, guestSpinUs = 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc)
        die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--dump-ptx") {
      dumpPtx(next());
      return 0;
    } else if (arg == "--reps") {
      reps = static_cast<int>(positive(arg, next(), 100));
    } else if (arg == "--spin-us") {
      spinUs = positive(arg, next(), 1e6);
    } else if (arg == "--guest-spin-us") {
      guestSpinUs = positive(arg, next(), 1e6);
    } else if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    } else {
      usage();
      die("unknown argument " + arg);
    }
  }

  loadDriver();
  CUresult r = drv.cuInit(0);
  if (r != CUDA_SUCCESS)
    die("no GPU: cuInit failed: " + describe(r));
  int count = 0;
  CU(cuDeviceGetCount, &count);
  if (count < 1)
    die("no GPU: cuDeviceGetCount returned 0");
  CUdevice dev;
  CU(cuDeviceGet, &dev, 0);
  char name[256] = {0};
  CU(cuDeviceGetName, name, sizeof(name), dev);
  int version = 0;
  CU(cuDriverGetVersion, &version);
  auto devAttr = [&](CUdevice_attribute a) {
    int v = 0;
    CU(cuDeviceGetAttribute, &v, a, dev);
    return v;
  };
  std::printf("device %s, driver %d, sm_%d%d, SMs=%d, smem/SM=%d, "
              "smem/block optin=%d, reserved smem/block=%d, regs/SM=%d, "
              "max threads/SM=%d\n",
              name, version,
              devAttr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
              devAttr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
              devAttr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
              devAttr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
              devAttr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
              devAttr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK),
              devAttr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
              devAttr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR));

  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain, &ctx, dev);
  CU(cuCtxSetCurrent, ctx);
  CUstream s1, s2;
  CU(cuStreamCreate, &s1, CU_STREAM_NON_BLOCKING);
  CU(cuStreamCreate, &s2, CU_STREAM_NON_BLOCKING);
  CUdeviceptr recA, recB;
  CU(cuMemAlloc, &recA, 64 * KB);
  CU(cuMemAlloc, &recB, 64 * KB);
  const std::string ptx = modulePtx();
  const uint64_t spinA = static_cast<uint64_t>(spinUs * 1e3);
  const uint64_t spinB = static_cast<uint64_t>(guestSpinUs * 1e3);

  // Resource numbers as the driver reports them (fresh module, carveout
  // unset, then set to 100 for the occupancy question).
  {
    CUmodule m = loadModule(ptx);
    CUfunction fa, fb, fl;
    CU(cuModuleGetFunction, &fa, m, "holder");
    CU(cuModuleGetFunction, &fb, m, "guest");
    CU(cuModuleGetFunction, &fl, m, "guest_lowreg");
    CUfunction fw;
    CU(cuModuleGetFunction, &fw, m, "guest_ws");
    configure(fa, 37 * KB, kNoCarveout);
    configure(fb, 140 * KB, kNoCarveout);
    configure(fl, 140 * KB, kNoCarveout);
    configure(fw, 140 * KB, kNoCarveout);
    printResources("guest_ws", fw, 384, 140 * KB);
    printResources("holder", fa, 128, 37 * KB);
    printResources("holder", fa, 128, 0);
    printResources("guest", fb, 384, 140 * KB);
    printResources("guest", fb, 256, 64 * KB);
    printResources("guest", fb, 384, 0);
    printResources("guest_lowreg", fl, 384, 140 * KB);
    configure(fa, 37 * KB, 100);
    configure(fb, 140 * KB, 100);
    printResources("holder c100", fa, 128, 37 * KB);
    printResources("guest c100", fb, 384, 140 * KB);
    CU(cuModuleUnload, m);
  }

  std::printf("spin A %.0f us, B %.0f us, %d repetitions; columns: "
              "B-before-A-end | B-beside-A | B-on-SM-without-A (per rep) | "
              "B first start - A first start (us) | B first start - A last "
              "end (us) | total ms | SMs used by A/B (last rep)\n",
              spinUs, guestSpinUs, reps);
  for (const Scenario &sc : kScenarios) {
    // A fresh module per scenario: the carveout attribute of a function
    // persists, and "unset" must mean never set.
    CUmodule m = loadModule(ptx);
    CUfunction fa, fb;
    CU(cuModuleGetFunction, &fa, m, "holder");
    CU(cuModuleGetFunction, &fb, m, sc.bKernel);
    configure(fa, sc.aSmem, sc.carveout);
    configure(fb, sc.bSmem, sc.carveout);
    // Warm-up (first launch of a module loads the code).
    runOnce(sc, fa, fb, s1, s2, recA, recB, spinA, spinB);
    std::string before, beside, idle;
    Result last;
    bool complete = true;
    for (int rep = 0; rep < reps; ++rep) {
      last = runOnce(sc, fa, fb, s1, s2, recA, recB, spinA, spinB);
      complete = complete && last.complete;
      const char *sep = rep ? "/" : "";
      before += sep + std::to_string(last.before);
      beside += sep + std::to_string(last.beside);
      idle += sep + std::to_string(last.onIdleSm);
    }
    std::printf("%-28s before=%-11s beside=%-11s idleSM=%-11s "
                "first=%8.1f us  vsAend=%8.1f us  total=%.3f ms  "
                "SMs A/B=%d/%d%s\n",
                sc.name, before.c_str(), beside.c_str(), idle.c_str(),
                last.firstUs, last.firstVsAEndUs, last.totalMs, last.aSms,
                last.bSms, complete ? "" : "  INCOMPLETE RECORDS");
    std::fflush(stdout);
    CU(cuModuleUnload, m);
  }
  CU(cuMemFree, recA);
  CU(cuMemFree, recB);
  CU(cuStreamDestroy, s1);
  CU(cuStreamDestroy, s2);
  CU(cuDevicePrimaryCtxRelease, dev);
  return 0;
}
