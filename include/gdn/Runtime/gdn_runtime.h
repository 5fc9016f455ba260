/*===- gdn_runtime.h - the gdn GDN prefill runtime, C API -------*- C -*-===*\
 *
 * libgdn_runtime runs the exact Gated DeltaNet (GDN) prefill forward that
 * gdn-opt compiled ahead of time (a cubin for sm_90a, with the PTX kept as
 * the fallback for another driver or chip, embedded in the library). It
 * needs the CUDA driver (libcuda.so.1, loaded at run time) and nothing else:
 * no CUDA runtime, no LLVM/MLIR.
 *
 *   gdn_runtime *rt;  gdn_runtime_create(0, NULL, &rt);     one per device
 *   gdn_problem p;    gdn_problem_init(&p);  p.B = 1; p.T = 32768; ...
 *   const gdn_plan *plan;  gdn_plan_get(rt, &p, &plan);    cached per problem
 *   gdn_run(plan, &tensors, ws, gdn_plan_workspace_bytes(plan), stream, 0);
 *
 * Tensors (row-major, contiguous, device memory of the runtime's device,
 * 16-byte aligned; DK = DV = 128; N sequences = B, or cu_seqlens' count - 1):
 *   q, k           [B, T, H, DK]   dtype (f16 or bf16)
 *   v              [B, T, HV, DV]  dtype
 *   g              [B, T, HV]      gdn_plan_info.g_dtype (f32): log decay
 *   beta           [B, T, HV]      gdn_plan_info.beta_dtype
 *   initial_state  [N, HV, DK, DV] f32, only with has_initial_state
 *                  ([N, HV, DV, DK] with state_v_first, also final_state)
 *   o              [B, T, HV, DV]  dtype (written)
 *   final_state    [N, HV, DK, DV] f32 (written; always required)
 * HV must be a multiple of H (grouped value heads). With cu_seqlens, B = 1
 * and the sequences are packed along T.
 *
 * gdn_run enqueues the kernels on the caller's stream and returns: no host
 * synchronization, no allocation (unless GDN_RUN_ALLOCATE_WORKSPACE), safe
 * to call from several threads and to capture into a CUDA graph. Create
 * plans (gdn_plan_get) before capturing: a new plan loads kernels and
 * uploads its index tensors synchronously.
 *
 * The kernels are programmatic dependent launches (sm_90): each waits at
 * entry, before any memory access, for the kernel before it on the stream
 * (griddepcontrol.wait), then lets the next one launch (the refined
 * kernels, which run after the sequence's other kernels, wait only in the
 * blocks that run and in their grid's last block: their other blocks read
 * only GDN's own workspaces and exit; their grid still completes after
 * every kernel before it). So the first GDN
 * kernel may be scheduled early when the caller's preceding kernel triggers
 * its dependents, and a caller kernel launched with programmatic stream
 * serialization after gdn_run must itself wait (griddepcontrol.wait)
 * before reading the outputs, as for any PDL predecessor. GDN_NO_PDL=1 in
 * the environment launches every kernel in plain stream order.
 *
 * Every call returns a gdn_status; gdn_last_error() is the calling thread's
 * message for the last failure, naming the problem (the tensor, the shape,
 * the dtype, the alignment, the device).
\*===----------------------------------------------------------------------===*/

#ifndef GDN_RUNTIME_GDN_RUNTIME_H
#define GDN_RUNTIME_GDN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define GDN_RUNTIME_API
#else
#define GDN_RUNTIME_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this API (gdn_runtime_version() of the library). */
#define GDN_RUNTIME_VERSION 2

typedef enum gdn_status {
  GDN_SUCCESS = 0,
  GDN_ERROR_INVALID_ARGUMENT = 1, /**< a null handle or a bad option */
  GDN_ERROR_SHAPE = 2,            /**< sizes, head dims, cu_seqlens */
  GDN_ERROR_DTYPE = 3,            /**< no kernels for the dtype */
  GDN_ERROR_LAYOUT = 4,           /**< a layout the kernels do not take */
  GDN_ERROR_ALIGNMENT = 5,        /**< a pointer not 16-byte aligned */
  GDN_ERROR_HOST_POINTER = 6,     /**< a tensor in host memory */
  GDN_ERROR_DEVICE_MISMATCH = 7,  /**< a tensor on another device */
  GDN_ERROR_MISSING_TENSOR = 8,   /**< a required tensor is null */
  GDN_ERROR_WORKSPACE = 9,        /**< no or too small a workspace */
  GDN_ERROR_LIMIT = 10,           /**< grid or 32-bit index limits */
  GDN_ERROR_NO_DEVICE = 11,       /**< no CUDA driver or no such device */
  GDN_ERROR_UNSUPPORTED_DEVICE = 12, /**< the kernels cannot run there */
  GDN_ERROR_KERNELS = 13,         /**< missing or malformed kernels */
  GDN_ERROR_CUDA = 14,            /**< a CUDA driver call failed */
  GDN_ERROR_INTERNAL = 15
} gdn_status;

