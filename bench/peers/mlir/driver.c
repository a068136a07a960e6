/* C timing driver of the "mlir-plain" peer: links one kernel lowered by
 * build.sh (function @kernel, bare-pointer calling convention: each memref
 * argument is a plain double*, inputs first, the output last).
 * Usage: BINARY CASE REPS OUT.bin OUT_ELEMENTS IN.npy...   (see ../peers.h) */
#include "peers.h"

extern void kernel(void); /* the real signature is kernel(double*, ..., double*) */
typedef double *D;

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s CASE REPS OUT.bin OUT_ELEMENTS IN.npy...\n", argv[0]);
    return 2;
  }
  const char *cs = argv[1], *out = argv[3];
  int reps = atoi(argv[2]), nin = argc - 5;
  size_t nout = (size_t)atoll(argv[4]);
  D in[6];
  for (int i = 0; i < nin && i < 6; ++i) in[i] = npy_load(argv[5 + i]).data;
  D o = pt_alloc(nout);
  void (*f)(void) = kernel;
  switch (nin) {
  case 1: PT_TIME(cs, reps, ((void (*)(D, D))f)(in[0], o)); break;
  case 2: PT_TIME(cs, reps, ((void (*)(D, D, D))f)(in[0], in[1], o)); break;
  case 3: PT_TIME(cs, reps, ((void (*)(D, D, D, D))f)(in[0], in[1], in[2], o)); break;
  case 4: PT_TIME(cs, reps, ((void (*)(D, D, D, D, D))f)(in[0], in[1], in[2], in[3], o)); break;
  case 5:
    PT_TIME(cs, reps, ((void (*)(D, D, D, D, D, D))f)(in[0], in[1], in[2], in[3], in[4], o));
    break;
  default: fprintf(stderr, "error: %d inputs\n", nin); return 2;
  }
  raw_save(out, o, nout);
  return 0;
}
