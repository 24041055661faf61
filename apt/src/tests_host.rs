//! Trial 9 item 6: a Fortran internal procedure (after `contains`) reads its host's variables
//! by host association; they hold at the call what the host holds there, like globals.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, loops};

const HALO: &str = "program halo
  use mpi
  implicit none
  integer :: n, nloc, rank, nprocs, left, right, ierr, it, i
  integer :: st(MPI_STATUS_SIZE)
  real(8), allocatable :: u(:)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg); read(arg, *) n
  nloc = n / nprocs
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)
  allocate(u(0:nloc+1))
  do it = 1, 10
    call exchange()
    call smooth()
  end do
  call MPI_Finalize(ierr)
contains
  subroutine exchange()
    call MPI_Sendrecv(u(1), nloc, MPI_DOUBLE_PRECISION, right, 1, u(0), nloc, &
         MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
  end subroutine exchange
  subroutine smooth()
    integer :: nloc
    nloc = 5
    do i = 1, nloc
      u(i) = 0.5d0 * (u(i-1) + u(i+1))
    end do
  end subroutine smooth
end program halo
";

#[test]
fn host_variables_hold_the_hosts_values_in_an_internal_procedure() {
    let apt = apt_of("halo.f90", HALO);
    let c = comms(&apt);
    assert_eq!(c[0].peer, Some(e("mod(rank + 1, P)")), "{:?}", c[0]);
    assert_eq!(c[0].source, Some(e("mod(rank - 1 + P, P)")), "{:?}", c[0]);
    assert_eq!(c[0].bytes, Some(e("8*N/P")), "{:?}", c[0]);
    let l = loops(&apt);
    // `smooth` declares its own `nloc`: the host's is hidden there
    let smooth = l.iter().find(|x| x.var.as_deref() == Some("i")).unwrap();
    assert_eq!(smooth.trip, e("5"));
}

/// Trial 29: `a(n, j) = d(n)` in an internal procedure, `d` the host's array: an element of
/// it, not a call of a function `d` that may write `n` (the loop wrote {a, j, n} and the call
/// {a, n}: the names the rewrite floor is matched on).
#[test]
fn a_hosts_array_in_an_internal_procedure_is_an_array() {
    let src = "program w2
  use mpi
  implicit none
  integer :: ierr, n, nloc
  real(8), allocatable :: a(:,:), d(:)
  call MPI_Init(ierr)
  n = 100; nloc = 10
  allocate(a(n, nloc), d(n))
  d = 1.0d0
  call fill(a, n, nloc)
  call MPI_Bcast(a, n*nloc, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
contains
  subroutine fill(a, n, nloc)
    integer, intent(in) :: n, nloc
    real(8), intent(inout) :: a(n, nloc)
    integer :: j
    do j = 1, nloc
      a(n, j) = d(n)
    end do
  end subroutine fill
end program w2
";
    let apt = apt_of("w2.f90", src);
    let fill = loops(&apt)
        .into_iter()
        .find(|l| l.var.as_deref() == Some("j"))
        .expect("fill's loop");
    let writes: Vec<&str> = fill.writes.iter().flatten().map(String::as_str).collect();
    assert_eq!(writes, ["a", "j"]);
    let call = crate::tests::calls(&apt, "fill")[0];
    assert_eq!(apt.call_writes[&call], Ok(crate::tests::set(&["a"])));
}
