! edge.f90: free-form constructs the instrumenter must rewrite without changing results:
! a labelled statement reached by GOTO, logical IFs around calls, an MPI call on a long line,
! EXIT and CYCLE, RETURN inside a loop, SELECT CASE without a default holding a loop, a module
! procedure, named DO constructs.
module edge_mod
  implicit none
contains
  subroutine scale(x, n, f)
    integer, intent(in) :: n
    double precision, intent(inout) :: x(n)
    double precision, intent(in) :: f
    integer :: i
    do i = 1, n
      if (x(i) < 0.0d0) return
      x(i) = x(i) * f
    end do
  end subroutine scale
end module edge_mod

program edge
  use mpi
  use edge_mod
  implicit none
  integer :: rank, nprocs, ierr, i, j, tries
  integer :: st(MPI_STATUS_SIZE)
  double precision :: a(8), s, t

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  s = 0.0d0
  tries = 0
10 tries = tries + 1
  if (tries < 3) goto 10
  a = 1.0d0
  outer: do i = 1, 8
    do j = 1, 8
      if (j > i) cycle outer
      if (i + j > 12) exit outer
      s = s + dble(i * j)
    end do
  end do outer
  select case (mod(rank, 3))
  case (0)
    do i = 1, 3
      s = s + i
    end do
  case (1)
    s = s + 7
  end select
  if (rank == 0) call scale(a, 8, 2.0d0)
  if (nprocs > 1 .and. rank == 0) call MPI_Send(a, 8, MPI_DOUBLE_PRECISION, 1, 3, MPI_COMM_WORLD, ierr) ! long line on purpose
  if (nprocs > 1 .and. rank == 1) call MPI_Recv(a, 8, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, st, ierr)
  s = s + sum(a) + tries
  call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,f14.2)') 'edge checksum=', t
  call MPI_Finalize(ierr)
end program edge
