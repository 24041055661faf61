! persist.f90: persistent requests and probes through the augur Fortran wrappers (use mpi);
! tests/persistent.rs checks what the runtime records. Same site ids as persist.c where the
! calls are the same.
program persist
  use mpi
  implicit none
  integer, parameter :: halo = 4, nsteps = 6
  integer :: ierr, rank, nprocs, left, right, step, i, cnt, flag
  integer :: reqs(4), q, st(MPI_STATUS_SIZE)
  double precision :: a(4 * halo + 8), s

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  a = [(dble(rank) + i * 1d-3, i = 1, 4 * halo + 8)]
  call augur_mpi_recv_init(10, a(1), halo, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call augur_mpi_recv_init(11, a(halo + 1), halo, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call augur_mpi_send_init(12, a(2 * halo + 1), halo, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, reqs(3), ierr)
  call augur_mpi_ssend_init(13, a(3 * halo + 1), halo, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(4), ierr)
  s = 0d0
  do step = 1, nsteps
    call augur_mpi_startall(20, 4, reqs, ierr)
    call augur_mpi_waitall(21, 4, reqs, MPI_STATUSES_IGNORE, ierr)
    call augur_mpi_start(23, reqs(1), ierr)
    call augur_mpi_start(24, reqs(3), ierr)
    call augur_mpi_wait(25, reqs(3), MPI_STATUS_IGNORE, ierr)
    call augur_mpi_wait(26, reqs(1), MPI_STATUS_IGNORE, ierr)
    s = s + a(1) + a(halo + 1)
  end do
  call augur_mpi_isend(30, a, rank + 1, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, q, ierr)
  call augur_mpi_probe(31, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, st, ierr)
  call mpi_get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
  call augur_mpi_recv(32, a(2 * halo + 1), cnt, MPI_DOUBLE_PRECISION, st(MPI_SOURCE), 5, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
  call augur_mpi_wait(33, q, MPI_STATUS_IGNORE, ierr)
  flag = 0
  call augur_mpi_isend(35, a, 1, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, q, ierr)
  do while (flag == 0)
    call augur_mpi_iprobe(36, right, 6, MPI_COMM_WORLD, flag, st, ierr)
  end do
  call augur_mpi_recv(37, a(1), 1, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call augur_mpi_wait(38, q, MPI_STATUS_IGNORE, ierr)
  do i = 1, 4
    call augur_mpi_request_free(45, reqs(i), ierr)
  end do
  print '(a, i0, a, f12.6)', 'rank ', rank, ' sum ', s
  call augur_mpi_finalize(50, ierr)
end program persist
