/* icoll.c: nonblocking collectives, Exscan and Reduce_scatter_block through the augur C
 * wrappers, NSTEPS (argv[1]) times; tests/icoll.rs checks what the runtime records. Sites:
 * 10/11 Iallreduce + Wait around a compute loop, 12/13 Ibcast (root P-1) + Wait, 14 Exscan,
 * 15/16 Iallreduce on a half communicator + a Test loop, 20-25 Ibarrier, Ireduce, Iallgather,
 * Ialltoall, Igather, Iscatter completed by the Waitall at 26, 27 Reduce_scatter_block,
 * 30/31 Iallreduce + Ibcast completed by two Waitanys at 32. */
#include "augur.h"
#include <stdio.h>
#include <stdlib.h>

#define MAXP 64

int main(int argc, char **argv) {
  int rank, nprocs, nsteps, step, i, flag;
  double v[8], w[8], acc = 0.0, d1 = 1.0, d2 = 0.0, a2a_s[MAXP], a2a_r[MAXP], rsb_s[2 * MAXP], rsb_r[2];
  int b3[3], ag_s[2], ag_r[2 * MAXP], g_s[3], g_r[3 * MAXP], idx;
  long ex_s[2], ex_r[2] = {0, 0};
  float red_s[4], red_r[4];
  char sc_s[5 * MAXP], sc_r[5];
  MPI_Request req[6];
  MPI_Comm half;

  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &nprocs);
  nsteps = argc > 1 ? atoi(argv[1]) : 3;
  if (nprocs > MAXP) augur_MPI_Abort(4, MPI_COMM_WORLD, 1);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  for (i = 0; i < 2 * MAXP; i++) rsb_s[i] = i;
  for (i = 0; i < MAXP; i++) a2a_s[i] = rank + i;
  for (i = 0; i < 5 * MAXP; i++) sc_s[i] = (char)i;
  for (step = 0; step < nsteps; step++) {
    for (i = 0; i < 8; i++) v[i] = rank + step + i;
    augur_MPI_Iallreduce(10, v, w, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    for (i = 0; i < 100000; i++) acc += 1e-9 * (i % 7);
    augur_MPI_Wait(11, &req[0], MPI_STATUS_IGNORE);
    b3[0] = b3[1] = b3[2] = rank;
    augur_MPI_Ibcast(12, b3, 3, MPI_INT, nprocs - 1, MPI_COMM_WORLD, &req[0]);
    augur_MPI_Wait(13, &req[0], MPI_STATUS_IGNORE);
    ex_s[0] = rank;
    ex_s[1] = 1;
    augur_MPI_Exscan(14, ex_s, ex_r, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    augur_MPI_Iallreduce(15, &d1, &d2, 1, MPI_DOUBLE, MPI_SUM, half, &req[0]);
    flag = 0;
    while (!flag) augur_MPI_Test(16, &req[0], &flag, MPI_STATUS_IGNORE);
    for (i = 0; i < 4; i++) red_s[i] = (float)rank;
    ag_s[0] = ag_s[1] = rank;
    g_s[0] = g_s[1] = g_s[2] = rank;
    augur_MPI_Ibarrier(20, MPI_COMM_WORLD, &req[0]);
    augur_MPI_Ireduce(21, red_s, red_r, 4, MPI_FLOAT, MPI_MAX, 0, MPI_COMM_WORLD, &req[1]);
    augur_MPI_Iallgather(22, ag_s, 2, MPI_INT, ag_r, 2, MPI_INT, MPI_COMM_WORLD, &req[2]);
    augur_MPI_Ialltoall(23, a2a_s, 1, MPI_DOUBLE, a2a_r, 1, MPI_DOUBLE, MPI_COMM_WORLD, &req[3]);
    augur_MPI_Igather(24, g_s, 3, MPI_INT, g_r, 3, MPI_INT, 0, MPI_COMM_WORLD, &req[4]);
    augur_MPI_Iscatter(25, sc_s, 5, MPI_CHAR, sc_r, 5, MPI_CHAR, 0, MPI_COMM_WORLD, &req[5]);
    augur_MPI_Waitall(26, 6, req, MPI_STATUSES_IGNORE);
    augur_MPI_Reduce_scatter_block(27, rsb_s, rsb_r, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    augur_MPI_Iallreduce(30, v, w, 8, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req[0]);
    augur_MPI_Ibcast(31, b3, 3, MPI_INT, 0, MPI_COMM_WORLD, &req[1]);
    augur_MPI_Waitany(32, 2, req, &idx, MPI_STATUS_IGNORE);
    augur_MPI_Waitany(32, 2, req, &idx, MPI_STATUS_IGNORE);
    acc += w[0] + b3[0] + ex_r[0] + d2 + red_r[0] + ag_r[0] + a2a_r[0] + g_r[0] + sc_r[0] + rsb_r[0];
  }
  MPI_Comm_free(&half);
  if (rank == 0) printf("icoll %d %g\n", nprocs, acc);
  augur_MPI_Finalize(50);
  return 0;
}
