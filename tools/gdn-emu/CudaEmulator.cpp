//===- CudaEmulator.cpp - a CUDA driver that runs tile kernels on the CPU --===//
//
// libgdn-cuemu.so: the CUDA driver entry points gdn-run and the runtime
// library use (CudaDriver.h), implemented on the host so that gdn-run's
// whole check (input families, the fp64 oracle, CP path, varlen, GVA, h0,
// determinism) runs without a GPU. Load it with
//
//   GDN_CUDA_LIBRARY=build/lib/libgdn-cuemu.so \
//   GDN_EMU_KERNELS=build/kernels-cpu gdn-run gdn ...
//
// "Device" memory is host memory. A kernel is not its PTX: cuModuleGetFunction
// finds the function of that name (a `_i64` suffix dropped: the 64-bit-index
// build of one source; its parameters checked against the PTX entry's) in
// the kernels as written, lowered by
// convert-tile-to-loops (build/kernels-cpu/*.mlir, see tools/gdn-emu/
// CMakeLists.txt), lowers that module to LLVM here and JIT-compiles it
// (MLIR's ExecutionEngine). A launch runs the grid's blocks one after another
// (x fastest), each block's code in program order (Passes.td,
// convert-tile-to-loops); tensor-map parameters (appended after the
// kernel's own, Manifest.h) are ignored. Timing calls work and measure the
// host; graphs are not supported.
//
// Ready flags (tile.flag_release / tile.flag_wait) run lazily, so that a
// consumer that reads a producer's output before waiting for its flag
// reads unwritten memory (0xFF bytes: NaN) instead of finished results: a
// kernel that releases flags (and waits for none) is deferred at its
// launch; a later kernel's flag wait that finds its flag unreleased runs
// the deferred blocks round-robin, each up to its next release (each block
// on its own thread, one thread running at a time), until the flag is
// released; the run aborts when every deferred block has finished without
// releasing it. Stream order still holds where the GPU's does: a launch
// without programmatic dependent launch (PDL), any copy, fill, free,
// event or synchronization first runs every deferred block to its end,
// and a PDL kernel whose PTX waits for its predecessor grid
// (griddepcontrol.wait) first finishes the predecessor if it was deferred.
// (Stricter than a GPU in one way: a deferred kernel's dependents run
// before it whether or not it triggers them early. A kernel that both
// releases and waits for flags runs eagerly, as a consumer.)
//
// What this checks is each kernel's arithmetic, masks and indexing as
// written, not the GPU code generation (layouts, barriers, asynchrony),
// which only the GPU suite checks (docs/gdn-run.md, "Without a GPU").
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include "KernelImage.h" // ptxEntryParams (lib/Runtime)

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/TargetSelect.h"

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Memory: host allocations, remembered so a pointer's extent is known
//===----------------------------------------------------------------------===//

std::mutex gMutex;
std::map<uintptr_t, size_t> gAllocs; // base -> bytes

CUresult allocate(CUdeviceptr *p, size_t bytes) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  size_t n = (bytes + 255) / 256 * 256;
  void *m = std::aligned_alloc(256, n ? n : 256);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(m, 0xFF, n ? n : 256);
  std::lock_guard<std::mutex> lock(gMutex);
  gAllocs[reinterpret_cast<uintptr_t>(m)] = bytes;
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult release(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(gMutex);
  auto it = gAllocs.find(static_cast<uintptr_t>(p));
  if (it == gAllocs.end())
    return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void *>(p));
  gAllocs.erase(it);
  return CUDA_SUCCESS;
}

/// Bytes from `p` to the end of its allocation (0: not an allocation).
size_t bytesLeft(uintptr_t p) {
  std::lock_guard<std::mutex> lock(gMutex);
  auto it = gAllocs.upper_bound(p);
  if (it == gAllocs.begin())
    return 0;
  --it;
  if (p >= it->first + it->second)
    return 0;
  return it->first + it->second - p;
}

//===----------------------------------------------------------------------===//
// Kernels: the CPU lowering of the kernel sources, JIT-compiled on demand
//===----------------------------------------------------------------------===//

/// One parameter of a kernel as the JIT'd function takes it.
struct ParamKind {
  bool memref = false;
  bool isFloat = false; // the element (memref) or scalar type is a float
  size_t bytes = 0;     // the element size of a memref<?xT>, else the scalar's
};

