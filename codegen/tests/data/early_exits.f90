! IFs that may leave early from inside a nested IF (RETURN, CYCLE, EXIT): what follows them
! runs only on the paths that fall out of them (apt's tree and the plan must agree).
subroutine x(k)
  integer :: k
end subroutine

subroutine y(k)
  integer :: k
end subroutine

subroutine work(k)
  integer :: k
end subroutine

subroutine step(l, a, b)
  integer :: l, a, b
  if (a > 0) then
    if (b > 0) return
    call x(l)
  end if
  call y(l)
end subroutine

program early
  use mpi
  integer :: i, rank, n, ierr
  double precision :: v
  n = 100
  v = 0.0d0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call step(0, rank, n)
  do i = 1, n
    if (mod(i, 3) == 0) then
      call work(i)
      if (i > 50) exit
    else if (mod(i, 3) == 1) then
      if (i > 70) cycle
    end if
    call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call y(i)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
