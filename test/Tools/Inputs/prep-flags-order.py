#!/usr/bin/env python3
"""Runs the flags prep's item order (kernels/gdn_prefill/gdn_prep_flags.mlir.inc:
the kernel's block between `// ORDER {` and `// } ORDER`, and
@gdn_prep_flags_item) on the CPU and checks it.

usage: prep-flags-order.py INC MLIR_OPT MLIR_CPU_RUNNER C_RUNNER_UTILS

The MLIR text is taken from INC as it is; only the tile ops it uses to read
memory and its block index become their memref / loop equivalents
(tile.view of cp_bounds -> the memref argument, tile.load -> memref.load,
tile.program_id / tile.num_programs -> a loop over the blocks). For every
problem below, every block's items are printed by the compiled code; the
checks:
  * every (chunk, value head) item of the problem exactly once, with its
    packed chunk index, sequence and first token as the forward computes
    them, and distinct ready-flag slots (floor(token / 64) + sequence);
  * the grid is the manifest's (meta.grid of the include, evaluated here);
  * phase A (a block's first ita items) is exactly the chunks the CP
    summaries read first: the last min(32, m) chunks of each segment that
    is not its sequence's last (all of them with cp_theta <= 0), only
    equal-length sequences; blocks past HV * NS take only phase A;
  * phase B walks the chunk's position in its segment in order (the
    replay's order), per block.
The segmentation is the runtime's (lib/Runtime/GdnCp.cpp: sequence n of nc_n
chunks gets max(1, ceil(nc_n / m)) segments, m chunks each but the last).
"""
import re
import subprocess
import sys
import tempfile


