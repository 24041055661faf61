! atm2d: red/black 2-D halo exchange on a Px x Py process grid (seed 004 §5.2).
! Each rank owns LAMBDA x LAMBDA points of a diffusion field plus a halo. Per
! step it relaxes the red points, exchanges halos, relaxes the black points,
! exchanges again. Ranks are coloured like a checkerboard: red ranks exchange
! N, S, E, W and black ranks S, N, W, E (the seed's deadlock-free order), each
! exchange one MPI_Sendrecv of LAMBDA doubles. Px is the largest divisor of P
! not above sqrt(P), found by a while loop; the neighbour ranks sit in the
! array nbr(:) (MPI_PROC_NULL on the outer boundary), so peers are only known
! at run time. Mirrors atm2d.c.
! args: LAMBDA STEPS   (small: 64 20)
! expect: loop trip STEPS
! expect: loop trip 2
! expect: loop trip LAMBDA
! expect: compute LAMBDA^2 per colour per step
! expect: message bytes 8*LAMBDA
! expect: phase synchronous
! expect: peer unresolved (held in array nbr)
program atm2d
  use mpi
  implicit none
  integer :: nprocs, rank, lam, steps, d, cx, cy, step, c, i, j, gi, gj, w, ierr
  integer :: dims(2), nbr(4)
  logical :: red
  double precision, allocatable :: u(:, :), f(:, :), sb(:), rb(:)
  double precision :: local, total
  character(len=32) :: arg, cs

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (command_argument_count() < 2) then
    if (rank == 0) print '(a)', 'usage: atm2d LAMBDA STEPS'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, arg)
  read (arg, *) lam
  call get_command_argument(2, arg)
  read (arg, *) steps
  if (lam < 1) then
    if (rank == 0) print '(a)', 'atm2d: LAMBDA must be positive'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if

  ! Px = largest divisor of P with Px*Px <= P
  dims(1) = 1
  d = 1
  do while (d * d <= nprocs)
    if (mod(nprocs, d) == 0) dims(1) = d
    d = d + 1
  end do
  dims(2) = nprocs / dims(1)
  cx = mod(rank, dims(1))
  cy = rank / dims(1)
  red = mod(cx + cy, 2) == 0
  nbr(1) = merge(rank + dims(1), MPI_PROC_NULL, cy < dims(2) - 1)
  nbr(2) = merge(rank - dims(1), MPI_PROC_NULL, cy > 0)
  nbr(3) = merge(rank + 1, MPI_PROC_NULL, cx < dims(1) - 1)
  nbr(4) = merge(rank - 1, MPI_PROC_NULL, cx > 0)

  w = lam + 2
  allocate (u(0:lam + 1, 0:lam + 1), f(0:lam + 1, 0:lam + 1), sb(4 * lam), rb(4 * lam))
  do j = 0, w - 1
    do i = 0, w - 1
      gi = cx * lam + i
      gj = cy * lam + j
      u(i, j) = 0.0d0
      f(i, j) = 0.01d0 * dble(mod(3 * gi + 5 * gj, 13))
    end do
  end do
  do i = 1, 4 * lam
    rb(i) = 0.0d0
  end do

  do step = 1, steps
    do c = 0, 1
      do j = 1, lam
        do i = 1, lam
          gi = cx * lam + i
          gj = cy * lam + j
          if (mod(gi + gj, 2) == c) &
            u(i, j) = 0.24d0 * (u(i, j + 1) + u(i, j - 1) + u(i + 1, j) + u(i - 1, j)) + f(i, j)
        end do
      end do
      call exchange(u, lam, nbr, red, sb, rb)
    end do
  end do

  local = 0.0d0
  do j = 1, lam
    do i = 1, lam
      local = local + u(i, j)
    end do
  end do
  call MPI_Reduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (cs, '(es14.6)') total
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') 'atm2d P=', nprocs, ' LAMBDA=', lam, &
      ' STEPS=', steps, ' Px=', dims(1), ' Py=', dims(2), ' checksum=', trim(adjustl(cs))
  end if
  deallocate (u, f, sb, rb)
  call MPI_Finalize(ierr)
end program atm2d

! u is (0:lam+1) x (0:lam+1); nbr = (north, south, east, west)
subroutine exchange(u, lam, nbr, red, sb, rb)
  use mpi
  implicit none
  integer, intent(in) :: lam, nbr(4)
  logical, intent(in) :: red
  double precision, intent(inout) :: u(0:lam + 1, 0:lam + 1), sb(4 * lam), rb(4 * lam)
  integer, parameter :: tag_n = 31, tag_s = 32, tag_e = 33, tag_w = 34
  integer :: i, ierr
  integer :: st(MPI_STATUS_SIZE)

  do i = 1, lam
    sb(0 * lam + i) = u(i, lam)   ! top row, to north
    sb(1 * lam + i) = u(i, 1)     ! bottom row, to south
    sb(2 * lam + i) = u(lam, i)   ! right column, to east
    sb(3 * lam + i) = u(1, i)     ! left column, to west
  end do
  if (red) then
    call MPI_Sendrecv(sb(1), lam, MPI_DOUBLE_PRECISION, nbr(1), tag_n, &
      rb(1), lam, MPI_DOUBLE_PRECISION, nbr(1), tag_s, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(2), tag_s, &
      rb(lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(2), tag_n, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(2 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(3), tag_e, &
      rb(2 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(3), tag_w, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(3 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(4), tag_w, &
      rb(3 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(4), tag_e, &
      MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Sendrecv(sb(lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(2), tag_s, &
      rb(lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(2), tag_n, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(1), lam, MPI_DOUBLE_PRECISION, nbr(1), tag_n, &
      rb(1), lam, MPI_DOUBLE_PRECISION, nbr(1), tag_s, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(3 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(4), tag_w, &
      rb(3 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(4), tag_e, &
      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(sb(2 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(3), tag_e, &
      rb(2 * lam + 1), lam, MPI_DOUBLE_PRECISION, nbr(3), tag_w, &
      MPI_COMM_WORLD, st, ierr)
  end if
  ! a receive from MPI_PROC_NULL leaves rb untouched: rb holds zeros there
  do i = 1, lam
    u(i, lam + 1) = rb(0 * lam + i)
    u(i, 0) = rb(1 * lam + i)
    u(lam + 1, i) = rb(2 * lam + i)
    u(0, i) = rb(3 * lam + i)
  end do
end subroutine exchange
