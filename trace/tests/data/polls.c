/* polls.c: a ring exchange (Irecv left 10, Irecv right 11, Isend right 12, Isend left 13) per
 * step, completed in turn by a Testall loop (14), a Testany loop (15), a Testsome loop (16) and
 * a Waitsome loop (17), NSTEPS (argv[1]) rounds of the four; tests/polls.rs checks that every
 * request is completed once by a Part of those calls. Prints a checksum. A second argument 1
 * leaves the Testany rounds out: SimGrid 3.32's MPI_Testany reports no active request (flag
 * set, index MPI_UNDEFINED) while two sends of the round are still to be completed, and the
 * loop would poll forever. */
#include "augur.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, nprocs, nsteps, step, mode, i, flag, idx, out, done, which[4];
  double sl, sr, rl, rr, acc = 0.0;
  MPI_Request req[4];
  MPI_Status st[4];

  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &nprocs);
  nsteps = argc > 1 ? atoi(argv[1]) : 3;
  int skip_any = argc > 2 ? atoi(argv[2]) : 0;
  int left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;
  for (step = 0; step < nsteps; step++) {
    for (mode = 0; mode < 4; mode++) {
      if (mode == 1 && skip_any) continue;
      sl = rank + step;
      sr = -sl;
      augur_MPI_Irecv(10, &rl, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
      augur_MPI_Irecv(11, &rr, 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
      augur_MPI_Isend(12, &sl, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
      augur_MPI_Isend(13, &sr, 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
      done = 0;
      flag = 0;
      while (done < 4) {
        for (i = 0; i < 1000; i++) acc += 1e-9 * (i % 3);
        if (mode == 0) {
          augur_MPI_Testall(14, 4, req, &flag, mode == 0 && step % 2 ? st : MPI_STATUSES_IGNORE);
          if (flag) done = 4;
        } else if (mode == 1) {
          augur_MPI_Testany(15, 4, req, &idx, &flag, MPI_STATUS_IGNORE);
          if (flag && idx != MPI_UNDEFINED) done++;
        } else if (mode == 2) {
          augur_MPI_Testsome(16, 4, req, &out, which, st);
          if (out != MPI_UNDEFINED) done += out;
        } else {
          augur_MPI_Waitsome(17, 4, req, &out, which, MPI_STATUSES_IGNORE);
          if (out != MPI_UNDEFINED) done += out;
        }
      }
      acc += rl + rr;
    }
  }
  if (rank == 0) printf("polls %d %.6f\n", nprocs, acc);
  augur_MPI_Finalize(5);
  return 0;
}
