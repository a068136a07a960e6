/* Calls the distributed kernel of distributed.tl on each process's block
   of E = 10 elements, and compares, on every process, with plain loops
   over all 10: v (its block) and the global dot product s. */
#include DISTRIBUTED_HEADER
#include <math.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { E = 10 };
  double A[9], u[E * 3];
  for (int i = 0; i < 9; ++i)
    A[i] = (i % 4) - 1.5;
  for (int i = 0; i < E * 3; ++i)
    u[i] = (i % 7) - 3 + 0.25 * (i / 7);
  int64_t count = E / size + (rank < E % size), first = 0;
  for (int r = 0; r < rank; ++r)
    first += E / size + (r < E % size);
  double v[E * 3], s;
  distributed(MPI_COMM_WORLD, count, A, u + 3 * first, v, &s);
  double error = 0, dot = 0;
  for (int e = 0; e < E; ++e)
    for (int j = 0; j < 3; ++j) {
      double x = 0;
      for (int k = 0; k < 3; ++k)
        x += u[3 * e + k] * A[3 * k + j];
      dot += u[3 * e + j] * x;
      if (e >= first && e < first + count)
        error = fmax(error, fabs(x - v[3 * (e - first) + j]));
    }
  error = fmax(error, fabs(dot - s) / fabs(dot));
  double worst;
  MPI_Reduce(&error, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%d processes: max error %s\n", size,
           worst < 1e-13 ? "< 1e-13" : "too large");
  MPI_Finalize();
  return 0;
}