struct JitModule {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::map<std::string, std::vector<ParamKind>> kernels;
  /// Kernels that (through their callees) release flags / wait for flags.
  std::set<std::string> releasesFlags, waitsForFlags;
  void (*setGrid)(void **) = nullptr;
};

struct EmuFunction {
  std::string name;
  JitModule *module = nullptr;
  void (*entry)(void **) = nullptr;
  const std::vector<ParamKind> *params = nullptr;
  bool releasesFlags = false, waitsForFlags = false;
  /// The GPU kernel's PTX waits for its predecessor grid.
  bool gridWait = false;
};

/// A loaded "module": its PTX text, used only to check that the CPU kernel
/// of a name takes the parameters the GPU kernel of that name takes.
struct EmuModule {
  std::string ptx;
};

/// The parameter widths (bytes) of `.entry name(...)` in `ptx`, without the
/// 128-byte tensor maps (appended after the kernel's own parameters, which
/// the CPU kernels do not take); false when the PTX has no such entry.
bool ptxParams(const std::string &ptx, const std::string &name,
               std::vector<size_t> &widths) {
  std::vector<gdn::run::PtxParam> params;
  if (!gdn::run::ptxEntryParams(ptx, name, params))
    return false;
  for (const gdn::run::PtxParam &p : params)
    if (!(p.type == ".b8" && p.count == 128 && p.align == 64))
      widths.push_back(p.bytes()); // 0 for an unreadable declaration
  return true;
}

/// Whether the body of `.entry name` in `ptx` (up to the `}` that closes
/// it at the start of a line) has a griddepcontrol.wait.
bool ptxGridWait(const std::string &ptx, const std::string &name) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return false;
  size_t end = ptx.find("\n}", at);
  size_t w = ptx.find("griddepcontrol.wait", at);
  return w != std::string::npos && (end == std::string::npos || w < end);
}

/// By file. Never destroyed: an ExecutionEngine torn down by the exit
/// handlers would run after LLVM's own globals are gone.
auto &gJit = *new std::map<std::string, std::unique_ptr<JitModule>>();
std::vector<std::unique_ptr<EmuFunction>> gFunctions;
std::string gLastError;

void fail(const std::string &what) {
  gLastError = what;
  std::fprintf(stderr, "gdn-cuemu: %s\n", what.c_str());
}

/// puts() for the JIT-compiled kernels: their failed checks' messages.
int emuPuts(const char *s) {
  std::fprintf(stderr, "gdn-cuemu: kernel check failed: %s\n", s);
  std::fflush(stderr);
  return 0;
}

