//! Unit tests of Fortran type-bound procedures (trial 29: `call m%setup(n, rank, nprocs)` and
//! `call m%iterate(niter)` were "routines … not defined in the given sources", and a power
//! iteration's model lost its N): a call through a binding calls the procedure it binds with
//! the object passed first, through `class(t)` dummies, a type it extends, a generic with one
//! specific and `nopass`; a component path's setup reaches the loops that use it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, comms, loops};

const POWER_F90: &str = r#"
module dist_mod
  use mpi
  implicit none
  type :: dist_t
     integer :: n, nloc
     real(8), allocatable :: y(:)
   contains
     procedure :: setup => dist_setup
     procedure, pass(self) :: sweep
     procedure, nopass :: width
     generic :: go => sweep
  end type dist_t
  type, extends(dist_t) :: timed_t
     integer :: calls = 0
  end type timed_t
contains
  subroutine dist_setup(this, n, nprocs)
    class(dist_t), intent(inout) :: this
    integer, intent(in) :: n, nprocs
    this%n = n
    this%nloc = n / nprocs
    allocate(this%y(this%nloc))
  end subroutine dist_setup
  subroutine sweep(self, k)
    class(dist_t), intent(inout) :: self
    integer, intent(in) :: k
    integer :: i, ierr
    real(8) :: s, g
    s = 0.0d0
    do i = 1, self%nloc
       self%y(i) = 0.5d0 * self%y(i) + k
       s = s + self%y(i)
    end do
    call MPI_Allreduce(s, g, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end subroutine sweep
  integer function width(k)
    integer, intent(in) :: k
    width = 2 * k
  end function width
end module dist_mod

program power
  use mpi
  use dist_mod
  implicit none
  type(dist_t) :: m
  type(timed_t) :: t
  integer :: ierr, nprocs, n, it, niter, w
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  call get_command_argument(2, arg)
  read(arg, *) niter
  call m%setup(n, nprocs)
  call t%setup(2 * n, nprocs)
  do it = 1, niter
     call m%sweep(it)
     call t%go(it)
  end do
  w = m%width(n)
  call MPI_Finalize(ierr)
end program power
"#;

#[test]
fn a_type_bound_call_calls_the_procedure_its_type_binds() {
    let apt = apt_of("power.f90", POWER_F90);
    // m%setup and t%setup (a type extending dist_t) both call dist_setup
    assert_eq!(calls(&apt, "dist_setup").len(), 2);
    // m%sweep, and t%go through the generic's one specific
    assert_eq!(calls(&apt, "sweep").len(), 2);
    // nothing is left unresolved: no external routine named by its binding
    let text = crate::render::to_text(&apt);
    assert!(
        !text.contains("m%setup") && !text.contains("t%go"),
        "{text}"
    );
    // the sweep's loop runs over the object's nloc, set from the arguments: N/P for m and
    // 2*N/P for t, so the loop's trip follows its callers (the object passed first)
    let sweep = loops(&apt)
        .into_iter()
        .find(|l| l.var.as_deref() == Some("i"))
        .expect("the sweep's loop");
    let trip = sweep.trip.text();
    assert!(trip.contains('N') && trip.contains('P'), "{trip}");
    // and the allreduce inside is reached from main
    assert_eq!(comms(&apt).len(), 1);
}
