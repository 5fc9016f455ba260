/* gdn_example.c - one GDN prefill through libgdn_runtime's C API.
 *
 * B = 1, T = 300 tokens, H = 1 q/k head, HV = 2 value heads, bf16, with an
 * initial state; the result (o and the final state) is checked against an
 * fp64 token-by-token recurrence on the same rounded inputs.
 *
 *   gdn-example [--allow-no-device]
 *
 * Exit status: 0 pass, 1 mismatch, 2 API error, 77 no CUDA device (with
 * --allow-no-device: 0 after printing "no CUDA device"). */
#include <gdn/Runtime/gdn_runtime.h>

#include <cuda.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T = 300, H = 1, HV = 2, D = 128 };

static uint16_t toBf16(float f) { /* round to nearest even */
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}
static double fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static double uniform(uint64_t *s) { /* [-1, 1) */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / (double)(1ull << 52) - 1.0;
}

#define API(call)                                                              \
  do {                                                                         \
    gdn_status st_ = (call);                                                   \
    if (st_ != GDN_SUCCESS) {                                                  \
      fprintf(stderr, "gdn-example: %s: %s\n", gdn_status_name(st_),           \
              gdn_last_error());                                               \
      return 2;                                                                \
    }                                                                          \
  } while (0)
#define CU(call)                                                               \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      fprintf(stderr, "gdn-example: %s failed (%d)\n", #call, (int)r_);       \
      return 2;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  int allowNoDevice = argc > 1 && strcmp(argv[1], "--allow-no-device") == 0;
  printf("libgdn_runtime API version %d\n", gdn_runtime_version());

  gdn_runtime *rt = NULL;
  gdn_status st = gdn_runtime_create(0, NULL, &rt);
  if (st == GDN_ERROR_NO_DEVICE) {
    printf("no CUDA device: %s\n", gdn_last_error());
    return allowNoDevice ? 0 : 77;
  }
  API(st);

  gdn_problem p;
  gdn_problem_init(&p);
  p.B = 1;
  p.T = T;
  p.H = H;
  p.HV = HV;
  p.dtype = GDN_DTYPE_BF16;
  p.has_initial_state = 1;
  const gdn_plan *plan = NULL;
  API(gdn_plan_get(rt, &p, &plan));
  gdn_plan_info info;
  API(gdn_plan_get_info(plan, &info));
  printf("plan: %s; workspace %zu bytes\n", info.description,
         info.workspace_bytes);

  /* Inputs, rounded as the kernels see them. */
  static uint16_t q[T * H * D], k[T * H * D], v[T * HV * D], o[T * HV * D];
  static uint16_t beta16[T * HV];
  static float g[T * HV], beta32[T * HV], h0[HV * D * D], ht[HV * D * D];
  static double qd[T * H * D], kd[T * H * D], vd[T * HV * D];
  static double gd[T * HV], bd[T * HV], S[HV][D * D], od[T * HV * D];
  uint64_t seed = 42;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h) {
      double nq = 0, nk = 0, a[D], b[D];
      for (int i = 0; i < D; ++i) {
        a[i] = uniform(&seed);
        b[i] = uniform(&seed);
        nq += a[i] * a[i];
        nk += b[i] * b[i];
      }
      for (int i = 0; i < D; ++i) { /* unit-norm q and k, as GDN uses them */
        size_t at = ((size_t)t * H + h) * D + i;
        q[at] = toBf16((float)(a[i] / sqrt(nq)));
        k[at] = toBf16((float)(b[i] / sqrt(nk)));
        qd[at] = fromBf16(q[at]);
        kd[at] = fromBf16(k[at]);
      }
    }
  for (size_t i = 0; i < (size_t)T * HV * D; ++i) {
    v[i] = toBf16((float)uniform(&seed));
    vd[i] = fromBf16(v[i]);
  }
  for (size_t i = 0; i < (size_t)T * HV; ++i) {
    g[i] = (float)(-0.05 * (1.0 + uniform(&seed))); /* log decay < 0 */
    gd[i] = g[i];
    double b = 0.5 + 0.4 * uniform(&seed);
    beta16[i] = toBf16((float)b);
    beta32[i] = (float)b;
    bd[i] = info.beta_dtype == GDN_DTYPE_F32 ? (double)beta32[i]
                                             : fromBf16(beta16[i]);
  }
  for (size_t i = 0; i < (size_t)HV * D * D; ++i) {
    h0[i] = (float)(0.1 * uniform(&seed));
    S[i / (D * D)][i % (D * D)] = h0[i];
  }

  /* Device buffers and one run on a stream. */
  CUcontext ctx;
  CUdevice dev;
  CU(cuInit(0));
  CU(cuDeviceGet(&dev, 0));
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUstream stream;
  CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  const size_t betaBytes = sizeof(uint16_t) * T * HV * (info.beta_dtype == GDN_DTYPE_F32 ? 2 : 1);
  struct {
    const void *host;
    size_t bytes;
    CUdeviceptr dev;
  } buf[] = {{q, sizeof q, 0},   {k, sizeof k, 0},
             {v, sizeof v, 0},   {g, sizeof g, 0},
             {info.beta_dtype == GDN_DTYPE_F32 ? (const void *)beta32
                                               : (const void *)beta16,
              betaBytes, 0},
             {h0, sizeof h0, 0}, {NULL, sizeof o, 0},
             {NULL, sizeof ht, 0}, {NULL, info.workspace_bytes + 1, 0}};
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; ++i) {
    CU(cuMemAlloc(&buf[i].dev, buf[i].bytes));
    if (buf[i].host)
      CU(cuMemcpyHtoD(buf[i].dev, buf[i].host, buf[i].bytes));
  }
  CU(cuCtxSynchronize());
  gdn_tensors tensors = {
      (const void *)buf[0].dev, (const void *)buf[1].dev,
      (const void *)buf[2].dev, (const void *)buf[3].dev,
      (const void *)buf[4].dev, (const void *)buf[5].dev,
      (void *)buf[6].dev,       (void *)buf[7].dev};
  API(gdn_run(plan, &tensors, (void *)buf[8].dev, info.workspace_bytes,
              (gdn_stream)stream, 0));
  CU(cuStreamSynchronize(stream));
  CU(cuMemcpyDtoH(o, buf[6].dev, sizeof o));
  CU(cuMemcpyDtoH(ht, buf[7].dev, sizeof ht));

  /* fp64 recurrence: S = e^g S; u = v - S^T k; S += beta k u^T;
   * o = scale S^T q. */
  const double scale = 1.0 / sqrt((double)D);
  for (int t = 0; t < T; ++t)
    for (int hv = 0; hv < HV; ++hv) {
      int h = hv / (HV / H);
      const double *qt = qd + ((size_t)t * H + h) * D;
      const double *kt = kd + ((size_t)t * H + h) * D;
      const double *vt = vd + ((size_t)t * HV + hv) * D;
      double decay = exp(gd[t * HV + hv]), b = bd[t * HV + hv], u[D];
      double *s = S[hv];
      for (int i = 0; i < D * D; ++i)
        s[i] *= decay;
      for (int j = 0; j < D; ++j) {
        double acc = 0;
        for (int i = 0; i < D; ++i)
          acc += s[i * D + j] * kt[i];
        u[j] = vt[j] - acc;
      }
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j)
          s[i * D + j] += b * kt[i] * u[j];
      for (int j = 0; j < D; ++j) {
        double acc = 0;
        for (int i = 0; i < D; ++i)
          acc += s[i * D + j] * qt[i];
        od[((size_t)t * HV + hv) * D + j] = scale * acc;
      }
    }
  double eo = 0, no = 0, eh = 0, nh = 0;
  for (size_t i = 0; i < (size_t)T * HV * D; ++i) {
    double d = fromBf16(o[i]) - od[i];
    eo += d * d;
    no += od[i] * od[i];
  }
  for (size_t i = 0; i < (size_t)HV * D * D; ++i) {
    double d = ht[i] - S[i / (D * D)][i % (D * D)];
    eh += d * d;
    nh += S[i / (D * D)][i % (D * D)] * S[i / (D * D)][i % (D * D)];
  }
  double relO = sqrt(eo / no), relH = sqrt(eh / nh);
  int pass = relO <= 8e-3 && relH <= 8e-3; /* bf16 output rounding */
  printf("o rel_l2 %.3e, final state rel_l2 %.3e: %s\n", relO, relH,
         pass ? "PASS" : "FAIL");
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; ++i)
    cuMemFree(buf[i].dev);
  cuStreamDestroy(stream);
  gdn_runtime_destroy(rt);
  cuDevicePrimaryCtxRelease(dev);
  return pass ? 0 : 1;
}
