! late_pair.f90: the Fortran side of late_pair.c through the augur Fortran wrappers (use mpi),
! same sites: rank 0 polls its receives of A (10) and B (11) with MPI_Testall (14), NPOLLS times
! before it sends rank 1 the go (12) that B waits for, then until both are done. Under SimGrid
! 3.32 A's receive completes in a Testall that returns flag = 0 (see late_pair.c).
program late_pair
  use mpi
  implicit none
  integer, parameter :: npolls = 50
  integer :: ierr, rank, nprocs, i
  integer :: req(2), st(MPI_STATUS_SIZE, 2)
  logical :: flag
  double precision :: a, b, go

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  flag = .false.
  go = 1d0
  a = 0d0
  b = 0d0
  if (nprocs >= 2 .and. rank == 0) then
    call augur_mpi_irecv(10, a, 1, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, req(1), ierr)
    call augur_mpi_irecv(11, b, 1, MPI_DOUBLE_PRECISION, 1, 2, MPI_COMM_WORLD, req(2), ierr)
    do i = 1, npolls
      call augur_mpi_testall(14, 2, req, flag, st, ierr)
      if (flag) exit
    end do
    call augur_mpi_send(12, go, 1, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD, ierr)
    do while (.not. flag)
      call augur_mpi_testall(14, 2, req, flag, st, ierr)
    end do
    print '(a, 2f5.1)', 'late_pair ', a, b
  else if (nprocs >= 2 .and. rank == 1) then
    a = 1d0
    b = 2d0
    call augur_mpi_send(20, a, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, ierr)
    call augur_mpi_recv(21, go, 1, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call augur_mpi_send(22, b, 1, MPI_DOUBLE_PRECISION, 0, 2, MPI_COMM_WORLD, ierr)
  end if
  call augur_mpi_finalize(5, ierr)
end program late_pair
