! Hybrid MPI+OpenMP loops: the instrumented program must compile with -fopenmp and count
! every loop exactly with several threads (codegen/tests/openmp.rs).
program hybrid
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, n, i, j, k, step
  double precision :: s, t
  double precision, allocatable :: a(:, :)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate(a(n, n))
  s = 0.0d0
  t = 0.0d0
!$omp parallel do private(i)
  do j = 1, n                          ! fill
    do i = 1, n                        ! fill column
      a(i, j) = mod(i + j + rank, 5)
    end do
  end do
!$omp end parallel do
!$omp parallel private(k)
  k = 0
!$omp do
  do j = 1, n                          ! shared
    do k = 1, 3                        ! shared inner
      a(k, j) = a(k, j) + 0.5d0
    end do
  end do
!$omp end do nowait
!$omp end parallel
  do step = 1, 3                       ! steps
    !$omp parallel do private(i, k) &
    !$omp& reduction(+:s) schedule(dynamic, 3) ! rows
    do j = 1, n                        ! triangle
      if (mod(j, 2) == 0) then
        do i = 1, j                    ! triangle column
          s = s + a(i, j)
        end do
      end if
      k = 0
      do while (k < 2)                 ! while
        k = k + 1
      end do
    end do
    !$omp end parallel do
!$omp parallel do reduction(+:t)
    do k = 1, half(n)                  ! half
      t = t + a(k, 1)
    end do
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(f12.1, f12.3)', s, t
  deallocate(a)
  call MPI_Finalize(ierr)
contains
  integer function half(m)
    integer, intent(in) :: m
    half = m / 2
  end function half
end program hybrid
