! arrays.f90: Fortran array syntax the instrumenter times and counts as implicit loops: a
! section assigned in a DO loop, whole-array and section assignments at procedure level, a
! reduction, an assignment that allocates its target, one under a logical IF.
module grid_mod
  implicit none
  integer :: nx, ny
  double precision, allocatable :: u(:, :), v(:, :)
end module grid_mod

program arrays
  use mpi
  use grid_mod
  implicit none
  integer :: rank, nprocs, ierr, j
  double precision :: a(10), s, t
  double precision, allocatable :: w(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nx = 6
  ny = 4
  allocate (u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1))
  u = 1.0d0
  v(:, 0) = 0.0d0
  do j = 1, ny
    v(1:nx, j) = 0.25d0 * (u(0:nx - 1, j) + u(2:nx + 1, j) + u(1:nx, j - 1) + u(1:nx, j + 1))
  end do
  s = maxval(abs(v(1:nx, 1:ny) - u(1:nx, 1:ny)))
  a = 2.0d0
  a(2:10:2) = 3.0d0
  w = a(1:5)
  if (rank == 0) a(1:3) = 0.0d0
  s = s + sum(a) + sum(w)
  call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,f10.3)') 'arrays checksum=', t
  call MPI_Finalize(ierr)
end program arrays
