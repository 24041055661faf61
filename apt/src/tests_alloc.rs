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