def cdiv(a, b):
    return -(-a // b)


def extract(src):
    m = re.search(r"\n *// ORDER \{[^\n]*\n(.*?)\n *// \} ORDER\n", src, re.S)
    if not m:
        sys.exit("no '// ORDER {' ... '// } ORDER' block")
    setup = m.group(1)
    k = src.find("  func.func private @gdn_prep_flags_item(")
    if k < 0:
        sys.exit("no @gdn_prep_flags_item")
    item = src[k:src.find("\n  }\n", k) + len("\n  }\n")]
    call = re.search(r"(%valid, [^\n]*= func\.call @gdn_prep_flags_item\([^\n]*\)\n"
                     r"\s*: [^\n]*)\n", src)
    if not call:
        sys.exit("no call of @gdn_prep_flags_item")
    grid = re.search(r'grid = "([^"]*)"', src).group(1)
    return setup, item, call.group(1), grid


def to_memref(text):
    text = text.replace("!tile.buffer<?xi32, global>", "memref<?xi32>")
    text = re.sub(r"tile\.load (%\w+\[%\w+\]) : memref<\?xi32>",
                  r"memref.load \1 : memref<?xi32>", text)
    return text


def problems():
    # (B, T, HV, m, theta, cu_seqlens or None)
    return [
        (1, 64 * 300, 2, 64, 14.0, None),   # 5 segments: phase A = 32 chunks
        (1, 64 * 300, 2, 64, 0.0, None),    # exact summaries: whole segments
        (2, 64 * 70 + 5, 3, 16, 14.0, None),  # m < 32, a short last segment
        (3, 2373, 2, 8, 14.0, None),
        (8, 4096, 2, 0, 14.0, None),        # the direct path: one segment each
        (4, 1, 2, 0, 14.0, None),           # T < 64
        (2, 640, 2, 2, 14.0, None),
        (1, 5000, 2, 4, 14.0, [0, 1, 1, 700, 4097, 5000]),  # varlen, empty
        (1, 3000, 3, 0, 14.0, [0, 64, 65, 3000]),
    ]


def segmentation(cu, m):
    bounds, seq = [], []
    for n in range(len(cu) - 1):
        nc = cdiv(cu[n + 1] - cu[n], 64)
        s = max(1, cdiv(nc, m)) if m > 0 else 1
        for k in range(s):
            bounds.append(cu[n] + k * m * 64 if m > 0 else cu[n])
            seq.append(n)
    bounds.append(cu[-1])
    return bounds, seq


def harness(setup, item, call, grid, shapes):
    lines = ["module {", to_memref(item)]
    body = to_memref(setup)
    body = body.replace("tile.view %pcb[%ns1] : !tile.ptr<i32> -> memref<?xi32>",
                        "memref.cast %pcb : memref<?xi32> to memref<?xi32>")
    # The block index and the grid: the harness's loop and argument.
    body, n1 = re.subn(r"\n *%first = tile\.program_id x\n", "\n", body)
    body, n2 = re.subn(r"\n *%stride = tile\.num_programs x\n", "\n", body)
    if (n1, n2) != (1, 1):
        sys.exit("the ORDER block does not define %first = tile.program_id x "
                 "and %stride = tile.num_programs x once each")
    if "tile." in body:
        sys.exit("the ORDER block uses tile ops the harness does not model: " +
                 ", ".join(sorted(set(re.findall(r"tile\.\w+", body)))))
    lines.append('''  func.func @order(%NS: i32, %varlen: i1, %theta: f32, %pcb: memref<?xi32>,
                   %cm: memref<?xi32>, %n: index, %nct: index, %nt: index,
                   %hvs: index, %t: index, %stride: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %first = %c0 to %stride step %c1 {''')
    lines.append(body)
    lines.append('''    scf.for %i = %c0 to %its step %c1 {
      ''' + to_memref(call) + '''
      %vi = arith.select %valid, %c1, %c0 : index''')
    # Nine numbers per item, one per line (vector.print of a scalar).
    for v in ["%first", "%i", "%ita", "%vi", "%cid", "%seq", "%tok", "%hv", "%pb"]:
        lines.append("      %%o_%s = arith.index_cast %s : index to i64" % (v[1:], v))
        lines.append("      vector.print %%o_%s : i64" % v[1:])
    lines.append('''    }
    }
    return
  }''')
    lines.append("  func.func @main() {")
    for p, (B, T, HV, m, theta, cu) in enumerate(shapes):
        if cu is None:
            cu = [b * T for b in range(B + 1)]
            varlen = 0
        else:
            varlen = 1
        N = len(cu) - 1
        bounds, seq = segmentation(cu, m)
        cmap = []
        for n in range(N):
            for lc in range(cdiv(cu[n + 1] - cu[n], 64)):
                cmap += [n, lc, cu[n], cu[n + 1]]
        NT = len(cmap) // 4
        NS = len(seq)
        env = {"HV": HV, "NS": NS, "N": N, "NT": NT, "varlen": varlen,
               "B": B, "T": T, "min": min, "cdiv": cdiv}
        if not grid.endswith(",1,1"):
            sys.exit("meta.grid %s: expected X,1,1" % grid)
        G = eval(grid[:-len(",1,1")], {"__builtins__": {}}, env)
        shapes[p] = (B, T, HV, m, theta, cu, varlen, bounds, seq, cmap, G)
        tt = cu[-1]
        lines.append("    %%p%d_pcb = memref.alloc() : memref<%dxi32>" % (p, len(bounds)))
        for j, v in enumerate(bounds):
            lines.append("    %%p%d_b%d = arith.constant %d : i32" % (p, j, v))
            lines.append("    %%p%d_i%d = arith.constant %d : index" % (p, j, j))
            lines.append("    memref.store %%p%d_b%d, %%p%d_pcb[%%p%d_i%d] : memref<%dxi32>"
                         % (p, j, p, p, j, len(bounds)))
        size = max(len(cmap), 4 * tt, 1)
        lines.append("    %%p%d_cm = memref.alloc() : memref<%dxi32>" % (p, size))
        for j, v in enumerate(cmap):
            lines.append("    %%p%d_c%d = arith.constant %d : i32" % (p, j, v))
            lines.append("    %%p%d_j%d = arith.constant %d : index" % (p, j, j))
            lines.append("    memref.store %%p%d_c%d, %%p%d_cm[%%p%d_j%d] : memref<%dxi32>"
                         % (p, j, p, p, j, size))
        lines.append("    %%p%d_pcbd = memref.cast %%p%d_pcb : memref<%dxi32> to memref<?xi32>"
                     % (p, p, len(bounds)))
        lines.append("    %%p%d_cmd = memref.cast %%p%d_cm : memref<%dxi32> to memref<?xi32>"
                     % (p, p, size))
        consts = [("NS", "i32", NS), ("varlen", "i1", varlen), ("n", "index", N),
                  ("nct", "index", cdiv(T, 64)), ("nt", "index", NT),
                  ("hvs", "index", HV), ("t", "index", T), ("g", "index", G)]
        for name, ty, v in consts:
            lines.append("    %%p%d_%s = arith.constant %d : %s" % (p, name, v, ty))
        lines.append("    %%p%d_theta = arith.constant %s : f32" % (p, repr(float(theta))))
        lines.append("    func.call @order(%%p%d_NS, %%p%d_varlen, %%p%d_theta, %%p%d_pcbd, "
                     "%%p%d_cmd, %%p%d_n, %%p%d_nct, %%p%d_nt, %%p%d_hvs, %%p%d_t, %%p%d_g) : "
                     "(i32, i1, f32, memref<?xi32>, memref<?xi32>, index, index, index, "
                     "index, index, index) -> ()" % ((p,) * 11))
        lines.append("    %%p%d_end = arith.constant -1 : i64" % p)
        lines.append("    vector.print %%p%d_end : i64" % p)
    lines.append("    return")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines)


