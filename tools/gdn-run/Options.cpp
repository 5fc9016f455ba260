//===- Options.cpp - gdn-run command line ---------------------------------===//
//
// Options take their value as the next argument or after '=' (`--m 512`,
// `--m=512`); `--` ends the options; everything else is a manifest path.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "Manifest.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gdn::run {

const char *checkModeName(CheckMode mode) {
  switch (mode) {
  case CheckMode::Full:
    return "full";
  case CheckMode::Sample:
    return "sample";
  case CheckMode::None:
    return "none";
  }
  return "?";
}

int64_t RunOptions::dim(const std::string &name, int64_t fallback) const {
  auto it = dims.find(name);
  return it == dims.end() ? fallback : it->second;
}

namespace {

/// Problem-size options: `--<name> N` sets dims[name].
const char *const kDimOptions[] = {"m", "n", "k", "B", "T", "H", "HV"};

Status usageError(const std::string &problem) {
  return Status::badInput(problem + " (see gdn-run --help)");
}

Status parseIntOption(const std::string &option, const std::string &text,
                      int64_t minValue, int64_t maxValue, int64_t &out) {
  int64_t v;
  if (!parseInt64(text, v))
    return usageError(option + ": expected an integer, got '" + text + "'");
  if (v < minValue || v > maxValue)
    return usageError(option + " " + text + " is out of range [" +
                      std::to_string(minValue) + ", " +
                      std::to_string(maxValue) + "]");
  out = v;
  return Status::success();
}

/// A finite number > 0 (or >= 0 when `allowZero`).
Status parseNumberOption(const std::string &option, const std::string &value,
                         bool allowZero, double &out) {
  const char *begin = value.c_str();
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) ||
      v < 0 || (!allowZero && v == 0))
    return usageError(option + ": expected a " +
                      (allowZero ? "non-negative" : "positive") +
                      " number, got '" + value + "'");
  out = v;
  return Status::success();
}

