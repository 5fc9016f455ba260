#!/usr/bin/env bash
#===- gpu-check.sh - one GPU-machine session step: build, check, compare -===#
#
# usage: tools/gpu-check.sh [--suite] [--peers DIR] [--coldstart]
#                           [--peers-with NAME,NAME,...]
#                           [--peers-acc FAMILY,...]
#                           [--bench LABEL=GDN_RUN:KERNEL_DIR[::OPTS] ...]
#                           [--shapes "B T H;B T H;..."] [--rounds N]
#                           [--ident KERNEL_DIR] [--profile REGEX ...]
#                           [--profile-shape "B T H"]
#                           [--occupancy "REGEX N,N,..."]
#                           [--suite-kernels KERNEL_DIR]
#                           [-- extra gdn-run options for --bench]
#
# Run from the repository root on the GPU machine, with this checkout's
# kernels compiled elsewhere (build/kernels: gdn-opt needs LLVM/MLIR, the
# GPU machine need not have them). Steps, in this order so that nothing
# timed overlaps other GPU work:
#   1. a runner-only build in build-gpu (gdn-run, libgdn_runtime with
#      build/kernels embedded, the test programs; CUDA driver API only);
#   2. --ident KERNEL_DIR: whether build/kernels and KERNEL_DIR give the
#      same output bits (gdn-run --save, then a byte comparison) on six
#      problems that reach every path: direct with h0, CP with strong
#      decay, varlen bf16 GVA with h0 and empty/length-1 sequences, the
#      fused q/k norm and beta sigmoid, block_v 16, odd T CP;
#   3. --profile REGEX: ncu source counters of the kernels matching REGEX
#      (build/kernels, f16, --profile-shape, default "1 32768 16") into
#      profile_N_sass.csv.gz, then tools/ncu-phases.py's table per block;
#   3b. --occupancy "REGEX N,..": the stage times of build/kernels (or of
#      each --bench KERNEL_DIR, when there are --bench options) at
#      --profile-shape with the kernels whose name matches REGEX held to at
#      most N blocks per SM each (their manifests' shared_bytes raised in a
#      copy: floor(233472 / N) - 1088 bytes, never below what the kernel
#      needs; registers may allow fewer), e.g. "prep_k 1,2,6": a block's
#      latency alone (N = 1) against its throughput at full occupancy;
#   4. --peers DIR: the peers' CUDA-graph times on the anchor shapes
#      (DIR/run-peers.sh, the peers kit; gate weak): TileOps, or the
#      peers --peers-with names (TileOps, FlashQLA, FLA; FLA autotunes for
#      ~40 s);
#   4b. --peers-acc FAMILY,... (with --peers): accuracy on gdn-run's input
#      families (weak, nodecay, beta1, collinear) at 8x4096 H16 f16:
#      tools/peers-accuracy.py for TileOps / FlashQLA of --peers-with, and
#      build-gpu/bin/gdn-run --family FAMILY on build/kernels, o's and the
#      final state's relative L2 against fp64, into accuracy.txt;
#   5. --bench: each LABEL=GDN_RUN:KERNEL_DIR times every gdn_prefill f16
#      manifest of KERNEL_DIR with GDN_RUN (`new` = build-gpu/bin/gdn-run;
#      `::OPTS` after the directory: more gdn-run options for this label
#      only, e.g. `ovl=new:DIR::--overlap-stages`),
#      interleaved per shape and repeated --rounds times (default 1):
#      gdn-run's median of 30 (256 MiB L2 flush before each run), its
#      TFLOP/s and multiple of the floor (gdn-run's model: docs/gdn-math.md
#      5.2), each peer's time of step 4 and peer/ours, and the per-stage
#      medians; each row ends with the SM clock nvidia-smi saw during that
#      run (mean/min MHz and how many busy samples had a clock limit
#      active, e.g. the software power cap: a run held below boost clock
#      reads slower);
#   6. --coldstart: tools/bench-coldstart.py (import + first call, host
#      overhead of gdn_run, the Python entry against fp64);
#   7. --suite: the GPU lit suite (GDN_GPU=1: a broken gdn-run fails it),
#      on build/kernels or --suite-kernels KERNEL_DIR (GDN_KERNEL_DIR: e.g.
#      a tools/kernel-variant.sh directory, built for both dtypes with
#      64-bit indices, as the suite runs them all).
# Logs go to $OUT (the device tool's folder) or ./gpu-check-out: the
# tables (bench.txt, profile_N_*) at the top, every other log packed into
# logs.tgz at the end (the device tool returns at most 8 files). lit comes
# from pip, or from .whl/lit-*.whl when pip has no network.
#
# Exit status: 0 when every step ran and passed, 1 otherwise.
#===----------------------------------------------------------------------===#
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-$PWD/gpu-check-out}
suite=0 coldstart=0 peers="" peersacc="" rounds=1 benches=() extra=() ident="" profiles=()
suitekernels=build/kernels suitekernelsset=0
peerlist=TileOps
shapes="1 32768 16;1 65536 16;1 131072 16;1 131072 32;8 4096 16"
occupancy=""
pshape="1 32768 16"
usage() { sed -n '3,13s/^# //p' "$0" >&2; exit 2; }
value() { # OPTION VALUE...: VALUE, or a usage error when it is missing
  if [[ $# -lt 2 || -z $2 ]]; then
    echo "gpu-check.sh: $1 needs a value" >&2
    usage
  fi
}
while [[ $# -gt 0 ]]; do
  case $1 in
  --suite) suite=1 ;;
  --coldstart) coldstart=1 ;;
  --peers) value "$@"; peers=$2; shift ;;
  --peers-with) value "$@"; peerlist=$2; shift ;;
  --peers-acc) value "$@"; peersacc=$2; shift ;;
  --bench) value "$@"; benches+=("$2"); shift ;;
  --shapes) value "$@"; shapes=$2; shift ;;
  --rounds) value "$@"; rounds=$2; shift ;;
  --ident) value "$@"; ident=$2; shift ;;
  --profile) value "$@"; profiles+=("$2"); shift ;;
  --profile-shape) value "$@"; pshape=$2; shift ;;
  --occupancy) value "$@"; occupancy=$2; shift ;;
  --suite-kernels) value "$@"; suitekernels=$2; suitekernelsset=1; shift ;;
  --) shift; extra=("$@"); break ;;
  *) echo "gpu-check.sh: unknown option $1" >&2; usage ;;
  esac
  shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "gpu-check.sh: --rounds $rounds is not a positive count" >&2; usage; }
