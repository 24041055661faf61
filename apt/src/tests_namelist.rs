//! Fortran NAMELIST reads (trial 8 item 1): `read(*, nml=g)` makes every variable of `g` a
//! parameter as `read(*,*)` does, `read(10, nml=g)` makes them values read from a file; the
//! default assigned before the read is no longer taken as the value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};
use crate::Attr;

fn program(read: &str) -> String {
    format!(
        r#"
program nml
  use mpi
  implicit none
  integer :: n, nsteps, i, k, ierr, rank
  double precision :: s
  namelist /params/ n, nsteps
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  n = 1000
  nsteps = 10
  if (rank == 0) then
    {read}
  end if
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(nsteps, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  s = 0
  do k = 1, nsteps
    do i = 1, n
      s = s + i
    end do
  end do
  call MPI_Finalize(ierr)
end program nml
"#
    )
}

#[test]
fn namelist_read_from_stdin_gives_parameters() {
    for read in [
        "read(*, nml=params)",
        "read(5, params)",
        "read(unit=5, nml=params)",
    ] {
        let apt = apt_of("nml.f90", &program(read));
        let l = loops(&apt);
        assert_eq!(l[0].trip, e("NSTEPS"), "{read}");
        assert_eq!(l[1].trip, e("N"), "{read}");
        let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
        assert!(
            names.contains(&"N") && names.contains(&"NSTEPS"),
            "{read}: {names:?}"
        );
    }
}

#[test]
fn namelist_read_from_a_file_is_unresolved_not_its_default() {
    let apt = apt_of("nml.f90", &program("read(10, nml=params)"));
    let l = loops(&apt);
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("bound read from a file at line 13".into())
    );
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("bound read from a file at line 13".into())
    );
}
