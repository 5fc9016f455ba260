"""ctypes bindings of libgdn_runtime's C API (include/gdn/Runtime/gdn_runtime.h).

No torch here: the library is found next to this file (the wheel ships
_lib/libgdn_runtime.so) or at $GDN_RUNTIME_LIBRARY.
"""

import ctypes
import os
import threading

GDN_SUCCESS = 0
GDN_DTYPE_F16, GDN_DTYPE_BF16, GDN_DTYPE_F32 = 1, 2, 3
GDN_LAYOUT_BTHD = 0
GDN_PATH_AUTO, GDN_PATH_DIRECT, GDN_PATH_CP = 0, 1, 2
GDN_FORM_AUTO, GDN_FORM_PAIR, GDN_FORM_FUSED = 0, 1, 2
GDN_RUN_ALLOCATE_WORKSPACE = 1
GDN_RUN_TRUSTED_POINTERS = 2
GDN_RUN_NO_REPLAY = 4
GDN_DEVICE_NONE = -1
API_VERSION = 2


class GdnError(RuntimeError):
    """A failed libgdn_runtime call: `status` (e.g. "GDN_ERROR_SHAPE") and
    the library's message."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status


class Problem(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("B", ctypes.c_int64), ("T", ctypes.c_int64),
        ("H", ctypes.c_int64), ("HV", ctypes.c_int64),
        ("head_dim_k", ctypes.c_int64), ("head_dim_v", ctypes.c_int64),
        ("cu_seqlens", ctypes.POINTER(ctypes.c_int64)),
        ("num_cu_seqlens", ctypes.c_size_t),
        ("dtype", ctypes.c_int), ("layout", ctypes.c_int),
        ("has_initial_state", ctypes.c_int),
        ("scale", ctypes.c_double),
        ("path", ctypes.c_int),
        ("block_v", ctypes.c_int64), ("cp_chunks", ctypes.c_int64),
        ("use_qk_l2norm", ctypes.c_int),
        ("use_gate_in_kernel", ctypes.c_int), ("use_beta_sigmoid", ctypes.c_int),
        ("allow_neg_eigval", ctypes.c_int),
        ("state_v_first", ctypes.c_int),
        ("form", ctypes.c_int),
    ]


class PlanInfo(ctypes.Structure):
    _fields_ = [
        ("workspace_bytes", ctypes.c_size_t),
        ("num_sequences", ctypes.c_int64),
        ("g_dtype", ctypes.c_int), ("beta_dtype", ctypes.c_int),
        ("num_kernels", ctypes.c_int),
        ("description", ctypes.c_char_p),
    ]


class Tensors(ctypes.Structure):
    _fields_ = [(n, ctypes.c_void_p) for n in
                ("q", "k", "v", "g", "beta", "initial_state", "o", "final_state",
                 "A_log", "dt_bias")]


def _library_path():
    env = os.environ.get("GDN_RUNTIME_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib",
                        "libgdn_runtime.so")


_lib = None
_lib_lock = threading.Lock()


def library():
    """The loaded libgdn_runtime (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = _library_path()
        if not os.path.exists(path):
            raise ImportError("gdn: libgdn_runtime not found at %s (reinstall the "
                              "package or set GDN_RUNTIME_LIBRARY)" % path)
        lib = ctypes.CDLL(path)
        c = ctypes
        sig = {
            "gdn_runtime_version": (c.c_int, []),
            "gdn_status_name": (c.c_char_p, [c.c_int]),
            "gdn_last_error": (c.c_char_p, []),
            "gdn_runtime_create": (c.c_int, [c.c_int, c.c_char_p, c.POINTER(c.c_void_p)]),
            "gdn_runtime_destroy": (None, [c.c_void_p]),
            "gdn_runtime_device": (c.c_int, [c.c_void_p, c.POINTER(c.c_int),
                                             c.POINTER(c.c_int), c.POINTER(c.c_int)]),
            "gdn_problem_init": (None, [c.POINTER(Problem)]),
            "gdn_plan_get": (c.c_int, [c.c_void_p, c.POINTER(Problem), c.POINTER(c.c_void_p)]),
            "gdn_plan_workspace_bytes": (c.c_size_t, [c.c_void_p]),
            "gdn_plan_get_info": (c.c_int, [c.c_void_p, c.POINTER(PlanInfo)]),
            "gdn_run": (c.c_int, [c.c_void_p, c.POINTER(Tensors), c.c_void_p,
                                  c.c_size_t, c.c_void_p, c.c_uint]),
        }
        for name, (restype, argtypes) in sig.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        if lib.gdn_runtime_version() != API_VERSION:
            raise ImportError("gdn: %s has C API version %d, this package wants %d"
                              % (path, lib.gdn_runtime_version(), API_VERSION))
        _lib = lib
        return lib


def check(status):
    if status != GDN_SUCCESS:
        lib = library()
        raise GdnError(lib.gdn_status_name(status).decode(),
                       lib.gdn_last_error().decode("utf-8", "replace"))


class Runtime:
    """One device's gdn_runtime (device GDN_DEVICE_NONE: planning only)."""

    def __init__(self, device, kernel_dir=None):
        lib = library()
        handle = ctypes.c_void_p()
        check(lib.gdn_runtime_create(
            device, kernel_dir.encode() if kernel_dir else None, ctypes.byref(handle)))
        self.handle = handle
        self.device = device

    def plan(self, B, T, H, HV, dtype, has_initial_state=False, scale=0.0,
             cu_seqlens=None, path=GDN_PATH_AUTO, block_v=0, cp_chunks=0,
             qk_l2norm=False, gate_in_kernel=False, beta_sigmoid=False,
             neg_eigval=False, state_v_first=False, form=GDN_FORM_AUTO):
        """(plan handle, PlanInfo) of a problem; cached by the library."""
        lib = library()
        p = Problem()
        lib.gdn_problem_init(ctypes.byref(p))
        p.B, p.T, p.H, p.HV = B, T, H, HV
        p.dtype = dtype
        p.has_initial_state = 1 if has_initial_state else 0
        p.scale = scale
        p.path, p.block_v, p.cp_chunks = path, block_v, cp_chunks
        p.use_qk_l2norm = 1 if qk_l2norm else 0
        p.use_gate_in_kernel = 1 if gate_in_kernel else 0
        p.use_beta_sigmoid = 1 if beta_sigmoid else 0
        p.allow_neg_eigval = 1 if neg_eigval else 0
        p.state_v_first = 1 if state_v_first else 0
        p.form = form
        if cu_seqlens is not None:
            arr = (ctypes.c_int64 * len(cu_seqlens))(*cu_seqlens)
            p.cu_seqlens = arr
            p.num_cu_seqlens = len(cu_seqlens)
        plan = ctypes.c_void_p()
        check(lib.gdn_plan_get(self.handle, ctypes.byref(p), ctypes.byref(plan)))
        info = PlanInfo()
        check(lib.gdn_plan_get_info(plan, ctypes.byref(info)))
        return plan, info


_runtimes = {}
_runtimes_lock = threading.Lock()


def runtime(device):
    """The process's runtime of `device` (created once, never destroyed)."""
    rt = _runtimes.get(device)
    if rt is None:
        with _runtimes_lock:
            rt = _runtimes.get(device)
            if rt is None:
                rt = Runtime(device)
                _runtimes[device] = rt
    return rt
