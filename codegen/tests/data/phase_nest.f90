! Loops and branches nested in phases, left normally, by EXIT, GOTO, RETURN, `cycle outer` /
! `exit outer`: their exits and arms accumulate in the phase and are flushed at each exit of
! the phase. Rank 0's loop, branch and call records are checked by hand in tests/phase_exits.rs.
integer function find(t)
  integer :: t, i, j
  double precision :: a(0:7, 0:15)
  common /grid/ a
  find = -1
  do i = 0, 7
    do j = 0, 3 + i
      if (i == t .and. j == 3) then
        find = i * 10 + j
        return
      end if
      a(i, j) = a(i, j) + 1d0
    end do
  end do
end function find

program phase_nest
  use mpi
  implicit none
  integer :: rank, i, j, k, r, hit, ierr
  integer, external :: find
  double precision :: s, sq
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  s = 0d0
  hit = 0
  do i = 0, 4
    do j = 0, i
      s = s + i * j
    end do
  end do
  do k = 0, 2
    do i = 0, 3
      if (i == k + 1) exit
      do j = 0, 2 * i
        s = s + k + j
      end do
    end do
  end do
  do i = 0, 3
    do j = 0, 5
      if (i == 2 .and. j == 4) goto 100
      s = s + j
    end do
  end do
100 continue
  do r = 0, 1
    hit = hit + find(2 - r)
  end do
  outer: do i = 1, 4
    do j = 1, 4
      if (j > i) cycle outer
      if (i + j > 6) exit outer
      s = s + i * j
    end do
  end do outer
  ! branches in the nest (marked: a loop in an arm or after it): a cycle, a SELECT CASE (a
  ! CASE DEFAULT added), ELSE IF / ELSE, an arm never taken (no record)
  do i = 0, 3
    do j = 0, 4
      if (j == 0) cycle
      select case (mod(j, 3))
      case (0)
        do k = 0, 1
          s = s + k
        end do
      case (1)
        do k = 0, 0
          s = s + 2
        end do
      end select
      if (j < i) then
        do k = 0, j - 1
          s = s + k
        end do
      else if (j == i) then
        s = s - 1
      else
        do k = 0, 0
          s = s + 0.5d0
        end do
      end if
      if (j > 100) then
        do k = 0, 0
          s = -1
        end do
      end if
    end do
  end do
  ! leaf calls in a nest: a CALL, two references in an expression, one in a condition, one in
  ! an arm taken 3 times; a single loop of leaf calls
  do i = 0, 2
    do j = 0, 3
      call bump(s, j)
      s = s + sq(j) + sq(i)
      if (sq(j) > 4d0) s = s + 1
      if (j == i) call bump(s, 1)
    end do
  end do
  do r = 0, 4
    s = s + sq(r)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, f0.1, a, i0)', 's=', s, ' hit=', hit
  call MPI_Finalize(ierr)
end program phase_nest

double precision function sq(n)
  integer :: n
  sq = n * n
end function sq

subroutine bump(s, k)
  double precision :: s
  integer :: k
  s = s + k
end subroutine bump
