/* Plain C peers of bench/run.py: hand-written loop nests, memcpy and STREAM
 * bandwidth, OpenBLAS, and the machine-peak probes. Adapted from the team's
 * shared/peers/c_bench.c; sizes come from the input files here.
 *
 * Build (bench/run.py does this, into build/bench-peers/):
 *   clang-22 -O3 -march=native c_peers.c -o c_peers -lopenblas      (-DHAVE_CBLAS)
 * Run:   c_peers CASE REPS OUT.bin IN.npy...          (see peers.h)
 * Cases and inputs (in this order):
 *   peak-fma, peak-triad                    no inputs, OUT is "-"; also print
 *                                           "INFO flops=... " / "INFO bytes=..."
 *   k1-loop k1-blas            A B          C = A B (i, k, j loops; cblas_dgemm)
 *   k1f-blas                   A B          C = A B in float (cblas_sgemm)
 *   k2-loop k2-blas            A B          s = sum_ij A[i,j] B[j,i] (loops; n cblas_ddot)
 *   k3-loop k3-memcpy          u            v = u ^ [2 4] (loops; memcpy of u)
 *   k4-loop k4-stream          a b c d e    z = (a + b) * c - d / e; z = a+b+c+d+e
 *   k5-fact k5-blas            u A          CFD interpolation, factorized loops / 3 GEMM stages
 *   k5h-fact k5h-blas          S D u        inverse Helmholtz, the same twice
 *   c3-loop c3-blas            A B C        D = (A B) C
 *   k6t2-loop                  A B          C[c,b,a] = sum_d A[a,d,b] B[c,d]
 *   k6t3-loop                  A B          C[f,e,d,c,b,a] = sum_g A[a,g,e,d] B[c,b,f,g]
 * Single-threaded. The k*-blas cases follow OPENBLAS_NUM_THREADS. */
#include "peers.h"
#ifdef HAVE_CBLAS
#include <cblas.h>
#endif
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#define R restrict

/* ---- machine peak ---------------------------------------------------- */
#define FMA_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#if defined(__AVX512F__)
#define FMA_ISA "avx512"
#define FMA_LANES 8
#define FMA_MORE(X) X(12) X(13) X(14) X(15)
#define VT __m512d
#define VSET _mm512_set1_pd
#define VFMA _mm512_fmadd_pd
#define VADD _mm512_add_pd
#define VSUM _mm512_reduce_add_pd
#elif defined(__AVX2__) && defined(__FMA__)
#define FMA_ISA "avx2"
#define FMA_LANES 4
#define FMA_MORE(X)
#define VT __m256d
#define VSET _mm256_set1_pd
#define VFMA _mm256_fmadd_pd
#define VADD _mm256_add_pd
static double VSUM(__m256d v) {
  double t[4];
  _mm256_storeu_pd(t, v);
  return t[0] + t[1] + t[2] + t[3];
}
#endif

#ifdef FMA_ISA
#define ALL_CHAINS(X) FMA_CHAINS(X) FMA_MORE(X)
#define DECL(i) VT a##i = VSET(0.01 * (i));
#define STEP(i) a##i = VFMA(a##i, m, c);
#define ACC(i) s = VADD(s, a##i);
#define COUNT(i) +1
static const int fma_chains = 0 ALL_CHAINS(COUNT);
static double fma_run(long iters) {
  VT m = VSET(0.999999), c = VSET(1e-6);
  ALL_CHAINS(DECL)
  for (long i = 0; i < iters; ++i) {
    ALL_CHAINS(STEP)
    __asm__ volatile("" ::: "memory");
  }
  VT s = VSET(0.0);
  ALL_CHAINS(ACC)
  return VSUM(s);
}
#else
#define FMA_ISA "scalar"
#define FMA_LANES 1
static const int fma_chains = 8;
static double fma_run(long iters) {
  double a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, m = 0.999999, c = 1e-6;
  for (long i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) a[k] = __builtin_fma(a[k], m, c);
  return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}
#endif

static void triad(size_t n, double *R a, const double *R b, const double *R c, double s) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

/* ---- K1, C3: i, k, j loop nest --------------------------------------- */
static void mm(int m, int k, int n, const double *R A, const double *R B, double *R C) {
  for (int i = 0; i < m; ++i) {
    double *R c = C + (size_t)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0;
    for (int l = 0; l < k; ++l) {
      double a = A[(size_t)i * k + l];
      const double *R b = B + (size_t)l * n;
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
}

/* ---- K2 -------------------------------------------------------------- */
static double trace_loop(int n, const double *R A, const double *R B) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) s += A[(size_t)i * n + j] * B[(size_t)j * n + i];
  return s;
}

