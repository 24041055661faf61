! stencil: 1-D block decomposition of a 2-D Jacobi stencil, Tomcatv-like
! (seed 003 Fig. 1). The N x N grid is split into blocks of N/P rows; each
! iteration a rank exchanges its first and last row with its neighbours
! (MPI_Irecv/MPI_Isend, then MPI_Waitall over as many requests as it posted),
! does a Jacobi update of its block, and joins an MPI_Allreduce of the squared
! residual. Fixed boundary: u = 1 above the grid, 0 elsewhere. Mirrors stencil.c.
! args: N ITERS   (N divisible by P; small: 128 50)
! expect: loop trip ITERS
! expect: loop trip N/P
! expect: loop trip N
! expect: message bytes 8*N
! expect: phase synchronous
! expect: allreduce bytes 8 per iteration
! expect: checksum independent of P
program stencil
  use mpi
  implicit none
  integer, parameter :: tag_up = 51, tag_down = 52
  integer :: nprocs, rank, n, iters, nlocal, w, it, i, j, nreq, ierr
  integer :: req(4)
  double precision, allocatable :: u(:, :), v(:, :)
  double precision :: unew, diff, res, gres, local, total
  character(len=32) :: arg, cs, cr

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (command_argument_count() < 2) then
    if (rank == 0) print '(a)', 'usage: stencil N ITERS'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) iters
  nlocal = n / nprocs
  if (nlocal < 1 .or. nlocal * nprocs /= n) then
    if (rank == 0) print '(a)', 'stencil: N must be a multiple of P'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  ! rows 0 and nlocal+1 are ghosts, columns 0 and n+1 the fixed boundary
  w = n + 2
  allocate (u(0:n + 1, 0:nlocal + 1), v(0:n + 1, 0:nlocal + 1))
  do i = 0, nlocal + 1
    do j = 0, w - 1
      u(j, i) = 0.0d0
    end do
  end do
  if (rank == 0) then
    do j = 1, n
      u(j, 0) = 1.0d0
    end do
  end if

  gres = 0.0d0
  do it = 1, iters
    nreq = 0
    if (rank > 0) then
      call MPI_Irecv(u(1, 0), n, MPI_DOUBLE_PRECISION, rank - 1, tag_down, MPI_COMM_WORLD, &
        req(nreq + 1), ierr)
      nreq = nreq + 1
      call MPI_Isend(u(1, 1), n, MPI_DOUBLE_PRECISION, rank - 1, tag_up, MPI_COMM_WORLD, &
        req(nreq + 1), ierr)
      nreq = nreq + 1
    end if
    if (rank < nprocs - 1) then
      call MPI_Irecv(u(1, nlocal + 1), n, MPI_DOUBLE_PRECISION, rank + 1, tag_up, MPI_COMM_WORLD, &
        req(nreq + 1), ierr)
      nreq = nreq + 1
      call MPI_Isend(u(1, nlocal), n, MPI_DOUBLE_PRECISION, rank + 1, tag_down, MPI_COMM_WORLD, &
        req(nreq + 1), ierr)
      nreq = nreq + 1
    end if
    call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)

    res = 0.0d0
    do i = 1, nlocal
      do j = 1, n
        unew = 0.25d0 * (u(j, i - 1) + u(j, i + 1) + u(j - 1, i) + u(j + 1, i))
        diff = unew - u(j, i)
        res = res + diff * diff
        v(j, i) = unew
      end do
    end do
    do i = 1, nlocal
      do j = 1, n
        u(j, i) = v(j, i)
      end do
    end do
    call MPI_Allreduce(res, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do

  local = 0.0d0
  do i = 1, nlocal
    do j = 1, n
      local = local + u(j, i)
    end do
  end do
  call MPI_Reduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (cr, '(es14.6)') gres
    write (cs, '(es14.6)') total
    write (*, '(a,i0,a,i0,a,i0,a,a,a,a)') 'stencil P=', nprocs, ' N=', n, ' ITERS=', iters, &
      ' residual=', trim(adjustl(cr)), ' checksum=', trim(adjustl(cs))
  end if
  deallocate (u, v)
  call MPI_Finalize(ierr)
end program stencil
