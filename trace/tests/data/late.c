/* late.c: calls MPI_Init itself (unwrapped), then traced calls; the runtime must still find its
 * rank and write a complete trace. Phase markers run before MPI_Init too. With argument
 * `abort` every rank calls augur_MPI_Abort instead of finalizing. */
#include <stdio.h>
#include "augur.h"

int main(int argc, char **argv) {
  double s = 0.0;
  augur_phase_begin(5);
  for (int i = 0; i < 100000; i++) s += i * 1e-9;
  augur_phase_end(5);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* 30000 phase events (1.4 MB) of two sites in turn: the buffer grows and is flushed
   * several times */
  for (int k = 0; k < 30000; k++) {
    int site = k % 2 ? 11 : 6;
    augur_phase_begin(site);
    s += k;
    augur_phase_end(site);
  }
  /* 50 brief entries of one site back to back: its first 8 apart, then one run of 42 */
  for (int k = 0; k < 50; k++) {
    augur_phase_begin(12);
    s += k;
    augur_phase_end(12);
  }
  double v = rank;
  if (rank == 0)
    for (int r = 1; r < size; r++) augur_MPI_Recv(7, &v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    augur_MPI_Send(8, &v, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
  if (argc > 1 && argv[1][0] == 'a') augur_MPI_Abort(10, MPI_COMM_WORLD, 3); /* "abort" */
  printf("rank %d s %.3f\n", rank, s);
  augur_MPI_Finalize(9);
  return 0;
}
