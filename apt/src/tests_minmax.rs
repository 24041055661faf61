//! A conditional choosing one of the two values it compares is their `min`/`max` (trial 5
//! item 9): `kk = (nz - kb < K) ? nz - kb : K`, the same as an if/else or an if over a
//! default, and Fortran `merge(a, b, a < b)`; any other choice stays "chosen by a condition".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, loops};
use crate::Attr;

/// A C program whose loop trips are `v1`, `v2`, … after `decl` sets them from `n`, `k`.
fn c_trips(decl: &str) -> Vec<Attr> {
    let src = format!(
        r#"
#include <mpi.h>
#include <stdlib.h>
double a[100000];
int main(int argc, char **argv) {{
    int n, k, i, v1, v2, v3, v4;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    k = atoi(argv[2]);
    {decl}
    for (i = 0; i < v1; i++) a[i] = 0;
    for (i = 0; i < v2; i++) a[i] = 1;
    for (i = 0; i < v3; i++) a[i] = 2;
    for (i = 0; i < v4; i++) a[i] = 3;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}}
"#
    );
    let apt = apt_of("mm.c", &src);
    loops(&apt).iter().map(|l| l.trip.clone()).collect()
}

#[test]
fn a_ternary_choosing_the_compared_values_is_min_or_max() {
    let trips = c_trips(
        "v1 = (n - 2 < k) ? n - 2 : k;
    v2 = n > k ? n : k;
    v3 = k >= n ? n : k;
    v4 = (k <= n) ? n : k;",
    );
    assert_eq!(trips[0], e("min(N - 2, K)"));
    assert_eq!(trips[1], e("max(N, K)"));
    assert_eq!(trips[2], e("min(N, K)"));
    assert_eq!(trips[3], e("max(N, K)"));
}

#[test]
fn if_else_and_if_over_a_default_choosing_the_compared_values_are_min_or_max() {
    let trips = c_trips(
        "if (n < k) v1 = n; else v1 = k;
    v2 = k;
    if (n > k) v2 = n;
    v3 = n;
    if (k <= n) {{ v3 = k; }}
    if (n >= k) v4 = k; else v4 = n;",
    );
    assert_eq!(trips[0], e("min(N, K)"));
    assert_eq!(trips[1], e("max(N, K)"));
    assert_eq!(trips[2], e("min(N, K)"));
    assert_eq!(trips[3], e("min(N, K)"));
}

#[test]
fn a_choice_of_other_values_stays_chosen_by_a_condition() {
    let trips = c_trips(
        "v1 = (n < k) ? n : 2 * k;
    v2 = (n == k) ? n : k;
    if (n < k) v3 = k + 1; else v3 = n;
    v4 = (n < 2 * k) ? n : k;",
    );
    for t in &trips {
        assert!(matches!(t, Attr::Unresolved(_)), "{trips:?}");
    }
    assert!(
        format!("{:?}", trips[0]).contains("chosen by a condition"),
        "{trips:?}"
    );
}

#[test]
fn the_wavefront_remainder_block_is_min_of_the_rest_and_the_block() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
double buf[100000];
int main(int argc, char **argv) {
    int nz, K, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nz = atoi(argv[1]);
    K = atoi(argv[2]);
    for (int kb = 0; kb < nz; kb += K) {
        int kk = (nz - kb < K) ? nz - kb : K;
        if (rank == 0)
            MPI_Send(buf, kk, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("wave.c", src);
    // the loop variable stays a symbol in the per-iteration size
    assert_eq!(comms(&apt)[0].bytes, Some(e("8*min(NZ - kb, K)")));
}

#[test]
fn fortran_merge_min_and_max_give_min_or_max() {
    let src = r#"
program t
  use mpi
  implicit none
  integer :: n, k, i, ierr, v1, v2, v3, v4
  character(len=32) :: arg
  double precision :: a(100000)
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) k
  v1 = merge(n, k, n < k)
  v2 = merge(k, n, n .lt. k)
  v3 = min(n, k)
  if (n .gt. k) then
     v4 = n
  else
     v4 = k
  end if
  do i = 1, v1
     a(i) = 0
  end do
  do i = 1, v2
     a(i) = 1
  end do
  do i = 1, v3
     a(i) = 2
  end do
  do i = 1, v4
     a(i) = 3
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program t
"#;
    let apt = apt_of("mm.f90", src);
    let trips: Vec<Attr> = loops(&apt).iter().map(|l| l.trip.clone()).collect();
    assert_eq!(trips[0], e("min(N, K)"), "{trips:?}");
    assert_eq!(trips[1], e("max(N, K)"), "{trips:?}");
    assert_eq!(trips[2], e("min(N, K)"), "{trips:?}");
    assert_eq!(trips[3], e("max(N, K)"), "{trips:?}");
}

/// Trial 17's stencil: a halo width clamped to the smaller extent by one IF testing both,
/// `if (hw > nx || hw > ny) hw = nx < ny ? nx : ny`, is `min(HW, NX, NY)`; `&&` and `<` the
/// other way round.
#[test]
fn an_if_testing_one_value_against_two_clamps_it_to_both() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
double a[100000];
int main(int argc, char **argv) {
    int hw, nx, ny, lo, i;
    MPI_Init(&argc, &argv);
    hw = atoi(argv[1]);
    nx = atoi(argv[2]);
    ny = atoi(argv[3]);
    if (hw > nx || hw > ny) hw = (nx < ny ? nx : ny);
    lo = atoi(argv[4]);
    if (nx < lo && ny < lo) lo = nx > ny ? nx : ny;
    for (i = 0; i < hw; i++) a[i] = 0;
    for (i = 0; i < lo; i++) a[i] = 1;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("clamp.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("min(HW, NX, NY)"), "{:?}", l[0].trip);
    assert_eq!(l[1].trip, e("min(LO, max(NX, NY))"), "{:?}", l[1].trip);
}
