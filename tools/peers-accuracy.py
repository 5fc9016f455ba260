#!/usr/bin/env python3
#===- peers-accuracy.py - the peers' accuracy on gdn-run's input families -===#
#
# usage: peers-accuracy.py --kit DIR [--families F,F,...] [--shape BxTxH]
#                          [--dtype f16|bf16] [--peers NAME,NAME] [--seed S]
#
# Runs the public GDN prefill implementations of the peers kit (DIR: the
# kit's folder, e.g. .peers/, git-ignored; TileOps 0.1.0 and FlashQLA 0.1.3)
# on the recipes of gdn-run's --family inputs and prints, per peer and
# family, the relative L2 error of o and of the final state against an fp64
# token recurrence (tools/bench-coldstart.py's, in torch on the GPU), and
# whether o is finite:
#   ACC <peer> <BxTxH> <dtype> <family> o_rel <e> ht_rel <e> finite <bool>
# Families (q, v ~ N(0,1), q L2-normalized, scale DK^-1/2, no initial state,
# as tools/gdn-run/GdnInputs.h defines them; the random streams differ from
# gdn-run's, so the numbers compare as distributions, not bits):
#   weak       k N(0,1) normalized, beta = sigmoid(N(0,1)), g ~ U(-0.02, 0)
#   nodecay    as weak, g = 0
#   beta1      as weak, beta = 1
#   collinear  per key head one direction u ~ N(0,1), k = u + 0.05 N(0,1)
#              normalized, beta = 1, g = 0
# The kit's site packages are unpacked to /tmp/peers-site and its TileLang
# cache to /tmp/tlcache (as its run-peers.sh does) unless already there;
# the anchor shapes in f16 are precompiled there, other shapes and bf16
# compile on first use (15-60 s each). Exit status 0 when every peer ran,
# 1 otherwise (errors are printed as "ACC <peer> ... ERROR ...").
# docs/perf-notes.md v54 item 4 has the collinear results.
#===----------------------------------------------------------------------===#
import argparse
import glob
import importlib.util
import os
import sys
import tarfile
import zipfile

FAMILIES = ("weak", "nodecay", "beta1", "collinear")
PEERS = ("TileOps", "FlashQLA")


def parse_args():
    ap = argparse.ArgumentParser(
        description="the peers' accuracy on gdn-run's input families "
        "(see the header)")
    ap.add_argument("--kit", required=True, help="the peers kit's folder")
    ap.add_argument("--families", default="weak,collinear")
    ap.add_argument("--shape", default="8x4096x16", help="BxTxH")
    ap.add_argument("--dtype", choices=("f16", "bf16"), default="f16")
    ap.add_argument("--peers", default="TileOps,FlashQLA")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    args.families = args.families.split(",")
    for f in args.families:
        if f not in FAMILIES:
            ap.error("--families: unknown family '%s' (known: %s)" %
                     (f, ", ".join(FAMILIES)))
    args.peers = args.peers.split(",")
    for p in args.peers:
        if p not in PEERS:
            ap.error("--peers: '%s' is not one of %s" % (p, ", ".join(PEERS)))
    try:
        args.B, args.T, args.H = (int(x) for x in args.shape.split("x"))
        if min(args.B, args.T, args.H) < 1:
            raise ValueError
    except ValueError:
        ap.error("--shape %s is not BxTxH (positive)" % args.shape)
    if not os.path.isfile(os.path.join(args.kit, "site.tar.xz")):
        ap.error("--kit %s holds no site.tar.xz (not the peers kit)" %
                 args.kit)
    return args


