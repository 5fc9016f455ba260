#!/usr/bin/env bash
#===- bench-gemm.sh - our GEMM kernels next to cuBLAS (torch.matmul) ------===#
#
# usage: bench-gemm.sh [--gdn-run PATH] KERNEL_DIR [SHAPE...]
#
# For every *.manifest in KERNEL_DIR whose meta.op is gemm and every SHAPE
# (N for N x N x N, or MxNxK; default 4096 8192), runs
#
#   gdn-run --check sample --warmup 10 --iters 30 --m M --n N --k K MANIFEST
#
# (4096 sampled entries of C against the fp64 reference, then the median of
# 30 launches, each timed with a CUDA event pair after a 256 MiB L2 flush),
# and times torch.matmul on the same shape, dtype (the manifest's A/B type,
# f16 or bf16) and operand layouts (meta.transpose_a/b) with random N(0,1)
# data the same way: CUDA events around each launch, a 256 MiB buffer
# zeroed before each (outside the events), 10 warm-up launches, median of
# 30. cuBLAS is timed twice where the torch build can: with the output in
# the input dtype (what torch.matmul does) and with an f32 output
# (torch.mm(a, b, out_dtype=torch.float32), torch >= 2.8), which is what our
# kernels write; a column shows "-" where that call does not exist.
#
# Prints one row per kernel and shape: kernel, shape, dtype, check (PASS /
# FAIL / ERROR from gdn-run), gdn TFLOP/s, cuBLAS TFLOP/s (dtype out), its
# ratio gdn/cuBLAS, cuBLAS TFLOP/s (f32 out) and that ratio. TFLOP/s =
# 2*M*N*K / median.
#
# Needs bash, python3 with torch (CUDA) and gdn-run (from --gdn-run, else
# $GDN_RUN, else PATH); no LLVM. Exit status: 0 when every run passed, 77
# when gdn-run finds no GPU, 2 on bad usage, else 1.
#===----------------------------------------------------------------------===#
set -u

usage() {
  echo "usage: $0 [--gdn-run PATH] KERNEL_DIR [SHAPE...]  (SHAPE: N or MxNxK)" >&2
  exit 2
}

