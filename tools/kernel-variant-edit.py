#!/usr/bin/env python3
#===- kernel-variant-edit.py - template edits of tools/kernel-variant.sh ---===#
#
# usage: kernel-variant-edit.py forward-regs FILE MAX P C [--flags]
#        kernel-variant-edit.py prep-flags FILE INC [REGS] [--prefetch]
#        kernel-variant-edit.py prep-regs FILE REGS
#        kernel-variant-edit.py prep-overlap FILE MODE
#        kernel-variant-edit.py step-gate-factors FILE
#        kernel-variant-edit.py fused-ablate FILE MODE
#        kernel-variant-edit.py fused-async FILE
#
# Edits an include-expanded kernel template (FILE, in place) for
# tools/kernel-variant.sh; every edit checks that the text it changes is the
# text it expects and fails with a message naming what it did not find.
#
# forward-regs (gdn_forward_vm): the direct forward kernel
# @gdn_chunk_fwd_vm128_@DT@ capped at MAX registers per thread
# (tile.max_registers) with P / C registers for its producer / consumer
# warpgroups, and LLVM's LICM off in the tile.for of the chunk loop it calls.
# With --flags that kernel first becomes the one that runs beside the prep
# (tools/kernel-variant.sh --flags): it takes the prep's ready flags
# (parameter `ready`), is launched before the prep completes
# (tile.grid_dependency = "flags") and calls a copy of its body (each
# kernel, plain or refined, calls a body with a constant %refine; the copy,
# @..._body_@DT@_flags, takes the flags) that calls
# @gdn_chunk_loop_vm_flags_@DT@,
# a copy of @gdn_chunk_loop_vm_@DT@ whose loop first waits (tile.flag_wait,
# which tile-pipeline issues with the chunk's TMA loads) for the flag of
# (chunk, value head) and of (chunk, first value head of its q/k group: the
# one that writes the normalized q / k rows), slot = floor(first token / 64)
# + sequence as gdn_prep_flags.mlir.inc releases them. The CP kernels
# wait too, at the same registers: @gdn_cp_summary_vm128_@DT@ is launched
# before the prep completes (tile.grid_dependency = "flags"), calls the
# flagged loop for B and M, and searches its guarded warm-up window with
# @gdn_cp_window_flags, a copy of @gdn_cp_window whose walk first waits, per
# round, for the flags of the chunks the round reads;
# @gdn_cp_replay_vm128_@DT@ waits for the scan's grid and for each chunk's
# flags (tile.grid_dependency = "wait_and_flags") and calls the flagged
# loop. The three refined kernels then wait at entry (the unit attribute,
# not the bundle's "deferred"): beside such plain kernels the prep may
# still be writing the alike flags their exiting blocks read.
#
# step-gate-factors (gdn_forward_vm): @gdn_chunk_step_vm_@DT@'s map of the
# chunk's shifted gate exponents (under %shift: the forward, the CP
# summary and replay; not the fused kernel) also forms the W, o and V_new
# maps' column factors 2^a scale, 2^(gamma_L log2e - b) and 2^c into three
# shared vectors (tile.alloc no_reuse), and those maps load them instead
# of exponentiating per element, with the same arguments (same bits;
# docs/perf-notes.md v78; v51 measured an older form).
#
# fused-ablate (gdn_forward_vm): TIMING ONLY, the results are wrong. The
# fused kernel's producer task (@gdn_chunk_loop_fused_@DT@'s
# tile.producer_task) without part of its work, to see what that part
# costs the fused stage (docs/perf-notes.md v74): MODE `map`, the solve's
# factored Ag map yields its input (no gates); `handoff`, that and no copy
# of Ag to the hand-off ring (so no copy of the inverse into registers
# either); `task`, no Gram, gamma, solve or hand-off (the task only waits
# and arrives: the consumers alone); `skipN` (N >= 2), the task skips the
# Gram, gamma and solve of every N-th chunk of a sequence (c mod N = N - 1:
# the fused side of a prep kernel that would form those chunks' Ag); `step`,
# the consumers without their chunk step (they only wait for the task's
# slot and release it: the task alone, its chain without the consumers'
# wgmma on the SM's tensor cores; docs/perf-notes.md v76).
#
# fused-async (gdn_forward_vm): the fused kernel @gdn_chunk_fused_vm128_@DT@
# marked tile.async_gemm (tile-async-gemm schedules its consumers' gemms as
# well as its task's), and @gdn_chunk_step_vm_@DT@ reordered so that the
# overlap has work to hide: P's product first, then S rounded to 16 bits
# and K S issued, P's map under K S, the W map, then Q S and W Ag issued
# together and o's map under W Ag (docs/perf-notes.md v75). The same
# products on the same operands: bit-identical results. The step is
# shared, so the module's other kernels run it in the new order too,
# synchronously (they carry no tile.async_gemm).
#
# prep-flags (gdn_prefill): @gdn_chunk_prep_k_@DT@ replaced by the kernel of
# INC (gdn_prep_flags.mlir.inc), with REGS registers per thread
# (tile.max_registers) instead of the include's; the include's block
# between the lines `// PREFETCH {` and `// } PREFETCH` (the next item's
# L2 prefetch) stays only with --prefetch.
#===----------------------------------------------------------------------===#
import re
import sys