// The flag hooks the JIT-compiled kernels call (defined with the scheduler
// below).
void flagReleased();
bool flagStalled();

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The file of GDN_EMU_KERNELS that defines `func.func @name(`.
std::string findKernelFile(const std::string &name) {
  const char *dir = std::getenv("GDN_EMU_KERNELS");
  if (!dir) {
    fail("GDN_EMU_KERNELS is not set (a directory of kernels lowered by "
         "convert-tile-to-loops)");
    return "";
  }
  DIR *d = opendir(dir);
  if (!d) {
    fail(std::string("cannot open GDN_EMU_KERNELS=") + dir);
    return "";
  }
  std::vector<std::string> files;
  while (dirent *e = readdir(d)) {
    std::string f = e->d_name;
    if (f.size() > 5 && f.substr(f.size() - 5) == ".mlir")
      files.push_back(std::string(dir) + "/" + f);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::string needle = "func.func @" + name + "(";
  for (const std::string &f : files)
    if (readFile(f).find(needle) != std::string::npos)
      return f;
  fail("no kernel @" + name + " in " + dir);
  return "";
}

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                    mlir::func::FuncDialect, mlir::index::IndexDialect,
                    mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

JitModule *loadModule(const std::string &file) {
  auto found = gJit.find(file);
  if (found != gJit.end())
    return found->second.get();
  static bool llvmReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)llvmReady;
  mlir::MLIRContext &ctx = context();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(file, &ctx);
  if (!module) {
    fail("cannot parse " + file);
    return nullptr;
  }
  auto jm = std::make_unique<JitModule>();
  // Each kernel's parameters, before the LLVM lowering expands memrefs.
  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    if (!func->hasAttr("gdn.cpu_kernel"))
      continue;
    std::vector<ParamKind> params;
    for (mlir::Type t : func.getArgumentTypes()) {
      ParamKind k;
      mlir::Type scalar = t;
      if (auto m = llvm::dyn_cast<mlir::MemRefType>(t)) {
        k.memref = true;
        scalar = m.getElementType();
      }
      k.isFloat = llvm::isa<mlir::FloatType>(scalar);
      if (!scalar.isIndex() && !scalar.isIntOrFloat()) {
        fail("@" + func.getName().str() + " in " + file +
             " takes a parameter of a type the emulator cannot pass");
        return nullptr;
      }
      k.bytes = scalar.isIndex() ? 8 : (scalar.getIntOrFloatBitWidth() + 7) / 8;
      params.push_back(k);
    }
    jm->kernels[func.getName().str()] = params;
  }
  // Which functions release or wait for flags (the hooks of
  // convert-tile-to-loops' flag-hooks), through their callees.
  {
    std::map<std::string, std::set<std::string>> callees;
    std::set<std::string> &rel = jm->releasesFlags, &wait = jm->waitsForFlags;
    for (auto func : module->getOps<mlir::func::FuncOp>()) {
      std::string f = func.getName().str();
      func.walk([&](mlir::func::CallOp call) {
        llvm::StringRef callee = call.getCallee();
        if (callee == "__tile_flag_released")
          rel.insert(f);
        else if (callee == "__tile_flag_stalled")
          wait.insert(f);
        else
          callees[f].insert(callee.str());
      });
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &[f, cs] : callees)
        for (const std::string &c : cs) {
          if (rel.count(c) && rel.insert(f).second)
            changed = true;
          if (wait.count(c) && wait.insert(f).second)
            changed = true;
        }
    }
  }
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::createConvertSCFToCFPass());
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertIndexToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  if (mlir::failed(pm.run(*module))) {
    fail("cannot lower " + file + " to LLVM");
    return nullptr;
  }
  mlir::ExecutionEngineOptions options;
  options.transformer = mlir::makeOptimizingTransformer(2, 0, nullptr);
  auto engine = mlir::ExecutionEngine::create(*module, options);
  if (!engine) {
    fail("cannot JIT-compile " + file + ": " +
         llvm::toString(engine.takeError()));
    return nullptr;
  }
  jm->engine = std::move(*engine);
  // A failed check (cf.assert) prints its message with puts() and aborts:
  // to stderr, flushed, so that the message is not lost in stdout's buffer.
  jm->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    map[interner("puts")] = {llvm::orc::ExecutorAddr::fromPtr(&emuPuts),
                             llvm::JITSymbolFlags::Exported};
    map[interner("__tile_flag_released")] = {
        llvm::orc::ExecutorAddr::fromPtr(&flagReleased),
        llvm::JITSymbolFlags::Exported};
    map[interner("__tile_flag_stalled")] = {
        llvm::orc::ExecutorAddr::fromPtr(&flagStalled),
        llvm::JITSymbolFlags::Exported};
    return map;
  });
  auto set = jm->engine->lookupPacked("__tile_set_grid");
  if (!set) {
    llvm::consumeError(set.takeError());
    fail(file + " has no @__tile_set_grid (not lowered by "
                "convert-tile-to-loops?)");
    return nullptr;
  }
  jm->setGrid = *set;
  JitModule *raw = jm.get();
  gJit[file] = std::move(jm);
  return raw;
}

/// A memref<?xT> descriptor as the packed calling convention takes it.
struct Desc {
  void *allocated, *aligned;
  int64_t offset, size, stride;
};

/// The NaN a convert-tile-to-loops buffer is filled with (f32 0x7FC00000,
/// positive; x86's own NaNs are negative) and its f16 (0x7E00) / bf16
/// (0x7FC0) forms; only float parameters are scanned, each as its type.
bool isPoison(const unsigned char *p, size_t elemBytes) {
  if (elemBytes == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v == 0x7FC00000u;
  }
  if (elemBytes == 2) { // f16 or bf16: either NaN (each is one in its type)
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v == 0x7E00u || v == 0x7FC0u;
  }
  return false;
}

