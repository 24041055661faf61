/* neighbors.c: MPI_Neighbor_alltoall (site 10, 2 doubles to each neighbour),
 * MPI_Neighbor_allgather (site 11, 3 ints), MPI_Neighbor_alltoallv (site 12, 1 double to the
 * left and 3 to the right: 2 on average) and MPI_Neighbor_allgatherv (site 13, 3 ints) on a
 * periodic 1-D Cartesian ring, NSTEPS (argv[1]) times, through the augur C wrappers;
 * tests/neighbors.rs checks the records. */
#include "augur.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, nprocs, nsteps, step, dims[1] = {0}, periods[1] = {1}, g_s[3], g_r[6];
  double a_s[4], a_r[4], acc = 0.0;
  int v_sc[2] = {1, 3}, v_sd[2] = {0, 1}, v_rc[2] = {3, 1}, v_rd[2] = {0, 3}, g_rc[2] = {3, 3}, g_rd[2] = {0, 3};
  MPI_Comm ring;

  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_size(2, MPI_COMM_WORLD, &nprocs);
  nsteps = argc > 1 ? atoi(argv[1]) : 3;
  MPI_Dims_create(nprocs, 1, dims);
  augur_MPI_Cart_create(3, MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  augur_MPI_Comm_rank(4, ring, &rank);
  for (step = 0; step < nsteps; step++) {
    for (int i = 0; i < 4; i++) a_s[i] = rank + step + i;
    augur_MPI_Neighbor_alltoall(10, a_s, 2, MPI_DOUBLE, a_r, 2, MPI_DOUBLE, ring);
    for (int i = 0; i < 3; i++) g_s[i] = rank * i;
    augur_MPI_Neighbor_allgather(11, g_s, 3, MPI_INT, g_r, 3, MPI_INT, ring);
    augur_MPI_Neighbor_alltoallv(12, a_s, v_sc, v_sd, MPI_DOUBLE, a_r, v_rc, v_rd, MPI_DOUBLE, ring);
    acc += a_r[0] + a_r[3];
    augur_MPI_Neighbor_allgatherv(13, g_s, 3, MPI_INT, g_r, g_rc, g_rd, MPI_INT, ring);
    acc += a_r[0] + a_r[2] + g_r[1] + g_r[4];
  }
  if (rank == 0) printf("neighbors %d %.1f\n", nprocs, acc);
  augur_MPI_Finalize(5);
  return 0;
}