FWD = "  func.func @gdn_chunk_fwd_vm128_@DT@("
SUMMARY = "  func.func @gdn_cp_summary_vm128_@DT@("
REPLAY = "  func.func @gdn_cp_replay_vm128_@DT@("
LOOP = "  func.func private @gdn_chunk_loop_vm_@DT@("
FLAGS_LOOP = "@gdn_chunk_loop_vm_flags_@DT@"
WINDOW = "  func.func private @gdn_cp_window("
FLAGS_WINDOW = "@gdn_cp_window_flags"
LOOP_TYPES = ("index, index, index, index, index, index, index, index, f32, f32, "
              "i1, i1, i1) -> ()")
# The kernels' bodies (each kernel, plain or refined, calls its body with
# %refine; docs/gdn-math.md §6.8): the flagged kernels call a copy.
BODIES = {FWD: "@gdn_chunk_fwd_vm_body_@DT@",
          SUMMARY: "@gdn_cp_summary_vm_body_@DT@",
          REPLAY: "@gdn_cp_replay_vm_body_@DT@"}


def fail(what, why):
    sys.exit("kernel-variant.sh: %s: %s" % (what, why))


def function(s, head, what):
    """[start, end) of the function that starts with `head` (to its closing
    two-space brace line)."""
    k = s.find(head)
    if k < 0:
        fail(what, "no %s in the template" % head.strip().rstrip("("))
    end = s.find("\n  }\n", k)
    if end < 0:
        fail(what, "%s does not end with a line '  }'" % head.strip())
    return k, end + len("\n  }\n")


def replace_once(text, old, new, what, where):
    n = text.count(old)
    if n != 1:
        fail(what, "expected one '%s' in %s, found %d" % (old, where, n))
    return text.replace(old, new)


def annotate_loop(s, head, what):
    """LICM off on the one tile.for of the function that starts with
    `head`: the annotation on its closing brace."""
    k, end = function(s, head, what)
    lines = s[k:end].split("\n")
    loops = [i for i, l in enumerate(lines) if l.lstrip().startswith("tile.for ")]
    if len(loops) != 1:
        fail(what, "%s has %d tile.for loops, not one" % (head.strip(), len(loops)))
    line = lines[loops[0]]
    indent = line[:len(line) - len(line.lstrip())]
    close = next((i for i in range(loops[0] + 1, len(lines))
                  if lines[i].startswith(indent + "}")), None)
    if close is None or lines[close] != indent + "}":
        fail(what, "the tile.for of %s does not end with a lone '}' (it has "
             "attributes already?)" % head.strip())
    lines[close] = indent + "} {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}"
    return s[:k] + "\n".join(lines) + s[end:]


def flags_forward(s):
    what = "--flags"
    # The loop: a copy that waits for the chunk's flags.
    k, end = function(s, LOOP, what)
    loop = s[k:end]
    loop = replace_once(loop, "@gdn_chunk_loop_vm_@DT@(", FLAGS_LOOP + "(",
                        what, "@gdn_chunk_loop_vm_@DT@")
    loop = replace_once(loop, "%vscale: f32, %with_o: i1, %refine: i1, %qkn: i1) {",
                        "%vscale: f32, %with_o: i1, %refine: i1, %qkn: i1,\n"
                        "      %pready: !tile.ptr<i32>, %seq: index) {", what,
                        "its signature")
    m = re.search(r"\n(    )tile\.for %c = %c0 to %nch step %c1 stages 2 \{\n"
                  r"(      )%t0 = arith\.muli %c, %c64 : index\n", loop)
    if not m:
        fail(what, "@gdn_chunk_loop_vm_@DT@'s loop does not start with "
             "'tile.for %c = %c0 to %nch step %c1 stages 2 {' and "
             "'%t0 = arith.muli %c, %c64 : index'")
    pre = (
        "\n    // Ready flags of the prep beside this kernel: slot = floor(first\n"
        "    // token / 64) + sequence, one flag per value head.\n"
        "    %fl_one = arith.constant 1 : i32\n"
        "    %fl_s0 = arith.ceildivui %tt, %c64 : index\n"
        "    %fl_s1 = arith.addi %fl_s0, %seq : index\n"
        "    %fl_s2 = arith.addi %fl_s1, %c1 : index\n"
        "    %fl_n = arith.muli %fl_s2, %hvs : index\n"
        "    %fl_ready = tile.view %pready[%fl_n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>\n"
        "    %fl_group = arith.divui %hvs, %h : index\n"
        "    %fl_off = arith.remui %hv, %fl_group : index\n"
        "    %fl_lead = arith.subi %hv, %fl_off : index")
    wait = (
        "      %fl_tok = arith.addi %bos, %t0 : index\n"
        "      %fl_ts = arith.divui %fl_tok, %c64 : index\n"
        "      %fl_slot = arith.addi %fl_ts, %seq : index\n"
        "      %fl_sh = arith.muli %fl_slot, %hvs : index\n"
        "      %fl_i = arith.addi %fl_sh, %hv : index\n"
        "      %fl_j = arith.addi %fl_sh, %fl_lead : index\n"
        "      tile.flag_wait %fl_ready[%fl_i], %fl_one : !tile.buffer<?xi32, global>\n"
        "      tile.flag_wait %fl_ready[%fl_j], %fl_one : !tile.buffer<?xi32, global>\n")
    loop = loop[:m.start()] + pre + m.group(0) + wait + loop[m.end():]
    s = s[:end] + "\n" + loop + s[end:]
    # The kernel: the flags, launched beside the prep, the flagged loop
    # (in a copy of its body).
    body = flagged_body(s, FWD, what)
    kern = body.replace("func.call @gdn_chunk_loop_vm_@DT@(",
                        "func.call " + FLAGS_LOOP + "(")
    kern = replace_once(kern, "%scale, %one, %true, %refine, %qkn)",
                        "%scale, %one, %true, %refine, %qkn, %pready, %seq)", what,
                        "its call of the chunk loop")
    kern = replace_once(kern, "f32, f32, i1, i1, i1) -> ()",
                        "f32, f32, i1, i1, i1, !tile.ptr<i32>, index) -> ()", what,
                        "its call of the chunk loop")
    return call_flagged_body(insert_after_body(s, FWD, kern, what), FWD,
                             "flags", what)


