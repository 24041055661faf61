! Named DO constructs left by `exit NAME` and `cycle NAME` from an inner loop, and a named
! bare DO left by `exit NAME`.
program named
  use mpi
  implicit none
  integer :: i, j, n, ierr, rank, hits, total
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  n = 4
  hits = 0
  total = 0
  outer: do i = 1, n
    inner: do j = 1, n
      if (j > 2 * i) cycle outer
      if (i * j > 12) exit outer
      hits = hits + 1
      call mpi_barrier(mpi_comm_world, ierr)
    end do inner
    call mpi_allreduce(hits, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  end do outer
  search: do
    n = n - 1
    call mpi_barrier(mpi_comm_world, ierr)
    if (n < 2) exit search
  end do search
  if (rank == 0) print *, hits, total, n
  call mpi_finalize(ierr)
end program named