def unpack(kit):
    site = "/tmp/peers-site"
    if not os.path.exists(os.path.join(site, ".ok")):
        os.makedirs(site, exist_ok=True)
        with tarfile.open(os.path.join(kit, "site.tar.xz")) as t:
            t.extractall(site)
        with tarfile.open(os.path.join(kit, "hip.tgz")) as t:
            t.extractall(site)
        for whl in glob.glob(os.path.join(kit, "fla_core-*.whl")):
            zipfile.ZipFile(whl).extractall(site)
        with tarfile.open(os.path.join(kit, "tlcache.tgz")) as t:
            t.extractall("/tmp")
        open(os.path.join(site, ".ok"), "w").close()
    sys.path.insert(0, site)
    # As run-peers.sh: for anything the peers start in a subprocess too.
    os.environ["PYTHONPATH"] = site + (
        ":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
    os.environ.setdefault("TILELANG_CACHE_DIR", "/tmp/tlcache")


def main():
    args = parse_args()
    unpack(args.kit)
    import torch
    import torch.nn.functional as F

    dev = "cuda"
    dt = torch.float16 if args.dtype == "f16" else torch.bfloat16
    peers = {}
    try:
        if "TileOps" in args.peers:
            from tileops.linear_attention import GDNFwdOp
            ops = {}

            def tileops(q, k, v, g, b, sc):
                op = ops.setdefault(sc, GDNFwdOp(scale=sc))
                return op(q, k, v, g.to(q.dtype), b, initial_state=None)
            peers["TileOps"] = tileops
        if "FlashQLA" in args.peers:
            import flash_qla

            def flashqla(q, k, v, g, b, sc):
                return flash_qla.chunk_gated_delta_rule(
                    q=q, k=k, v=v, g=g, beta=b, scale=sc, initial_state=None,
                    output_final_state=True)
            peers["FlashQLA"] = flashqla
    except Exception as e:  # a broken kit: say which import failed
        print("peers-accuracy.py: importing the peers failed: %r" % e)
        return 1

    B, T, H, D = args.B, args.T, args.H, 128
    sc = D ** -0.5
    # The fp64 token recurrence of tools/bench-coldstart.py (on the GPU).
    spec = importlib.util.spec_from_file_location(
        "bench_coldstart",
        os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "bench-coldstart.py"))
    coldstart = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(coldstart)
    gen = torch.Generator(device=dev).manual_seed(args.seed)

    def randn(*shape):
        return torch.randn(*shape, device=dev, generator=gen,
                           dtype=torch.float32)

    def rel(a, b):
        a, b = a.double(), b.double()
        return (torch.linalg.norm(a - b) / torch.linalg.norm(b)).item()

    status = 0
    shape = "%dx%dx%d" % (B, T, H)
    for fam in args.families:
        q = F.normalize(randn(B, T, H, D), dim=-1).to(dt)
        if fam == "collinear":
            k = F.normalize(randn(1, 1, H, D) + 0.05 * randn(B, T, H, D),
                            dim=-1).to(dt)
        else:
            k = F.normalize(randn(B, T, H, D), dim=-1).to(dt)
        v = randn(B, T, H, D).to(dt)
        if fam in ("beta1", "collinear"):
            beta = torch.ones(B, T, H, device=dev).to(dt)
        else:
            beta = torch.sigmoid(randn(B, T, H)).to(dt)
        if fam in ("nodecay", "collinear"):
            g = torch.zeros(B, T, H, device=dev)
        else:
            g = -0.02 * torch.rand(B, T, H, device=dev, generator=gen)
        ro, rs = coldstart.reference(q, k, v, g, beta, sc, None, None)
        for name, fn in peers.items():
            try:
                o, ht = fn(q, k, v, g, beta, sc)
                torch.cuda.synchronize()
                print("ACC %-9s %s %-4s %-9s o_rel %.3e ht_rel %.3e finite %s"
                      % (name, shape, args.dtype, fam, rel(o, ro), rel(ht, rs),
                         bool(torch.isfinite(o).all())), flush=True)
            except Exception as e:
                status = 1
                print("ACC %-9s %s %-4s %-9s ERROR %s" %
                      (name, shape, args.dtype, fam, repr(e)[:300]),
                      flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
