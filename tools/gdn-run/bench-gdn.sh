#!/usr/bin/env bash
#===- bench-gdn.sh - time the GDN prefill sequence on the anchor shapes ---===#
#
# usage: bench-gdn.sh [--gdn-run PATH] KERNEL_DIR [gdn-run options...]
#
# Runs `gdn-run --op gdn_prefill --check none --iters 30` with every
# *.manifest in KERNEL_DIR whose meta.op is gdn_prefill, on the anchor shapes
# of docs/peers.md §5 (f16, input family weak, HV = H; extra options such as
# --dtype bf16, --warmup 20 or --cp off are passed on and override these; of
# a directory holding both builds, --dtype picks the manifests of one dtype,
# of one holding both paths, --cp on|off|auto the path, of one holding
# several forward variants, --block-v N the variant), and prints one table
# with the path gdn-run took (direct/BV, or cp/BVxM for the variant of
# meta.block_v BV in segments of M chunks; just direct, or cp/xM, when the
# kernels have no meta.block_v), our median time next to the FLA time we
# measured (docs/peers.md §4, fp16, CUDA graph) and the TileOps PR #1596 time
# (peers.md §5; a different harness, see peers.md §6 before comparing).
#
# gdn-run is taken from --gdn-run, else $GDN_RUN, else PATH. Needs only bash
# and coreutils. Exit status: 0 when every shape ran, 77 when gdn-run finds
# no GPU, 2 on bad usage, else 1.
#===----------------------------------------------------------------------===#
set -u