/// GDN_EMU_TRACE: after each block, the first element of each float
/// parameter that holds the poison of an unwritten shared or fragment
/// buffer, once per parameter and kernel. The poison may have been stored
/// by this block or by an earlier kernel (inputs are scanned too): the
/// first report in launch order names the kernel that stored it.
template <typename Desc>
void reportPoison(const EmuFunction &fn, const std::vector<Desc> &descs,
                  unsigned x, unsigned y, unsigned z) {
  static std::map<std::pair<std::string, size_t>, bool> seen;
  for (size_t i = 0; i < descs.size(); ++i) {
    const ParamKind &k = (*fn.params)[i];
    if (!k.memref || !k.isFloat || seen[{fn.name, i}])
      continue;
    auto *base = static_cast<const unsigned char *>(descs[i].aligned);
    for (int64_t e = 0; e < descs[i].size; ++e)
      if (isPoison(base + e * k.bytes, k.bytes)) {
        std::fprintf(stderr,
                     "gdn-cuemu: %s: after block (%u, %u, %u), parameter %zu "
                     "element %lld holds an unwritten buffer's poison\n",
                     fn.name.c_str(), x, y, z, i, static_cast<long long>(e));
        seen[{fn.name, i}] = true;
        break;
      }
  }
}

/// A launch's arguments in the packed calling convention: a memref<?xT> is
/// (allocated, aligned, offset, size, stride); a scalar is a pointer to its
/// value, copied here (a deferred launch outlives the caller's storage).
struct Launch {
  EmuFunction *fn = nullptr;
  unsigned gx = 1, gy = 1, gz = 1;
  std::vector<Desc> descs;
  std::vector<std::vector<unsigned char>> scalars;
  std::vector<void *> args;

  Launch(EmuFunction *fn, unsigned gx, unsigned gy, unsigned gz,
         void **params)
      : fn(fn), gx(gx), gy(gy), gz(gz) {
    const size_t n = fn->params->size();
    descs.resize(n);
    scalars.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const ParamKind &k = (*fn->params)[i];
      if (!k.memref) {
        auto *v = static_cast<unsigned char *>(params[i]);
        scalars[i].assign(v, v + k.bytes);
        continue;
      }
      uintptr_t p = *static_cast<CUdeviceptr *>(params[i]);
      Desc &d = descs[i];
      d.allocated = d.aligned = reinterpret_cast<void *>(p);
      d.offset = 0;
      d.size = static_cast<int64_t>(bytesLeft(p) / k.bytes);
      d.stride = 1;
    }
    for (size_t i = 0; i < n; ++i) {
      if (!(*fn->params)[i].memref) {
        args.push_back(scalars[i].data());
        continue;
      }
      Desc &d = descs[i];
      for (void **slot : {&d.allocated, &d.aligned})
        args.push_back(slot);
      args.push_back(&d.offset);
      args.push_back(&d.size);
      args.push_back(&d.stride);
    }
  }

  /// Runs block (x, y, z) on this thread.
  void run(unsigned x, unsigned y, unsigned z) {
    setGrid(x, y, z);
    fn->entry(args.data());
    static const bool trace = std::getenv("GDN_EMU_TRACE") != nullptr;
    if (trace)
      reportPoison(*fn, descs, x, y, z);
  }
  void setGrid(unsigned x, unsigned y, unsigned z) const {
    int64_t grid[6] = {x, y, z, gx, gy, gz};
    void *gridArgs[6];
    for (int i = 0; i < 6; ++i)
      gridArgs[i] = &grid[i];
    fn->module->setGrid(gridArgs);
  }
};

//===----------------------------------------------------------------------===//
// Deferred launches: the blocks of flag-releasing kernels, run on demand
//===----------------------------------------------------------------------===//

/// A block of a deferred launch: its own thread, which runs only while it
/// holds the turn (one thread at a time runs kernel code).
struct DeferredBlock {
  Launch *launch = nullptr;
  unsigned x = 0, y = 0, z = 0;
  std::thread thread;
  bool started = false, finished = false;
};

struct Deferred {
  std::unique_ptr<Launch> launch;
  std::vector<std::unique_ptr<DeferredBlock>> blocks;
};

// Never destroyed, like gDeferred below: threads of blocks paused at a
// release may still wait on them when the process exits.
std::mutex &gTurnMutex = *new std::mutex();
std::condition_variable &gTurnCv = *new std::condition_variable();
DeferredBlock *gTurn = nullptr; // the block holding the turn (null: the caller)
thread_local DeferredBlock *tBlock = nullptr; // the block this thread runs
// In launch order; never destroyed (threads of unfinished blocks may be
// waiting for the turn when the process exits).
auto &gDeferred = *new std::vector<std::unique_ptr<Deferred>>();
size_t gNextBlock = 0; // round-robin position over gDeferred's blocks
Deferred *gLastLaunch = nullptr; // the previous launch, if it was deferred
const Launch *gRunning = nullptr; // the eager launch running now
unsigned gRunningBlock[3] = {0, 0, 0};