[[ $pshape =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]] ||
  { echo "gpu-check.sh: --profile-shape \"$pshape\" is not \"B T H\"" >&2; usage; }
[[ -z $occupancy || $occupancy =~ ^[^\ ]+\ ([1-9][0-9]?)(,[1-9][0-9]?)*$ ]] ||
  { echo "gpu-check.sh: --occupancy \"$occupancy\" is not \"REGEX N,N,...\" (N in 1..99)" >&2; usage; }
IFS=',' read -ra peernames <<<"$peerlist"
for p in "${peernames[@]}"; do
  [[ $p == TileOps || $p == FlashQLA || $p == FLA ]] ||
    { echo "gpu-check.sh: --peers-with $peerlist: $p is not TileOps, FlashQLA or FLA" >&2; usage; }
done
if [[ -n $peersacc ]]; then
  [[ -n $peers ]] || { echo "gpu-check.sh: --peers-acc needs --peers DIR" >&2; usage; }
  IFS=',' read -ra accfams <<<"$peersacc"
  for f in "${accfams[@]}"; do
    [[ $f == weak || $f == nodecay || $f == beta1 || $f == collinear ]] ||
      { echo "gpu-check.sh: --peers-acc $peersacc: $f is not weak, nodecay, beta1 or collinear" >&2; usage; }
  done
