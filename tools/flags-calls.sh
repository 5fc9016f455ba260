#!/usr/bin/env bash
#===- flags-calls.sh - the ready-flags variant's device calls, prepared ---===#
#
# usage: tools/flags-calls.sh [OUT_DIR]        (default .gpu, git-ignored)
#
# Builds, on this machine (gdn-opt and the build's kernels needed: the build
# directory is GDN_BUILD, default build; gdn-opt as tools/kernel-variant.sh
# finds it, e.g. GDN_OPT), what the
# first device calls of docs/perf-notes.md v43-v45 run, and writes the two
# commands that run them on the GPU machine:
#   OUT_DIR/k.tar.xz   the variants as overlays on build/kernels (only the
#                      files that differ from it; xz, so that build/kernels,
#                      the overlays, the peers kit and lit's wheel fit the
#                      device tool's 64 MiB carry):
#     vf     the ready-flags variant (tools/kernel-variant.sh --flags of
#            gdn_prefill and gdn_forward_vm; both dtypes, 64-bit indices
#            too, as the GPU suite runs them all),
#     vf104  vf with the prep at 104 registers (f16),
#     vfpf   vf with the prep's L2 prefetch of the next item (f16),
#     vc     the bundle's forward at 136 registers (24 / 192), no flags:
#            v41's co-residency control for gdn-run --overlap-stages,
#     vfu    the fused prep + forward kernel at 104 / 200 (f16);
#   OUT_DIR/call1.sh   --ident of vf against build/kernels (six problems),
#                      then the bench of main, flags, flags104, flagspf,
#                      ovl and fused at 8x4K·H16 and 1x128K·H16 beside
#                      TileOps (the peers kit in .peers), two rounds;
#   OUT_DIR/call2.sh   the GPU suite on vf.
# On the device: carry build/kernels, OUT_DIR, .peers and .whl, and run
# `bash OUT_DIR/call1.sh > $OUT/call1.log 2>&1` (about 6 minutes), then
# call2.sh the same way (about 4).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.gpu}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$root"
kernels=${GDN_BUILD:-$root/build}/kernels
[[ -d $kernels ]] || { echo "flags-calls.sh: no $kernels (build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kv=tools/kernel-variant.sh
pre=kernels/gdn_prefill
"$kv" -b "$kernels" --flags "$work/vf" $pre/gdn_prefill.mlir.in
"$kv" -b "$work/vf" --flags "$work/vf" $pre/gdn_forward_vm.mlir.in
"$kv" -b "$work/vf" -t f16 --flags --prep-regs 104 "$work/vf104" $pre/gdn_prefill.mlir.in
"$kv" -b "$work/vf" -t f16 --flags --prep-prefetch "$work/vfpf" $pre/gdn_prefill.mlir.in
"$kv" -b "$kernels" -t f16 --no-i64 --forward-regs 136/24/192 "$work/vc" $pre/gdn_forward_vm.mlir.in
"$kv" -b "$kernels" -t f16 --no-i64 --fused 104/200 "$work/vfu" $pre/gdn_forward_vm.mlir.in
# Overlays: drop what equals the build's kernels (and, for the vf-based ones,
# what equals vf, whose files the calls copy first).
for v in vf vf104 vfpf vc vfu; do
  rm -rf "$work/$v/kernels-cpu"
  for f in "$work/$v"/*; do
    b=${f##*/}
    if cmp -s "$f" "$kernels/$b"; then
      rm "$f"
    elif [[ $v == vf104 || $v == vfpf ]] && cmp -s "$f" "$work/vf/$b"; then
      rm "$f"
    fi
  done
done
tar -C "$work" -cJf "$out/k.tar.xz" vf vf104 vfpf vc vfu
rel=${out#"$root"/}
# The copy step both calls share: each variant a whole kernel directory
# under /tmp/k (build/kernels, then vf for the vf-based ones, then its own).
copy='mkdir -p /tmp/ov && tar -C /tmp/ov -xJf '"$rel"'/k.tar.xz
for v in vf vf104 vfpf vc vfu; do d=/tmp/k/$v; mkdir -p $d; cp build/kernels/*.ptx build/kernels/*.manifest $d/; case $v in vc|vfu) ;; *) cp /tmp/ov/vf/* $d/;; esac; cp /tmp/ov/$v/* $d/; done'
cat > "$out/call1.sh" <<EOF
#!/usr/bin/env bash
# Written by tools/flags-calls.sh: bit identity of the flags variant, then
# the bench beside TileOps (docs/perf-notes.md v43-v45).
set -u
$copy
SHAPES=8x4096x16,1x131072x16 tools/gpu-check.sh --ident /tmp/k/vf --peers .peers --peers-with TileOps --shapes "8 4096 16;1 131072 16" --rounds 2 --bench main=new:build/kernels --bench flags=new:/tmp/k/vf --bench flags104=new:/tmp/k/vf104 --bench flagspf=new:/tmp/k/vfpf --bench ovl=new:/tmp/k/vc::--overlap-stages --bench fused=new:/tmp/k/vfu
EOF
cat > "$out/call2.sh" <<EOF
#!/usr/bin/env bash
# Written by tools/flags-calls.sh: the GPU suite on the flags variant.
set -u
$copy
tools/gpu-check.sh --suite --suite-kernels /tmp/k/vf
EOF
chmod +x "$out/call1.sh" "$out/call2.sh"
echo "flags-calls.sh: $rel/k.tar.xz ($(du -k "$out/k.tar.xz" | cut -f1) KiB), $rel/call1.sh, $rel/call2.sh"