void blockMain(DeferredBlock *b) {
  tBlock = b;
  {
    std::unique_lock<std::mutex> lock(gTurnMutex);
    gTurnCv.wait(lock, [&] { return gTurn == b; });
  }
  b->launch->run(b->x, b->y, b->z);
  std::lock_guard<std::mutex> lock(gTurnMutex);
  b->finished = true;
  gTurn = nullptr;
  gTurnCv.notify_all();
}

/// Gives `b` the turn until it releases a flag or finishes; then restores
/// the grid of the eager block that asked (the kernels' grid is a global of
/// their module).
void resume(DeferredBlock *b) {
  if (!b->started) {
    b->started = true;
    b->thread = std::thread(blockMain, b);
  }
  {
    std::unique_lock<std::mutex> lock(gTurnMutex);
    gTurn = b;
    gTurnCv.notify_all();
    gTurnCv.wait(lock, [] { return gTurn == nullptr; });
  }
  if (gRunning)
    gRunning->setGrid(gRunningBlock[0], gRunningBlock[1], gRunningBlock[2]);
}

/// Runs the blocks of `only` (or of every deferred launch) to their end.
void drain(Deferred *only = nullptr) {
  for (auto &d : gDeferred)
    if (!only || d.get() == only)
      for (auto &b : d->blocks) {
        while (!b->finished)
          resume(b.get());
        if (b->thread.joinable())
          b->thread.join();
      }
  if (only) {
    for (size_t i = 0; i < gDeferred.size(); ++i)
      if (gDeferred[i].get() == only) {
        gDeferred.erase(gDeferred.begin() + i);
        break;
      }
  } else {
    gDeferred.clear();
  }
  gNextBlock = 0;
  if (!only || gLastLaunch == only)
    gLastLaunch = nullptr;
}

/// A flag release: a deferred block gives the turn back here and goes on
/// when it gets it again (a block run eagerly goes straight on).
void flagReleased() {
  DeferredBlock *b = tBlock;
  if (!b)
    return;
  {
    std::unique_lock<std::mutex> lock(gTurnMutex);
    gTurn = nullptr;
    gTurnCv.notify_all();
    gTurnCv.wait(lock, [&] { return gTurn == b; });
  }
  b->launch->setGrid(b->x, b->y, b->z);
}

/// A flag wait that found its flag unreleased: runs the next unfinished
/// deferred block (round-robin) up to its next release; false when none is
/// left (or when a deferred block waits: those run only eagerly).
bool flagStalled() {
  if (tBlock)
    return false;
  size_t total = 0;
  for (auto &d : gDeferred)
    total += d->blocks.size();
  for (size_t k = 0; k < total; ++k) {
    size_t i = (gNextBlock + k) % total;
    DeferredBlock *b = nullptr;
    for (auto &d : gDeferred) {
      if (i < d->blocks.size()) {
        b = d->blocks[i].get();
        break;
      }
      i -= d->blocks.size();
    }
    if (b->finished)
      continue;
    gNextBlock = (gNextBlock + k + 1) % total;
    resume(b);
    return true;
  }
  return false;
}

CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                void **params, bool pdl) {
  auto *fn = reinterpret_cast<EmuFunction *>(f);
  if (!fn || !fn->entry)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!params && !fn->params->empty())
    return CUDA_ERROR_INVALID_VALUE;
  // Stream order: without PDL every earlier launch has finished; with it,
  // griddepcontrol.wait waits for the predecessor grid only.
  if (!pdl)
    drain();
  else if (fn->gridWait && gLastLaunch)
    drain(gLastLaunch);
  auto l = std::make_unique<Launch>(fn, gx, gy, gz, params);
  if (fn->releasesFlags && !fn->waitsForFlags) {
    auto d = std::make_unique<Deferred>();
    for (unsigned z = 0; z < gz; ++z)
      for (unsigned y = 0; y < gy; ++y)
        for (unsigned x = 0; x < gx; ++x) {
          auto b = std::make_unique<DeferredBlock>();
          b->launch = l.get();
          b->x = x, b->y = y, b->z = z;
          d->blocks.push_back(std::move(b));
        }
    d->launch = std::move(l);
    gLastLaunch = d.get();
    gDeferred.push_back(std::move(d));
    return CUDA_SUCCESS;
  }
  gLastLaunch = nullptr;
  gRunning = l.get();
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x) {
        gRunningBlock[0] = x, gRunningBlock[1] = y, gRunningBlock[2] = z;
        l->run(x, y, z);
      }
  gRunning = nullptr;
  return CUDA_SUCCESS;
}

