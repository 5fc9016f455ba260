/* gdn_replay.c - gdn_run's replay of repeated calls, checked bit for bit.
 *
 * For each problem (a direct-path batch, a context-parallel sequence, a
 * tiny one; f16 and bf16) the outputs o and final_state are snapshotted
 * after five calls with the same tensors, each on outputs first poisoned
 * with 0xff on the run's stream:
 *   A  the plan's first call (launched kernel by kernel),
 *   B  after another plan's kernels, with GDN_RUN_NO_REPLAY (launched),
 *   C  the second sighting of the call (captured into a graph, replayed),
 *   D  the third (replayed from the cached graph),
 *   E  inside the caller's own stream capture (gdn_run launches its
 *      kernels into the capture; the caller's graph runs them).
 * Every snapshot must equal A bitwise. Then the host's cost of a steady-
 * state call (GDN_RUN_TRUSTED_POINTERS) replaying and launching: the median
 * of 9 batches of 100 calls, synchronized between batches (printed only:
 * no timing is asserted).
 *
 *   gdn-replay [--allow-no-device]
 *
 * Exit status: 0 all identical, 1 a difference, 2 an API error, 77 no CUDA
 * device (with --allow-no-device: 0 after printing "no CUDA device"). */
#include <gdn/Runtime/gdn_runtime.h>

#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API(call)                                                              \
  do {                                                                         \
    gdn_status st_ = (call);                                                   \
    if (st_ != GDN_SUCCESS) {                                                  \
      fprintf(stderr, "gdn-replay: %s: %s: %s\n", #call,                       \
              gdn_status_name(st_), gdn_last_error());                         \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)
#define CU(call)                                                               \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      fprintf(stderr, "gdn-replay: %s failed (%d)\n", #call, (int)r_);        \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

enum { D = 128 };

static uint64_t seed = 7;
static float uniform(void) { /* [-1, 1) */
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(seed >> 11) / (double)(1ull << 52) - 1.0);
}
static uint16_t to16(float f, gdn_dtype t) {
  if (t == GDN_DTYPE_BF16) { /* round to nearest even */
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
  }
  _Float16 h = (_Float16)f;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}

typedef struct Case {
  const char *name;
  int64_t B, T, H, HV;
  gdn_dtype dtype;
  gdn_path path;
  const gdn_plan *plan;
  gdn_plan_info info;
  CUdeviceptr buf[8]; /* q k v g beta o ht workspace */
  size_t bytes[8];
  gdn_tensors tensors;
} Case;

/* Device memory filled from the host (synchronously: the runs' stream is
 * non-blocking and must not overtake the fills). */
static CUdeviceptr upload16(size_t n, float lo, float hi, gdn_dtype t) {
  uint16_t *h = malloc(n * 2);
  for (size_t i = 0; i < n; ++i)
    h[i] = to16(lo + (hi - lo) * 0.5f * (uniform() + 1.0f), t);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, n * 2));
  CU(cuMemcpyHtoD(d, h, n * 2));
  free(h);
  return d;
}
static CUdeviceptr uploadF32(size_t n, float lo, float hi) {
  float *h = malloc(n * 4);
  for (size_t i = 0; i < n; ++i)
    h[i] = lo + (hi - lo) * 0.5f * (uniform() + 1.0f);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, n * 4));
  CU(cuMemcpyHtoD(d, h, n * 4));
  free(h);
  return d;
}

static void setUp(gdn_runtime *rt, Case *c) {
  gdn_problem p;
  gdn_problem_init(&p);
  p.B = c->B;
  p.T = c->T;
  p.H = c->H;
  p.HV = c->HV;
  p.dtype = c->dtype;
  p.path = c->path;
  API(gdn_plan_get(rt, &p, &c->plan));
  API(gdn_plan_get_info(c->plan, &c->info));
  size_t qk = (size_t)c->B * c->T * c->H * D;
  size_t v = (size_t)c->B * c->T * c->HV * D;
  size_t gb = (size_t)c->B * c->T * c->HV;
  size_t ht = (size_t)c->B * c->HV * D * D;
  /* |q|, |k| about 0.6 */
  c->buf[0] = upload16(qk, -0.088f, 0.088f, c->dtype);
  c->buf[1] = upload16(qk, -0.088f, 0.088f, c->dtype);
  c->buf[2] = upload16(v, -1.0f, 1.0f, c->dtype);
  c->buf[3] = uploadF32(gb, -0.1f, -0.001f); /* log decay */
  c->buf[4] = c->info.beta_dtype == GDN_DTYPE_F32
                  ? uploadF32(gb, 0.1f, 0.9f)
                  : upload16(gb, 0.1f, 0.9f, c->dtype);
  c->bytes[5] = v * 2;
  c->bytes[6] = ht * 4;
  c->bytes[7] = c->info.workspace_bytes;
  for (int i = 5; i < 8; ++i)
    CU(cuMemAlloc(&c->buf[i], c->bytes[i] ? c->bytes[i] : 256));
  memset(&c->tensors, 0, sizeof c->tensors);
  c->tensors.q = (const void *)c->buf[0];
  c->tensors.k = (const void *)c->buf[1];
  c->tensors.v = (const void *)c->buf[2];
  c->tensors.g = (const void *)c->buf[3];
  c->tensors.beta = (const void *)c->buf[4];
  c->tensors.o = (void *)c->buf[5];
  c->tensors.final_state = (void *)c->buf[6];
  printf("%s: %s; %d kernels\n", c->name, c->info.description,
         c->info.num_kernels);
}

static void run(Case *c, CUstream s, unsigned flags) {
  API(gdn_run(c->plan, &c->tensors, (void *)c->buf[7], c->bytes[7],
              (gdn_stream)s, flags));
}

