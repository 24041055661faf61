/* ring.c: exercises every augur C wrapper and marker; the trace tests check what it records.
 * Site ids are arbitrary fixed numbers (codegen would use APT ids). Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include "augur.h"

static double work(int n) {
  double s = 0.0;
  augur_loop_enter(10);
  long long it = 0;
  for (int i = 0; i < n; i++, it++) s += (double)i * 1e-9 + (s > 1e9 ? -1.0 : 0.0);
  augur_loop_exit(10, it);
  return s;
}

int main(int argc, char **argv) {
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 1000;
  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &size);
  /* A negative count makes the first receive fail and MPI abort the job (the crash test). The
   * barrier first makes sure every rank has created its trace file before the abort kills it. */
  if (n < 0) augur_MPI_Barrier(4, MPI_COMM_WORLD);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double acc = 0.0;
  int *sbuf = malloc(sizeof(int) * (size_t)n), *rbuf = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) sbuf[i] = rank * 1000 + i;

  augur_loop_enter(20);
  long long iters = 0;
  for (int step = 0; step < 3; step++, iters++) {
    augur_phase_begin(21);
    augur_call_enter(22);
    acc += work(200000);
    augur_call_exit(22);
    augur_phase_end(21);
    augur_branch(23, step % 2);
    MPI_Request rq[2];
    augur_MPI_Irecv(24, rbuf, n, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
    augur_MPI_Isend(25, sbuf, n, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
    augur_MPI_Waitall(26, 2, rq, MPI_STATUSES_IGNORE);
    acc += rbuf[n - 1];
  }
  augur_loop_exit(20, iters);

  /* blocking ring with a wildcard receive: the trace must hold the actual source */
  if (rank % 2 == 0) {
    augur_MPI_Send(30, sbuf, n / 2, MPI_INT, right, 8, MPI_COMM_WORLD);
    augur_MPI_Recv(31, rbuf, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    augur_MPI_Recv(31, rbuf, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    augur_MPI_Ssend(32, sbuf, n / 2, MPI_INT, right, 8, MPI_COMM_WORLD);
  }
  acc += rbuf[0];

  MPI_Status st;
  augur_MPI_Sendrecv(33, sbuf, 5, MPI_INT, right, 9, rbuf, n, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
  acc += rbuf[4];

  /* non-periodic shift: the ends talk to MPI_PROC_NULL */
  int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  augur_MPI_Sendrecv(38, sbuf, 4, MPI_INT, up, 12, rbuf, n, MPI_INT, down, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  acc += rank > 0 ? rbuf[3] : 0;

  /* Wait + Test on one request each */
  MPI_Request r1, r2;
  augur_MPI_Irecv(34, rbuf, n, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &r1);
  augur_MPI_Issend(35, sbuf, 3, MPI_INT, right, 10, MPI_COMM_WORLD, &r2);
  augur_MPI_Wait(36, &r1, MPI_STATUS_IGNORE);
  int flag = 0;
  while (!flag) augur_MPI_Test(37, &r2, &flag, MPI_STATUS_IGNORE);
  acc += rbuf[2];

  /* sub-communicator: ranks reversed, peers must come out as world ranks */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  int rr;
  MPI_Comm_rank(rev, &rr);
  if (size >= 2 && rr < 2) {
    double x = rank;
    if (rr == 0) augur_MPI_Send(40, &x, 1, MPI_DOUBLE, 1, 11, rev);
    else augur_MPI_Recv(41, &x, 1, MPI_DOUBLE, 0, 11, rev, &st);
    acc += x;
  }
  MPI_Comm_free(&rev);

  double v = rank + 1, sum = 0;
  augur_MPI_Barrier(50, MPI_COMM_WORLD);
  augur_MPI_Bcast(51, &n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  augur_MPI_Reduce(52, &v, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  augur_MPI_Allreduce(53, MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int *all = malloc(sizeof(int) * 4 * (size_t)size);
  augur_MPI_Alltoall(54, sbuf, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
  augur_MPI_Gather(55, sbuf, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
  augur_MPI_Allgather(56, sbuf, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  augur_MPI_Scatter(57, all, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
  acc += v + all[0] + rbuf[0];

  /* vector collectives: rank r sends r+1 ints to every peer */
  int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size);
  int *rcnt = malloc(sizeof(int) * (size_t)size), *rdsp = malloc(sizeof(int) * (size_t)size);
  int *big = malloc(sizeof(int) * (size_t)size * (size_t)(size + 1));
  for (int i = 0; i < size; i++) {
    cnt[i] = rank + 1;
    dsp[i] = i * (rank + 1);
    rcnt[i] = i + 1;
    rdsp[i] = i * (size + 1);
  }
  augur_MPI_Alltoallv(60, sbuf, cnt, dsp, MPI_INT, big, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
  augur_MPI_Allgatherv(61, sbuf, rank + 1, MPI_INT, big, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
  augur_MPI_Gatherv(62, sbuf, rank + 1, MPI_INT, big, rcnt, rdsp, MPI_INT, 0, MPI_COMM_WORLD);
  augur_MPI_Scatterv(63, big, rcnt, rdsp, MPI_INT, rbuf, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) rcnt[i] = 2;
  augur_MPI_Reduce_scatter(64, sbuf, rbuf, rcnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double pre = 0;
  augur_MPI_Scan(65, &v, &pre, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  acc += big[(size - 1) * (size + 1)] + rbuf[1] + pre;
  /* Sendrecv_replace around the ring; Rsend onto a receive posted before a barrier */
  int token = rank;
  augur_MPI_Sendrecv_replace(66, &token, 1, MPI_INT, right, 13, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Request rr1;
  int got = -1;
  augur_MPI_Irecv(67, &got, 1, MPI_INT, left, 14, MPI_COMM_WORLD, &rr1);
  augur_MPI_Barrier(68, MPI_COMM_WORLD);
  augur_MPI_Rsend(69, &token, 1, MPI_INT, right, 14, MPI_COMM_WORLD);
  augur_MPI_Wait(70, &rr1, MPI_STATUS_IGNORE);
  acc += token + got;
  free(cnt);
  free(dsp);
  free(rcnt);
  free(rdsp);
  free(big);

  printf("rank %d checksum %.6f\n", rank, acc);
  free(all);
  free(sbuf);
  free(rbuf);
  augur_MPI_Finalize(99);
  return 0;
}
