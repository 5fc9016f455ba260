#!/usr/bin/env python3
"""expect-exit.py N CMD [ARGS...]: runs CMD with its output passed through;
exits 0 iff CMD exited with status N, else 1 (with a message on stderr).
The GPU suite uses lit's internal shell, which has no `$?`."""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect-exit.py N CMD [ARGS...]")
want = int(sys.argv[1])
try:
    got = subprocess.call(sys.argv[2:])
except OSError as e:
    sys.exit("expect-exit.py: cannot run %s: %s" % (sys.argv[2], e))
if got != want:
    sys.stderr.write("expect-exit.py: %s exited with %d, expected %d\n"
                     % (sys.argv[2], got, want))
    sys.exit(1)