def flagged_body(s, head, what):
    """A copy of the body of kernel `head` (BODIES) named with _flags, with
    one more parameter, %pready (the prep's ready flags)."""
    name = BODIES[head]
    k, end = function(s, "  func.func private " + name + "(", what)
    body = s[k:end]
    body = replace_once(body, name + "(", name + "_flags(", what, name)
    return replace_once(body, "%qkl2: i32) {",
                        "%qkl2: i32, %pready: !tile.ptr<i32>) {", what,
                        name + "'s signature")


def insert_after_body(s, head, text, what):
    """`text` (a function) inserted after the body of kernel `head`."""
    _, end = function(s, "  func.func private " + BODIES[head] + "(", what)
    return s[:end] + "\n" + text + s[end:]


def call_flagged_body(s, head, mode, what):
    """Kernel `head` takes the ready flags (parameter `ready`), is launched
    in grid-dependency mode `mode` and calls the _flags copy of its body."""
    name = BODIES[head]
    k, end = function(s, head, what)
    kern = s[k:end]
    kname = head.strip().split()[-1].rstrip("(")
    old = "%qkl2: i32 {tile.name = \"qk_l2norm\"})"
    kern = replace_once(kern, old, old[:-1] + ",\n"
                        "      %pready: !tile.ptr<i32> {tile.name = \"ready\"})",
                        what, kname + "'s parameters")
    kern = replace_once(kern, "tile.kernel, tile.grid_dependency,",
                        "tile.kernel, tile.grid_dependency = \"%s\"," % mode,
                        what, kname + "'s attributes")
    kern = replace_once(kern, "func.call " + name + "(",
                        "func.call " + name + "_flags(", what, kname)
    kern = replace_once(kern, ", %false, %qkl2)\n", ", %false, %qkl2, %pready)\n", what,
                        kname + "'s call of its body")
    kern = replace_once(kern, ", i1, i32) -> ()", ", i1, i32, !tile.ptr<i32>) -> ()",
                        what, kname + "'s call of its body")
    return s[:k] + kern + s[end:]


def flags_window(s):
    """A copy of @gdn_cp_window that waits, before each round of its walk,
    for the flags of the (up to eight) chunks the round reads."""
    what = "--flags"
    k, end = function(s, WINDOW, what)
    win = s[k:end]
    win = replace_once(win, "@gdn_cp_window(", FLAGS_WINDOW + "(", what,
                       "@gdn_cp_window")
    win = replace_once(win, "%theta: f32) -> (index, i1, index) {",
                       "%theta: f32, %pready: !tile.ptr<i32>,\n"
                       "                                   %seq: index) -> (index, i1, index) {",
                       what, "@gdn_cp_window's signature")
    pre = (
        "\n    // Ready flags of the prep: slot = floor(first token / 64) + sequence.\n"
        "    %fl_one = arith.constant 1 : i32\n"
        "    %fl_s0 = arith.ceildivui %tt, %c64 : index\n"
        "    %fl_s1 = arith.addi %fl_s0, %seq : index\n"
        "    %fl_s2 = arith.addi %fl_s1, %c1 : index\n"
        "    %fl_n = arith.muli %fl_s2, %hvs : index\n"
        "    %fl_ready = tile.view %pready[%fl_n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>")
    wait = (
        "\n      // The round's chunks j-1 .. j-8 that exist: their flags first.\n"
        "      scf.for %fk = %c0 to %c8 step %c1 {\n"
        "        %fl_jk = arith.subi %j, %fk : index\n"
        "        %fl_has = arith.cmpi sgt, %fl_jk, %c0 : index\n"
        "        scf.if %fl_has {\n"
        "          %fl_c = arith.subi %fl_jk, %c1 : index\n"
        "          %fl_off = arith.muli %fl_c, %c64 : index\n"
        "          %fl_tok = arith.addi %bos, %fl_off : index\n"
        "          %fl_ts = arith.divui %fl_tok, %c64 : index\n"
        "          %fl_slot = arith.addi %fl_ts, %seq : index\n"
        "          %fl_sh = arith.muli %fl_slot, %hvs : index\n"
        "          %fl_i = arith.addi %fl_sh, %hv : index\n"
        "          tile.flag_wait %fl_ready[%fl_i], %fl_one : !tile.buffer<?xi32, global>\n"
        "        }\n"
        "      }")
    consts = win.find("\n    %full = arith.subi %eos, %bos : index\n")
    if consts < 0:
        fail(what, "@gdn_cp_window has no '%full = arith.subi %eos, %bos : index'")
    win = win[:consts] + pre + win[consts:]
    m = re.search(r"\n      %r:3 = scf\.for %k = %c0 to %c8 step %c1 iter_args", win)
    if not m:
        fail(what, "@gdn_cp_window's walk has no '%r:3 = scf.for %k = %c0 to "
             "%c8 step %c1 iter_args' round")
    win = win[:m.start()] + wait + win[m.start():]
    return s[:end] + "\n" + win + s[end:]


