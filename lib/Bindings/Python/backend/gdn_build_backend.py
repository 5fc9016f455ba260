"""PEP 517 build backend of the gdn Python package (standard library only).

build_wheel configures and builds the CMake project (target gdn_runtime,
which compiles gdn-opt and the kernels and embeds them), then packs
lib/Bindings/Python/gdn plus gdn/_lib/libgdn_runtime.so into a wheel tagged
py3-none-<platform> (the package uses ctypes: no Python ABI dependence).

Build directory: config setting "build-dir", else $GDN_PY_BUILD_DIR, else
<source>/build-python. A directory with a CMakeCache.txt is reused as it is
configured (e.g. the CI's build/); a new one is configured with
-DCMAKE_BUILD_TYPE=Release -DGDN_BUILD_TESTS=OFF. $GDN_PY_CMAKE_ARGS adds
configure arguments; $CMAKE_BUILD_PARALLEL_LEVEL caps the jobs.
"""

import base64
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile

NAME = "gdn"
VERSION = "0.1.0"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
PKG_SRC = os.path.join(ROOT, "lib", "Bindings", "Python", "gdn")


def get_requires_for_build_wheel(config_settings=None):
    return []


def _build_dir(config_settings):
    d = (config_settings or {}).get("build-dir") or os.environ.get("GDN_PY_BUILD_DIR")
    return os.path.abspath(d or os.path.join(ROOT, "build-python"))


def _run(cmd):
    print("gdn build:", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build_runtime(config_settings):
    build = _build_dir(config_settings)
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        cmake_args = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                      "-DGDN_BUILD_TESTS=OFF"]
        if shutil.which("ninja"):
            cmake_args += ["-G", "Ninja"]
        cmake_args += shlex.split(os.environ.get("GDN_PY_CMAKE_ARGS", ""))
        _run(cmake_args)
    _run(["cmake", "--build", build, "--target", "gdn_runtime"])
    lib = os.path.join(build, "lib", "libgdn_runtime.so")
    if not os.path.exists(lib):
        raise RuntimeError("gdn build: %s was not built" % lib)
    return os.path.realpath(lib)


def _platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _metadata():
    readme = ""
    try:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        pass
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Exact Gated DeltaNet prefill on NVIDIA Hopper (FLA-compatible entry)\n"
            "Requires-Python: >=3.9\nDescription-Content-Type: text/markdown\n\n%s"
            % (NAME, VERSION, readme))


def _dist_info_files(tag):
    wheel = ("Wheel-Version: 1.0\nGenerator: gdn_build_backend\n"
             "Root-Is-Purelib: false\nTag: %s\n" % tag)
    return {"METADATA": _metadata(), "WHEEL": wheel}


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = "%s-%s.dist-info" % (NAME, VERSION)
    path = os.path.join(metadata_directory, dist_info)
    os.makedirs(path, exist_ok=True)
    for name, text in _dist_info_files("py3-none-" + _platform_tag()).items():
        with open(os.path.join(path, name), "w", encoding="utf-8") as f:
            f.write(text)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    lib = _build_runtime(config_settings)
    tag = "py3-none-" + _platform_tag()
    wheel_name = "%s-%s-%s.whl" % (NAME, VERSION, tag)
    dist_info = "%s-%s.dist-info" % (NAME, VERSION)
    files = []
    for dirpath, _, names in os.walk(PKG_SRC):
        for n in sorted(names):
            if n.endswith(".py"):
                full = os.path.join(dirpath, n)
                arc = os.path.join("gdn", os.path.relpath(full, PKG_SRC))
                with open(full, "rb") as f:
                    files.append((arc, f.read()))
    with open(lib, "rb") as f:
        files.append(("gdn/_lib/libgdn_runtime.so", f.read()))
    for name, text in _dist_info_files(tag).items():
        files.append(("%s/%s" % (dist_info, name), text.encode("utf-8")))
    record = [_record_line(arc, data) for arc, data in files]
    record.append("%s/RECORD,," % dist_info)
    files.append(("%s/RECORD" % dist_info, ("\n".join(record) + "\n").encode()))
    os.makedirs(wheel_directory, exist_ok=True)
    out = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name