/* ---- K3: v[a][d][c][b][e] = u[a][b][c][d][e] ------------------------- */
static void transpose24(const long *D, const double *R u, double *R v) {
  long D1 = D[0], D2 = D[1], D3 = D[2], D4 = D[3], D5 = D[4];
  for (long a = 0; a < D1; ++a)
    for (long d = 0; d < D4; ++d)
      for (long c = 0; c < D3; ++c)
        for (long b = 0; b < D2; ++b) {
          const double *R src = u + (((a * D2 + b) * D3 + c) * D4 + d) * D5;
          double *R dst = v + (((a * D4 + d) * D3 + c) * D2 + b) * D5;
          for (long e = 0; e < D5; ++e) dst[e] = src[e];
        }
}

/* ---- K4 -------------------------------------------------------------- */
static void ew(size_t n, const double *R a, const double *R b, const double *R c,
               const double *R d, const double *R e, double *R z) {
  for (size_t i = 0; i < n; ++i) z[i] = ((a[i] + b[i]) * c[i]) - (d[i] / e[i]);
}
static void stream6(size_t n, const double *R a, const double *R b, const double *R c,
                    const double *R d, const double *R e, double *R z) {
  for (size_t i = 0; i < n; ++i) z[i] = a[i] + b[i] + c[i] + d[i] + e[i];
}

/* ---- K5: v[e,i,j,k] = sum_lmn M[i,l] M[j,m] M[k,n] u[e,l,m,n], factorized
 * into three O(p^4) steps per element; P is a compile-time constant where
 * it is 11 (always_inline + constant argument). */
static inline __attribute__((always_inline)) void
interp_p(int P, long E, const double *R M, const double *R u, double *R v) {
  double t1[P][P][P], t2[P][P][P], acc[P];
  for (long e = 0; e < E; ++e) {
    const double *R ue = u + (size_t)e * P * P * P;
    double *R ve = v + (size_t)e * P * P * P;
    for (int l = 0; l < P; ++l) /* t1[l][m][k] = sum_n u[l][m][n] M[k][n] */
      for (int m = 0; m < P; ++m)
        for (int k = 0; k < P; ++k) {
          double s = 0;
          for (int n = 0; n < P; ++n) s += ue[(l * P + m) * P + n] * M[k * P + n];
          t1[l][m][k] = s;
        }
    for (int l = 0; l < P; ++l) /* t2[l][j][k] = sum_m M[j][m] t1[l][m][k] */
      for (int j = 0; j < P; ++j) {
        for (int k = 0; k < P; ++k) t2[l][j][k] = 0;
        for (int m = 0; m < P; ++m) {
          double a = M[j * P + m];
          for (int k = 0; k < P; ++k) t2[l][j][k] += a * t1[l][m][k];
        }
      }
    for (int i = 0; i < P; ++i) /* v[i][j][k] = sum_l M[i][l] t2[l][j][k] */
      for (int j = 0; j < P; ++j) {
        for (int k = 0; k < P; ++k) acc[k] = 0;
        for (int l = 0; l < P; ++l) {
          double a = M[i * P + l];
          for (int k = 0; k < P; ++k) acc[k] += a * t2[l][j][k];
        }
        for (int k = 0; k < P; ++k) ve[(i * P + j) * P + k] = acc[k];
      }
  }
}
static void interp(int P, long E, const double *M, const double *u, double *v) {
  if (P == 11) interp_p(11, E, M, u, v);
  else if (P == 8) interp_p(8, E, M, u, v);
  else interp_p(P, E, M, u, v);
}

#ifdef HAVE_CBLAS
static void interp_blas(int P, long E, const double *M, const double *u, double *t1,
                        double *t2, double *v) {
  /* t1[(e,l,m),k] = u[(e,l,m),n] M[k,n]: one GEMM */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(E * P * P), P, P, 1.0, u, P,
              M, P, 0.0, t1, P);
  /* t2[e,l][j,k] = M[j,m] t1[e,l][m,k]: E p GEMMs */
  for (long el = 0; el < E * P; ++el)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, P, P, P, 1.0, M, P,
                t1 + (size_t)el * P * P, P, 0.0, t2 + (size_t)el * P * P, P);
  /* v[e][i,(j,k)] = M[i,l] t2[e][l,(j,k)]: E GEMMs */
  for (long e = 0; e < E; ++e)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, P, P * P, P, 1.0, M, P,
                t2 + (size_t)e * P * P * P, P * P, 0.0, v + (size_t)e * P * P * P, P * P);
}
#endif