struct EmuEvent {
  std::chrono::steady_clock::time_point t;
  bool recorded = false;
};

int dummyContext, dummyStream;

} // namespace

//===----------------------------------------------------------------------===//
// The driver API (the versioned names come from cuda.h's macros)
//===----------------------------------------------------------------------===//

extern "C" {

CUresult cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case CUDA_SUCCESS:
    *str = "CUDA_SUCCESS";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "CUDA_ERROR_INVALID_VALUE";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *str = "CUDA_ERROR_NOT_FOUND";
    break;
  case CUDA_ERROR_NOT_SUPPORTED:
    *str = "CUDA_ERROR_NOT_SUPPORTED";
    break;
  case CUDA_ERROR_INVALID_HANDLE:
    *str = "CUDA_ERROR_INVALID_HANDLE";
    break;
  case CUDA_ERROR_INVALID_DEVICE:
    *str = "CUDA_ERROR_INVALID_DEVICE";
    break;
  case CUDA_ERROR_INVALID_IMAGE:
    *str = "CUDA_ERROR_INVALID_IMAGE";
    break;
  default:
    *str = "CUDA_ERROR_UNKNOWN";
  }
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **str) {
  if (error == CUDA_ERROR_NOT_FOUND && !gLastError.empty()) {
    *str = gLastError.c_str();
    return CUDA_SUCCESS;
  }
  *str = error == CUDA_ERROR_NOT_SUPPORTED
             ? "not supported by the CPU emulator (gdn-cuemu)"
             : "gdn-cuemu error";
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, static_cast<size_t>(len),
                "gdn CPU emulator (convert-tile-to-loops)");
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  // An H200's numbers, so that the planner makes the same choices.
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *v = 60 << 20;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = 232448;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *v = 233472;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: // kHz: 4.92 TB/s peak
    *v = 3201000;
    break;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    *v = 6144;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  *bytes = static_cast<size_t>(pages) * static_cast<size_t>(page);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&dummyContext);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() {
  drain();
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *c) {
  *c = reinterpret_cast<CUcontext>(&dummyContext);
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent(CUcontext *c) {
  if (c)
    *c = reinterpret_cast<CUcontext>(&dummyContext);
  return CUDA_SUCCESS;
}
CUresult cuPointerGetAttributes(unsigned n, CUpointer_attribute *attrs,
                                void **data, CUdeviceptr p) {
  // Device memory is what cuMemAlloc handed out; anything else is the
  // caller's host memory.
  bool device = bytesLeft(static_cast<uintptr_t>(p)) > 0;
  for (unsigned i = 0; i < n; ++i) {
    switch (attrs[i]) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(data[i]) =
          device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int *>(data[i]) = device ? 0 : -1;
      break;
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  }
  return CUDA_SUCCESS;
}
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream) {
  return allocate(p, bytes);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  drain();
  return release(p);
}
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned,
                            CUjit_option *, void **) {
  if (!m || !image)
    return CUDA_ERROR_INVALID_VALUE;
  // A cubin (ELF) is machine code for a GPU: refused, so that a loader
  // with a PTX fallback (libgdn_runtime's embedded images) takes the PTX,
  // whose entries the parameter check below reads.
  if (std::memcmp(image, "\x7f" "ELF", 4) == 0)
    return CUDA_ERROR_INVALID_IMAGE;
  auto *mod = new EmuModule();
  mod->ptx = static_cast<const char *>(image);
  *m = reinterpret_cast<CUmodule>(mod);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
  delete reinterpret_cast<EmuModule *>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  // The GPU kernel of this name: its parameters (a CPU kernel found under
  // the same name in another build must take the same ones, else its
  // arguments would be misread).
  std::vector<size_t> gpuParams;
  auto *mod = reinterpret_cast<EmuModule *>(m);
  if (!mod || !ptxParams(mod->ptx, name, gpuParams)) {
    fail(std::string("the module has no kernel ") + name);
    return CUDA_ERROR_NOT_FOUND;
  }
  std::string kernel = name;
  if (kernel.size() > 4 && kernel.substr(kernel.size() - 4) == "_i64")
    kernel.resize(kernel.size() - 4); // the 64-bit-index build, same source
  std::string file = findKernelFile(kernel);
  if (file.empty())
    return CUDA_ERROR_NOT_FOUND;
  JitModule *jm = loadModule(file);
  if (!jm)
    return CUDA_ERROR_NOT_FOUND;
  auto params = jm->kernels.find(kernel);
  if (params == jm->kernels.end()) {
    fail("@" + kernel + " in " + file + " is not a kernel");
    return CUDA_ERROR_NOT_FOUND;
  }
  bool same = gpuParams.size() == params->second.size();
  for (size_t i = 0; same && i < gpuParams.size(); ++i) {
    const ParamKind &k = params->second[i];
    same = gpuParams[i] == (k.memref ? 8 : k.bytes);
  }
  if (!same) {
    auto list = [](const std::vector<size_t> &w) {
      std::string t;
      for (size_t x : w)
        t += (t.empty() ? "" : ",") + std::to_string(x);
      return t;
    };
    std::vector<size_t> cpu;
    for (const ParamKind &k : params->second)
      cpu.push_back(k.memref ? 8 : k.bytes);
    fail("@" + kernel + " in " + file + " takes other parameters than the " +
         "GPU kernel " + name + " (bytes " + list(cpu) + " vs " +
         list(gpuParams) + "): GDN_EMU_KERNELS holds another build of it");
    return CUDA_ERROR_NOT_FOUND;
  }
  auto entry = jm->engine->lookupPacked(kernel);
  if (!entry) {
    fail("cannot find the JIT-compiled @" + kernel + ": " +
         llvm::toString(entry.takeError()));
    return CUDA_ERROR_NOT_FOUND;
  }
  auto fn = std::make_unique<EmuFunction>();
  fn->name = kernel;
  fn->module = jm;
  fn->entry = *entry;
  fn->params = &params->second;
  fn->releasesFlags = jm->releasesFlags.count(kernel) != 0;
  fn->waitsForFlags = jm->waitsForFlags.count(kernel) != 0;
  fn->gridWait = ptxGridWait(mod->ptx, name);
  *f = reinterpret_cast<CUfunction>(fn.get());
  gFunctions.push_back(std::move(fn));
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction) {
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = 1024;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *v = 64;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) { return allocate(p, bytes); }
CUresult cuMemFree(CUdeviceptr p) {
  drain();
  return release(p);
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  drain();
  if (bytesLeft(dst) < bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  drain();
  if (bytesLeft(src) < bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) {
  drain();
  if (bytesLeft(dst) < n)
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void *>(dst), v, n);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream) {
  return cuMemsetD8(dst, v, n);
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned, unsigned, unsigned, unsigned, CUstream,
                        void **params, void **) {
  return launch(f, gx, gy, gz, params, /*pdl=*/false);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **params, void **) {
  bool pdl = false;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id ==
            CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
        config->attrs[i].value.programmaticStreamSerializationAllowed)
      pdl = true;
  return launch(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                params, pdl);
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType,
                                cuuint32_t, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *,
                                const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion,
                                CUtensorMapFloatOOBfill) {
  std::memset(map, 0, sizeof(*map)); // the CPU kernels take no tensor maps
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *s, unsigned) {
  *s = reinterpret_cast<CUstream>(&dummyStream);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream) {
  drain();
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned) {
  drain();
  return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *s) {
  *s = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuStreamEndCapture(CUstream, CUgraph *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph,
                                     unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuGraphDestroy(CUgraph) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuEventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(new EmuEvent());
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<EmuEvent *>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream) {
  drain();
  auto *ev = reinterpret_cast<EmuEvent *>(e);
  ev->t = std::chrono::steady_clock::now();
  ev->recorded = true;
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  auto *ea = reinterpret_cast<EmuEvent *>(a);
  auto *eb = reinterpret_cast<EmuEvent *>(b);
  if (!ea || !eb || !ea->recorded || !eb->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  auto d = eb->t - ea->t;
  *ms = std::chrono::duration<float, std::milli>(d).count();
  return CUDA_SUCCESS;
}

} // extern "C"
