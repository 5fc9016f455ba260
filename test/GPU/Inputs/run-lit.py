#!/usr/bin/env python3
"""run-lit.py LIT_ROOT ARGS...: runs the lit package found in LIT_ROOT (the
directory holding lit/) with ARGS, whether it came with LLVM (lit.py) or
from pip."""
import sys

sys.path.insert(0, sys.argv[1])
sys.argv = ["lit"] + sys.argv[2:]
import lit.main  # noqa: E402

lit.main.main()
