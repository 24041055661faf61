//! Extents an ALLOCATE gives (trial2 #7): `allocate(u(0:nx+1, 0:ny+1))`, then loops to
//! `ubound(u, 1) - 1` or `size(u, 2)` and array syntax on `u` resolve in nx and ny, in the
//! procedure and in callees reaching `u` through a module.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};
use crate::Attr;

const SRC: &str = r#"
module fields
  double precision, allocatable :: u(:,:), v(:)
  integer :: nx, ny
end module fields

program t
  use mpi
  use fields
  implicit none
  integer :: ierr, n, p, i, j
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  nx = n / p
  ny = n
  allocate(u(0:nx+1, 0:ny+1), v(ny))
  u = 0.0d0
  u(:, 0) = 1.0d0
  do j = 1, ubound(u, 2) - 1
     do i = lbound(u, 1) + 1, size(u, 1) - 2
        u(i, j) = 2.0d0
     end do
  end do
  call sweep()
  call MPI_Finalize(ierr)
contains
  subroutine sweep()
    integer :: k
    do k = 1, size(v)
       v(k) = 0.0d0
    end do
    do k = 1, size(u)
    end do
  end subroutine sweep
end program t
"#;

#[test]
fn allocate_bounds_resolve_inquiries_and_array_syntax() {
    let apt = apt_of("alloc.f90", SRC);
    let trips: Vec<Attr> = loops(&apt).iter().map(|l| l.trip.clone()).collect();
    assert_eq!(
        trips,
        [
            // u = 0, u(:, 0) = 1
            e("(N/P + 2)*(N + 2)"),
            e("N/P + 2"),
            // j to ubound(u, 2) - 1 = ny, i from 1 to size(u, 1) - 2 = nx
            e("N"),
            e("N/P"),
            // in the callee: size(v) = ny, size(u)
            e("N"),
            e("(N/P + 2)*(N + 2)"),
        ],
        "{trips:?}"
    );
}

#[test]
fn without_allocate_the_extents_stay_unknown() {
    let src = r#"
module fields
  double precision, allocatable :: u(:)
end module fields

program t
  use fields
  implicit none
  integer :: i
  do i = 1, size(u)
  end do
  u = 0.0d0
end program t
"#;
    let apt = apt_of("noalloc.f90", src);
    let trips: Vec<Attr> = loops(&apt).iter().map(|l| l.trip.clone()).collect();
    assert!(
        trips.iter().all(|t| matches!(t, Attr::Unresolved(_))),
        "{trips:?}"
    );
}

/// Trial 22's red-black solver: a derived type's allocatable component, allocated through its
/// path and zeroed by array syntax (`g%u = 0.0d0`, `g%u(:, :) = 1.0d0`), is a computation of
/// the extents the ALLOCATE gave; it was no site at all, and its first touch of 2-17 MB per
/// rank lay outside T.
#[test]
fn array_syntax_on_an_allocated_component_is_a_loop_over_its_extents() {
    let src = r#"
module m
  implicit none
  type :: grid
     integer :: n
     real(8), allocatable :: u(:,:)
     real(8) :: h(4)
  end type grid
end module m
program arrdt
  use mpi
  use m
  implicit none
  type(grid) :: g
  integer :: n, ierr, p
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  read(5, *) n
  g%n = n
  allocate(g%u(0:n+1, 0:n/p+1))
  g%u = 0.0d0
  g%u(:, :) = 1.0d0
  g%h = 2.0d0
  g%n = 3
  call MPI_Finalize(ierr)
end program
"#;
    let apt = apt_of("arrdt.f90", src);
    let l = loops(&apt);
    assert_eq!(l.len(), 3, "{l:#?}");
    let want = e("(N + 2)*(N/P + 2)");
    assert_eq!(l[0].trip, want);
    assert_eq!(l[1].trip, want);
    // a component declared with its extent
    assert_eq!(l[2].trip, e("4"));
}