def flags_cp(s):
    """The CP summary and replay beside the prep: the summary launched
    before the prep completes (tile.grid_dependency = "flags"), waiting for
    each chunk's flags in its window search and its chunk loops; the replay
    waiting for the scan's grid and for each chunk's flags
    ("wait_and_flags")."""
    what = "--flags"
    s = flags_window(s)
    for head, name, mode in ((SUMMARY, "@gdn_cp_summary_vm128_@DT@", "flags"),
                             (REPLAY, "@gdn_cp_replay_vm128_@DT@", "wait_and_flags")):
        kern = flagged_body(s, head, what)
        calls = kern.count("func.call @gdn_chunk_loop_vm_@DT@(")
        if calls != (2 if head == SUMMARY else 1):
            fail(what, "%s calls @gdn_chunk_loop_vm_@DT@ %d times" % (name, calls))
        kern = kern.replace("func.call @gdn_chunk_loop_vm_@DT@(",
                            "func.call " + FLAGS_LOOP + "(")
        kern = re.sub(r"(func\.call " + re.escape(FLAGS_LOOP) + r"\([^\n]*)\)\n",
                      r"\1, %pready, %seq)\n", kern)
        n = kern.count(LOOP_TYPES)
        if n != calls:
            fail(what, "%s: expected %d calls of type (..., %s" % (name, calls, LOOP_TYPES))
        kern = kern.replace(LOOP_TYPES, LOOP_TYPES[:-len(") -> ()")] +
                            ", !tile.ptr<i32>, index) -> ()")
        if head == SUMMARY:
            # The plain body's window search (@gdn_cp_window_if, whose %run
            # is true in a plain kernel) becomes the waiting copy's.
            kern = replace_once(
                kern, "func.call @gdn_cp_window_if(%run, %pgam, %pkb, %tt, %hvs, %hv, %bos, %eos, %is_last, %theta)",
                "func.call " + FLAGS_WINDOW + "(%pgam, %pkb, %tt, %hvs, %hv, %bos, %eos, %is_last, %theta, %pready, %seq)",
                what, name + "'s window search")
            kern = replace_once(
                kern, ": (i1, !tile.ptr<f32>, !tile.ptr<f32>, index, index, index, index, index, i1, f32) -> (index, i1, index)",
                ": (!tile.ptr<f32>, !tile.ptr<f32>, index, index, index, index, index, i1, f32, !tile.ptr<i32>, index) -> (index, i1, index)",
                what, name + "'s window search")
        s = call_flagged_body(insert_after_body(s, head, kern, what), head,
                              mode, what)
    return s


def refined_wait_at_entry(s):
    """The refined kernels (tile.grid_dependency = "deferred": an exiting
    block reads the prep's alike flags before any wait) wait at entry
    again (the unit attribute; their body's tile.grid_wait is then a second
    wait): beside a "flags" or "wait_and_flags" plain kernel the prep may
    still be writing those flags when the refined kernel launches."""
    what = "--flags"
    old = 'tile.kernel, tile.grid_dependency = "deferred",'
    if s.count(old) != 3:
        fail(what, "expected three refined kernels with '%s', found %d"
             % (old, s.count(old)))
    return s.replace(old, "tile.kernel, tile.grid_dependency,")


def cap_registers(s, head, cap, p, c, what):
    """Kernel `head` capped at `cap` registers per thread with P / C for its
    producer / consumer warpgroups."""
    k, _ = function(s, head, what)
    body = s.find("\n    %", k)  # the attributes end before the body
    ws = re.compile(r"tile\.warp_specialize = \{producer_registers = \d+ : i64, "
                    r"consumer_registers = \d+ : i64\}")
    m = ws.search(s, k, body)
    name = head.strip().split()[-1].rstrip("(")
    if not m:
        fail(what, "no tile.warp_specialize = {producer_registers = P : i64, "
             "consumer_registers = C : i64} on %s" % name)
    if "tile.max_registers" in s[k:body]:
        fail(what, "%s already has a tile.max_registers" % name)
    return (s[:m.start()] + "tile.max_registers = %s : i64, tile.warp_specialize = "
            "{producer_registers = %s : i64, consumer_registers = %s : i64}" % (cap, p, c)
            + s[m.end():])