typedef enum gdn_dtype {
  GDN_DTYPE_F16 = 1,
  GDN_DTYPE_BF16 = 2,
  GDN_DTYPE_F32 = 3
} gdn_dtype;

typedef enum gdn_layout {
  GDN_LAYOUT_BTHD = 0, /**< [B, T, heads, D]: the only one the kernels take */
  GDN_LAYOUT_BHTD = 1  /**< [B, heads, T, D]: refused (GDN_ERROR_LAYOUT) */
} gdn_layout;

typedef enum gdn_path {
  GDN_PATH_AUTO = 0,   /**< the cost model picks direct or context-parallel */
  GDN_PATH_DIRECT = 1, /**< one block walks a whole sequence */
  GDN_PATH_CP = 2      /**< context-parallel: summaries, scan, replay */
} gdn_path;

/** The direct path's form, where its kernels offer two (meta.form). */
typedef enum gdn_form {
  GDN_FORM_AUTO = 0,  /**< the cost model picks (the fused kernel only for
                           problems without the q/k L2 norm or transforms) */
  GDN_FORM_PAIR = 1,  /**< the prep kernel, then the forward */
  GDN_FORM_FUSED = 2  /**< one kernel for both (and the direct path) */
} gdn_form;

/** A CUstream (or cudaStream_t); NULL is the legacy default stream. */
typedef struct CUstream_st *gdn_stream;

typedef struct gdn_runtime gdn_runtime;
typedef struct gdn_plan gdn_plan;

/** One GDN prefill problem; gdn_problem_init() sets the defaults. */
typedef struct gdn_problem {
  size_t struct_size;  /**< sizeof(gdn_problem), set by gdn_problem_init */
  int64_t B, T, H, HV; /**< batch, tokens, q/k heads, value heads */
  int64_t head_dim_k, head_dim_v; /**< 128 (the only size compiled) */
  /** Packed varlen boundaries in host memory ({0, ..., T}, N + 1 values),
   * or NULL. Copied by gdn_plan_get. */
  const int64_t *cu_seqlens;
  size_t num_cu_seqlens;
  gdn_dtype dtype;       /**< of q, k, v, o: GDN_DTYPE_F16 or _BF16 */
  gdn_layout layout;     /**< GDN_LAYOUT_BTHD */
  int has_initial_state; /**< initial_state is given */
  double scale;          /**< <= 0: 1/sqrt(head_dim_k); rounded to f32 */
  gdn_path path;         /**< GDN_PATH_AUTO */
  int64_t block_v;       /**< 0: the cost model picks the variant */
  int64_t cp_chunks;     /**< 0: the cost model picks the segment size */
  /** Nonzero: q and k are L2-normalized over the head dimension by the
   * kernels (y = x / sqrt(sum x^2 + 1e-6) in f32, rounded to dtype once, as
   * FLA's use_qk_l2norm_in_kernel: inside the prep, or a first kernel for
   * the block_v 16 variant); the workspace holds the normalized copies. */
  int use_qk_l2norm;
  /** Per-token transforms inside the prep kernels (FLA's keywords; fp32;
   * beta rounded to dtype once): use_gate_in_kernel: g = -exp(A_log[hv]) *
   * softplus(g + dt_bias[hv]) (gdn_tensors.A_log, .dt_bias, [HV] f32);
   * use_beta_sigmoid: beta = sigmoid(beta); allow_neg_eigval: beta *= 2. */
  int use_gate_in_kernel, use_beta_sigmoid, allow_neg_eigval;
  /** Nonzero: initial_state and final_state are [N, HV, DV, DK] (FLA's
   * state_v_first: the state's transpose), read and written so by the
   * kernels (no extra pass). */
  int state_v_first;
  /** GDN_FORM_AUTO; GDN_FORM_FUSED runs the direct path's fused prep +
   * forward kernel (an error with GDN_PATH_CP), GDN_FORM_PAIR its prep and
   * forward kernels. (Since API version 2, in what was the struct's tail
   * padding: sizeof is unchanged, so a caller that fills the struct by
   * hand instead of with gdn_problem_init must set it, or zero it.) */
  gdn_form form;
} gdn_problem;

/** What a plan runs and needs. */
typedef struct gdn_plan_info {
  size_t workspace_bytes;   /**< the workspace gdn_run needs (256-aligned) */
  int64_t num_sequences;    /**< N */
  gdn_dtype g_dtype;        /**< of g */
  gdn_dtype beta_dtype;     /**< of beta */
  int num_kernels;          /**< kernels per gdn_run */
  const char *description;  /**< the path, variant and model estimate */
} gdn_plan_info;

