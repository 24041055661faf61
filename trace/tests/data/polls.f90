! polls.f90: the Fortran side of polls.c through the augur Fortran wrappers (use mpi), same
! sites: Irecv left 10, Irecv right 11, Isend right 12, Isend left 13 per round, completed by
! a Testall loop (14), a Testany loop (15), a Testsome loop (16) and a Waitsome loop (17).
! tests/polls.rs checks what the runtime records. An argument 1 leaves the Testany rounds out
! (SimGrid 3.32's MPI_Testany reports no active request while sends are left; see polls.c).
program polls
  use mpi
  implicit none
  integer, parameter :: nsteps = 3
  integer :: ierr, rank, nprocs, step, mode, i, idx, nout, ndone, left, right, skip_any
  character(len=8) :: arg
  integer :: req(4), which(4), st(MPI_STATUS_SIZE, 4)
  logical :: flag
  double precision :: sl, sr, rl, rr, acc

  call augur_mpi_init(1, ierr)
  call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
  call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  acc = 0d0
  skip_any = 0
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) skip_any
  end if
  do step = 1, nsteps
    do mode = 0, 3
      if (mode == 1 .and. skip_any == 1) cycle
      sl = rank + step
      sr = -sl
      call augur_mpi_irecv(10, rl, 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1), ierr)
      call augur_mpi_irecv(11, rr, 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
      call augur_mpi_isend(12, sl, 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(3), ierr)
      call augur_mpi_isend(13, sr, 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
      ndone = 0
      do while (ndone < 4)
        do i = 1, 1000
          acc = acc + 1d-9 * mod(i, 3)
        end do
        select case (mode)
        case (0)
          call augur_mpi_testall(14, 4, req, flag, st, ierr)
          if (flag) ndone = 4
        case (1)
          call augur_mpi_testany(15, 4, req, idx, flag, MPI_STATUS_IGNORE, ierr)
          if (flag .and. idx /= MPI_UNDEFINED) ndone = ndone + 1
        case (2)
          call augur_mpi_testsome(16, 4, req, nout, which, st, ierr)
          if (nout /= MPI_UNDEFINED) ndone = ndone + nout
        case default
          call augur_mpi_waitsome(17, 4, req, nout, which, MPI_STATUSES_IGNORE, ierr)
          if (nout /= MPI_UNDEFINED) ndone = ndone + nout
        end select
      end do
      acc = acc + rl + rr
    end do
  end do
  if (rank == 0) print '(a, i0, f12.6)', 'polls ', nprocs, acc
  call augur_mpi_finalize(5, ierr)
end program polls
