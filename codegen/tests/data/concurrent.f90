program conc
  use mpi
  implicit none
  integer :: n, m, i, j, k, it, ierr
  real(8) :: u(6, 5), v(6, 5)
  call MPI_Init(ierr)
  n = 6
  m = 5
  u = 1.0d0
  do it = 1, 3
    associate (a => u, b => v, nx => n)
      do concurrent (j = 1:m, i = 1:nx)
        b(i, j) = half(a(i, j))
      end do
      do j = 1, m
        do i = 1, nx
          a(i, j) = b(i, j) + 1.0d0
        end do
      end do
    end associate
    block
      integer :: s
      s = 0
      do concurrent (k = 1:n:2)
        u(k, 1) = u(k, 1) * 0.5d0
      end do
    end block
  end do
  print '(f12.4)', sum(u)
  call MPI_Finalize(ierr)
contains
  pure function half(x) result(r)
    real(8), intent(in) :: x
    real(8) :: r
    r = 0.5d0 * x
  end function half
end program conc
