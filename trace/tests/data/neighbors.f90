! neighbors.f90: the Fortran side of neighbors.c through the augur Fortran wrappers (use mpi),
! same sites: 10 MPI_Neighbor_alltoall (2 doubles to each neighbour), 11 MPI_Neighbor_allgather
! (3 integers), 12 MPI_Neighbor_alltoallv (1 double left, 3 right), 13 MPI_Neighbor_allgatherv
! (3 integers) on a periodic 1-D Cartesian ring, 3 steps; tests/neighbors.rs checks the records.
program neighbors
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, step, ring, dims(1), g_s(3), g_r(6)
  logical :: periods(1)
  double precision :: a_s(4), a_r(4), acc
  integer :: v_sc(2), v_sd(2), v_rc(2), v_rd(2), g_rc(2), g_rd(2)

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_size(2, MPI_COMM_WORLD, nprocs, ierr)
  dims = 0
  periods = .true.
  call MPI_Dims_create(nprocs, 1, dims, ierr)
  call augur_mpi_cart_create(3, MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call augur_mpi_comm_rank(4, ring, rank, ierr)
  acc = 0d0
  v_sc = [1, 3]
  v_sd = [0, 1]
  v_rc = [3, 1]
  v_rd = [0, 3]
  g_rc = [3, 3]
  g_rd = [0, 3]
  do step = 1, 3
    a_s = [rank + step + 0d0, rank + step + 1d0, rank + step + 2d0, rank + step + 3d0]
    call augur_mpi_neighbor_alltoall(10, a_s, 2, MPI_DOUBLE_PRECISION, a_r, 2, MPI_DOUBLE_PRECISION, ring, ierr)
    g_s = [0, rank, 2 * rank]
    call augur_mpi_neighbor_allgather(11, g_s, 3, MPI_INTEGER, g_r, 3, MPI_INTEGER, ring, ierr)
    call augur_mpi_neighbor_alltoallv(12, a_s, v_sc, v_sd, MPI_DOUBLE_PRECISION, a_r, v_rc, v_rd, &
                                      MPI_DOUBLE_PRECISION, ring, ierr)
    call augur_mpi_neighbor_allgatherv(13, g_s, 3, MPI_INTEGER, g_r, g_rc, g_rd, MPI_INTEGER, ring, ierr)
    acc = acc + a_r(1) + a_r(3) + g_r(2) + g_r(5)
  end do
  if (rank == 0) print '(a, i0, f8.1)', 'neighbors ', nprocs, acc
  call augur_mpi_finalize(5, ierr)
end program neighbors
