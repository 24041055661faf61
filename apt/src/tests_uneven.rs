//! The uneven block split (trial 8 item 8): `nloc = n/p; if (rank < mod(n, p)) nloc = nloc + 1`
//! (and C's `n/p + (rank < n%p ? 1 : 0)`) is `floor(N/P) + [rank < N mod P]`, exact at every
//! rank; a parameterless setup routine setting it from module variables it only reads reaches
//! the caller (the globals stand as symbols in its summary, bound at the call).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, eval, loops};
use crate::Attr;

/// Rows of `rank` in a split of `n` over `p` as the programs compute them.
fn rows(n: f64, p: f64, rank: f64) -> f64 {
    (n / p).floor() + if rank < n % p { 1.0 } else { 0.0 }
}

fn check_all_ranks(trip: &Attr) {
    for (n, p) in [
        (10.0, 4.0),
        (1000.0, 7.0),
        (12.0, 3.0),
        (5.0, 8.0),
        (200_001.0, 16.0),
    ] {
        for r in 0..(p as i64) {
            let r = r as f64;
            assert_eq!(
                eval(trip, &[("N", n), ("P", p), ("rank", r)]),
                rows(n, p, r),
                "{trip:?} at N={n} P={p} rank={r}"
            );
        }
    }
}

#[test]
fn fortran_uneven_split_is_floor_plus_a_bracket() {
    let src = r#"
program split
  use mpi
  implicit none
  integer :: n, nloc, rank, nprocs, ierr, i
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  read(*,*) n
  nloc = n / nprocs
  if (rank < mod(n, nprocs)) nloc = nloc + 1
  do i = 1, nloc
  end do
  nloc = n / nprocs
  if (rank .ge. mod(n, nprocs)) then
    nloc = nloc - 1
  end if
  do i = 0, nloc
  end do
  call MPI_Finalize(ierr)
end program split
"#;
    let apt = apt_of("split.f90", src);
    let l = loops(&apt);
    check_all_ranks(&l[0].trip);
    check_all_ranks(&l[1].trip);
}

#[test]
fn c_uneven_split_with_a_conditional_expression() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, p, rank, nloc, i;
    double s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    nloc = n / p + (rank < n % p ? 1 : 0);
    for (i = 0; i < nloc; i++) s += i;
    nloc = n / p;
    if (rank < n % p) nloc++;
    for (i = 0; i < nloc; i++) s += i;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("split.c", src);
    let l = loops(&apt);
    check_all_ranks(&l[0].trip);
    check_all_ranks(&l[1].trip);
}

#[test]
fn a_real_test_or_an_equality_is_no_bracket() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, p, rank, m, i;
    double x, s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    x = atof(argv[2]);
    m = n;
    if (x < 0.5) m = n + 1;
    for (i = 0; i < m; i++) s += i;
    m = n;
    if (rank == 0) m = n + 1;
    for (i = 0; i < m; i++) s += i;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("nob.c", src);
    let l = loops(&apt);
    assert!(matches!(&l[0].trip, Attr::Unresolved(_)), "{:?}", l[0].trip);
    assert!(matches!(&l[1].trip, Attr::Unresolved(_)), "{:?}", l[1].trip);
}

const MODULE_SPLIT: &str = r#"
module st
  implicit none
  integer :: n, nloc, rank, nprocs
contains
  subroutine decompose()
    nloc = n / nprocs
    if (rank < mod(n, nprocs)) nloc = nloc + 1
  end subroutine decompose
  subroutine work()
    integer :: i
    double precision :: s
    s = 0
    do i = 1, nloc
      s = s + i
    end do
  end subroutine work
end module st

program main
  use mpi
  use st
  implicit none
  integer :: ierr, i
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  read(*,*) n
  call decompose()
  call work()
  do i = 1, nloc
  end do
  call MPI_Finalize(ierr)
end program main
"#;

#[test]
fn module_split_set_by_a_parameterless_routine() {
    let apt = apt_of("modglob.f90", MODULE_SPLIT);
    let l = loops(&apt);
    // the loop in `work` (its entry value from the call site) and the one in the main program
    assert_eq!(l.len(), 2);
    for x in &l {
        check_all_ranks(&x.trip);
    }
}

#[test]
fn a_global_the_routine_also_writes_is_not_followed() {
    // `n` is read and written by the routine: its entry value is not the caller's after it
    let src = MODULE_SPLIT.replace(
        "    nloc = n / nprocs
    if",
        "    nloc = n / nprocs
    n = n + 0
    if",
    );
    let apt = apt_of("modglob.f90", &src);
    let l = loops(&apt);
    let r = l[l.len() - 1].trip.unresolved().unwrap_or_default();
    assert!(r.contains("not followed"), "{:?}", l[l.len() - 1].trip);
}

/// Trial 19's k-means: the split declared where it is computed, from a member of a struct of
/// parameters whose type the front end does not follow (`int nloc = pr.n / nprocs + (rank <
/// pr.n % nprocs ? 1 : 0)`) read "chosen by a condition". C's `%` takes integers only, and a
/// declaration's initialiser is stored as an assignment is: the same exact split per rank.
#[test]
fn c_uneven_split_declared_from_a_struct_member() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n, k; double tol; } params_t;
int main(int argc, char **argv) {
    int rank, nprocs;
    params_t pr;
    double s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    pr.n = atoi(argv[1]);
    int nloc = pr.n / nprocs + (rank < pr.n % nprocs ? 1 : 0);
    for (int i = 0; i < nloc; i++) s += i;
    int n = pr.n;
    int nl = n / nprocs + (rank < n % nprocs ? 1 : 0);
    for (int i = 0; i < nl; i++) s += i;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("split.c", src);
    let l = loops(&apt);
    check_all_ranks(&l[0].trip);
    check_all_ranks(&l[1].trip);
}