gdn_run=${GDN_RUN:-gdn-run}
if [[ ${1:-} == --gdn-run ]]; then
  [[ $# -ge 2 ]] || usage
  gdn_run=$2
  shift 2
fi
[[ $# -ge 1 ]] || usage
[[ $1 == -h || $1 == --help ]] && usage
kernel_dir=$1
shift
shape_args=("$@")
[[ ${#shape_args[@]} -gt 0 ]] || shape_args=(4096 8192)

if [[ ! -d $kernel_dir ]]; then
  echo "bench-gemm.sh: $kernel_dir: not a directory" >&2
  exit 2
fi
if ! command -v "$gdn_run" >/dev/null 2>&1; then
  echo "bench-gemm.sh: gdn-run not found ('$gdn_run'; use --gdn-run PATH or" \
       "set GDN_RUN)" >&2
  exit 2
fi
if ! python3 -c 'import torch' >/dev/null 2>&1; then
  echo "bench-gemm.sh: python3 cannot import torch" >&2
  exit 2
fi

# "M N K" from "N" or "MxNxK".
shapes=()
for s in "${shape_args[@]}"; do
  if [[ $s =~ ^[0-9]+$ ]]; then
    shapes+=("$s $s $s")
  elif [[ $s =~ ^([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
    shapes+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}")
  else
    echo "bench-gemm.sh: bad shape '$s' (expected N or MxNxK)" >&2
    exit 2
  fi
done

# The value of `key = value` in manifest $1 (comments and blanks around
# tokens ignored, as gdn-run's parser does); empty when absent.
manifest_value() {
  local line key value
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%%#*}
    [[ $line == *=* ]] || continue
    key=${line%%=*}
    value=${line#*=}
    key=${key//[[:space:]]/}
    value=${value//[[:space:]]/}
    if [[ $key == "$2" ]]; then
      echo "$value"
      return
    fi
  done <"$1"
}

# The dtype of parameter A ("param = A:ptr<bf16>" -> bf16).
manifest_dtype() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%%#*}
    line=${line//[[:space:]]/}
    if [[ $line =~ ^param=A:ptr\<(f16|bf16)\>$ ]]; then
      echo "${BASH_REMATCH[1]}"
      return
    fi
  done <"$1"
}

manifests=()
for m in "$kernel_dir"/*.manifest; do
  [[ -f $m && $(manifest_value "$m" meta.op) == gemm ]] && manifests+=("$m")
done
if [[ ${#manifests[@]} -eq 0 ]]; then
  echo "bench-gemm.sh: no *.manifest with meta.op = gemm in $kernel_dir" >&2
  exit 2
fi

# cuBLAS through torch, once per distinct (M, N, K, dtype, ta, tb): one
# python process prints "M N K dtype ta tb tflops_dtype_out tflops_f32_out".
torch_jobs=()
for m in "${manifests[@]}"; do
  dtype=$(manifest_dtype "$m")
  ta=$(manifest_value "$m" meta.transpose_a)
  tb=$(manifest_value "$m" meta.transpose_b)
  for shape in "${shapes[@]}"; do
    torch_jobs+=("$shape ${dtype:-f16} ${ta:-0} ${tb:-0}")
  done
done
torch_out=$(printf '%s\n' "${torch_jobs[@]}" | sort -u | python3 -c '
import sys
import torch

WARMUP, ITERS = 10, 30
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(ITERS):
        flush.zero_()  # evict the operands from L2, outside the events
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    n = len(times)
    return times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])

torch.manual_seed(0)
for line in sys.stdin:
    fields = line.split()
    if not fields:
        continue
    m, n, k = map(int, fields[:3])
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[fields[3]]
    ta, tb = fields[4] == "1", fields[5] == "1"
    # Same layouts as the kernel: A [M,K] (or [K,M] transposed), B [K,N]
    # (or [N,K] transposed), random N(0,1) values.
    a = torch.randn(k, m, device="cuda", dtype=dtype).t() if ta else \
        torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(n, k, device="cuda", dtype=dtype).t() if tb else \
        torch.randn(k, n, device="cuda", dtype=dtype)
    flop = 2.0 * m * n * k
    native = flop / (median_ms(lambda: torch.matmul(a, b)) * 1e-3) / 1e12
    try:
        torch.mm(a, b, out_dtype=torch.float32)
        f32 = "%.1f" % (flop / (median_ms(
            lambda: torch.mm(a, b, out_dtype=torch.float32)) * 1e-3) / 1e12)
    except (TypeError, RuntimeError):
        f32 = "-"
    print(" ".join(fields[:6]), "%.1f" % native, f32, flush=True)
')
if [[ $? -ne 0 ]]; then
  echo "bench-gemm.sh: timing torch.matmul failed" >&2
  exit 1
fi

# a / b with two decimals ("-" when either is not a number).
ratio() {
  local num='^[0-9]+(\.[0-9]+)?$'
  if [[ ! $1 =~ $num || ! $2 =~ $num ]]; then
    echo "-"
    return
  fi
  python3 -c "b = float('$2'); print('%.2f' % (float('$1') / b) if b > 0 else '-')"
}

echo "gdn-run: $gdn_run"
echo "torch: $(python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())')"
echo
fmt='%-36s %-16s %-5s %-6s %9s %12s %7s %12s %7s\n'
table=$(printf "$fmt" kernel shape dtype check gdn_TF/s cuBLAS_TF/s ratio \
  cuBLAS32_TF/s ratio32)
status=0
for m in "${manifests[@]}"; do
  dtype=$(manifest_dtype "$m")
  dtype=${dtype:-f16}
  ta=$(manifest_value "$m" meta.transpose_a)
  tb=$(manifest_value "$m" meta.transpose_b)
  kernel=$(manifest_value "$m" kernel)
  for shape in "${shapes[@]}"; do
    read -r M N K <<<"$shape"
    log=$("$gdn_run" --check sample --warmup 10 --iters 30 --m "$M" --n "$N" \
      --k "$K" "$m" 2>&1)
    rc=$?
    if [[ $rc -eq 77 ]]; then
      echo "$log" >&2
      echo "bench-gemm.sh: no GPU (gdn-run exit 77)" >&2
      exit 77
    fi
    # kernel shape check rel_l2 max_abs median_ms min_ms TFLOP/s result
    gdn=- verdict=ERROR
    while IFS= read -r line; do
      if [[ $line == "$kernel "* ]]; then
        # the last two columns (max_abs may read "3 non-finite")
        read -ra cols <<<"$line"
        gdn=${cols[${#cols[@]} - 2]}
        verdict=${cols[${#cols[@]} - 1]}
      fi
    done <<<"$log"
    if [[ $rc -ne 0 ]]; then
      status=1
      echo "bench-gemm.sh: $kernel ${M}x${N}x${K}: gdn-run exited with $rc:" >&2
      echo "$log" >&2
    fi
    native=- f32=-
    while read -r jm jn jk jd jta jtb jnative jf32; do
      if [[ "$jm $jn $jk $jd $jta $jtb" == "$M $N $K $dtype ${ta:-0} ${tb:-0}" ]]; then
        native=$jnative
        f32=$jf32
      fi
    done <<<"$torch_out"
    table+=$'\n'$(printf "$fmt" "$kernel" "${M}x${N}x${K}" "$dtype" \
      "$verdict" "$gdn" "$native" "$(ratio "$gdn" "$native")" "$f32" \
      "$(ratio "$gdn" "$f32")")
  done
done
echo "$table"
echo
echo "TFLOP/s = 2*M*N*K / median time; each launch timed alone with CUDA"
echo "events after a 256 MiB L2 flush. ratio = gdn / cuBLAS (> 1: we are"
echo "faster); cuBLAS writes the input dtype, cuBLAS32 an f32 C like ours."
exit $status