/* ---- K6 (TCCG), plain loops --------------------------------------------- */
static void tc_t2(long a_, long b_, long c_, long d_, const double *R A, const double *R B,
                  double *R C) {
  for (long c = 0; c < c_; ++c)
    for (long b = 0; b < b_; ++b)
      for (long a = 0; a < a_; ++a) {
        double s = 0;
        for (long d = 0; d < d_; ++d) s += A[(a * d_ + d) * b_ + b] * B[c * d_ + d];
        C[(c * b_ + b) * a_ + a] = s;
      }
}
static void tc_t3(long a_, long b_, long c_, long d_, long e_, long f_, long g_,
                  const double *R A, const double *R B, double *R C) {
  for (long f = 0; f < f_; ++f)
    for (long e = 0; e < e_; ++e)
      for (long d = 0; d < d_; ++d)
        for (long c = 0; c < c_; ++c)
          for (long b = 0; b < b_; ++b)
            for (long a = 0; a < a_; ++a) {
              double s = 0;
              for (long g = 0; g < g_; ++g)
                s += A[((a * g_ + g) * e_ + e) * d_ + d] * B[((c * b_ + b) * f_ + f) * g_ + g];
              C[((((f * e_ + e) * d_ + d) * c_ + c) * b_ + b) * a_ + a] = s;
            }
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
  volatile double sink = 0;
#define NEED(k)                                                                \
  if (nin != (k)) { fprintf(stderr, "error: %s needs %d inputs\n", cs, (k)); return 2; }
#define NOBLAS                                                                 \
  { fprintf(stderr, "error: built without CBLAS\n"); return 3; }

  if (!strcmp(cs, "peak-fma")) {
    long iters = 1L << 24;
    PT_TIME(cs, reps, sink += fma_run(iters));
    printf("INFO flops=%.17g isa=%s chains=%d\n",
           2.0 * FMA_LANES * fma_chains * (double)iters, FMA_ISA, fma_chains);
  } else if (!strcmp(cs, "peak-triad")) {
    size_t n = (size_t)1 << 25; /* 3 arrays of 256 MiB */
    double *a = pt_alloc(n), *b = pt_alloc(n), *c = pt_alloc(n);
    for (size_t i = 0; i < n; ++i) b[i] = 1.0, c[i] = 2.0;
    PT_TIME(cs, reps, triad(n, a, b, c, 3.0));
    printf("INFO bytes=%.17g\n", 3.0 * 8.0 * (double)n);
  } else if (!strncmp(cs, "k1-", 3)) {
    NEED(2);
    int n = (int)in[0].shape[0];
    double *C = pt_alloc((size_t)n * n);
    if (!strcmp(cs, "k1-loop")) PT_TIME(cs, reps, mm(n, n, n, in[0].data, in[1].data, C));
#ifdef HAVE_CBLAS
    else if (!strcmp(cs, "k1-blas"))
      PT_TIME(cs, reps, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
                                    in[0].data, n, in[1].data, n, 0.0, C, n));
#endif
    else NOBLAS;
    raw_save(out, C, (size_t)n * n);
  } else if (!strcmp(cs, "k1f-blas")) {
    NEED(2);
#ifdef HAVE_CBLAS
    int n = (int)in[0].shape[0];
    size_t nn = (size_t)n * n;
    float *A = malloc(nn * sizeof(float)), *B = malloc(nn * sizeof(float)),
          *C = malloc(nn * sizeof(float));
    double *out_c = pt_alloc(nn);
    for (size_t i = 0; i < nn; ++i) A[i] = (float)in[0].data[i], B[i] = (float)in[1].data[i];
    PT_TIME(cs, reps,
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f,
                        C, n));
    for (size_t i = 0; i < nn; ++i) out_c[i] = C[i];
    raw_save(out, out_c, nn);
#else
    NOBLAS;
