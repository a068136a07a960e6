/* Shared helpers of the C/C++ peers of bench/run.py (adapted from the team's
 * peer harness in shared/peers/timing.h): a CLOCK_MONOTONIC timer, a median
 * over repetitions after a warm-up, a reader of NumPy .npy files (the same
 * inputs tl-run and NumPy get) and a raw writer of the result, which
 * bench/run.py compares with NumPy's.
 *
 * Every peer binary is called as
 *     BINARY CASE REPS OUT.bin IN1.npy [IN2.npy ...]
 * and prints one line
 *     RESULT case=CASE reps=R median_s=... min_s=... max_s=... warmup_s=...
 * R may be lower than REPS: with PEER_BUDGET_S=T in the environment, a case
 * whose warm-up run took w seconds runs at most max(1, T / w) timed runs. */
#ifndef TL_BENCH_PEERS_H
#define TL_BENCH_PEERS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double pt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int pt_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts t in place; returns the median. */
static inline double pt_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof(double), pt_cmp);
  return (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static inline double *pt_alloc(size_t n) {
  void *p = NULL;
  if (n == 0) n = 1;
  if (posix_memalign(&p, 64, n * sizeof(double)) != 0) {
    fprintf(stderr, "error: out of memory (%zu doubles)\n", n);
    exit(1);
  }
  memset(p, 0, n * sizeof(double));
  return (double *)p;
}

/* Repetitions for a case whose warm-up took `warm` seconds. */
static inline int pt_reps(int reps, double warm) {
  const char *s = getenv("PEER_BUDGET_S");
  double budget = (s && *s) ? atof(s) : 0.0;
  if (budget > 0 && warm > 0 && warm * reps > budget) {
    int r = (int)(budget / warm);
    reps = r < 1 ? 1 : r;
  }
  return reps < 1 ? 1 : reps;
}

static inline void pt_report(const char *name, double *t, int n, double warm) {
  double med = pt_median(t, n);
  printf("RESULT case=%s reps=%d median_s=%.6g min_s=%.6g max_s=%.6g warmup_s=%.6g\n",
         name, n, med, t[0], t[n - 1], warm);
  fflush(stdout);
}

/* Times `body`: one warm-up run, then the repetitions. */
#define PT_TIME(name, reps, body)                                              \
  do {                                                                         \
    double w0_ = pt_now();                                                     \
    body;                                                                      \
    double warm_ = pt_now() - w0_;                                             \
    int n_ = pt_reps((reps), warm_);                                           \
    double *tt_ = (double *)malloc(sizeof(double) * (size_t)n_);               \
    for (int r_ = 0; r_ < n_; ++r_) {                                          \
      double t0_ = pt_now();                                                   \
      body;                                                                    \
      tt_[r_] = pt_now() - t0_;                                                \
    }                                                                          \
    pt_report((name), tt_, n_, warm_);                                         \
    free(tt_);                                                                 \
  } while (0)

/* A float64, C-order .npy file (what numpy.save writes). */
typedef struct {
  double *data;
  int ndim;
  long shape[16];
  size_t size;
} npy_t;

static inline npy_t npy_load(const char *path) {
  npy_t a;
  memset(&a, 0, sizeof a);
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "error: cannot open %s\n", path); exit(1); }
  unsigned char pre[10];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "error: %s is not a .npy file\n", path); exit(1);
  }
  size_t hlen;
  if (pre[6] == 1) {
    if (fread(pre, 1, 2, f) != 2) exit(1);
    hlen = (size_t)pre[0] | ((size_t)pre[1] << 8);
  } else {
    if (fread(pre, 1, 4, f) != 4) exit(1);
    hlen = (size_t)pre[0] | ((size_t)pre[1] << 8) | ((size_t)pre[2] << 16) |
           ((size_t)pre[3] << 24);
  }
  char *h = (char *)calloc(hlen + 1, 1);
  if (fread(h, 1, hlen, f) != hlen) exit(1);
  /* float32 files (the f32 kernels) are widened to doubles; a case that
     computes in float narrows them again. */
  int is_f32 = strstr(h, "'<f4'") != NULL;
  if ((!strstr(h, "'<f8'") && !is_f32) || !strstr(h, "'fortran_order': False")) {
    fprintf(stderr, "error: %s: need a C-order float64 or float32 array: %s\n", path, h);
    exit(1);
  }
  const char *s = strstr(h, "'shape': (");
  if (!s) exit(1);
  s += strlen("'shape': (");
  a.size = 1;
  while (*s && *s != ')') {
    char *end;
    long d = strtol(s, &end, 10);
    if (end == s) { ++s; continue; }
    a.shape[a.ndim++] = d;
    a.size *= (size_t)d;
    s = end;
  }
  free(h);
  a.data = pt_alloc(a.size);
  size_t width = is_f32 ? sizeof(float) : sizeof(double);
  if (fread(a.data, width, a.size, f) != a.size) {
    fprintf(stderr, "error: %s: short read\n", path);
    exit(1);
  }
  if (is_f32) /* backwards: each double takes the place of two floats */
    for (size_t i = a.size; i-- > 0;) a.data[i] = ((const float *)a.data)[i];
  fclose(f);
  return a;
}

static inline void raw_save(const char *path, const double *x, size_t n) {
  if (!strcmp(path, "-")) return;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(x, sizeof(double), n, f) != n) {
    fprintf(stderr, "error: cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}
#endif