def check(shape, rows):
    B, T, HV, m, theta, cu, varlen, bounds, seq, cmap, G = shape
    name = "B=%d T=%d HV=%d m=%d theta=%g%s" % (B, T, HV, m, theta,
                                                " cu=%s" % cu if varlen else "")
    fail = lambda why: sys.exit("FAIL %s: %s" % (name, why))
    N = len(cu) - 1
    nchunks = [cdiv(cu[n + 1] - cu[n], 64) for n in range(N)]
    first_cid = [sum(nchunks[:n]) for n in range(N)]
    NS = len(seq)
    # Segments per sequence, segment size, phase A's window (equal length).
    S = NS // N
    mm = m if (m > 0 and S > 1) else cdiv(T, 64)
    win = min(mm, 32) if theta > 0 else mm
    blocks = {r[0] for r in rows}
    if blocks - set(range(G)):
        fail("blocks %s outside the grid %d" % (sorted(blocks - set(range(G))), G))
    seen = {}
    slots = set()
    for (b, i, ita, valid, cid, sq, tok, hv, pb) in rows:
        if not valid:
            continue
        if not (0 <= sq < N and 0 <= hv < HV):
            fail("item (%d, %d): sequence %d / head %d out of range" % (b, i, sq, hv))
        lc = (tok - cu[sq]) // 64
        if tok != cu[sq] + 64 * lc or not 0 <= lc < nchunks[sq]:
            fail("item (%d, %d): token %d is no chunk of sequence %d" % (b, i, tok, sq))
        if cid != first_cid[sq] + lc:
            fail("item (%d, %d): packed chunk %d, expected %d" % (b, i, cid, first_cid[sq] + lc))
        key = (sq, lc, hv)
        if key in seen:
            fail("chunk %s twice: %s and %s" % (key, seen[key], (b, i)))
        seen[key] = (b, i)
        slots.add((tok // 64 + sq, hv))
        in_a = False
        if not varlen and S > 1:
            seg, p = lc // mm, lc % mm
            in_a = seg < S - 1 and p >= mm - win
        if (i < ita) != in_a:
            fail("chunk %s: phase %s, expected %s" % (key, "A" if i < ita else "B",
                                                       "A" if in_a else "B"))
        if i >= ita and b >= pb:
            fail("block %d >= PB = %d takes phase-B item %s" % (b, pb, key))
    if len(seen) != sum(nchunks) * HV:
        fail("%d items, expected %d" % (len(seen), sum(nchunks) * HV))
    if len(slots) != len(seen):
        fail("ready-flag slots collide")
    if not varlen:
        for b in blocks:
            ps = [(((r[6] - cu[r[5]]) // 64) % mm) for r in rows
                  if r[0] == b and r[3] and r[1] >= r[2]]
            if ps != sorted(ps):
                fail("block %d: phase B positions out of order: %s" % (b, ps))
    print("ok %s: grid %d, %d items, %d in phase A" % (
        name, G, len(seen), sum(1 for r in rows if r[3] and r[1] < r[2])))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().split("\n\n")[1])
    inc, mlir_opt, runner, utils = sys.argv[1:]
    setup, item, call, grid = extract(open(inc).read())
    shapes = problems()
    text = harness(setup, item, call, grid, shapes)
    with tempfile.TemporaryDirectory() as d:
        src = d + "/order.mlir"
        open(src, "w").write(text)
        low = subprocess.run(
            [mlir_opt, src, "--arith-expand", "--convert-scf-to-cf",
             "--expand-strided-metadata", "--finalize-memref-to-llvm",
             "--convert-arith-to-llvm", "--convert-index-to-llvm",
             "--convert-vector-to-llvm", "--convert-cf-to-llvm",
             "--convert-func-to-llvm", "--reconcile-unrealized-casts",
             "-o", d + "/order.ll.mlir"], capture_output=True, text=True)
        if low.returncode:
            sys.exit("mlir-opt failed:\n" + low.stderr[-3000:])
        run = subprocess.run([runner, d + "/order.ll.mlir", "-e", "main",
                              "-entry-point-result=void",
                              "-shared-libs=" + utils],
                             capture_output=True, text=True)
        if run.returncode:
            sys.exit("mlir-cpu-runner failed:\n" + run.stderr[-3000:])
    rows, p, item = [], 0, []
    for line in run.stdout.split():
        v = int(line)
        if v == -1 and not item:  # the end of a problem (no item prints -1)
            check(shapes[p], rows)
            rows, p = [], p + 1
            continue
        item.append(v)
        if len(item) == 9:
            rows.append(tuple(item))
            item = []
    if p != len(shapes) or item:
        sys.exit("FAIL: %d of %d problems printed" % (p, len(shapes)))