fi
[[ -z $ident || -d $ident ]] || { echo "gpu-check.sh: --ident $ident is not a directory" >&2; usage; }
if [[ $suitekernelsset == 1 ]]; then
  [[ $suite == 1 ]] || { echo "gpu-check.sh: --suite-kernels applies to --suite" >&2; usage; }
  [[ -d $suitekernels ]] || { echo "gpu-check.sh: --suite-kernels $suitekernels is not a directory" >&2; usage; }
fi
for b in ${benches[@]+"${benches[@]}"}; do
  [[ $b == *=*:* ]] || { echo "gpu-check.sh: --bench $b is not LABEL=GDN_RUN:KERNEL_DIR" >&2; usage; }
done
mkdir -p "$out"
logs=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-logs.XXXXXX")
# --ident's saved outputs (hundreds of MB) stay out of logs.tgz: the device
# tool returns no file over 16 MiB.
saves=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-saves.XXXXXX")
trap 'tar czf "$out/logs.tgz" -C "$logs" . 2>/dev/null; rm -rf "$logs" "$saves"' EXIT
export PYTHONUNBUFFERED=1
start=$(date +%s)
step() { echo "[$(( $(date +%s) - start )) s] $*"; }
status=0

step "runner-only build (build-gpu, kernels from build/kernels)"
if ! { cmake -G Ninja -B build-gpu -DGDN_BUILD_RUNNER_ONLY=ON \
         -DCMAKE_BUILD_TYPE=Release -DGDN_KERNEL_BUNDLE_DIR="$PWD/build/kernels" \
         >"$logs/cmake.log" 2>&1 && ninja -C build-gpu >"$logs/ninja.log" 2>&1; }; then
  echo "gpu-check: the runner-only build failed (logs: cmake.log, ninja.log in $out/logs.tgz)"
  tail -20 "$logs/ninja.log"
  exit 1
fi
if ! python3 -c "import lit" 2>/dev/null; then
  site=/tmp/gpu-check-site
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" \
    .whl/lit-*.whl >/dev/null 2>&1 || python3 -m pip install -q --target "$site" lit
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
fi

# clock_start / clock_stop: nvidia-smi samples the SM clock and the active
# clock-limiting reasons every 50 ms while one gdn-run times a problem;
# clock_stop sets $clocks to tools/clock-summary.awk's summary of them (empty
# without nvidia-smi).
clock_start() {
  clocks="" smi_pid=""
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active \
    --format=csv,noheader,nounits -lms 50 >"$logs/clocks.csv" 2>/dev/null &
  smi_pid=$!
}
clock_stop() {
  [[ -n $smi_pid ]] || return 0
  kill "$smi_pid" 2>/dev/null
  { wait "$smi_pid"; } 2>/dev/null
  clocks=$(awk -f tools/clock-summary.awk "$logs/clocks.csv")
  cat "$logs/clocks.csv" >>"$logs/clocks-all.csv"
}

manifests() { # DIR DTYPE: the gdn_prefill manifests of DIR in DTYPE
  grep -l "meta.op = gdn_prefill" "$1"/*_"$2".manifest
}

# time_prefill GDN_RUN DIR B T H [gdn-run options]: times DIR's f16 prefill
# (median of 30, weak gate) into $med (empty on failure: then $log holds
# gdn-run's output), its per-stage medians into $stages, and the TFLOP/s and
# multiple of the floor of gdn-run's result row into $tflops and $xfloor.
time_prefill() {
  local run=$1 dir=$2 B=$3 T=$4 H=$5 ms
  shift 5
  mapfile -t ms < <(manifests "$dir" f16)
  log=$("$run" --op gdn_prefill --check none --iters 30 --B "$B" --T "$T" \
    --H "$H" --HV "$H" --family weak --dtype f16 "$@" "${ms[@]}" 2>&1)
  med=$(sed -n 's/^time: median \([0-9.]*\) ms.*/\1/p' <<<"$log")
  # The row under gdn-run's table header (... TFLOP/s GB/s xfloor result).
  read -r tflops xfloor < <(awk '$1 == "gdn_prefill" && $(NF - 1) != "xfloor" {
    print $(NF - 3), $(NF - 1)}' <<<"$log")
  stages=$(sed -n 's/^  stage \([a-z_0-9]*\) *median \([0-9.]*\) ms alone/\1=\2/p' \
    <<<"$log" | tr '\n' ' ')
  # --overlap-stages: when each kernel ended (stage@ms, the last run).
  stages+=$(sed -n 's/^  overlapped: stage \([a-z_0-9]*\) *ended at \([0-9.]*\) ms.*/ended:\1@\2/p' \
    <<<"$log" | tr '\n' ' ')
}