usage() {
  echo "usage: $0 [--gdn-run PATH] KERNEL_DIR [gdn-run options...]" >&2
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
extra=("$@")

if [[ ! -d $kernel_dir ]]; then
  echo "bench-gdn.sh: $kernel_dir: not a directory" >&2
  exit 2
fi
if ! command -v "$gdn_run" >/dev/null 2>&1; then
  echo "bench-gdn.sh: gdn-run not found ('$gdn_run'; use --gdn-run PATH or" \
       "set GDN_RUN)" >&2
  exit 2
fi

# True when manifest $1 says `meta.op = gdn_prefill` (comments and blanks
# around tokens ignored, as gdn-run's parser does).
is_gdn_manifest() {
  local line key value
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%%#*}
    [[ $line == *=* ]] || continue
    key=${line%%=*}
    value=${line#*=}
    key=${key//[[:space:]]/}
    value=${value//[[:space:]]/}
    if [[ $key == meta.op ]]; then
      [[ $value == gdn_prefill ]]
      return
    fi
  done <"$1"
  return 1
}

manifests=()
for m in "$kernel_dir"/*.manifest; do
  [[ -f $m ]] && is_gdn_manifest "$m" && manifests+=("$m")
done
if [[ ${#manifests[@]} -eq 0 ]]; then
  echo "bench-gdn.sh: no *.manifest with meta.op = gdn_prefill in" \
       "$kernel_dir" >&2
  exit 2
fi

# Decimal string -> integer in millionths ("1.27" -> 1270000).
micro() {
  local s=$1 int frac
  int=${s%%.*}
  if [[ $s == *.* ]]; then frac=${s#*.}; else frac=; fi
  frac=${frac}000000
  frac=${frac:0:6}
  echo $((10#${int:-0} * 1000000 + 10#$frac))
}

# a / b with two decimals ("-" when either is not a number).
ratio() {
  local num='^[0-9]+(\.[0-9]+)?$'
  if [[ ! $1 =~ $num || ! $2 =~ $num ]]; then
    echo "-"
    return
  fi
  local a b r
  a=$(micro "$1")
  b=$(micro "$2")
  ((b > 0)) || { echo "-"; return; }
  r=$(((a * 1000 / b + 5) / 10)) # hundredths, rounded
  printf '%d.%02d\n' $((r / 100)) $((r % 100))
}

# B T H FLA_ms TileOps_ms (peers.md §5: FLA = our measurement, fp16, graph;
# TileOps = PR #1596 table).
shapes=(
  "1 32768 16 1.269 0.370"
  "1 65536 16 2.498 0.691"
  "1 131072 16 4.915 1.227"
  "1 131072 32 7.702 2.385"
  "8 4096 16 0.931 -"
)

echo "gdn-run: $gdn_run"
echo "kernels: ${manifests[*]}"
[[ ${#extra[@]} -gt 0 ]] && echo "options: ${extra[*]}"
echo
fmt='%-16s %-6s %-10s %10s %10s %9s %7s %9s %7s %8s %8s %10s %8s\n'
table=$(printf "$fmt" shape dtype path median_ms min_ms TFLOP/s GB/s \
  floor_ms xfloor FLA_ms FLA/ours TileOps_ms TO/ours)
status=0
for entry in "${shapes[@]}"; do
  read -r B T H fla tileops <<<"$entry"
  label="${B}x${T} H${H}"
  log=$("$gdn_run" --op gdn_prefill --check none --iters 30 --B "$B" \
    --T "$T" --H "$H" --HV "$H" --family weak --dtype f16 \
    ${extra[@]+"${extra[@]}"} \
    "${manifests[@]}" 2>&1)
  rc=$?
  if [[ $rc -eq 77 ]]; then
    echo "$log" >&2
    echo "bench-gdn.sh: no GPU (gdn-run exit 77)" >&2
    exit 77
  fi
  median=- minms=- tflops=- gbps=- floor=- xfloor=- dtype=- path=-
  row_found=0
  while IFS= read -r line; do
    if [[ $line =~ ^path:\ (direct|cp) ]]; then
      # "path: cp (auto), block_v 64, 64 segments of 32 chunks; model: ..."
      path=${BASH_REMATCH[1]}
      lead=${line%%; model:*}
      bv=
      [[ $lead =~ ,\ block_v\ ([0-9]+) ]] && bv=${BASH_REMATCH[1]}
      if [[ $path == cp && $lead =~ of\ ([0-9]+)\ chunk ]]; then
        path=cp/${bv}x${BASH_REMATCH[1]}
      elif [[ -n $bv ]]; then
        path=$path/$bv
      fi
    elif [[ $line =~ ^time:\ median\ ([0-9.]+)\ ms,\ min\ ([0-9.]+)\ ms.*floor\ ([0-9.]+)\ ms ]]; then
      minms=${BASH_REMATCH[2]}
      floor=${BASH_REMATCH[3]}
    elif [[ $line == gdn_prefill\ * ]]; then
      # op shape dtype family check o_rel ht_rel median TFLOP/s GB/s xfloor
      read -r _ _ dtype _ _ _ _ median tflops gbps xfloor _ <<<"$line"
      row_found=1
    fi
  done <<<"$log"
  if [[ $rc -ne 0 || $row_found -eq 0 ]]; then
    status=1
    echo "bench-gdn.sh: $label: gdn-run exited with $rc:" >&2
    echo "$log" >&2
    table+=$'\n'$(printf "$fmt" "$label" "$dtype" "$path" "ERROR(rc=$rc)" - - \
      - - - "$fla" - "$tileops" -)
    continue
  fi
  table+=$'\n'$(printf "$fmt" "$label" "$dtype" "$path" "$median" "$minms" \
    "$tflops" "$gbps" "$floor" "$xfloor" "$fla" "$(ratio "$fla" "$median")" \
    "$tileops" "$(ratio "$tileops" "$median")")
done
echo "$table"
echo
echo "FLA_ms: FLA 0.5.2 Triton path, fp16, CUDA graph, our H200 measurement"
echo "(docs/peers.md 4). TileOps_ms: TileOps PR #1596 table (docs/peers.md 5;"
echo "CUPTI; another harness: ratios hold only within one table, peers.md 6)."
echo "X/ours > 1: we are faster. floor: docs/gdn-math.md 5.2 (max of bytes /"
echo "4.213 TB/s, FLOP / 747 TFLOP/s)."
exit $status