def forward_regs(path, cap, p, c, flags):
    s = open(path).read()
    what = "--forward-regs"
    if flags:
        s = refined_wait_at_entry(flags_cp(flags_forward(s)))
    for kernel in (FWD, SUMMARY, REPLAY) if flags else (FWD,):
        s = cap_registers(s, kernel, cap, p, c, what)
    head = ("  func.func private " + FLAGS_LOOP + "(") if flags else LOOP
    s = annotate_loop(s, head, what)
    open(path, "w").write(s)


def prep_flags(path, inc, regs=None, prefetch=False):
    s = open(path).read()
    what = "--flags"
    k, end = function(s, "  func.func @gdn_chunk_prep_k_@DT@(", what)
    kernel = open(inc).read()
    if "func.func @gdn_chunk_prep_k_@DT@(" not in kernel:
        fail(what, "%s has no @gdn_chunk_prep_k_@DT@" % inc)
    m = re.search(r"\n *// PREFETCH \{\n.*?\n *// \} PREFETCH\n", kernel, re.S)
    if not m and prefetch:
        fail("--prep-prefetch",
             "%s has no '// PREFETCH {' ... '// } PREFETCH' block" % inc)
    if not m:
        pass
    elif prefetch:
        kernel = kernel[:m.start()] + "\n" + "\n".join(
            l for l in m.group(0).strip("\n").split("\n")
            if not l.strip().startswith("// PREFETCH {")
            and not l.strip().startswith("// } PREFETCH")) + "\n" + kernel[m.end():]
    else:
        kernel = kernel[:m.start()] + "\n" + kernel[m.end():]
    if regs is not None:
        kernel = cap_prep(kernel, regs, inc)
    s = s[:k] + kernel + s[end:]
    open(path, "w").write(s)


def cap_prep(kernel, regs, where):
    """`kernel` (a prep kernel's text, with one register cap) capped at
    `regs` instead (--prep-regs)."""
    if not (regs.isdigit() and int(regs) % 8 == 0 and 24 <= int(regs) <= 104):
        fail("--prep-regs", "%s: expected a multiple of 8 in [24, 104]" % regs)
    return set_int_attr(kernel, "tile.max_registers", regs, "--prep-regs", where)


def set_int_attr(kernel, attr, value, what, where):
    """`kernel` (a kernel's text) with its one `attr = N : i64` set to
    `value` (fails unless there is exactly one)."""
    found = re.findall(re.escape(attr) + r" = \d+ : i64", kernel)
    if len(found) != 1:
        fail(what, "expected one '%s = N : i64' in %s, found %d"
             % (attr, where, len(found)))
    return kernel.replace(found[0], "%s = %s : i64" % (attr, value))


def prep_regs(path, regs):
    """The bundled prep_k kernel's register cap set to `regs` (no --flags)."""
    s = open(path).read()
    k, end = function(s, "  func.func @gdn_chunk_prep_k_@DT@(", "--prep-regs")
    kernel = cap_prep(s[k:end], regs, "@gdn_chunk_prep_k_@DT@")
    open(path, "w").write(s[:k] + kernel + s[end:])


def prep_overlap(path, mode):
    """The bundled prep_k kernel's tile.overlap_tril_inverse set to `mode`
    (--prep-overlap)."""
    if mode not in ("0", "1", "2"):
        fail("--prep-overlap", "%s: expected 0, 1 or 2" % mode)
    s = open(path).read()
    k, end = function(s, "  func.func @gdn_chunk_prep_k_@DT@(", "--prep-overlap")
    kernel = set_int_attr(s[k:end], "tile.overlap_tril_inverse", mode,
                          "--prep-overlap", "@gdn_chunk_prep_k_@DT@")
    open(path, "w").write(s[:k] + kernel + s[end:])


