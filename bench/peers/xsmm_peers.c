/* LIBXSMM peers of bench/run.py: the CFD kernels as spectral-element codes
 * write them with LIBXSMM (Nek5000, NekBox): per element, the sum
 * factorization as three small GEMMs that LIBXSMM JIT-compiles for the
 * element's p, on per-element scratch that stays in L1.
 *
 * Build (bench/run.py does this, into build/bench-peers/):
 *   clang-22 -O3 -march=native xsmm_peers.c -o xsmm_peers -lxsmm -lopenblas -lm -ldl -lpthread
 * Run:   xsmm_peers CASE REPS OUT.bin IN.npy...          (see peers.h)
 * Cases and inputs (in this order):
 *   k5-xsmm                    u A          v = A (x) A (x) A u per element
 *   k5h-xsmm                   S D u        inverse Helmholtz: S^T, scale by D, S
 *   k5f-xsmm                   u A          k5-xsmm in float (LIBXSMM's f32 kernels)
 * Single-threaded. */
#include "peers.h"

#include <libxsmm.h>

/* The three column-major kernels of one interpolation with a p x p matrix
 * (row-major C = X Y is column-major C^T = Y^T X^T). */
typedef struct {
  libxsmm_dmmfunction last, middle, first;
  int p;
} interp_kernels;

static interp_kernels dispatch(int p) {
  interp_kernels k;
  k.p = p;
  const double alpha = 1.0, beta = 0.0;
  libxsmm_blasint P = p, P2 = (libxsmm_blasint)p * p;
  /* t1[(l,m)][k] = sum_n u[(l,m)][n] Mt[n][k]: m = p, n = p^2, k = p */
  k.last = libxsmm_dmmdispatch(P, P2, P, &P, &P, &P, &alpha, &beta, NULL, NULL);
  /* t2[l][j][k] = sum_m M[j][m] t1[l][m][k]: p of m = n = k = p */
  k.middle = libxsmm_dmmdispatch(P, P, P, &P, &P, &P, &alpha, &beta, NULL, NULL);
  /* v[i][(j,k)] = sum_l M[i][l] t2[l][(j,k)]: m = p^2, n = p, k = p */
  k.first = libxsmm_dmmdispatch(P2, P, P, &P2, &P, &P2, &alpha, &beta, NULL, NULL);
  if (!k.last || !k.middle || !k.first) {
    fprintf(stderr, "error: LIBXSMM has no kernel for p = %d\n", p);
    exit(3);
  }
  return k;
}

/* v_e = (M (x) M (x) M) u_e for one element; Mt is M transposed. */
static void interp_element(const interp_kernels *k, const double *M, const double *Mt,
                           const double *u, double *t1, double *t2, double *v) {
  int p = k->p;
  k->last(Mt, u, t1);
  for (int l = 0; l < p; ++l) k->middle(t1 + (size_t)l * p * p, M, t2 + (size_t)l * p * p);
  k->first(t2, M, v);
}

/* The same in float. */
typedef struct {
  libxsmm_smmfunction last, middle, first;
  int p;
} interp_kernels_f32;

static interp_kernels_f32 dispatch_f32(int p) {
  interp_kernels_f32 k;
  k.p = p;
  const float alpha = 1.0f, beta = 0.0f;
  libxsmm_blasint P = p, P2 = (libxsmm_blasint)p * p;
  k.last = libxsmm_smmdispatch(P, P2, P, &P, &P, &P, &alpha, &beta, NULL, NULL);
  k.middle = libxsmm_smmdispatch(P, P, P, &P, &P, &P, &alpha, &beta, NULL, NULL);
  k.first = libxsmm_smmdispatch(P2, P, P, &P2, &P, &P2, &alpha, &beta, NULL, NULL);
  if (!k.last || !k.middle || !k.first) {
    fprintf(stderr, "error: LIBXSMM has no f32 kernel for p = %d\n", p);
    exit(3);
  }
  return k;
}