/* Poisons o and ht on the stream, runs, and copies both back. */
static void snapshot(Case *c, CUstream s, unsigned flags, unsigned char *out) {
  CU(cuMemsetD8Async(c->buf[5], 0xff, c->bytes[5], s));
  CU(cuMemsetD8Async(c->buf[6], 0xff, c->bytes[6], s));
  run(c, s, flags);
  CU(cuStreamSynchronize(s));
  CU(cuMemcpyDtoH(out, c->buf[5], c->bytes[5]));
  CU(cuMemcpyDtoH(out + c->bytes[5], c->buf[6], c->bytes[6]));
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* Median host microseconds per call over 9 batches of 100 calls. */
static double hostUs(Case *c, CUstream s, unsigned flags) {
  double t[9];
  for (int i = 0; i < 3; ++i)
    run(c, s, flags);
  CU(cuStreamSynchronize(s));
  for (int b = 0; b < 9; ++b) {
    double t0 = now();
    for (int i = 0; i < 100; ++i)
      run(c, s, flags);
    t[b] = (now() - t0) * 1e6 / 100;
    CU(cuStreamSynchronize(s));
  }
  qsort(t, 9, sizeof t[0], cmpDouble);
  return t[4];
}

int main(int argc, char **argv) {
  int allowNoDevice = argc > 1 && strcmp(argv[1], "--allow-no-device") == 0;
  gdn_runtime *rt = NULL;
  gdn_status st = gdn_runtime_create(0, NULL, &rt);
  if (st == GDN_ERROR_NO_DEVICE) {
    printf("no CUDA device: %s\n", gdn_last_error());
    return allowNoDevice ? 0 : 77;
  }
  API(st);
  CUdevice dev;
  CUcontext ctx;
  CU(cuInit(0));
  CU(cuDeviceGet(&dev, 0));
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUstream s;
  CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

  Case cases[] = {
      {"8x4K H16 f16 direct", 8, 4096, 16, 16, GDN_DTYPE_F16, GDN_PATH_DIRECT},
      {"1x32K H4/HV8 bf16 cp", 1, 32768, 4, 8, GDN_DTYPE_BF16, GDN_PATH_CP},
      {"1x64 H1 f16 auto", 1, 64, 1, 1, GDN_DTYPE_F16, GDN_PATH_AUTO},
  };
  enum { N = sizeof cases / sizeof cases[0] };
  for (int i = 0; i < N; ++i)
    setUp(rt, &cases[i]);
  CU(cuCtxSynchronize());

  int failures = 0;
  const char *labels[] = {"after another plan, launched",
                          "second call, graph made and replayed",
                          "third call, graph replayed",
                          "inside the caller's stream capture"};
  for (int i = 0; i < N; ++i) {
    Case *c = &cases[i], *other = &cases[(i + 1) % N];
    size_t n = c->bytes[5] + c->bytes[6];
    unsigned char *snap[5];
    for (int j = 0; j < 5; ++j)
      snap[j] = malloc(n);
    snapshot(c, s, 0, snap[0]);
    run(other, s, GDN_RUN_NO_REPLAY);
    snapshot(c, s, GDN_RUN_NO_REPLAY, snap[1]);
    snapshot(c, s, 0, snap[2]);
    snapshot(c, s, 0, snap[3]);
    /* The caller captures: gdn_run must record its kernels into it. */
    CUgraph graph;
    CUgraphExec exec;
    CU(cuMemsetD8Async(c->buf[5], 0xff, c->bytes[5], s));
    CU(cuMemsetD8Async(c->buf[6], 0xff, c->bytes[6], s));
    CU(cuStreamSynchronize(s));
    CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    run(c, s, 0);
    CU(cuStreamEndCapture(s, &graph));
    CU(cuGraphInstantiate(&exec, graph, 0));
    CU(cuGraphLaunch(exec, s));
    CU(cuStreamSynchronize(s));
    CU(cuMemcpyDtoH(snap[4], c->buf[5], c->bytes[5]));
    CU(cuMemcpyDtoH(snap[4] + c->bytes[5], c->buf[6], c->bytes[6]));
    CU(cuGraphExecDestroy(exec));
    CU(cuGraphDestroy(graph));
    for (int j = 1; j < 5; ++j) {
      int same = memcmp(snap[0], snap[j], n) == 0;
      size_t at = 0;
      while (!same && snap[0][at] == snap[j][at])
        ++at;
      if (same)
        printf("  %s: identical to the first call (%s)\n", c->name,
               labels[j - 1]);
      else
        printf("  %s: DIFFERS from the first call (%s) at byte %zu of %s\n",
               c->name, labels[j - 1],
               at < c->bytes[5] ? at : at - c->bytes[5],
               at < c->bytes[5] ? "o" : "final_state");
      failures += !same;
    }
    for (int j = 0; j < 5; ++j)
      free(snap[j]);
  }

  for (int i = 0; i < N; ++i) {
    Case *c = &cases[i];
    double replay = hostUs(c, s, GDN_RUN_TRUSTED_POINTERS);
    double launch =
        hostUs(c, s, GDN_RUN_TRUSTED_POINTERS | GDN_RUN_NO_REPLAY);
    printf("host us per call, %s (%d kernels): replayed %.2f, launched "
           "%.2f\n",
           c->name, c->info.num_kernels, replay, launch);
  }

  for (int i = 0; i < N; ++i)
    for (int j = 0; j < 8; ++j)
      cuMemFree(cases[i].buf[j]);
  cuStreamDestroy(s);
  gdn_runtime_destroy(rt);
  cuDevicePrimaryCtxRelease(dev);
  printf("%s\n", failures ? "FAIL" : "PASS: every snapshot identical");
  return failures ? 1 : 0;
}