/// "0,410,841": comma-separated integers.
Status parseIntList(const std::string &option, const std::string &value,
                    std::vector<int64_t> &out) {
  std::vector<int64_t> list;
  size_t start = 0;
  while (true) {
    size_t comma = value.find(',', start);
    std::string item = trim(value.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    int64_t v;
    if (!parseInt64(item, v))
      return usageError(option + ": expected comma-separated integers, got '" +
                        item + "' in '" + value + "'");
    list.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  out = std::move(list);
  return Status::success();
}

} // namespace

const std::vector<std::string> &gemmOnlyOptions() {
  static const std::vector<std::string> names = {"--m", "--n", "--k"};
  return names;
}

const std::vector<std::string> &gdnOnlyOptions() {
  static const std::vector<std::string> names = {
      "--B",          "--T",           "--H",         "--HV",
      "--dtype",      "--family",      "--scale",     "--h0",
      "--cu-seqlens", "--determinism", "--load",      "--save",
      "--layout",     "--cp",          "--cp-chunks", "--block-v",
      "--fused",      "--cp-theta",    "--qk-l2norm", "--gate-in-kernel",
      "--beta-sigmoid", "--neg-eigval", "--state-v-first",
      "--overlap-stages", "--max-carveout"};
  return names;
}

Status parseCommandLine(const std::vector<std::string> &args,
                        RunOptions &out) {
  RunOptions o;
  bool optionsEnded = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (optionsEnded || arg.empty() || arg[0] != '-' || arg == "-") {
      o.manifests.push_back(arg);
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    std::string name = arg, inlineValue;
    bool hasInline = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
      hasInline = true;
    }
    auto flag = [&](bool &target) -> Status {
      if (hasInline)
        return usageError(name + " takes no value");
      target = true;
      return Status::success();
    };
    std::string value;
    auto takeValue = [&]() -> Status {
      if (hasInline) {
        value = inlineValue;
        return Status::success();
      }
      if (i + 1 >= args.size())
        return usageError(name + " needs a value");
      value = args[++i];
      return Status::success();
    };

    o.given.insert(name);
    // Options without a value.
    const std::pair<const char *, bool *> flags[] = {
        {"-h", &o.help},           {"--help", &o.help},
        {"--probe", &o.probe},     {"-v", &o.verbose},
        {"--verbose", &o.verbose}, {"--h0", &o.h0},
        {"--qk-l2norm", &o.qkL2Norm},
        {"--gate-in-kernel", &o.gateInKernel},
        {"--beta-sigmoid", &o.betaSigmoid},
        {"--neg-eigval", &o.negEigval},
        {"--state-v-first", &o.stateVFirst},
        {"--overlap-stages", &o.overlapStages},
        {"--max-carveout", &o.maxCarveout}};
    bool *target = nullptr;
    for (const auto &[spelling, field] : flags)
      if (name == spelling)
        target = field;
    if (target) {
      GDN_RUN_TRY(flag(*target));
      continue;
    }
    bool isDim = false;
    for (const char *d : kDimOptions) {
      if (name == std::string("--") + d) {
        GDN_RUN_TRY(takeValue());
        int64_t v;
        GDN_RUN_TRY(parseIntOption(name, value, INT64_MIN, INT64_MAX, v));
        o.dims[d] = v;
        isDim = true;
      }
    }
    if (isDim)
      continue;
    if (name == "--seed") {
      GDN_RUN_TRY(takeValue());
      int64_t v;
      GDN_RUN_TRY(parseIntOption(name, value, 0, INT64_MAX, v));
      o.seed = static_cast<uint64_t>(v);
    } else if (name == "--check") {
      GDN_RUN_TRY(takeValue());
      if (value == "full")
        o.check = CheckMode::Full;
      else if (value == "sample")
        o.check = CheckMode::Sample;
      else if (value == "none")
        o.check = CheckMode::None;
      else
        return usageError("--check: expected full, sample or none, got '" +
                          value + "'");
    } else if (name == "--rtol") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(parseNumberOption(name, value, /*allowZero=*/true, o.rtol));
      o.rtolSet = true;
    } else if (name == "--scale") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(parseNumberOption(name, value, /*allowZero=*/false, o.scale));
    } else if (name == "--op" || name == "--family" || name == "--load" ||
               name == "--save") {
      GDN_RUN_TRY(takeValue());
      if (value.empty())
        return usageError(name + " needs a non-empty value");
      (name == "--op"       ? o.op
       : name == "--family" ? o.family
       : name == "--load"   ? o.loadDir
                            : o.saveDir) = value;
    } else if (name == "--dtype") {
      GDN_RUN_TRY(takeValue());
      if (value != "f16" && value != "bf16")
        return usageError("--dtype: expected f16 or bf16, got '" + value +
                          "'");
      o.dtype = value;
    } else if (name == "--layout") {
      GDN_RUN_TRY(takeValue());
      if (value != "bthd" && value != "bhtd")
        return usageError("--layout: expected bthd or bhtd, got '" + value +
                          "'");
      o.layout = value;
    } else if (name == "--cp") {
      GDN_RUN_TRY(takeValue());
      if (value != "on" && value != "off" && value != "auto")
        return usageError("--cp: expected on, off or auto, got '" + value +
                          "'");
      o.cp = value;
    } else if (name == "--fused") {
      GDN_RUN_TRY(takeValue());
      if (value != "on" && value != "off" && value != "auto")
        return usageError("--fused: expected on, off or auto, got '" +
                          value + "'");
      o.fused = value;
    } else if (name == "--cp-theta") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(
          parseNumberOption(name, value, /*allowZero=*/true, o.cpTheta));
      if (o.cpTheta > 80)
        return usageError("--cp-theta: at most 80 (e^-80 is already far "
                          "below f32 resolution), got '" + value + "'");
    } else if (name == "--cp-chunks") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(parseIntOption(name, value, 1, INT32_MAX, o.cpChunks));
    } else if (name == "--block-v") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(parseIntOption(name, value, 1, INT32_MAX, o.blockV));
    } else if (name == "--cu-seqlens") {
      GDN_RUN_TRY(takeValue());
      GDN_RUN_TRY(parseIntList(name, value, o.cuSeqlens));
    } else if (name == "--determinism") {
      GDN_RUN_TRY(takeValue());
      int64_t v;
      GDN_RUN_TRY(parseIntOption(name, value, 0, 1000000, v));
      o.determinism = static_cast<int>(v);
    } else if (name == "--warmup" || name == "--iters" || name == "--device") {
      GDN_RUN_TRY(takeValue());
      int64_t v;
      GDN_RUN_TRY(parseIntOption(name, value, 0, 1000000, v));
      (name == "--warmup" ? o.warmup
                          : name == "--iters" ? o.iters : o.device) =
          static_cast<int>(v);
    } else {
      return usageError("unknown option '" + name + "'");
    }
  }
  out = std::move(o);
  return Status::success();
}