STEP = "  func.func private @gdn_chunk_step_vm_@DT@("
# The step's shifted exponent vectors (a, b, c: one map per chunk, under
# %shift) and the three column-factor maps that exponentiate them per
# element, as the template writes them, and their replacement: the chunk's
# map also forms the factors Ea = 2^a scale, Eb = 2^(gamma_L log2e - b),
# Ec = 2^c (each the same ex2.approx of the same argument, so the same
# bits), stored to three shared vectors, and the W, o and V_new maps (and
# the refined and overflow maps) load them; c itself is no longer stored.
# The five vectors are allocated no_reuse: laid over P's tile (dead while
# they are live) they would cost two barriers a chunk.
F64 = "!tile.buffer<64xf32, fragment>"
S64 = "!tile.buffer<64xf32, shared>"
GATE_EDITS = (
    ("the exponent vectors", """    %sXa = tile.alloc : {S}
    %sXb = tile.alloc : {S}
    %sXc = tile.alloc : {S}
    scf.if %shift {{
      %xa = tile.alloc : {F}
      %xb = tile.alloc : {F}
      %xc = tile.alloc : {F}
      tile.map indexed ins(%xa : {F}) outs(%xa, %xb, %xc : {F}, {F}, {F}) {{""",
     """    // (--step-gate-factors, tools/kernel-variant-edit.py) And the
    // column factors of the W, o and V_new maps, each the same ex2.approx
    // (and o's product with the scale) of the same argument those maps
    // took per element: Ea = 2^a scale, Eb = 2^(gamma_L log2e - b), Ec =
    // 2^c, once per token and chunk (the same bits). The five vectors keep
    // bytes of their own (no_reuse): laid over P's shared tile, dead while
    // they are live, they cost a barrier a chunk on each side.
    %sXa = tile.alloc {{no_reuse}} : {S}
    %sXb = tile.alloc {{no_reuse}} : {S}
    %sEa = tile.alloc {{no_reuse}} : {S}
    %sEb = tile.alloc {{no_reuse}} : {S}
    %sEc = tile.alloc {{no_reuse}} : {S}
    scf.if %shift {{
      %xa = tile.alloc : {F}
      %xb = tile.alloc : {F}
      %ea = tile.alloc : {F}
      %eb = tile.alloc : {F}
      %ec = tile.alloc : {F}
      tile.map indexed ins(%xa : {F}) outs(%xa, %xb, %ea, %eb, %ec : {F}, {F}, {F}, {F}, {F}) {{"""),
    ("the exponent map's results", """        %c = math.fma %g, %log2e, %lk : f32
        tile.yield %a, %b, %c : f32, f32, f32
      }}
      tile.copy %xa to %sXa : {F} to {S}
      tile.copy %xb to %sXb : {F} to {S}
      tile.copy %xc to %sXc : {F} to {S}
""", """        %c = math.fma %g, %log2e, %lk : f32
        %fa0 = math.exp2 %a : f32
        %fa = arith.mulf %fa0, %scale : f32
        %db = arith.subf %gl2, %b : f32
        %fb = math.exp2 %db : f32
        %fc = math.exp2 %c : f32
        tile.yield %a, %b, %fa, %fb, %fc : f32, f32, f32, f32, f32
      }}
      tile.copy %xa to %sXa : {F} to {S}
      tile.copy %xb to %sXb : {F} to {S}
      tile.copy %ea to %sEa : {F} to {S}
      tile.copy %eb to %sEb : {F} to {S}
      tile.copy %ec to %sEc : {F} to {S}
"""),
    ("the W map", """      %gj2 = scf.if %shift -> (f32) {{
        %cj = tile.load %sXc[%j] : {S}
        scf.yield %cj : f32
      }} else {{
        %jg = arith.addi %j, %goff : index
        %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
        %gjl = arith.mulf %gj, %log2e : f32
        scf.yield %gjl : f32
      }}
      %e = math.exp2 %gj2 : f32
""", """      %e = scf.if %shift -> (f32) {{
        %fj = tile.load %sEc[%j] : {S}
        scf.yield %fj : f32
      }} else {{
        %jg = arith.addi %j, %goff : index
        %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
        %gjl = arith.mulf %gj, %log2e : f32
        %ej = math.exp2 %gjl : f32
        scf.yield %ej : f32
      }}
"""),
    ("the o map", """        %gj2 = scf.if %shift -> (f32) {{
          %aj = tile.load %sXa[%j] : {S}
          scf.yield %aj : f32
        }} else {{
          %jg = arith.addi %j, %goff : index
          %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
          %gjl = arith.mulf %gj, %log2e : f32
          scf.yield %gjl : f32
        }}
        %e = math.exp2 %gj2 : f32
        %es = arith.mulf %e, %scale : f32
""", """        %es = scf.if %shift -> (f32) {{
          %fj = tile.load %sEa[%j] : {S}
          scf.yield %fj : f32
        }} else {{
          %jg = arith.addi %j, %goff : index
          %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
          %gjl = arith.mulf %gj, %log2e : f32
          %ej = math.exp2 %gjl : f32
          %ejs = arith.mulf %ej, %scale : f32
          scf.yield %ejs : f32
        }}
"""),
    ("the overflow map", """        %bj = tile.load %sXb[%j] : {S}
        %d = arith.subf %gl2, %bj : f32
        %e = math.exp2 %d : f32
""", """        %e = tile.load %sEb[%j] : {S}
"""),
)
# The V_new map and the refined step's (two levels deeper): the same edit.
VN_OLD = """{I}%d = scf.if %shift -> (f32) {{
{I}  %bj = tile.load %sXb[%j] : {S}
{I}  %dd = arith.subf %gl2, %bj : f32
{I}  scf.yield %dd : f32
{I}}} else {{
{I}  %jg = arith.addi %j, %goff : index
{I}  %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
{I}  %gj2 = arith.mulf %gj, %log2e fastmath<contract> : f32
{I}  %dd = arith.subf %gl2, %gj2 fastmath<contract> : f32
{I}  scf.yield %dd : f32
{I}}}
{I}%e = math.exp2 %d : f32
"""
VN_NEW = """{I}%e = scf.if %shift -> (f32) {{
{I}  %fj = tile.load %sEb[%j] : {S}
{I}  scf.yield %fj : f32
{I}}} else {{
{I}  %jg = arith.addi %j, %goff : index
{I}  %gj = tile.load %sGam[%jg] : !tile.buffer<96xf32, shared>
{I}  %gj2 = arith.mulf %gj, %log2e fastmath<contract> : f32
{I}  %dd = arith.subf %gl2, %gj2 fastmath<contract> : f32
{I}  %ej = math.exp2 %dd : f32
{I}  scf.yield %ej : f32
{I}}}
"""


