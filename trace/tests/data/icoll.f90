! icoll.f90: the Fortran side of icoll.c through the augur Fortran wrappers (use mpi), same
! site numbers: 10/11 Iallreduce + Wait, 12/13 Ibcast (root P-1) + Wait, 14 Exscan, 20/21
! Ibarrier and Ireduce completed by the Waitall at 26, 27 Reduce_scatter_block.
! tests/icoll.rs checks what the runtime records.
program icoll
  use mpi
  implicit none
  integer, parameter :: nsteps = 3, maxp = 64
  integer :: ierr, rank, nprocs, step, i, req(2), b3(3), ex_s(2), ex_r(2)
  double precision :: v(8), w(8), acc, rsb_s(2 * maxp), rsb_r(2)
  real :: red_s(4), red_r(4)

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  acc = 0d0
  ex_r = 0
  rsb_s = [(dble(i), i = 1, 2 * maxp)]
  do step = 1, nsteps
    v = [(dble(rank + step + i), i = 1, 8)]
    call augur_mpi_iallreduce(10, v, w, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
    do i = 1, 100000
      acc = acc + 1d-9 * mod(i, 7)
    end do
    call augur_mpi_wait(11, req(1), MPI_STATUS_IGNORE, ierr)
    b3 = rank
    call augur_mpi_ibcast(12, b3, 3, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, req(1), ierr)
    call augur_mpi_wait(13, req(1), MPI_STATUS_IGNORE, ierr)
    ex_s = [rank, 1]
    call augur_mpi_exscan(14, ex_s, ex_r, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    red_s = real(rank)
    call augur_mpi_ibarrier(20, MPI_COMM_WORLD, req(1), ierr)
    call augur_mpi_ireduce(21, red_s, red_r, 4, MPI_REAL, MPI_MAX, 0, MPI_COMM_WORLD, req(2), ierr)
    call augur_mpi_waitall(26, 2, req, MPI_STATUSES_IGNORE, ierr)
    call augur_mpi_reduce_scatter_block(27, rsb_s, rsb_r, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    acc = acc + w(1) + b3(1) + ex_r(1) + red_r(1) + rsb_r(1)
  end do
  if (rank == 0) print '(a, i0, f16.6)', 'icoll ', nprocs, acc
  call augur_mpi_finalize(50, ierr)
end program icoll