#endif
  } else if (!strncmp(cs, "k2-", 3)) {
    NEED(2);
    int n = (int)in[0].shape[0];
    const double *A = in[0].data, *B = in[1].data;
    double s = 0;
    if (!strcmp(cs, "k2-loop")) PT_TIME(cs, reps, s = trace_loop(n, A, B));
#ifdef HAVE_CBLAS
    else if (!strcmp(cs, "k2-blas"))
      PT_TIME(cs, reps, {
        double t = 0;
        for (int i = 0; i < n; ++i) t += cblas_ddot(n, A + (size_t)i * n, 1, B + i, n);
        s = t;
      });
#endif
    else NOBLAS;
    raw_save(out, &s, 1);
  } else if (!strncmp(cs, "k3-", 3)) {
    NEED(1);
    double *v = pt_alloc(in[0].size);
    if (!strcmp(cs, "k3-loop")) PT_TIME(cs, reps, transpose24(in[0].shape, in[0].data, v));
    else PT_TIME(cs, reps, memcpy(v, in[0].data, in[0].size * sizeof(double)));
    raw_save(out, v, in[0].size);
  } else if (!strncmp(cs, "k4-", 3)) {
    NEED(5);
    size_t n = in[0].size;
    double *z = pt_alloc(n);
    if (!strcmp(cs, "k4-loop"))
      PT_TIME(cs, reps, ew(n, in[0].data, in[1].data, in[2].data, in[3].data, in[4].data, z));
    else
      PT_TIME(cs, reps, stream6(n, in[0].data, in[1].data, in[2].data, in[3].data, in[4].data, z));
    raw_save(out, z, n);
  } else if (!strncmp(cs, "k5-", 3)) {
    NEED(2);
    const double *u = in[0].data, *A = in[1].data;
    long E = in[0].shape[0];
    int P = (int)in[0].shape[1];
    double *v = pt_alloc(in[0].size);
    if (!strcmp(cs, "k5-fact")) PT_TIME(cs, reps, interp(P, E, A, u, v));
#ifdef HAVE_CBLAS
    else if (!strcmp(cs, "k5-blas")) {
      double *t1 = pt_alloc(in[0].size), *t2 = pt_alloc(in[0].size);
      PT_TIME(cs, reps, interp_blas(P, E, A, u, t1, t2, v));
    }
#endif
    else NOBLAS;
    raw_save(out, v, in[0].size);
  } else if (!strncmp(cs, "k5h-", 4)) {
    NEED(3);
    const double *S = in[0].data, *D = in[1].data, *u = in[2].data;
    long E = in[2].shape[0];
    int P = (int)in[2].shape[1];
    size_t n = in[2].size;
    double *St = pt_alloc((size_t)P * P), *t = pt_alloc(n), *v = pt_alloc(n);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) St[i * P + j] = S[j * P + i];
    if (!strcmp(cs, "k5h-fact"))
      PT_TIME(cs, reps, {
        interp(P, E, St, u, t);
        for (size_t i = 0; i < n; ++i) t[i] *= D[i];
        interp(P, E, S, t, v);
      });
#ifdef HAVE_CBLAS
    else if (!strcmp(cs, "k5h-blas")) {
      double *t1 = pt_alloc(n), *t2 = pt_alloc(n);
      PT_TIME(cs, reps, {
        interp_blas(P, E, St, u, t1, t2, t);
        for (size_t i = 0; i < n; ++i) t[i] *= D[i];
        interp_blas(P, E, S, t, t1, t2, v);
      });
    }
#endif
    else NOBLAS;
    raw_save(out, v, n);
  } else if (!strncmp(cs, "c3-", 3)) {
    NEED(3);
    int m = (int)in[0].shape[0], n = (int)in[0].shape[1];
    double *AB = pt_alloc((size_t)m * m), *D = pt_alloc((size_t)m * n);
    if (!strcmp(cs, "c3-loop"))
      PT_TIME(cs, reps, {
        mm(m, n, m, in[0].data, in[1].data, AB);
        mm(m, m, n, AB, in[2].data, D);
      });
#ifdef HAVE_CBLAS
    else if (!strcmp(cs, "c3-blas"))
      PT_TIME(cs, reps, {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, n, 1.0, in[0].data, n,
                    in[1].data, m, 0.0, AB, m);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, m, 1.0, AB, m,
                    in[2].data, n, 0.0, D, n);
      });
#endif
    else NOBLAS;
    raw_save(out, D, (size_t)m * n);
  } else if (!strcmp(cs, "k6t2-loop")) {
    NEED(2);
    long a = in[0].shape[0], d = in[0].shape[1], b = in[0].shape[2], c = in[1].shape[0];
    double *C = pt_alloc((size_t)(a * b * c));
    PT_TIME(cs, reps, tc_t2(a, b, c, d, in[0].data, in[1].data, C));
    raw_save(out, C, (size_t)(a * b * c));
  } else if (!strcmp(cs, "k6t3-loop")) {
    NEED(2);
    long a = in[0].shape[0], g = in[0].shape[1], e = in[0].shape[2], d = in[0].shape[3];
    long c = in[1].shape[0], b = in[1].shape[1], f = in[1].shape[2];
    size_t nc = (size_t)(a * b * c * d * e * f);
    double *C = pt_alloc(nc);
    PT_TIME(cs, reps, tc_t3(a, b, c, d, e, f, g, in[0].data, in[1].data, C));
    raw_save(out, C, nc);
  } else {
    fprintf(stderr, "error: unknown case %s\n", cs);
    return 2;
  }
  (void)sink;
  return 0;
}
