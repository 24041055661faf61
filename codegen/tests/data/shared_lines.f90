! Several statements on one line, each with markers of its own: two whole-array assignments
! (implicit loops, each a computation phase, as trial 16's jac.f90 line 102), two calls, a loop
! ending before another statement, a logical IF whose body needs a block, a string with `;`.
subroutine bump(k)
  integer :: k
  k = k + 1
end subroutine bump

program shared
  use mpi
  implicit none
  integer :: n, ierr, i, k, rank
  double precision, allocatable :: u(:,:), unew(:,:)
  double precision :: h, h2
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  n = 8; k = 0
  allocate(u(0:n+1,0:n+1), unew(0:n+1,0:n+1))
  h = 1d0/(n+1); h2 = h*h
  u = 0d0; unew = 0d0
  call bump(k); call bump(k)
  do i = 1, n
    u(i, i) = h2 * i
  end do; unew = 1d0
  if (n > 4) u = u + 1d0; k = k + 1
  if (rank == 0) print '(a, i0)', 'k;', k; unew = unew * 2d0
  call MPI_Allreduce(MPI_IN_PLACE, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, 2f12.6)', 'k=', k, sum(u), sum(unew)
  call MPI_Finalize(ierr)
end program shared
