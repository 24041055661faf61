! null_halo.f90: the halo of null_halo.c (sites 10-14 and 20-25) through the augur Fortran
! wrappers (use mpi): the end ranks post to MPI_PROC_NULL, whose requests share one handle
! under Open MPI, also as a Fortran INTEGER. tests/proc_null.rs checks what the runtime records.
program null_halo
  use mpi
  implicit none
  integer, parameter :: halo = 4, nsteps = 5
  integer :: ierr, rank, nprocs, left, right, step, i
  integer :: req(4), pers(4)
  double precision :: u(4 * halo), p(4 * halo), s

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  left = MPI_PROC_NULL
  right = MPI_PROC_NULL
  if (rank > 0) left = rank - 1
  if (rank < nprocs - 1) right = rank + 1
  u = [(dble(rank) + i * 1d-3, i = 1, 4 * halo)]
  p = u
  call augur_mpi_recv_init(20, p(1), halo, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, pers(1), ierr)
  call augur_mpi_recv_init(21, p(halo + 1), halo, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, pers(2), ierr)
  call augur_mpi_send_init(22, p(2 * halo + 1), halo, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, pers(3), ierr)
  call augur_mpi_send_init(23, p(3 * halo + 1), halo, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, pers(4), ierr)
  s = 0d0
  do step = 1, nsteps
    call augur_mpi_irecv(10, u(1), halo, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call augur_mpi_irecv(11, u(halo + 1), halo, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call augur_mpi_isend(12, u(2 * halo + 1), halo, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(3), ierr)
    call augur_mpi_isend(13, u(3 * halo + 1), halo, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call augur_mpi_waitall(14, 4, req, MPI_STATUSES_IGNORE, ierr)
    call augur_mpi_startall(24, 4, pers, ierr)
    call augur_mpi_waitall(25, 4, pers, MPI_STATUSES_IGNORE, ierr)
    s = s + u(1) + u(halo + 1) + p(1) + p(halo + 1)
  end do
  do i = 1, 4
    call augur_mpi_request_free(45, pers(i), ierr)
  end do
  print '(a, i0, a, f12.6)', 'rank ', rank, ' sum ', s
  call augur_mpi_finalize(50, ierr)
end program null_halo
