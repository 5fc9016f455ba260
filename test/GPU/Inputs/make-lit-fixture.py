#!/usr/bin/env python3
"""make-lit-fixture.py OUT LIT_CFG: writes GPU-suite configurations for
lit-config.test, each with a fake gdn-run:

  OUT/<kind>/suite/lit.site.cfg.py   loads LIT_CFG (test/GPU/lit.cfg.py)
  OUT/<kind>/bin/gdn-run             --probe: ok exits 0, nodev exits 77,
                                     crash kills itself with SIGSEGV;
                                     otherwise logs its arguments to
                                     OUT/<kind>/log and prints a passing
                                     summary
  (missing: no bin/gdn-run at all)
"""
import os
import stat
import sys

out, lit_cfg = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
probes = {
    "ok": "exit 0",
    "nodev": "echo 'gdn-run: no CUDA device: the driver reports no devices' >&2; exit 77",
    "crash": "kill -SEGV $$",
    "missing": None,
}
for kind, probe in probes.items():
    root = os.path.join(out, kind)
    for d in ("suite", "bin", "obj"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "suite", "lit.site.cfg.py"), "w") as f:
        f.write("config.gdn_src_root = %r\n" % os.path.dirname(os.path.dirname(os.path.dirname(lit_cfg))))
        f.write("config.gdn_obj_root = %r\n" % os.path.join(root, "obj"))
        f.write("config.gdn_tools_dir = %r\n" % os.path.join(root, "bin"))
        f.write("config.gdn_kernel_dir = %r\n" % os.path.join(out, "default-kernels"))
        f.write("lit_config.load_config(config, %r)\n" % lit_cfg)
    if probe is None:
        continue
    path = os.path.join(root, "bin", "gdn-run")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
        f.write('if [ "$1" = --probe ]; then %s; fi\n' % probe)
        f.write('echo "$@" >> %s\n' % os.path.join(root, "log"))
        f.write("echo '1 passed, 0 failed'\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
