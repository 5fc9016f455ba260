#!/usr/bin/env bash
#===- kernel-variant.sh - a kernel directory with one template replaced ---===#
#
# usage: tools/kernel-variant.sh [-b BASE_DIR] [-I INCLUDE_DIR] [-t DTYPES]
#                                [--no-i64] [--fused P/C] [--fused2 P/C]
#                                [--tma-issue MODE] [-O OPTIONS]
#                                [--forward-regs MAX/P/C] [--flags]
#                                [--prep-regs N] [--prep-overlap N]
#                                [--prep-prefetch] [--step-gate-factors]
#                                [--fused-ablate MODE] [--fused-async]
#                                [--cpu] OUT_DIR TEMPLATE
#
# Builds OUT_DIR, a complete kernel directory for gdn-run, tools/gpu-check.sh
# (--bench LABEL=new:OUT_DIR, --ident) or GDN_KERNEL_DIR: every .ptx and
# .manifest of BASE_DIR (default build/kernels), with the modules of
# TEMPLATE (a kernel template such as kernels/gdn_prefill/gdn_prefill.mlir.in,
# or an edited copy of one, saved under the same file name: NAME.mlir.in for
# its module @NAME_@DT@, checked) compiled anew and put in place of BASE_DIR's, as
# kernels/CMakeLists.txt compiles them: for each dtype of DTYPES (default
# "f16 bf16") the template with @DT@ replaced, its `// @include FILE` lines
# expanded from INCLUDE_DIR (default: the template's own folder; pass
# kernels/gdn_prefill for a copy kept elsewhere), lowered by gdn-opt
# --gdn-lower-to-ptx for the build's GDN_CHIP (build/CMakeCache.txt, else
# sm_90a). A GDN prefill template (its name is one of
# kernels/gdn_prefill/*.mlir.in) gets the build's two modules, 32-bit
# indices (NAME_DT) and 64-bit ones (NAME_DT_i64); any other one module
# NAME_DT with the default options. The old modules' PTX and manifests are
# removed first, so no kernel of the base survives beside the new ones.
# --no-i64 skips the 64-bit builds and removes the base's: problems that
# need them then fail with gdn-run's message instead of running old
# kernels.
#
# --fused P/C (TEMPLATE a gdn_forward_vm.mlir.in): the fused prep +
# forward kernel the template takes in (@gdn_chunk_fused_vm128,
# gdn_chunk_fused.mlir.inc; the direct path's fused form, meta.form =
# fused) with the warpgroups' registers P (producer: the task; also the
# TMA issue with --tma-issue first, while the template asks consumer thread
# 0 to issue) and C (consumers); gdn-run runs it with --fused on (or where
# its cost model picks it) and times it as the stage chunk_fused.
# --fused2 P/C: the two-task fused kernel (gdn_chunk_fused2.mlir.inc of
# INCLUDE_DIR: two producer warpgroups, P x 256 + C x 256 <= 65536
# registers, e.g. 64/192) in place of the fused kernel and its refined
# kernel (experimental: it writes no alike-keys flags, so the fused form
# then has no refined step: the fused form's prep for its refined kernel,
# gdn_chunk_prep_fref_*, leaves OUT_DIR too).
#
# --tma-issue MODE (with --fused or --fused2): the fused kernel's
# tile.warp_specialize gets tma_issue = "MODE" (first, round_robin or
# consumer: who issues the q/k/v ring's TMA loads; "consumer" leaves them
# to consumer thread 0, N chunks ahead, so the task warpgroup only
# computes; docs/perf-notes.md v53).
#
# --forward-regs MAX/P/C (TEMPLATE a gdn_forward_vm.mlir.in): the direct
# path's forward kernel (@gdn_chunk_fwd_vm128) capped at MAX registers per
# thread (tile.max_registers, a multiple of 8) with P / C registers for its
# producer / consumer warpgroups (P x 128 + C x 256 <= MAX x 384), and
# LLVM's LICM off in the chunk loop it inlines (@gdn_chunk_loop_vm's
# tile.for, which the summary and the replay inline too: their loops change
# as well, at their own registers), so that the capped consumers do not
# spill. E.g. 136/24/192 leaves room for one prep block per SM beside each
# forward block (gdn-run --overlap-stages; docs/perf-notes.md v41). With
# KERNEL_VARIANT_KEEP=FILE set, the edited template is copied to FILE (for
# the lit tests; also with --fused and --flags).
#
# The options that change the pair of prep and forward kernels (--flags,
# --forward-regs, --prep-regs, --prep-overlap, --prep-prefetch) remove
# the fused form's manifests
# (gdn_chunk_fused_vm128_*, gdn_chunk_prep_fref_*,
# gdn_chunk_fwd_vm128_fref_*) from OUT_DIR, so
# that gdn-run runs the changed pair everywhere ("no fused form" in the
# summary line). A plain edited template keeps them: time the pair with
# gdn-run --fused off. --step-gate-factors changes the step of the
# forward, the CP summary and the replay, not the fused kernel's (which
# takes no exponent vectors): its fused form stays.
#
# --flags: the prep beside the forward, synchronized by ready flags
# (experimental; docs/gdn-prefill.md, "The prep beside the chunk loop"):
# with TEMPLATE gdn_prefill.mlir.in, @gdn_chunk_prep_k becomes the
# persistent prep of gdn_prep_flags.mlir.inc (INCLUDE_DIR), one block per
# direct-forward (CP replay) block, plus blocks for the chunks the CP
# summaries read first, releasing a flag per (chunk, value head); with
# gdn_forward_vm.mlir.in, the direct forward waits for those flags before
# each chunk's loads and is launched before the prep completes
# (tile.grid_dependency = "flags"), and so are the CP summary (its window
# search waits too) and the CP replay (which also waits for the scan's
# grid: "wait_and_flags"), all three at the registers of --forward-regs
# (default 136/24/192: room for a prep block beside each). Build both into
# one directory (the second call with -b on the first's output). gdn-run and
# libgdn_runtime give such a sequence (grid_dependency 2 or 3) the largest
# shared-memory carveout on every kernel themselves. --prep-regs N (with
# --flags and gdn_prefill.mlir.in): the prep's register cap (default 80, the
# bundled prep's; at one block per SM beside a 136-register forward it may
# take up to 104: 136 x 384 + 104 x 128 = 65,536); without --flags (with
# gdn_prefill.mlir.in) the bundled @gdn_chunk_prep_k's cap (72 in the
# template since docs/perf-notes.md v50: seven 128-thread blocks per SM with
# its tile.overlap_tril_inverse = 1, which brings its shared memory under
# the seventh block's 32 KB; 64: eight with mode 2, under 27.5 KB, v48).
# --prep-overlap N (0, 1 or 2; gdn_prefill.mlir.in, not with --flags):
# @gdn_chunk_prep_k's tile.overlap_tril_inverse, which takes precedence
# over -O "tril-overlap=N" for that kernel (e.g. --prep-regs 64
# --prep-overlap 2 for eight blocks per SM; 80 and 0 for v49's prep_k).
# --prep-prefetch (with --flags and gdn_prefill.mlir.in): the prep also
# prefetches its next item's K, g and beta into L2 (tile.prefetch)
# while it forms the current one.
# --step-gate-factors (TEMPLATE a gdn_forward_vm.mlir.in): the chunk
# step's map of the shifted gate exponents (forward, CP summary, replay)
# also forms the W, o and V_new maps' column factors once per chunk into
# shared vectors (tile.alloc no_reuse), which those maps load instead of
# exponentiating per element (same bits; docs/perf-notes.md v78).
# --fused-ablate MODE (TEMPLATE a gdn_forward_vm.mlir.in): TIMING ONLY,
# the fused kernel computes wrong results (gdn-run --check none). Its
# producer task without part of its work, to see what that part costs the
# fused stage (docs/perf-notes.md v74): `map` (the Ag map's gates),
# `handoff` (map and the copy of Ag to the hand-off ring), `task` (no Gram,
# gamma, solve or hand-off: the consumers alone), `skipN` (no Gram, gamma
# or solve in every N-th chunk), `step` (the consumers skip their chunk
# step: the task alone; its fused kernel takes one tensor map fewer and
# loads Q and V in other boxes, so its manifest changes with its PTX: move
# OUT_DIR's changed files together, gdn-run refuses a PTX beside another
# build's manifest).
# --fused-async (TEMPLATE a gdn_forward_vm.mlir.in): the fused kernel's
# consumer gemms asynchronous too (tile.async_gemm on
# @gdn_chunk_fused_vm128) and the chunk step reordered so that P's map
# runs under K S and o's map under W Ag (same bits; docs/perf-notes.md
# v75). The step is shared: the module's other kernels run it in the new
# order, synchronously.
# The edits: tools/kernel-variant-edit.py.
#
# -O OPTIONS: more gdn-lower-to-ptx options for every module built, as
# KEY=VALUE words (e.g. "proxy-fences=0" or "zero-init-gemm=0": a compiler
# feature measured off); chip, index-bitwidth, kernel-suffix and output-dir
# are the script's own and refused here.
#
# --cpu: also lower the variant's modules for the CPU emulator
# (convert-tile-to-loops) into OUT_DIR/kernels-cpu, which starts as a copy of
# BASE_DIR/kernels-cpu (else build/kernels-cpu): gdn-run then runs and checks
# the variant without a GPU, GDN_CUDA_LIBRARY=build/lib/libgdn-cuemu.so
# GDN_EMU_KERNELS=OUT_DIR/kernels-cpu (docs/gdn-run.md, "Without a GPU").
#
# Templates instantiated per forward variant (@BV@) are refused. gdn-opt is
# build/bin/gdn-opt (or $GDN_OPT). Experiments that edit a template (timing
# variants, ablations) build their kernel directories with this instead of
# ad hoc scripts; docs/perf-notes.md names the edits.
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '4,11s/^# //p' "$0" >&2; exit 2; }
base=$root/build/kernels incdir="" dtypes="f16 bf16" i64=1 fused="" fusedopt=--fused fusedk=fused tmaissue="" extra="" fwdregs="" flags="" prepregs="" prepov="" prefetch="" gatef="" ablate="" fasync="" cpu=""
while [[ $# -gt 0 ]]; do
  case $1 in
  --fused) [[ $# -ge 2 ]] || usage; fused=$2; shift 2 ;;
  --fused2) [[ $# -ge 2 ]] || usage; fused=$2 fusedopt=--fused2 fusedk=fused2; shift 2 ;;
  --tma-issue) [[ $# -ge 2 ]] || usage; tmaissue=$2; shift 2 ;;
  --forward-regs) [[ $# -ge 2 ]] || usage; fwdregs=$2; shift 2 ;;
  --flags) flags=1; shift ;;
  --prep-regs) [[ $# -ge 2 ]] || usage; prepregs=$2; shift 2 ;;
  --prep-overlap) [[ $# -ge 2 ]] || usage; prepov=$2; shift 2 ;;
  --prep-prefetch) prefetch=1; shift ;;
  --step-gate-factors) gatef=1; shift ;;
  --fused-ablate) [[ $# -ge 2 ]] || usage; ablate=$2; shift 2 ;;
  --fused-async) fasync=1; shift ;;
  --cpu) cpu=1; shift ;;
  -b) [[ $# -ge 2 ]] || usage; base=$2; shift 2 ;;
  -I) [[ $# -ge 2 ]] || usage; incdir=$2; shift 2 ;;
  -t) [[ $# -ge 2 ]] || usage; dtypes=$2; shift 2 ;;
  --no-i64) i64=0; shift ;;
  -O) [[ $# -ge 2 ]] || usage; extra="$extra $2"; shift 2 ;;
  -*) echo "kernel-variant.sh: unknown option $1" >&2; usage ;;
  *) break ;;
  esac
done
if [[ -n $tmaissue ]]; then
  [[ -n $fused ]] ||
    { echo "kernel-variant.sh: --tma-issue applies to --fused or --fused2" >&2; exit 1; }
  [[ $tmaissue == first || $tmaissue == round_robin || $tmaissue == consumer ]] ||
    { echo "kernel-variant.sh: --tma-issue $tmaissue: expected first, round_robin or consumer" >&2; exit 1; }
fi
[[ $# -eq 2 ]] || usage
out=$1 tmpl=$2
[[ -f $tmpl ]] || { echo "kernel-variant.sh: no template $tmpl" >&2; exit 1; }
[[ $tmpl == *.mlir.in ]] ||
  { echo "kernel-variant.sh: $tmpl is not a kernel template (*.mlir.in)" >&2; exit 1; }
[[ -d $base ]] || { echo "kernel-variant.sh: no base kernel directory $base" >&2; exit 1; }
if grep -q '@BV@' "$tmpl"; then
  echo "kernel-variant.sh: $tmpl is instantiated per forward variant (@BV@);" \
    "only templates over @DT@ alone are supported" >&2
  exit 1
fi
for dt in $dtypes; do
  [[ $dt == f16 || $dt == bf16 ]] ||
    { echo "kernel-variant.sh: dtype $dt is not f16 or bf16" >&2; exit 1; }
done
for word in $extra; do
  [[ $word =~ ^([a-z0-9-]+)=[A-Za-z0-9_.-]+$ ]] ||
    { echo "kernel-variant.sh: -O $word: expected KEY=VALUE" >&2; exit 1; }
  case ${BASH_REMATCH[1]} in
  chip | index-bitwidth | kernel-suffix | output-dir)
    echo "kernel-variant.sh: -O ${BASH_REMATCH[1]} is set by the script" >&2
    exit 1 ;;
  esac
done
extra=$(echo $extra)
extra=${extra:+ $extra}
opt=${GDN_OPT:-$root/build/bin/gdn-opt}
chip=$(sed -n 's/^GDN_CHIP:STRING=//p' "$root/build/CMakeCache.txt" 2>/dev/null)
chip=${chip:-sm_90a}
[[ -x $opt ]] || { echo "kernel-variant.sh: no gdn-opt at $opt (build first)" >&2; exit 1; }
name=$(basename "$tmpl" .mlir.in)
# The file name decides the build (the module replaced, the index widths):
# it must be the module's, or an edited copy saved under another name would
# be compiled with the wrong options over the base's module of that name.
module=$(sed -n 's/^module @\([A-Za-z0-9_]*\)_@DT@ .*/\1/p' "$tmpl" | head -n 1)
if [[ -z $module ]]; then
  echo "kernel-variant.sh: $tmpl declares no module @NAME_@DT@" >&2
  exit 1
fi
if [[ $module != "$name" ]]; then
  echo "kernel-variant.sh: $tmpl holds module @${module}_@DT@; save it as" \
    "$module.mlir.in (the file name selects the module and its build)" >&2
  exit 1
fi
[[ -n $incdir ]] || incdir=$(dirname "$tmpl")
# The two index widths are the GDN prefill modules' (kernels/CMakeLists.txt).
pair=0
[[ -f $root/kernels/gdn_prefill/$name.mlir.in ]] && pair=1

work=$(mktemp -d "${TMPDIR:-/tmp}/kernel-variant.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The include expansion reads FILEs beside the template: a copy of the
# template in a folder with INCLUDE_DIR's .inc files.
cp "$incdir"/*.inc "$work"/ 2>/dev/null || true
cp "$tmpl" "$work/$name.mlir.in"
cmake -P "$root/cmake/GdnExpandIncludes.cmake" "$work/$name.mlir.in" "$work/$name.expanded"
if [[ -n $fused ]]; then
  [[ $name == gdn_forward_vm ]] ||
    { echo "kernel-variant.sh: $fusedopt needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
  [[ $fused =~ ^([0-9]+)/([0-9]+)$ ]] ||
    { echo "kernel-variant.sh: $fusedopt $fused: expected PRODUCER/CONSUMER registers, e.g. 104/200" >&2; exit 1; }
  preg=${BASH_REMATCH[1]} creg=${BASH_REMATCH[2]}
  [[ -f $incdir/gdn_chunk_$fusedk.mlir.inc ]] ||
    { echo "kernel-variant.sh: no $incdir/gdn_chunk_$fusedk.mlir.inc" >&2; exit 1; }
  grep -q '^  func.func @gdn_chunk_fused_vm128_@DT@(' "$work/$name.expanded" ||
    { echo "kernel-variant.sh: $tmpl has no fused kernel @gdn_chunk_fused_vm128_@DT@ (gdn_chunk_fused.mlir.inc) to change" >&2; exit 1; }
  fn='/^  func.func @gdn_chunk_fused_vm128_@DT@(/,/^  }$/'
  regs="s/producer_registers = [0-9]* : i64, consumer_registers = [0-9]* : i64/producer_registers = $preg : i64, consumer_registers = $creg : i64/"
  if [[ $fusedk == fused ]]; then
    # The bundled fused kernel's request, edited in place.
    sed -i "${fn} ${regs}" "$work/$name.expanded"
    if [[ -n $tmaissue ]]; then
      sed -i "${fn} s/,[[:space:]]*tma_issue = \"[a-z_]*\"//" "$work/$name.expanded"
      sed -i "${fn} s/consumer_registers = $creg : i64/consumer_registers = $creg : i64, tma_issue = \"$tmaissue\"/" \
        "$work/$name.expanded"
    fi
    sed -n "${fn} p" "$work/$name.expanded" >"$work/$name.fusedk"
    grep -q "producer_registers = $preg : i64, consumer_registers = $creg : i64${tmaissue:+, tma_issue = \"$tmaissue\"}" "$work/$name.fusedk" ||
      { echo "kernel-variant.sh: $fusedopt: no tile.warp_specialize request in @gdn_chunk_fused_vm128_@DT@" >&2; exit 1; }
  else
    # The module without the bundled fused kernel, its refined kernel and
    # its closing brace, then the two-task kernel (also meta.form = fused,
    # without a refined kernel), then the brace.
    sed -e "$fn d" -e '/^  func.func @gdn_chunk_fwd_vm128_fref_@DT@(/,/^  }$/d' "$work/$name.expanded" |
      sed '$d' >"$work/$name.fused"
    sed -e "$regs" "$incdir/gdn_chunk_$fusedk.mlir.inc" >"$work/$name.fusedk"
    if [[ -n $tmaissue ]]; then
      # Any tma_issue the kernel names is replaced; else one is added.
      # (-z: the request may span lines, as gdn_chunk_fused2.mlir.inc's.)
      sed -z -i 's/,[[:space:]]*tma_issue = "[a-z_]*"//' "$work/$name.fusedk"
      sed -i "s/consumer_registers = $creg : i64/consumer_registers = $creg : i64, tma_issue = \"$tmaissue\"/" \
        "$work/$name.fusedk"
      grep -q "tma_issue = \"$tmaissue\"" "$work/$name.fusedk" ||
        { echo "kernel-variant.sh: --tma-issue: no tile.warp_specialize request in gdn_chunk_$fusedk.mlir.inc" >&2; exit 1; }
    fi
    cat "$work/$name.fusedk" >>"$work/$name.fused"
    echo "}" >>"$work/$name.fused"
    mv "$work/$name.fused" "$work/$name.expanded"
  fi
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi
if [[ -n $gatef ]]; then
  [[ $name == gdn_forward_vm ]] ||
    { echo "kernel-variant.sh: --step-gate-factors needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
  python3 "$root/tools/kernel-variant-edit.py" step-gate-factors "$work/$name.expanded"
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi
if [[ -n $ablate ]]; then
  [[ $name == gdn_forward_vm ]] ||
    { echo "kernel-variant.sh: --fused-ablate needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
  python3 "$root/tools/kernel-variant-edit.py" fused-ablate "$work/$name.expanded" "$ablate"
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi
if [[ -n $fasync ]]; then
  [[ $name == gdn_forward_vm ]] ||
    { echo "kernel-variant.sh: --fused-async needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
  python3 "$root/tools/kernel-variant-edit.py" fused-async "$work/$name.expanded"
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi
if [[ -n $prefetch ]]; then
  [[ -n $flags && $name == gdn_prefill ]] ||
    { echo "kernel-variant.sh: --prep-prefetch needs --flags and gdn_prefill.mlir.in" >&2; exit 1; }
fi
if [[ -n $prepregs ]]; then
  [[ $name == gdn_prefill ]] ||
    { echo "kernel-variant.sh: --prep-regs needs gdn_prefill.mlir.in" >&2; exit 1; }
  [[ $prepregs =~ ^[0-9]+$ ]] && (( prepregs % 8 == 0 && prepregs >= 24 && prepregs <= 104 )) ||
    { echo "kernel-variant.sh: --prep-regs $prepregs: expected a multiple of 8 in [24, 104]" >&2; exit 1; }
fi
if [[ -n $prepov ]]; then
  [[ $name == gdn_prefill && -z $flags ]] ||
    { echo "kernel-variant.sh: --prep-overlap needs gdn_prefill.mlir.in and no --flags" >&2; exit 1; }
  [[ $prepov =~ ^[012]$ ]] ||
    { echo "kernel-variant.sh: --prep-overlap $prepov: expected 0, 1 or 2" >&2; exit 1; }
fi
if [[ -n $flags ]]; then
  [[ -z $fused ]] ||
    { echo "kernel-variant.sh: --flags and --fused are separate experiments (the ready-flags forward, the fused kernel); give one" >&2; exit 1; }
  case $name in
  gdn_forward_vm) fwdregs=${fwdregs:-136/24/192} ;;
  gdn_prefill)
    [[ -z $fwdregs ]] ||
      { echo "kernel-variant.sh: --forward-regs needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
    [[ -f $incdir/gdn_prep_flags.mlir.inc ]] ||
      { echo "kernel-variant.sh: no $incdir/gdn_prep_flags.mlir.inc" >&2; exit 1; }
    python3 "$root/tools/kernel-variant-edit.py" prep-flags "$work/$name.expanded" \
      "$incdir/gdn_prep_flags.mlir.inc" ${prepregs:+"$prepregs"} ${prefetch:+--prefetch} ;;
  *) echo "kernel-variant.sh: --flags needs gdn_prefill.mlir.in or gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1 ;;
  esac
  [[ -z ${KERNEL_VARIANT_KEEP:-} || -n $fwdregs ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
elif [[ -n $prepregs || -n $prepov ]]; then
  [[ -z $prepregs ]] ||
    python3 "$root/tools/kernel-variant-edit.py" prep-regs "$work/$name.expanded" "$prepregs"
  [[ -z $prepov ]] ||
    python3 "$root/tools/kernel-variant-edit.py" prep-overlap "$work/$name.expanded" "$prepov"
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi
if [[ -n $fwdregs ]]; then
  [[ $name == gdn_forward_vm ]] ||
    { echo "kernel-variant.sh: --forward-regs needs gdn_forward_vm.mlir.in, not $tmpl" >&2; exit 1; }
  [[ -z $fused ]] ||
    { echo "kernel-variant.sh: --forward-regs and --fused are separate experiments (the forward's registers, the fused kernel's); give one" >&2; exit 1; }
  [[ $fwdregs =~ ^([0-9]+)/([0-9]+)/([0-9]+)$ ]] ||
    { echo "kernel-variant.sh: --forward-regs $fwdregs: expected MAX/PRODUCER/CONSUMER registers, e.g. 136/24/192" >&2; exit 1; }
  (( BASH_REMATCH[1] % 8 == 0 && BASH_REMATCH[1] >= 24 && BASH_REMATCH[1] <= 168 )) ||
    { echo "kernel-variant.sh: --forward-regs $fwdregs: MAX must be a multiple of 8 in [24, 168] (the 384-thread block's share of the register file)" >&2; exit 1; }
  python3 "$root/tools/kernel-variant-edit.py" forward-regs "$work/$name.expanded" \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" ${flags:+--flags}
  # For tests: the edited template.
  [[ -z ${KERNEL_VARIANT_KEEP:-} ]] || cp "$work/$name.expanded" "$KERNEL_VARIANT_KEEP"
fi

mkdir -p "$out"
if [[ $(cd "$base" && pwd) != $(cd "$out" && pwd) ]]; then
  cp "$base"/*.ptx "$base"/*.manifest "$out"/
fi
if [[ -n $cpu && ! -d $out/kernels-cpu ]]; then
  seed=$base/kernels-cpu
  [[ -d $seed ]] || seed=$root/build/kernels-cpu
  [[ -d $seed ]] || { echo "kernel-variant.sh: --cpu: no $seed (build the default target first)" >&2; exit 1; }
  mkdir -p "$out/kernels-cpu"
  cp "$seed"/*.mlir "$out/kernels-cpu/"
fi
if [[ -z $cpu && -d $out/kernels-cpu ]]; then
  # A CPU lowering of an earlier build of this module would be stale.
  for dt in $dtypes; do
    if [[ -f $out/kernels-cpu/${name}_$dt.mlir ]]; then
      echo "kernel-variant.sh: removing $out/kernels-cpu/${name}_$dt.mlir (stale without --cpu)" >&2
      rm -f "$out/kernels-cpu/${name}_$dt.mlir"
    fi
  done
fi
clean() { cmake -DDIR="$out" -DMODULE="$1" -P "$root/cmake/GdnCleanKernelModule.cmake"; }
for dt in $dtypes; do
  sed "s/@DT@/$dt/g" "$work/$name.expanded" >"$work/${name}_$dt.mlir"
  if left=$(grep -o -m1 '@[A-Z][A-Z0-9]*@' "$work/${name}_$dt.mlir"); then
    echo "kernel-variant.sh: $tmpl: $left is not a template parameter (DT)" >&2
    exit 1
  fi
  clean "${name}_$dt"
  if [[ -n $cpu ]]; then
    "$opt" "$work/${name}_$dt.mlir" --gdn-lower-to-cpu \
      -o "$out/kernels-cpu/${name}_$dt.mlir"
  fi
  if [[ $pair == 0 ]]; then
    "$opt" "$work/${name}_$dt.mlir" \
      "--gdn-lower-to-ptx=chip=$chip$extra output-dir=$out" -o /dev/null
    continue
  fi
  "$opt" "$work/${name}_$dt.mlir" \
    "--gdn-lower-to-ptx=chip=$chip index-bitwidth=32$extra output-dir=$out" -o /dev/null
  clean "${name}_${dt}_i64"
  if [[ $i64 == 1 ]]; then
    "$opt" "$work/${name}_$dt.mlir" \
      "--gdn-lower-to-ptx=chip=$chip kernel-suffix=_i64$extra output-dir=$out" -o /dev/null
  fi
done
# The options that change the prep + forward pair (--flags,
# --forward-regs, the prep's --prep-*): the fused
# form's manifests (base's or new) leave the output, so that gdn-run runs
# the pair they change where its cost model would pick the fused kernel
# (8x4K·H16); its PTX stays.
nofused=""
if [[ -n $flags$fwdregs$prepregs$prepov$prefetch ]]; then
  rm -f "$out"/gdn_chunk_fused_vm128_*.manifest "$out"/gdn_chunk_prep_fref_*.manifest \
    "$out"/gdn_chunk_fwd_vm128_fref_*.manifest
  nofused=1
fi
# The two-task kernel writes no flags: no refined kernel, nor its prep.
[[ $fusedk != fused2 || -z $fused ]] || rm -f "$out"/gdn_chunk_prep_fref_*.manifest
echo "kernel-variant.sh: $out ($name for $dtypes$([[ $pair == 0 || $i64 == 1 ]] || echo ', no _i64')$([[ -z $fused ]] || echo ", $fusedk $fused")$([[ -z $tmaissue ]] || echo ", TMA issue $tmaissue")$([[ -z $fwdregs ]] || echo ", forward registers $fwdregs")$([[ -z $flags ]] || echo ", ready flags")$([[ -z $prepregs ]] || echo ", prep registers $prepregs")$([[ -z $prepov ]] || echo ", prep overlap $prepov")$([[ -z $prefetch ]] || echo ", prep prefetch")$([[ -z $gatef ]] || echo ", step gate factors")$([[ -z $ablate ]] || echo ", fused task ablated ($ablate): timing only")$([[ -z $fasync ]] || echo ", fused consumers async")$([[ -z $cpu ]] || echo ", CPU lowering")$([[ -z $nofused ]] || echo ", no fused form")$([[ -z $extra ]] || echo ",$extra"))"
