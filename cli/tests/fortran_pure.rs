//! `augur profile` + `augur analyze` of a Fortran program whose per-row work is a PURE function
//! with a loop, and which calls an ELEMENTAL one: a PURE procedure may call pure procedures
//! only, and augur's markers are not (trial 21: `Subroutine call to 'augur_phase_begin' at (1)
//! is not PURE`, the program could not be profiled). They are left as written, their loops'
//! time is their caller's: the loop over rows is a computation phase, timed as a whole.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{native_model, need};

const SOURCE: &str = r#"module ops
  implicit none
  integer, parameter :: NBW = 2
contains
  pure function row_apply(v, i) result(s)
    real(8), intent(in) :: v(0:)
    integer, intent(in) :: i
    real(8) :: s
    integer :: k
    s = 2.0d0 * v(i)
    do k = 1, NBW
      s = s - 0.5d0 * (v(i - k) + v(i + k))
    end do
  end function row_apply

  elemental real(8) function twice(x)
    real(8), intent(in) :: x
    twice = 2.0d0 * x
  end function twice
end module ops

program cg
  use mpi
  use ops
  implicit none
  integer :: ierr, rank, nprocs, n, nloc, it, niter, i
  real(8), allocatable :: v(:), w(:)
  real(8) :: dot, gdot
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  call get_command_argument(2, arg)
  read(arg, *) niter
  nloc = n / nprocs
  allocate(v(0:nloc + NBW + 1), w(nloc))
  v = 1.0d0
  do it = 1, niter
    do i = NBW, nloc
      w(i) = row_apply(v, i)
    end do
    dot = 0.0d0
    do i = 1, nloc
      dot = dot + twice(w(i)) * w(i)
    end do
    call MPI_Allreduce(dot, gdot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print *, gdot
  call MPI_Finalize(ierr)
end program cg
"#;

#[test]
fn pure_and_elemental_procedures_run_in_their_callers_phase() {
    need("mpif90");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "cg.f90",
        SOURCE,
        "1,2",
        &["N=100000,200000", "NITER=20"],
        &["{N}", "{NITER}"],
    );
    // the loops calling row_apply (line 41) and twice (line 45) are computation phases; the
    // loop inside row_apply (line 11) is never entered as one
    let lines: Vec<u64> = m["compute"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&41) && lines.contains(&45), "{lines:?}");
    assert!(!lines.contains(&11), "{lines:?}");
    let row = m["compute"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["line"] == 41)
        .unwrap();
    assert!(
        row["cost"].as_str().unwrap().contains("N/P"),
        "the rows' phase grows with its rows: {row}"
    );
}

const MASKED: &str = r#"program masked
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, n, nloc, it, i
  real(8), allocatable :: x(:), y(:)
  real(8) :: s, t
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  nloc = n / nprocs
  allocate(x(nloc), y(nloc))
  x = 1.0d0
  do it = 1, 10
    where (x > 0.5d0)
      y = sqrt(x) * 2.0d0
    elsewhere
      y = 0.0d0
    end where
    forall (i = 1:nloc, y(i) > 1.0d0) x(i) = 0.5d0 * (x(i) + y(i))
    s = sum(x)
    call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print *, t
  call MPI_Finalize(ierr)
end program masked
"#;

/// Trial 28: a WHERE construct and a FORALL were not lowered, so their time went to the
/// residual (a particle code lost 25% of each step there). A WHERE is an array statement over
/// its first target's elements, a FORALL a DO CONCURRENT over its triplets: each a computation
/// phase of N/P elements, timed around the construct (nothing may go inside either).
#[test]
fn where_and_forall_are_computations_over_their_elements() {
    need("mpif90");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "masked.f90",
        MASKED,
        "1,2",
        &["N=200000,400000"],
        &["{N}"],
    );
    let compute = m["compute"].as_array().unwrap();
    for line in [17, 22] {
        let c = compute
            .iter()
            .find(|c| c["line"] == line)
            .unwrap_or_else(|| panic!("no computation at line {line}: {compute:#?}"));
        assert_eq!(c["work"], "N/P", "{c:#}");
    }
}
