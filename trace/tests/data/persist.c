/* persist.c: persistent requests and probes through the augur C wrappers; tests/persistent.rs
 * checks what the runtime records. Site ids are arbitrary fixed numbers. usage: persist NSTEPS */
#include <stdio.h>
#include <stdlib.h>
#include "augur.h"

#define HALO 4

int main(int argc, char **argv) {
  int rank, size, nsteps = argc > 1 ? atoi(argv[1]) : 5;
  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double a[HALO * 4 + 8];
  for (int i = 0; i < HALO * 4 + 8; i++) a[i] = rank + i * 1e-3;

  /* ring halo exchange with four persistent requests, started together */
  MPI_Request reqs[4];
  augur_MPI_Recv_init(10, a, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[0]);
  augur_MPI_Recv_init(11, a + HALO, HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[1]);
  augur_MPI_Send_init(12, a + 2 * HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[2]);
  augur_MPI_Ssend_init(13, a + 3 * HALO, HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[3]);
  /* one more pair started one at a time, completed by Wait */
  MPI_Request r1, s1;
  int one_in = 0, one_out = rank;
  augur_MPI_Recv_init(14, &one_in, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r1);
  augur_MPI_Send_init(15, &one_out, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &s1);

  double sum = 0.0;
  for (int step = 0; step < nsteps; step++) {
    augur_MPI_Startall(20, 4, reqs);
    augur_MPI_Waitall(21, 4, reqs, MPI_STATUSES_IGNORE);
    /* waiting again on inactive persistent requests completes nothing */
    augur_MPI_Waitall(22, 4, reqs, MPI_STATUSES_IGNORE);
    augur_MPI_Start(23, &r1);
    augur_MPI_Start(24, &s1);
    augur_MPI_Wait(25, &s1, MPI_STATUS_IGNORE);
    augur_MPI_Wait(26, &r1, MPI_STATUS_IGNORE);
    sum += a[0] + a[HALO] + one_in;
  }

  /* probe, then receive what was found; an Iprobe loop until the message is there */
  MPI_Status st;
  int count = 0, flag = 0;
  MPI_Request q;
  augur_MPI_Isend(30, a, rank + 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &q);
  augur_MPI_Probe(31, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  augur_MPI_Recv(32, a + 2 * HALO, count, MPI_DOUBLE, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  augur_MPI_Wait(33, &q, MPI_STATUS_IGNORE);
  augur_MPI_Barrier(34, MPI_COMM_WORLD);
  augur_MPI_Isend(35, &one_out, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &q);
  while (!flag) augur_MPI_Iprobe(36, right, 6, MPI_COMM_WORLD, &flag, &st);
  augur_MPI_Recv(37, &one_in, 1, MPI_INT, right, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  augur_MPI_Wait(38, &q, MPI_STATUS_IGNORE);

  /* a start still pending when freed is abandoned, not an anomaly: the receive is matched by a
   * send that a barrier keeps waiting until after the free */
  augur_MPI_Start(40, &r1);
  augur_MPI_Request_free(41, &r1);
  augur_MPI_Barrier(42, MPI_COMM_WORLD);
  augur_MPI_Send(43, &one_out, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
  augur_MPI_Barrier(44, MPI_COMM_WORLD);
  for (int i = 0; i < 4; i++) augur_MPI_Request_free(45, &reqs[i]);
  augur_MPI_Request_free(46, &s1);
  /* v-collectives with the root-only arguments NULL elsewhere: the root records all the data */
  int *counts = NULL, *displs = NULL;
  double *all = NULL;
  if (rank == 0) {
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    all = malloc(sizeof(double) * (size_t)(size * (size + 1) / 2));
    for (int i = 0, off = 0; i < size; off += i + 1, i++) counts[i] = i + 1, displs[i] = off;
  }
  augur_MPI_Scatterv(47, all, counts, displs, MPI_DOUBLE, a, rank + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  augur_MPI_Gatherv(48, a, rank + 1, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free(all);
  free(counts);
  free(displs);
  printf("rank %d sum %.6f count %d\n", rank, sum, count);
  augur_MPI_Finalize(50);
  return 0;
}