def step_gate_factors(path):
    """The chunk step's gate factors once per chunk (--step-gate-factors;
    docs/perf-notes.md v78): @gdn_chunk_step_vm_@DT@'s map of the shifted
    exponents also forms the W, o and V_new maps' column factors into three
    shared vectors, which those maps load instead of exponentiating per
    element (the same bits)."""
    what = "--step-gate-factors"
    s = open(path).read()
    k, end = function(s, STEP, what)
    step = s[k:end]
    where = "@gdn_chunk_step_vm_@DT@"
    for name, old, new in GATE_EDITS:
        step = replace_once(step, old.format(S=S64, F=F64),
                            new.format(S=S64, F=F64), what,
                            name + " of " + where)
    for indent, name in (("      ", "the V_new map"),
                         ("        ", "the refined V' map")):
        step = replace_once(step, VN_OLD.format(I=indent, S=S64),
                            VN_NEW.format(I=indent, S=S64), what,
                            name + " of " + where)
    step = replace_once(step, "so %sXb is this chunk's.)",
                        "so %sEb is this chunk's.)", what, where)
    s = s[:k] + step + s[end:]
    open(path, "w").write(s)


def cut(text, start, stop, what, where):
    """[a, b) of the text from `start` up to `stop` (exclusive)."""
    a = text.find(start)
    b = text.find(stop, a + 1) if a >= 0 else -1
    if a < 0 or b < 0 or text.count(start) != 1:
        fail(what, "expected one '%s' followed by '%s' in %s"
             % (start.split("\n")[-1].strip(), stop.split("\n")[-1].strip(), where))
    return a, b


FUSED_LOOP = "  func.func private @gdn_chunk_loop_fused_@DT@("
SOLVE = "  func.func private @gdn_prep_solve_@DT@("
TASK_WORK = "        %gram = tile.alloc : !tile.buffer<64x64xf32, fragment>\n"
TASK_WAIT = "        tile.mbarrier_wait %empty[%slot], %genp"
HANDOFF = ("        tile.copy %ag to %agd {block_lower = 32 : i64} : "
           "!tile.buffer<64x64xf32, fragment> to "
           "!tile.buffer<64x64x@DT@, shared, #tile.swizzle<64>>\n")
GAMMA_OUT = ("        tile.copy %gf to %gmd[%c0] : !tile.buffer<64xf32, fragment> "
             "to !tile.buffer<96xf32, shared>\n")
GF = ("        %gf = tile.alloc : !tile.buffer<64xf32, fragment>\n"
      "        tile.copy %sG0 to %gf : !tile.buffer<64xf32, shared> to "
      "!tile.buffer<64xf32, fragment>\n")
AG = "        %ag = tile.alloc : !tile.buffer<64x64xf32, fragment>\n"
CONSUMER_STEP = "      func.call @gdn_chunk_step_vm_@DT@("
CONSUMER_RELEASE = "      tile.mbarrier_arrive %empty[%slot]"


def fused_ablate(path, mode):
    """The fused task without part of its work (fused-ablate; timing only)."""
    what = "--fused-ablate " + mode
    m = re.fullmatch(r"map|handoff|task|step|skip([0-9]+)", mode)
    if not m or (m.group(1) is not None and int(m.group(1)) < 2):
        fail(what, "MODE is map, handoff, task, step or skipN with N >= 2")
    s = open(path).read()
    if mode in ("map", "handoff"):
        k, end = function(s, SOLVE, what)
        solve = s[k:end]
        f = solve.find("    scf.if %factored {")
        if f < 0:
            fail(what, "no factored Ag map in @gdn_prep_solve_@DT@")
        y = solve.find("tile.yield %eab : f32", f)
        if y < 0:
            fail(what, "no 'tile.yield %eab : f32' in the factored Ag map")
        solve = solve[:y] + "tile.yield %a : f32" + solve[y + len("tile.yield %eab : f32"):]
        s = s[:k] + solve + s[end:]
    k, end = function(s, FUSED_LOOP, what)
    loop = s[k:end]
    where = "@gdn_chunk_loop_fused_@DT@"
    if mode == "step":
        # The consumers' call of the chunk step (and its type line), up to
        # their release of the slot.
        a, b = cut(loop, CONSUMER_STEP, CONSUMER_RELEASE, what, where)
        loop = loop[:a] + loop[b:]
    if mode in ("handoff", "task"):
        loop = replace_once(loop, HANDOFF, "", what, where)
    if mode == "task" or mode.startswith("skip"):
        # The task's work: from its Gram to its wait for the ring's slot.
        a, b = cut(loop, TASK_WORK, TASK_WAIT, what, where)
    if mode == "task":
        loop = loop[:a] + loop[b:]
        loop = replace_once(loop, GAMMA_OUT, "", what, where)
    if mode.startswith("skip"):
        n = int(mode[4:])
        work = replace_once(loop[a:b], GF, "", what, where)
        work = replace_once(work, AG, "", what, where)
        head = ("        %%skip_n = arith.constant %d : index\n"
                "        %%skip_r = arith.constant %d : index\n"
                "        %%skip_c = arith.remui %%c, %%skip_n : index\n"
                "        %%solve = arith.cmpi ne, %%skip_c, %%skip_r : index\n"
                % (n, n - 1)) + GF + AG + "        scf.if %solve {\n"
        loop = loop[:a] + head + work + "        }\n" + loop[b:]
    s = s[:k] + loop + s[end:]
    open(path, "w").write(s)