if [[ -n $ident ]]; then
  step "bit identity: build/kernels against $ident"
  cases=(
    "direct-h0|f16|--B 8 --T 4096 --H 16 --family weak --h0"
    "cp-strong-h0|f16|--B 1 --T 32768 --H 16 --cp on --family strong --h0"
    "varlen-bf16-gva|bf16|--B 1 --T 5000 --H 4 --HV 8 --cu-seqlens 0,1,1,700,4097,5000 --cp on --h0 --family mixed"
    "qk-l2norm|f16|--B 2 --T 3000 --H 16 --qk-l2norm --beta-sigmoid --family weak"
    "block-v16|f16|--B 2 --T 1000 --H 2 --block-v 16 --family nodecay"
    "odd-cp-unnorm|f16|--B 3 --T 1001 --H 2 --HV 4 --family unnorm --h0 --cp on"
  )
  for c in "${cases[@]}"; do
    IFS='|' read -r name dt args <<<"$c"
    verdict=identical
    for side in new base; do
      dir=build/kernels
      [[ $side == base ]] && dir=$ident
      rm -rf "$saves/save-$side"
      mapfile -t ms < <(manifests "$dir" "$dt")
      # shellcheck disable=SC2086 # $args: the case's options, word by word
      build-gpu/bin/gdn-run --op gdn_prefill --iters 0 --dtype "$dt" \
        --save "$saves/save-$side" $args "${ms[@]}" \
        >"$logs/ident-$name-$side.log" 2>&1 ||
        { [[ $verdict == identical ]] && verdict="FAILED ($side: ident-$name-$side.log)"; }
    done
    [[ $verdict == identical ]] &&
      ! diff -r -q "$saves/save-new" "$saves/save-base" >/dev/null && verdict=DIFFER
    echo "IDENT $name $verdict"
    [[ $verdict == identical ]] || status=1
  done
fi

