//! Regression tests (trial 6, item 9): an assumed-shape dummy (`a(:)`) of a function called
//! inside expressions takes its extent from the actual at every call site, a section
//! (`p(1:nloc)`) included; call sites that disagree are named with their values, and no
//! reason shows the internal name of a bound (`a[#ubound1]`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};

// cg1d.f90 of the trial, reduced
const PDOT_F90: &str = r#"
module m
  implicit none
  integer :: nloc
contains
  function pdot(a, b) result(s)
    use mpi
    double precision, intent(in) :: a(:), b(:)
    double precision :: s, sloc
    integer :: ierr
    sloc = dot_product(a, b)
    call MPI_ALLREDUCE(sloc, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function pdot
end module m

program t
  use mpi
  use m
  implicit none
  double precision, allocatable :: r(:), p(:)
  double precision :: rho
  integer :: n, ierr, np
  character(len=32) :: arg
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  nloc = n / np
  allocate(r(nloc), p(0:nloc+1))
  rho = pdot(r, r)
  rho = rho + pdot(p(1:nloc), r)
  call MPI_FINALIZE(ierr)
end program t
"#;

#[test]
fn an_assumed_shape_dummy_takes_the_extent_of_sections_and_whole_arrays() {
    let apt = apt_of("pdot.f90", PDOT_F90);
    assert_eq!(loops(&apt)[0].trip, e("N/P"));
}

#[test]
fn call_sites_giving_different_extents_are_named() {
    let src = PDOT_F90.replace("pdot(p(1:nloc), r)", "pdot(p, r)");
    let apt = apt_of("pdot2.f90", &src);
    let t = &loops(&apt)[0].trip;
    let r = t.unresolved().unwrap_or_default();
    assert!(
        r.contains("differs between call sites: N/P at line 30, N/P + 2 at line 31"),
        "{t:?}"
    );
    assert!(r.contains("`ubound(a, 1)`"), "{r}");
    assert!(!r.contains('#'), "{r}");
}

/// Trial 21's CG: a section `p(a+1:a+nbw)` whose offset is read from an array is nbw long,
/// the offset unknown on both sides of it, as a DO's bounds sharing it are.
#[test]
fn a_section_whose_bounds_share_an_unknown_offset_has_its_width() {
    let src = "program off
  use mpi
  implicit none
  integer :: n, nbw, ierr, a, k, ioff(1000)
  double precision :: p(100000), q(100000)
  call mpi_init(ierr)
  read(*,*) n, nbw
  do k = 1, n
    a = ioff(k)
    p(a+1:a+nbw) = p(a+1:a+nbw) + 1.0d0
    q(a+1:n) = 0.0d0
  end do
  call mpi_finalize(ierr)
end program off
";
    let apt = apt_of("off.f90", src);
    let l = loops(&apt);
    assert_eq!(l[1].trip, e("NBW"));
    // an offset on one side only stays unknown
    assert!(l[2].trip.unresolved().is_some(), "{:?}", l[2].trip);
}