FUSED_KERNEL = "  func.func @gdn_chunk_fused_vm128_@DT@("
P_GEMM = "    scf.if %with_o {\n      tile.fill %pf, %zero"
P_MAP = "      tile.map indexed ins(%pf"
S16_KS = "    // ks^T = S^T K^T and o^T = S^T Q^T"
O_GEMM = "    scf.if %with_o {\n      tile.fill %o, %zero"
O_MAP = "    // o^T = scale o^T . exp(gamma)   (P V_new is added below)"
VN_DOC = "    // V_new^T = W^T Ag^T; its 16-bit copy feeds P V_new"
VN_FILL = "    tile.fill %vn, %zero"
VN_GEMM = "tile.gemm %w16, %sAg, %vn"


def fused_async(path):
    """The fused kernel with asynchronous consumer gemms (fused-async)."""
    what = "--fused-async"
    s = open(path).read()
    k, end = function(s, FUSED_KERNEL, what)
    kern = replace_once(s[k:end], "attributes {tile.kernel, ",
                        "attributes {tile.kernel, tile.async_gemm, ",
                        what, "@gdn_chunk_fused_vm128_@DT@")
    s = s[:k] + kern + s[end:]
    k, end = function(s, STEP, what)
    step = s[k:end]
    where = "@gdn_chunk_step_vm_@DT@"
    # P = scale Gamma . Q K^T: its product first, its map after K S.
    a, b = cut(step, P_GEMM, P_MAP, what, where)
    c, d = cut(step, S16_KS, O_GEMM, what, where)
    pgemm, pmap, s16ks = step[a:b] + "    }\n", "    scf.if %with_o {\n" + step[b:c], step[c:d]
    step = step[:a] + pgemm + s16ks + pmap + step[d:]
    # Q S (o's product) beside W Ag, o's map after them.
    a, b = cut(step, O_GEMM, "    }\n", what, where)
    b += len("    }\n")
    ogemm = step[a:b]
    step = step[:a] + step[b:]
    a, b = cut(step, O_MAP, VN_DOC, what, where)
    omap = step[a:b]
    step = step[:a] + step[b:]
    a, b = cut(step, VN_FILL, VN_GEMM, what, where)
    e = step.find("\n", b) + 1
    step = step[:a] + ogemm + step[a:e] + omap + step[e:]
    s = s[:k] + step + s[end:]
    open(path, "w").write(s)


def main(argv):
    if len(argv) >= 6 and argv[1] == "forward-regs" and argv[6:] in ([], ["--flags"]):
        forward_regs(argv[2], argv[3], argv[4], argv[5], argv[6:] == ["--flags"])
    elif len(argv) >= 4 and argv[1] == "prep-flags":
        rest = argv[4:]
        prefetch = "--prefetch" in rest
        rest = [a for a in rest if a != "--prefetch"]
        if len(rest) > 1:
            sys.exit("usage: kernel-variant-edit.py prep-flags FILE INC [REGS] [--prefetch]")
        prep_flags(argv[2], argv[3], rest[0] if rest else None, prefetch)
    elif len(argv) == 4 and argv[1] == "prep-regs":
        prep_regs(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "prep-overlap":
        prep_overlap(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "step-gate-factors":
        step_gate_factors(argv[2])
    elif len(argv) == 4 and argv[1] == "fused-ablate":
        fused_ablate(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "fused-async":
        fused_async(argv[2])
    else:
        sys.exit("usage: kernel-variant-edit.py forward-regs FILE MAX P C [--flags]\n"
                 "       kernel-variant-edit.py prep-flags FILE INC [REGS] [--prefetch]\n"
                 "       kernel-variant-edit.py prep-regs FILE REGS\n"
                 "       kernel-variant-edit.py prep-overlap FILE MODE\n"
                 "       kernel-variant-edit.py step-gate-factors FILE\n"
                 "       kernel-variant-edit.py fused-ablate FILE MODE\n"
                 "       kernel-variant-edit.py fused-async FILE")


if __name__ == "__main__":
    main(sys.argv)
