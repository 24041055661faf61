! relay.f90: relay.c through the augur Fortran wrappers (use mpi), same site ids.
program relay
  use mpi
  implicit none
  integer, parameter :: nmsg = 3
  integer :: ierr, rank, nprocs, left, right, i, s, one(1)
  double precision :: out(2), in(2)

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call augur_mpi_send_init(10, out, 2, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, s, ierr)
  do i = 0, nmsg - 1
    out = [dble(rank), dble(i)]
    if (mod(i, 2) == 0) then
      call augur_mpi_start(11, s, ierr)
    else
      one(1) = s
      call augur_mpi_startall(12, 1, one, ierr)
      s = one(1)
    end if
    call augur_mpi_wait(13, s, MPI_STATUS_IGNORE, ierr)
  end do
  do i = 0, nmsg - 1
    call augur_mpi_recv(14, in, 2, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (in(1) /= dble(left) .or. in(2) /= dble(i)) then
      write (0, '(a, i0, a, i0, a, 2f6.1)') 'rank ', rank, ': message ', i, ' reads ', in
      call augur_mpi_abort(15, MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  call augur_mpi_request_free(16, s, ierr)
  call augur_mpi_finalize(50, ierr)
end program relay
