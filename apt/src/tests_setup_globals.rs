//! Globals a called setup routine assigns from its arguments (trial 5 item 6): module
//! variables and C globals carry the callee's value back to the caller with the arguments
//! substituted, and so do a derived datatype's size and an ALLOCATE's bounds kept under them;
//! what still cannot be followed names the variable and the call. `size(w, k)` of an
//! explicit-shape array is its declared extent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, loops};
use crate::Attr;

const MODULE_SETUP: &str = r#"
module grid
  use mpi
  implicit none
  integer :: nyl, coltype
  real(8), allocatable :: v(:)
contains
  subroutine setup(n, p)
    integer, intent(in) :: n, p
    integer :: ierr
    nyl = n / p
    allocate(v(0:2*nyl+1))
    call MPI_TYPE_VECTOR(nyl, 1, n + 2, MPI_DOUBLE_PRECISION, coltype, ierr)
    call MPI_TYPE_COMMIT(coltype, ierr)
  end subroutine setup
  subroutine halo(u, r, p)
    real(8), intent(inout) :: u(0:, 0:)
    integer, intent(in) :: r, p
    integer :: ierr, st(MPI_STATUS_SIZE)
    call MPI_SENDRECV(u(1, 1), 1, coltype, mod(r+1,p), 3, &
                      u(0, 1), 1, coltype, mod(r+p-1,p), 3, MPI_COMM_WORLD, st, ierr)
    call MPI_SEND(v, size(v), MPI_DOUBLE_PRECISION, mod(r+1,p), 4, MPI_COMM_WORLD, ierr)
  end subroutine halo
end module grid
program main
  use mpi
  use grid
  implicit none
  integer :: ierr, n, p, r
  real(8), allocatable :: u(:,:)
  character(len=32) :: arg
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, r, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  call setup(n, p)
  allocate(u(0:n+1, 0:nyl+1))
  u = 0.0d0
  call halo(u, r, p)
  call MPI_FINALIZE(ierr)
end program main
"#;

#[test]
fn module_variables_set_in_a_setup_routine_reach_the_caller() {
    let apt = apt_of("setup.f90", MODULE_SETUP);
    let l = loops(&apt);
    // allocate(u(0:n+1, 0:nyl+1)) after `call setup(n, p)` set nyl = n/p
    assert_eq!(l[0].array.as_deref(), Some("u"));
    assert_eq!(l[0].trip, e("(N + 2) * (N/P + 2)"));
    let c = comms(&apt);
    // the column type built in setup, used in halo through the module variable
    assert_eq!(c[0].bytes, Some(e("8*N/P")));
    assert_eq!(c[0].recv_bytes, Some(e("8*N/P")));
    // the module array setup allocated
    assert_eq!(c[1].bytes, Some(e("8*(2*N/P + 2)")));
}

#[test]
fn c_globals_set_from_arguments_reach_the_caller() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int nloc, halo;
void setup(int n, int p) {
    nloc = n / p;
    halo = 2 * nloc + 4;
}
int main(int argc, char **argv) {
    int n, p, r;
    double buf[100000];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    n = atoi(argv[1]);
    setup(n, p);
    MPI_Send(buf, halo, MPI_DOUBLE, (r + 1) % p, 0, MPI_COMM_WORLD);
    setup(2 * n, p);
    MPI_Send(buf, nloc, MPI_DOUBLE, (r + 1) % p, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("g.c", src);
    let c = comms(&apt);
    assert_eq!(c[0].bytes, Some(e("8*(2*N/P + 4)")));
    assert_eq!(c[1].bytes, Some(e("16*N/P")));
}

#[test]
fn a_global_not_followed_names_itself_and_the_call() {
    let src = r#"
program main
  use mpi
  implicit none
  integer :: ierr, n, p, nxl, dims(2)
  common /g/ nxl
  real(8), allocatable :: u(:)
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  read(*, *) n, dims
  call setup(n, dims)
  allocate(u(0:nxl+1))
  u = 0.0d0
  call MPI_FINALIZE(ierr)
end program main
subroutine setup(n, dims)
  integer :: n, dims(2), nxl
  common /g/ nxl
  nxl = n / dims(1) + nxl
end subroutine setup
"#;
    let apt = apt_of("nf.f90", src);
    let l = loops(&apt);
    let Attr::Unresolved(r) = &l[0].trip else {
        panic!("{:?}", l[0].trip)
    };
    assert!(
        r.starts_with("`nxl`: assigned by call to `setup` at line 11"),
        "{r}"
    );
    assert!(!r.contains("not in its declaration"), "{r}");
}

#[test]
fn size_of_explicit_shape_arrays_is_their_declared_extent() {
    let src = r#"
subroutine work(u, n, m)
  use mpi
  integer :: n, m, ierr
  real(8) :: u(n+2, m)
  real(8) :: w(0:101, 0:101)
  call MPI_SEND(w(1,1), size(w, 1), MPI_DOUBLE_PRECISION, 1, 4, MPI_COMM_WORLD, ierr)
  call MPI_SEND(u(1,1), size(u, 1), MPI_DOUBLE_PRECISION, 1, 4, MPI_COMM_WORLD, ierr)
  call MPI_SEND(u(1,1), size(u), MPI_DOUBLE_PRECISION, 1, 4, MPI_COMM_WORLD, ierr)
  call MPI_SEND(w(1,1), ubound(w, 2), MPI_DOUBLE_PRECISION, 1, 4, MPI_COMM_WORLD, ierr)
end subroutine work
program main
  use mpi
  integer :: ierr, n, p
  real(8) :: a(1000000)
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  read(*, *) n
  call work(a, n, n / p)
  call MPI_FINALIZE(ierr)
end program main
"#;
    let apt = apt_of("sz.f90", src);
    let c = comms(&apt);
    assert_eq!(c[0].bytes, Some(e("816")));
    assert_eq!(c[1].bytes, Some(e("8*(N + 2)")));
    assert_eq!(c[2].bytes, Some(e("8*(N + 2)*N/P")));
    assert_eq!(c[3].bytes, Some(e("808")));
}

#[test]
fn a_routine_that_only_allocates_a_module_array_gives_its_bounds() {
    let src = r#"
module store
  real(8), allocatable :: v(:)
contains
  subroutine make(n)
    integer, intent(in) :: n
    allocate(v(2*n))
  end subroutine make
end module store
program main
  use mpi
  use store
  implicit none
  integer :: ierr, n
  call MPI_INIT(ierr)
  read(*, *) n
  call make(n)
  call MPI_BCAST(v, size(v), MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program main
"#;
    let apt = apt_of("alloc.f90", src);
    assert_eq!(comms(&apt)[0].bytes, Some(e("16*N")));
}

#[test]
fn elements_of_a_global_array_a_callee_writes_are_not_kept_from_before() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int dims[2];
void fill(int n) { int i; for (i = 0; i < 2; i++) dims[i] = n + i; }
int main(int argc, char **argv) {
    double buf[100];
    MPI_Init(&argc, &argv);
    dims[0] = 4;
    MPI_Send(buf, dims[0], MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    fill(atoi(argv[1]));
    MPI_Send(buf, dims[0], MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("stale.c", src);
    let c = comms(&apt);
    assert_eq!(c[0].bytes, Some(e("32")));
    assert!(
        c[1].bytes.as_ref().unwrap().unresolved().is_some(),
        "{:?}",
        c[1].bytes
    );
}