if [[ ${#profiles[@]} -gt 0 ]]; then
  read -r PB PT PH <<<"$pshape"
  n=0
  for re in "${profiles[@]}"; do
    n=$((n + 1))
    step "ncu source counters: kernels ~ $re at ${PB}x${PT}H${PH} -> profile_${n}"
    mapfile -t ms < <(manifests build/kernels f16)
    if ncu --clock-control none --section SourceCounters --section SpeedOfLight \
         --section WarpStateStats --section InstructionStats --section Occupancy \
         -k "regex:$re" --launch-count 1 -f -o "$logs/profile_$n" \
         build-gpu/bin/gdn-run --op gdn_prefill --check none --iters 1 --warmup 0 \
         --B "$PB" --T "$PT" --H "$PH" --family weak "${ms[@]}" \
         >"$logs/profile_$n.log" 2>&1; then
      ncu -i "$logs/profile_$n.ncu-rep" --page source --csv --print-source sass 2>&1 |
        gzip >"$out/profile_${n}_sass.csv.gz"
      ncu -i "$logs/profile_$n.ncu-rep" --page details --csv >"$out/profile_${n}_details.csv" 2>&1
      python3 tools/ncu-phases.py "$out/profile_${n}_sass.csv.gz" \
        --details "$out/profile_${n}_details.csv" --top 12 || status=1
    else
      echo "gpu-check: ncu failed (profile_$n.log in $out/logs.tgz)"
      tail -5 "$logs/profile_$n.log"
      status=1
    fi
  done
fi

if [[ -n $occupancy ]]; then
  read -r ore olist <<<"$occupancy"
  read -r PB PT PH <<<"$pshape"
  step "blocks per SM of kernels ~ $ore held to $olist at ${PB}x${PT}H${PH}"
  IFS=',' read -ra counts <<<"$olist"
  # The kernel directories: every --bench one (LABEL=GDN_RUN:KERNEL_DIR,
  # timed with this build's gdn-run), else build/kernels.
  occdirs=()
  for b in ${benches[@]+"${benches[@]}"}; do
    d=${b#*:}
    occdirs+=("${b%%=*}=${d%%::*}")
  done
  (( ${#occdirs[@]} )) || occdirs=("build=build/kernels")
  for od in "${occdirs[@]}"; do
    olabel=${od%%=*} odir=${od#*=}
    for nb in "${counts[@]}"; do
      dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-occ.XXXXXX")
      cp "$odir"/*.manifest "$odir"/*.ptx "$dir"/
      want=$(( 233472 / nb - 1088 ))
      (( want > 232448 )) && want=232448
      note=""
      matched=$(grep -lE "^kernel = .*($ore)" "$dir"/*_f16.manifest "$dir"/*_f16_i64.manifest)
      [[ -n $matched ]] || { note=" no f16 kernel matches $ore;"; status=1; }
      for m in $matched; do
        have=$(sed -n 's/^shared_bytes = //p' "$m")
        if (( have > want )); then
          note="$note $(basename "$m" .manifest) needs $have B (more than $nb blocks fit);"
        else
          sed -i "s/^shared_bytes = .*/shared_bytes = $want/" "$m"
        fi
      done
      time_prefill build-gpu/bin/gdn-run "$dir" "$PB" "$PT" "$PH"
      printf 'occupancy %-10s %-3s shared %6s  %9s | %s%s\n' "$olabel" "$nb" \
        "$want" "${med:-ERROR}" "$stages" "${note:+ (}${note}${note:+)}"
      [[ -n $med ]] || { status=1; tail -5 <<<"$log"; }
      rm -rf "$dir"
    done
  done
fi

# peertime["NAME BxTHh"]: a peer's CUDA-graph median (ms) on a shape.
declare -A peertime
if [[ -n $peers ]]; then
  step "$peerlist (peers kit $peers)"
  GATES=weak ONLY=$peerlist bash "$peers/run-peers.sh" "$logs/peers.txt" 140 \
    >"$logs/peers.log" 2>&1 || status=1
  # TIME TileOps   1x32768 H16 f16 weak   eager_med .. graph_med 0.331 ...
  while read -r _ name shape h _ _ rest; do
    gm=$(sed -n 's/.*graph_med \([0-9.]*\).*/\1/p' <<<"$rest")
    [[ -n $gm ]] && peertime["$name ${shape}${h}"]=$gm
  done < <(grep '^TIME ' "$logs/peers.txt" 2>/dev/null)
  grep '^TIME' "$logs/peers.txt" 2>/dev/null
fi

if [[ -n $peersacc ]]; then
  step "accuracy on $peersacc, 8x4096 H16 f16 (gdn-run, $peerlist)"
  accpeers=$(tr ',' '\n' <<<"$peerlist" | grep -v '^FLA$' | paste -sd, -)
  {
    for f in "${accfams[@]}"; do
      build-gpu/bin/gdn-run --op gdn_prefill --iters 0 --B 8 --T 4096 --H 16 \
        --family "$f" build/kernels/gdn_*_f16.manifest 2>&1 |
        grep -E '^gdn_prefill ' | sed 's/^/ACC gdn       /'
    done
    [[ -z $accpeers ]] || python3 tools/peers-accuracy.py --kit "$peers" \
      --families "$peersacc" --peers "$accpeers" --shape 8x4096x16 ||
      status=1
  } >"$out/accuracy.txt" 2>"$logs/accuracy.log"
  grep '^ACC' "$out/accuracy.txt"
fi

if [[ ${#benches[@]} -gt 0 ]]; then
  step "benchmarks (${#benches[@]} configurations, $rounds round(s))"
  table="$out/bench.txt"
  : >"$table"
  for ((r = 1; r <= rounds; ++r)); do
    IFS=';' read -ra list <<<"$shapes"
    for shape in "${list[@]}"; do
      read -r B T H <<<"$shape"
      for b in "${benches[@]}"; do
        label=${b%%=*} rest=${b#*=}
        run=${rest%%:*} dir=${rest#*:} bopts=()
        if [[ $dir == *::* ]]; then
          read -ra bopts <<<"${dir#*::}"
          dir=${dir%%::*}
        fi
        [[ $run == new ]] && run=build-gpu/bin/gdn-run
        clock_start
        time_prefill "$run" "$dir" "$B" "$T" "$H" ${extra[@]+"${extra[@]}"} \
          ${bopts[@]+"${bopts[@]}"}
        clock_stop
        # ms, TFLOP/s and x floor, then each peer's ms and peer/ours.
        perf="-" peercols=""
        [[ -n $med && -n $tflops && $tflops != - ]] &&
          perf="$tflops TFLOP/s ${xfloor}x floor"
        for p in "${peernames[@]}"; do
          pt=${peertime["$p ${B}x${T}H${H}"]:-}
          ratio=-
          [[ -n $med && -n $pt ]] && ratio=$(awk -v a="$pt" -v b="$med" 'BEGIN{printf "%.3f", a/b}')
          peercols+=$(printf '  %s %6s  %s/ours %6s' "$p" "${pt:--}" "$p" "$ratio")
        done
        printf '%-10s %-12s %9s  %s%s | %s%s\n' \
          "$label" "${B}x${T}H${H}" "${med:-ERROR}" "$perf" "$peercols" "$stages" \
          "$clocks" | tee -a "$table"
        [[ -n $med ]] || { status=1; tail -5 <<<"$log"; }
      done
    done
  done
fi

if [[ $coldstart == 1 ]]; then
  step "cold start and host overhead (tools/bench-coldstart.py)"
  PYTHONPATH=lib/Bindings/Python${PYTHONPATH:+:$PYTHONPATH} \
    GDN_RUNTIME_LIBRARY=build-gpu/lib/libgdn_runtime.so \
    python3 tools/bench-coldstart.py --runs 3 >"$logs/coldstart.txt" 2>&1 || status=1
  grep -E "cold start|host overhead|us/call|PASS|FAIL" "$logs/coldstart.txt"
fi

if [[ $suite == 1 ]]; then
  step "GPU suite ($suitekernels)"
  # FLA for python.test's comparison: the peers kit's unpacked site, if any.
  [[ -d /tmp/peers-site ]] && sitepath=/tmp/peers-site${PYTHONPATH:+:$PYTHONPATH} ||
    sitepath=${PYTHONPATH:-}
  PYTHONPATH=$sitepath GDN_GPU=1 GDN_KERNEL_DIR=$suitekernels python3 -c \
    "import sys; sys.argv=['lit','-v','build-gpu/test/GPU']; from lit.main import main; main()" \
    >"$logs/suite.txt" 2>&1 || status=1
  grep -E "^(FAIL|XPASS|UNRESOLVED)|Passed|Failed" "$logs/suite.txt"
fi
step "done (status $status)"
[[ ${#benches[@]} -gt 0 ]] && { echo "=== benchmarks ==="; cat "$out/bench.txt"; }
exit $status
