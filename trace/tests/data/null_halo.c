/* null_halo.c: a 1-D non-periodic halo whose end ranks post to MPI_PROC_NULL, through the augur
 * C wrappers; tests/proc_null.rs checks what the runtime records. Open MPI returns one shared
 * handle for every nonblocking request to MPI_PROC_NULL, so these requests cannot be told apart
 * by handle. Site ids are arbitrary fixed numbers.
 * usage: null_halo NSTEPS [unknown]: with `unknown`, also two waits on requests the wrappers
 * never saw (one of them to MPI_PROC_NULL), which the runtime must count as anomalies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "augur.h"

#define HALO 4

int main(int argc, char **argv) {
  int rank, size, nsteps = argc > 1 ? atoi(argv[1]) : 5;
  int unknown = argc > 2 && strcmp(argv[2], "unknown") == 0;
  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &size);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double u[HALO * 4], p[HALO * 4];
  for (int i = 0; i < HALO * 4; i++) u[i] = p[i] = rank + i * 1e-3;

  /* persistent twin of the exchange, PROC_NULL at the ends too */
  MPI_Request pers[4];
  augur_MPI_Recv_init(20, p, HALO, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &pers[0]);
  augur_MPI_Recv_init(21, p + HALO, HALO, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &pers[1]);
  augur_MPI_Send_init(22, p + 2 * HALO, HALO, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &pers[2]);
  augur_MPI_Send_init(23, p + 3 * HALO, HALO, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &pers[3]);

  double sum = 0.0;
  for (int step = 0; step < nsteps; step++) {
    MPI_Request req[4];
    augur_MPI_Irecv(10, u, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    augur_MPI_Irecv(11, u + HALO, HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    augur_MPI_Isend(12, u + 2 * HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
    augur_MPI_Isend(13, u + 3 * HALO, HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    augur_MPI_Waitall(14, 4, req, MPI_STATUSES_IGNORE);
    augur_MPI_Startall(24, 4, pers);
    augur_MPI_Waitall(25, 4, pers, MPI_STATUSES_IGNORE);
    sum += u[0] + u[HALO] + p[0] + p[HALO];
  }

  /* small sends, several live at once: Open MPI sends them inline and returns one shared
   * handle for all of them (the one it returns for requests to MPI_PROC_NULL) */
  int bout[8], bin[8];
  MPI_Request burst[8];
  for (int i = 0; i < 4; i++) augur_MPI_Irecv(60, &bin[i], 1, MPI_INT, left, 10 + i, MPI_COMM_WORLD, &burst[i]);
  for (int i = 0; i < 4; i++) {
    bout[i] = rank * 10 + i;
    augur_MPI_Isend(61, &bout[i], 1, MPI_INT, right, 10 + i, MPI_COMM_WORLD, &burst[4 + i]);
  }
  augur_MPI_Waitall(62, 8, burst, MPI_STATUSES_IGNORE);
  /* the same completed one by one, the sends in the reverse of their posting order */
  for (int i = 0; i < 4; i++) augur_MPI_Irecv(63, &bin[4 + i], 1, MPI_INT, left, 20 + i, MPI_COMM_WORLD, &burst[i]);
  for (int i = 0; i < 4; i++) {
    bout[4 + i] = rank * 10 + i;
    augur_MPI_Isend(64, &bout[4 + i], 1, MPI_INT, right, 20 + i, MPI_COMM_WORLD, &burst[4 + i]);
  }
  for (int i = 7; i >= 4; i--) augur_MPI_Wait(65, &burst[i], MPI_STATUS_IGNORE);
  augur_MPI_Waitall(66, 4, burst, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 8; i++)
    if (left != MPI_PROC_NULL && bin[i] != (rank - 1) * 10 + i % 4) {
      fprintf(stderr, "rank %d: burst message %d is %d\n", rank, i, bin[i]);
      return 1;
    }

  /* single PROC_NULL requests completed by each kind of completion */
  MPI_Request a, b[2];
  MPI_Status st;
  int flag = 0;
  augur_MPI_Isend(30, u, 1, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &a);
  augur_MPI_Wait(31, &a, MPI_STATUS_IGNORE);
  augur_MPI_Irecv(32, u, 2, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &a);
  augur_MPI_Test(33, &a, &flag, &st);
  if (!flag || st.MPI_SOURCE != MPI_PROC_NULL) {
    fprintf(stderr, "rank %d: Test of a receive from MPI_PROC_NULL: flag %d source %d\n", rank, flag,
            st.MPI_SOURCE);
    return 1;
  }
  int i1 = -1, i2 = -1;
#ifndef SMPI_H
  /* SimGrid 3.32 aborts in MPI_Request_free of a request to MPI_PROC_NULL ("wrong refcount")
   * and crashes in a second MPI_Waitany over two of them: Open MPI only */
  augur_MPI_Issend(34, u, 3, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &a);
  augur_MPI_Request_free(35, &a);
  augur_MPI_Irecv(36, u, 1, MPI_DOUBLE, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &b[0]);
  augur_MPI_Isend(37, u, 1, MPI_DOUBLE, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &b[1]);
  augur_MPI_Waitany(38, 2, b, &i1, MPI_STATUS_IGNORE);
  augur_MPI_Waitany(38, 2, b, &i2, MPI_STATUS_IGNORE);
#else
  (void)b;
#endif
  augur_MPI_Barrier(40, MPI_COMM_WORLD);

  if (unknown) {
    /* requests made behind the wrappers' back: completing them through a wrapper is unknown */
    int x = rank, y = -1;
    MPI_Request raw;
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &raw);
    augur_MPI_Wait(41, &raw, MPI_STATUS_IGNORE);
    MPI_Isend(&x, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &raw);
    augur_MPI_Recv(42, &y, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    augur_MPI_Wait(43, &raw, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < 4; i++) augur_MPI_Request_free(45, &pers[i]);
  printf("rank %d sum %.6f waitany %d %d\n", rank, sum, i1, i2);
  augur_MPI_Finalize(50);
  return 0;
}