/** The GDN tensors of one run (device pointers). */
typedef struct gdn_tensors {
  const void *q, *k, *v, *g, *beta;
  const void *initial_state; /**< with has_initial_state, else ignored */
  void *o;
  void *final_state;
  /** [HV] f32, with use_gate_in_kernel, else ignored (zero-initialize the
   * struct: they were added after the fields above). */
  const void *A_log, *dt_bias;
} gdn_tensors;

/** gdn_run flags. */
enum {
  /** Allocate the workspace on the stream (cuMemAllocAsync) when none is
   * given, and free it after the kernels (stream-ordered). */
  GDN_RUN_ALLOCATE_WORKSPACE = 1u << 0,
  /** Skip the per-pointer driver queries (host pointer, device): the caller
   * guarantees the tensors are on the plan's device. */
  GDN_RUN_TRUSTED_POINTERS = 1u << 1,
  /** Launch the kernels one by one even when the call repeats a recent one
   * (see gdn_run; the environment's GDN_NO_REPLAY=1 does it for every
   * call of the runtime). */
  GDN_RUN_NO_REPLAY = 1u << 2
};

/** GDN_RUNTIME_VERSION of the library. */
GDN_RUNTIME_API int gdn_runtime_version(void);
/** "GDN_ERROR_SHAPE", ... */
GDN_RUNTIME_API const char *gdn_status_name(gdn_status status);
/** The calling thread's message for its last failed call ("" if none). */
GDN_RUNTIME_API const char *gdn_last_error(void);

/** gdn_runtime_create's device for a planning-only runtime: no driver, the
 * properties of an H200 (132 SMs, sm_90); plans are made (path, workspace,
 * every check of the problem) but not loaded, and gdn_run checks its
 * arguments, then fails with GDN_ERROR_NO_DEVICE. For tests and tools. */
#define GDN_DEVICE_NONE (-1)

/** Opens CUDA device `device` (its primary context). `kernel_dir`: NULL
 * for the kernels embedded in the library, or a directory of gdn-opt
 * output (*.manifest + *.ptx) for development; the environment variable
 * GDN_KERNEL_DIR overrides NULL. */
GDN_RUNTIME_API gdn_status gdn_runtime_create(int device,
                                              const char *kernel_dir,
                                              gdn_runtime **out);
/** Frees the plans, unloads the kernels, releases the context. No run of
 * the runtime's plans may be in flight on the host. */
GDN_RUNTIME_API void gdn_runtime_destroy(gdn_runtime *runtime);
/** Number of SMs and compute capability of the runtime's device. */
GDN_RUNTIME_API gdn_status gdn_runtime_device(const gdn_runtime *runtime,
                                              int *sm_count, int *cc_major,
                                              int *cc_minor);

/** Sets the defaults: B = 1, T = 0 (must be set), H = HV = 0 (must be
 * set), head dims 128, f16, BTHD, no initial state, default scale, auto. */
GDN_RUNTIME_API void gdn_problem_init(gdn_problem *problem);

/** The plan of `problem`: path, variant, segments, kernels loaded, index
 * tensors uploaded. Cached: the same problem returns the same plan, owned
 * by the runtime (valid until gdn_runtime_destroy). Thread-safe. */
GDN_RUNTIME_API gdn_status gdn_plan_get(gdn_runtime *runtime,
                                        const gdn_problem *problem,
                                        const gdn_plan **out);
GDN_RUNTIME_API size_t gdn_plan_workspace_bytes(const gdn_plan *plan);
GDN_RUNTIME_API gdn_status gdn_plan_get_info(const gdn_plan *plan,
                                             gdn_plan_info *out);

/** Enqueues the prefill on `stream`. `workspace` (256-byte aligned, at
 * least gdn_plan_workspace_bytes) may be NULL when the plan needs none or
 * with GDN_RUN_ALLOCATE_WORKSPACE. `flags`: GDN_RUN_*.
 *
 * A call that repeats one of the plan's last 8 distinct calls (the same
 * tensor pointers, workspace and stream) is replayed from a CUDA graph of
 * its launches, made the second time the call is seen: one driver call
 * however many kernels the plan has, bit-identical results. Not while
 * `stream` is capturing (the capture records the kernels), not with an
 * allocated workspace, not with GDN_RUN_NO_REPLAY. */
GDN_RUNTIME_API gdn_status gdn_run(const gdn_plan *plan,
                                   const gdn_tensors *tensors,
                                   void *workspace, size_t workspace_bytes,
                                   gdn_stream stream, unsigned flags);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GDN_RUNTIME_GDN_RUNTIME_H */
