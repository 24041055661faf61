! pge1: one-way pipelined Gaussian elimination on a ring (seed 004 §5.1.1).
! Solves N independent tridiagonal systems of N unknowns each (Thomas
! algorithm). Every system is split by rows: rank r owns rows r*N/P..(r+1)*N/P-1
! of all of them. Systems are processed in blocks of K: forward elimination
! receives the last pivot pair (c', d') of K systems from the left, eliminates
! its rows, and forwards 2K values to the right (pipeline 0 -> P-1); back
! substitution runs the other way with K values (pipeline P-1 -> 0). The block
! size K trades message count (N/K per sweep) against pipeline fill.
! Mirrors pge1.c loop for loop.
! args: N K   (N divisible by P and by K; small: 256 8)
! expect: loop trip N/K
! expect: loop trip K
! expect: loop trip N/P
! expect: message bytes 16*K
! expect: message bytes 8*K
! expect: pipeline depth P-1
! expect: pipeline depth P-1
! expect: checksum independent of P
program pge1
  use mpi
  implicit none
  integer, parameter :: tag_fwd = 11, tag_bwd = 12
  integer :: nprocs, rank, n, kb, nlocal, nblk, blk, j, s, i, g, ierr
  integer :: status(MPI_STATUS_SIZE)
  double precision, allocatable :: cp(:, :), dp(:, :), rbuf(:), sbuf(:)
  double precision :: cprev, dprev, xnext, bv, denom, local, total
  character(len=32) :: arg, cs

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (command_argument_count() < 2) then
    if (rank == 0) print '(a)', 'usage: pge1 N K'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) kb
  nlocal = n / nprocs
  if (kb < 1 .or. nlocal < 1 .or. nlocal * nprocs /= n .or. mod(n, kb) /= 0) then
    if (rank == 0) print '(a)', 'pge1: N must be a multiple of P and of K'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  nblk = n / kb
  allocate (cp(nlocal, n), dp(nlocal, n), rbuf(2 * kb), sbuf(2 * kb))

  ! system s, global row g: diagonal 4 + (s mod 7)/100, off-diagonals -1
  do s = 1, n
    do i = 1, nlocal
      g = rank * nlocal + i - 1
      dp(i, s) = 1.0d0 + 0.001d0 * dble(mod(7 * g + 3 * (s - 1), 11))
    end do
  end do
  do j = 1, 2 * kb
    rbuf(j) = 0.0d0
  end do

  ! forward elimination: rank 0 starts every block with a zero pivot pair
  do blk = 1, nblk
    if (rank > 0) &
      call MPI_Recv(rbuf, 2 * kb, MPI_DOUBLE_PRECISION, rank - 1, tag_fwd, MPI_COMM_WORLD, &
        status, ierr)
    do j = 1, kb
      s = (blk - 1) * kb + j
      bv = 4.0d0 + 0.01d0 * dble(mod(s - 1, 7))
      cprev = rbuf(2 * j - 1)
      dprev = rbuf(2 * j)
      do i = 1, nlocal
        denom = bv + cprev
        cp(i, s) = -1.0d0 / denom
        dp(i, s) = (dp(i, s) + dprev) / denom
        cprev = cp(i, s)
        dprev = dp(i, s)
      end do
      sbuf(2 * j - 1) = cprev
      sbuf(2 * j) = dprev
    end do
    if (rank < nprocs - 1) &
      call MPI_Send(sbuf, 2 * kb, MPI_DOUBLE_PRECISION, rank + 1, tag_fwd, MPI_COMM_WORLD, ierr)
  end do

  ! back substitution: x overwrites d'; the last rank starts from x = 0
  do j = 1, kb
    rbuf(j) = 0.0d0
  end do
  do blk = 1, nblk
    if (rank < nprocs - 1) &
      call MPI_Recv(rbuf, kb, MPI_DOUBLE_PRECISION, rank + 1, tag_bwd, MPI_COMM_WORLD, status, ierr)
    do j = 1, kb
      s = (blk - 1) * kb + j
      xnext = rbuf(j)
      do i = nlocal, 1, -1
        dp(i, s) = dp(i, s) - cp(i, s) * xnext
        xnext = dp(i, s)
      end do
      sbuf(j) = xnext
    end do
    if (rank > 0) &
      call MPI_Send(sbuf, kb, MPI_DOUBLE_PRECISION, rank - 1, tag_bwd, MPI_COMM_WORLD, ierr)
  end do

  local = 0.0d0
  do s = 1, n
    do i = 1, nlocal
      g = rank * nlocal + i - 1
      local = local + dp(i, s) * dble(g + 1)
    end do
  end do
  call MPI_Reduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (cs, '(es14.6)') total
    write (*, '(a,i0,a,i0,a,i0,a,a)') 'pge1 P=', nprocs, ' N=', n, ' K=', kb, &
      ' checksum=', trim(adjustl(cs))
  end if
  deallocate (cp, dp, rbuf, sbuf)
  call MPI_Finalize(ierr)
end program pge1