std::string usageText() {
  return R"(usage: gdn-run [options] MANIFEST...
       gdn-run --op gdn_prefill [options] MANIFEST...
       gdn-run --probe [--device N]

Loads the kernels that the manifests describe (from PTX or cubin, through
the CUDA driver API), runs them on inputs from a seeded generator, checks the
results against a CPU reference and times them. The operator driver is
chosen by the manifests' `meta.op`:
  gemm         one check per manifest
  tril_inverse one check per manifest: --m n x n f32 matrices (default
               1024), T = (I + strict_lower(L))^-1 against fp64 (default
               --rtol 1e-5), zeros above the diagonal
  gdn_prefill  all manifests together form ONE Gated DeltaNet prefill: the
               kernels run in meta.order, and the sequence's o and final
               state are checked against the fp64 token recurrence. Chosen
               by --op gdn_prefill, or when every manifest has meta.op =
               gdn_prefill.

common options:
  --op NAME            the operator of all manifests (gemm, tril_inverse,
                       gdn_prefill)
  --seed N             input generator seed (default 1)
  --check MODE         full (default): compare every output element;
                       sample (gemm only): 4096 random elements;
                       none: only run and time (gdn_prefill: also no
                       determinism runs)
  --rtol X             pass iff all outputs are finite and
                       ||out - ref||_2 / ||ref||_2 <= X (default 1e-3 for
                       gemm; gdn_prefill: 2e-3 for f16, 8e-3 for bf16,
                       applied to both o and the final state)
  --warmup N           untimed launches before timing (default 10)
  --iters N            timed launches, one CUDA event pair each, a 256 MiB
                       L2 flush before each (outside the events); the
                       median and minimum are reported (default 50; 0: no
                       timing)
  --device N           CUDA device ordinal (default 0)
  --probe              print the device's name, SM count, compute
                       capability, memory and peak DRAM bandwidth (which
                       the gdn_prefill cost model reads), then exit
  -v, --verbose        kernel resources, JIT logs and reference timings
  -h, --help           this text

gemm options:
  --m N, --n N, --k N  GEMM shape: C[M,N] = A[M,K] B[K,N] (default 4096 each)

  Kernels with meta.persistent = 1 run on min(tiles, SMs *
  meta.blocks_per_sm) blocks and loop over the tiles themselves (-v prints
  the grid). Tensor maps (param X:tensormap, tensormap.X = ...) are built
  with cuTensorMapEncodeTiled from the bound pointers and M, N, K; see
  docs/gdn-run.md.

gdn_prefill options (DK = DV = 128 only; the kernel ABI - parameters bound
by name, meta.stage/order/grid/ws_X - is described in GdnSequence.h):
  --B N, --T N         batch and tokens per batch row (default 1, 4096; with
                       --cu-seqlens, T defaults to its last entry)
  --H N, --HV N        q/k heads and value heads (default 16 and H)
  --dtype f16|bf16     must match the kernels' q/k/v/o dtype (default: the
                       manifests'); picks the manifests of that dtype when
                       both builds are given; needed to read bf16 .npy files
  --family NAME        generated inputs (default weak). All: q, k ~ N(0,1)
                       L2-normalized per token and head, v ~ N(0,1), beta =
                       sigmoid(N(0,1)), g ~ U(-0.02,0), rounded to the kernel
                       formats before the oracle sees them, except:
                         weak      (as above)
                         nodecay   g = 0
                         strong    g ~ U(-1,0)
                         fqstrong  g = -16 softplus(0.5 z + 1), z ~ N(0,1)
                         mixed     g = -(A_h/16) softplus(z), A_h ~ U(0,16)
                                   per value head, A_0 = 0, A_HV-1 = 16
                         beta0     beta = 0 (o = 0 unless --h0)
                         beta1     beta = 1
                         unnorm    k = 0.1 N(0,1), not normalized
                         bigkey    k normalized to ||k||^2 = 2.2 (no
                                   contraction where beta > 0.91)
                         collinear k = u_h + 0.05 N(0,1) normalized, one
                                   direction u_h per key head; beta = 1,
                                   g = 0
                         zerokey   the keys of every 16th token zero,
                                   v = 100 N(0,1) (with --qk-l2norm a
                                   zero row's factor is 1000)
  --scale X            output scale (default DK^-1/2), passed as f32
  --h0                 random N(0,1) fp32 initial state
  --qk-l2norm          q and k are L2-normalized over the head dim by the
                       kernels (FLA's use_qk_l2norm_in_kernel:
                       x / sqrt(sum x^2 + 1e-6)); generated q and k are then
                       N(0,1), not normalized, and the fp64 reference
                       normalizes them the same way
  --gate-in-kernel     g = -exp(a_log[hv]) softplus(g + dt_bias[hv]) by the
                       kernels (FLA's use_gate_in_kernel);
                       generated: raw g ~ N(0,1), a_log = log U(1,16),
                       dt_bias ~ U(-2,1) per value head
  --beta-sigmoid       beta = sigmoid(beta) by the kernels; generated
                       beta is then the raw N(0,1) logit
  --neg-eigval         beta = 2 beta by the kernels (FLA's
                       allow_neg_eigval); beta is rounded to its type once
  --state-v-first      the kernels read h0 and write ht as [N, HV, V, K]
                       (FLA's state_v_first); gdn-run transposes at the
                       device boundary, so the check and the .npy files
                       keep [N, HV, K, V]
  --cu-seqlens LIST    packed varlen boundaries, e.g. 0,410,841,4096:
                       requires B = 1, starts at 0, ends at T
  --overlap-stages     timing experiment (needs --check none and no
                       --save): each kernel of the sequence on its own
                       stream, all launched at once, the last first, so
                       that they share the SMs (a later kernel then reads
                       what an earlier one wrote in the previous run, or
                       nothing: wrong results; measures what overlapping
                       the stages could give, docs/perf-notes.md v41;
                       reports when each kernel ended in the last timed
                       run); implies --max-carveout
  --max-carveout       every kernel asks for the largest shared-memory
                       carveout (the driver otherwise picks each kernel's
                       smallest; blocks of kernels with different carveouts
                       do not share an SM): the control for
                       --overlap-stages; always so when a kernel waits for
                       an earlier one through ready flags (manifest
                       grid_dependency 2 or 3), whose stages share the SMs
  --determinism N      rerun the sequence N more times on re-poisoned
                       outputs and workspaces; o and the final state must be
                       bit-identical (default 2)
  --load DIR           read q, k, v, g, beta (and h0, cu_seqlens when
                       present) from DIR/q.npy ... instead of generating;
                       shapes come from the files. Accepted dtypes: <f2,
                       <f4, <f8 (converted to the kernel formats with round
                       to nearest even; a warning says which files were
                       rounded), <u2/<i2 holding bfloat16 bits (only with
                       --dtype bf16), <i4/<i8 for cu_seqlens. C order only.
  --save DIR           write the inputs, the GPU outputs o.npy, ht.npy and,
                       when checking, the fp64 reference ref_o.npy,
                       ref_ht.npy (<f8) to DIR (created if missing). bf16
                       tensors are written as <u2 bit patterns (view them
                       with ml_dtypes or torch: NumPy has no bfloat16).
                       Non-finite inputs (NaN, Inf) are passed to the
                       kernels unchanged; the kernels must run to the end
                       (a fault is exit 3), then the check fails (exit 1)
                       with "the inputs hold N non-finite values" and the
                       first one (e.g. q[0,7,0,104] = nan); with --check
                       none the run succeeds. Only regular files are read
                       (a FIFO is refused); a present but broken h0.npy or
                       cu_seqlens.npy (dangling symlink) is an error, not
                       an absent input.
  --layout bthd|bhtd   layout of the .npy files: bthd (default) [B,T,H,D] and
                       [B,T,HV]; bhtd [B,H,T,D] and [B,HV,T] (transposed to
                       BTHD on load, back on save). h0/ht: [N,HV,DK,DV].
  --cp on|off|auto     the path: off runs the manifests with meta.path =
                       direct or none, on those with meta.path = cp or none
                       (intra-card context parallelism: each sequence cut
                       into segments that are summarized, scanned and
                       replayed); auto (default) asks a cost model (GdnCp.h)
                       when both paths are given, else takes the one given.
                       Manifests without any meta.path form the direct path.
                       The choice is printed as "path: ...".
  --cp-theta X         CP summaries: the guarded warm-up threshold (default
                       14). A segment's summary runs only over the shortest
                       suffix of its chunks whose summed log-decay is <= -X,
                       and drops the segment's transition M, when the
                       kernel verifies 0 <= beta ||k||^2 <= 2 for every
                       token of that window (then the dropped part is at
                       most e^-X times the state); otherwise, and with
                       X = 0, the exact summary over the whole segment.
                       The report line "cp summaries:" counts both.
  --cp-chunks M        chunks of 64 tokens per CP segment (M >= 1; default
                       the power of two that the cost model finds fastest);
                       an error with --cp off; with auto the M the cost
                       model assumes for the cp path (ignored when the
                       model then picks the direct path, which the "path:"
                       line shows)
  --block-v N          the variant of the forward kernels: those with
                       meta.block_v = N (value columns per block). A path
                       whose manifests have several meta.block_v runs one
                       of them, by default the one the cost model (GdnCp.h)
                       finds fastest, also under --cp on|off; the chosen
                       path must offer N (with auto, a path that does not is
                       not considered). Printed in "path: ..." as block_v N.
  --fused on|off|auto  the direct path's form where its variant offers two
                       (meta.form = fused): on runs the fused prep + forward
                       kernel (and its prep and refined kernel for flagged
                       sequences) instead of the prep and the forward,
                       also choosing the direct path under
                       --cp auto (an error with --cp on); off the pair; auto
                       (default) the fused kernel when the cost model
                       (GdnCp.h) finds it faster and the problem asks for
                       no q/k L2 norm or gate/beta transform (which the prep
                       does itself). Printed in "path: ..." as fused (...)
                       or pair (...).

output: a table with one row per check and a last line "N passed, M failed".
  gemm: kernel, shape, check, rel_l2, max_abs, median_ms, min_ms, TFLOP/s.
  gdn_prefill: per-output lines (rel_l2, max_abs, non-finite count),
  determinism and timing lines (the sequence's median, each kernel alone,
  and the host microseconds per call the driver takes to launch the
  sequence), then one row: op, shape (BxTxH/HV), dtype,
  family, check, o_rel, ht_rel, median_ms, TFLOP/s (B*T*HV*180224 FLOP),
  GB/s and xfloor = median / floor, floor = max(bytes / 4.213 TB/s,
  FLOP / 747 TFLOP/s) with the bytes of docs/gdn-math.md §5.2 (q, k at H heads,
  v, o at HV heads, g, beta, fp32 final and initial states).

exit status:
  0   every check passed (or --probe found a device)
  1   a check failed: an output mismatched the reference, was not finite,
      or (gdn_prefill) differed between repeated runs or came from
      non-finite inputs
  2   bad usage or bad input: unreadable or malformed manifest, PTX or .npy
      file, unknown meta.op, parameters that do not fit the operator, a
      shape the kernel cannot handle or that needs more host memory than
      the machine has, a --dtype that does not match the kernels, a PTX
      without the manifest's .entry or .target, a tensor map whose dims or
      strides are invalid for the shape; nothing is run. Also a manifest
      target the device cannot run (sm_90a on a non-9.0 device).
  3   a CUDA driver call failed (the message names the CUresult)
  77  no CUDA driver (libcuda.so.1 cannot be loaded) or no CUDA device:
      "gdn-run: no CUDA device: <reason>" (lets CI skip GPU tests); only
      after every input was validated
  With several manifests the status is 2 if any check had bad input, else 3
  if any had a CUDA error, else 1 if any failed, else 0.
)";
}

} // namespace gdn::run
