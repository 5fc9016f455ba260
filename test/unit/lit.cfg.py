# -*- Python -*-
# Runs the GoogleTest binaries (build/unittests/*Tests) through lit.

import os

import lit.formats

config.name = "GDN-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.gdn_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