static void interp_element_f32(const interp_kernels_f32 *k, const float *M, const float *Mt,
                               const float *u, float *t1, float *t2, float *v) {
  int p = k->p;
  k->last(Mt, u, t1);
  for (int l = 0; l < p; ++l) k->middle(t1 + (size_t)l * p * p, M, t2 + (size_t)l * p * p);
  k->first(t2, M, v);
}

static float *to_float(const double *x, size_t n) {
  float *y = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) y[i] = (float)x[i];
  return y;
}

static double *transposed(const double *M, int p) {
  double *t = pt_alloc((size_t)p * p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) t[j * p + i] = M[i * p + j];
  return t;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s CASE REPS OUT.bin IN.npy...\n", argv[0]);
    return 2;
  }
  const char *cs = argv[1], *out = argv[3];
  int reps = atoi(argv[2]), nin = argc - 4;
  npy_t in[8];
  for (int i = 0; i < nin && i < 8; ++i) in[i] = npy_load(argv[4 + i]);
  libxsmm_init();
  if (!strcmp(cs, "k5-xsmm") && nin == 2) {
    const double *u = in[0].data, *A = in[1].data;
    long E = in[0].shape[0];
    int p = (int)in[0].shape[1];
    size_t per = (size_t)p * p * p;
    double *v = pt_alloc(in[0].size), *t1 = pt_alloc(per), *t2 = pt_alloc(per);
    double *At = transposed(A, p);
    interp_kernels k = dispatch(p);
    PT_TIME(cs, reps, {
      for (long e = 0; e < E; ++e) interp_element(&k, A, At, u + e * per, t1, t2, v + e * per);
    });
    raw_save(out, v, in[0].size);
  } else if (!strcmp(cs, "k5h-xsmm") && nin == 3) {
    const double *S = in[0].data, *D = in[1].data, *u = in[2].data;
    long E = in[2].shape[0];
    int p = (int)in[2].shape[1];
    size_t per = (size_t)p * p * p;
    double *v = pt_alloc(in[2].size), *t = pt_alloc(per), *t1 = pt_alloc(per), *t2 = pt_alloc(per);
    /* The first interpolation applies S^T, the second S (c_peers' k5h). */
    double *St = transposed(S, p);
    interp_kernels k = dispatch(p);
    PT_TIME(cs, reps, {
      for (long e = 0; e < E; ++e) {
        interp_element(&k, St, S, u + e * per, t1, t2, t);
        for (size_t i = 0; i < per; ++i) t[i] *= D[e * per + i];
        interp_element(&k, S, St, t, t1, t2, v + e * per);
      }
    });
    raw_save(out, v, in[2].size);
  } else if (!strcmp(cs, "k5f-xsmm") && nin == 2) {
    long E = in[0].shape[0];
    int p = (int)in[0].shape[1];
    size_t per = (size_t)p * p * p;
    float *u = to_float(in[0].data, in[0].size), *A = to_float(in[1].data, in[1].size);
    float *At = to_float(transposed(in[1].data, p), (size_t)p * p);
    float *v = malloc(in[0].size * sizeof(float)), *t1 = malloc(per * sizeof(float)),
          *t2 = malloc(per * sizeof(float));
    interp_kernels_f32 k = dispatch_f32(p);
    PT_TIME(cs, reps, {
      for (long e = 0; e < E; ++e) interp_element_f32(&k, A, At, u + e * per, t1, t2, v + e * per);
    });
    double *out_v = pt_alloc(in[0].size);
    for (size_t i = 0; i < in[0].size; ++i) out_v[i] = v[i];
    raw_save(out, out_v, in[0].size);
  } else {
    fprintf(stderr, "error: unknown case %s or wrong number of inputs (%d)\n", cs, nin);
    return 2;
  }
  libxsmm_finalize();
  return 0;
}
