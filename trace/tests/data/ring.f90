! ring.f90: free-form Fortran caller of the augur wrappers (use mpi), with a status array,
! MPI_Waitany, collectives and a world-reversed sub-communicator. Prints a checksum.
program ring
  use mpi
  implicit none
  integer, parameter :: n = 400
  integer :: ierr, rank, nprocs, left, right, i, step, idx, rev, rr, it
  integer :: req(2), sts(MPI_STATUS_SIZE, 2), st(MPI_STATUS_SIZE)
  double precision :: a(n), b(n), s, x
  integer :: ia(4 * 64), ib(4 * 64), ibig(64 * 65)
  integer :: cnt(64), dsp(64), rcnt(64), rdsp(64)

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  a = [(dble(rank * 1000 + i), i = 1, n)]
  s = 0d0
  it = 0
  call augur_loop_enter(20)
  do step = 1, 3
    it = it + 1
    call augur_phase_begin(21)
    call augur_call_enter(22)
    do i = 1, 300000
      s = s + dble(i) * 1d-9
    end do
    call augur_call_exit(22)
    call augur_phase_end(21)
    call augur_mpi_irecv(24, b, n, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, req(1), ierr)
    call augur_mpi_isend(25, a, n, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, req(2), ierr)
    call augur_mpi_waitall(26, 2, req, sts, ierr)
    s = s + b(n) + sts(MPI_SOURCE, 1)
  end do
  call augur_loop_exit(20, it)

  call augur_mpi_irecv(34, b, n, MPI_DOUBLE_PRECISION, left, 10, MPI_COMM_WORLD, req(1), ierr)
  call augur_mpi_isend(35, a, 7, MPI_DOUBLE_PRECISION, right, 10, MPI_COMM_WORLD, req(2), ierr)
  call augur_mpi_waitany(36, 2, req, idx, st, ierr)
  call augur_mpi_waitany(36, 2, req, idx, st, ierr)
  s = s + b(5)

  call mpi_comm_split(MPI_COMM_WORLD, 0, nprocs - rank, rev, ierr)
  call mpi_comm_rank(rev, rr, ierr)
  if (rr < 2) then
    x = rank
    if (rr == 0) then
      call augur_mpi_send(40, x, 1, MPI_DOUBLE_PRECISION, 1, 11, rev, ierr)
    else
      call augur_mpi_recv(41, x, 1, MPI_DOUBLE_PRECISION, 0, 11, rev, st, ierr)
    end if
    s = s + x
  end if
  call mpi_comm_free(rev, ierr)

  ia = rank
  ! the same wrapper with INTEGER and REAL(8) buffers, array and scalar: needs
  ! -fallow-argument-mismatch (augur_runtime::FORTRAN_FLAGS), as the wrappers have no interface
  call augur_mpi_bcast(51, ia, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call augur_mpi_bcast(51, a, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  x = 1d0
  call augur_mpi_bcast(51, x, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call augur_mpi_reduce(52, s, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call augur_mpi_alltoall(54, ia, 2, MPI_INTEGER, ib, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call augur_mpi_gather(55, ia, 3, MPI_INTEGER, ib, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call augur_mpi_allgather(56, MPI_IN_PLACE, 0, MPI_INTEGER, ib, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call augur_mpi_scatter(57, ib, 1, MPI_INTEGER, ia, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  s = s + ib(1) + ia(1)
  ! vector collectives and Sendrecv_replace through the Fortran entry points
  cnt = rank + 1
  dsp = [(i * (rank + 1), i = 0, 63)]
  rcnt = [(i + 1, i = 0, 63)]
  rdsp = [(i * 65, i = 0, 63)]
  call augur_mpi_alltoallv(60, ia, cnt, dsp, MPI_INTEGER, ibig, rcnt, rdsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  rcnt = 2
  call augur_mpi_reduce_scatter(64, ia, ib, rcnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call augur_mpi_scan(65, s, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  idx = rank
  call augur_mpi_sendrecv_replace(66, idx, 1, MPI_INTEGER, right, 13, left, 13, MPI_COMM_WORLD, st, ierr)
  s = s + ibig(66) + ib(2) + idx
  write (*, '(A,I3,A,F16.4)') 'rank', rank, ' checksum', s
  call augur_mpi_finalize(99, ierr)
end program ring
