//! Shifts by a constant (trial 13: `long n = argc > 1 ? atol(argv[1]) : 1 << 16;` left N
//! unresolved in every loop over it, "a bitwise operation").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::params::StdinItem::{Named, Unnamed};
use crate::tests::{apt_of, e, loops};

#[test]
fn a_shift_by_a_constant_is_a_power_of_two() {
    let src = r#"#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1 << 16;
    long i, half = n >> 1, mask = 6 & 3;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    for (i = 0; i < n; i++)
        s += 1e-9 * i;
    for (i = 0; i < half; i++)
        s += 1e-9 * i;
    for (i = 0; i < mask; i++)
        s += 1e-9 * i;
    MPI_Finalize();
    return s > 1.0;
}
"#;
    let apt = apt_of("shift.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"), "{:?}", l[0]);
    assert_eq!(l[1].trip, e("floor(N/2)"), "{:?}", l[1]);
    assert_eq!(l[2].trip, e("2"), "{:?}", l[2]);
}

/// Trial 13's F77 solver read its size into a buffer (`READ(5,*) IBUF(1), IBUF(2)`) and
/// broadcast it; with the `--stdin` template `{N} 40` the first value read is N, so the loops
/// over it are in N, not in a parameter IBUF_1 no run sets.
#[test]
fn a_value_read_from_stdin_takes_its_templates_name() {
    let src = "\
      PROGRAM HEAT
      INCLUDE 'mpif.h'
      INTEGER IBUF(2), N, NITER, I, IT, IERR, ME
      DOUBLE PRECISION S
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      IF (ME .EQ. 0) READ(5,*) IBUF(1), IBUF(2)
      CALL MPI_BCAST(IBUF, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      N = IBUF(1)
      NITER = IBUF(2)
      S = 0.0D0
      DO 20 IT = 1, NITER
         DO 10 I = 1, N
            S = S + 1.0D-9 * I
   10    CONTINUE
   20 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";
    let lowered = frontend::load_str("heat.f", src, &frontend::Options::default()).unwrap();
    let named = crate::build(
        &lowered,
        &crate::AptOptions {
            stdin_names: vec![Named("N".into()), Unnamed],
            ..Default::default()
        },
    );
    let l = loops(&named);
    assert_eq!(l[1].trip, e("N"), "{:?}", l[1]);
    assert_eq!(l[0].trip, e("IBUF_2"), "{:?}", l[0]);
    // a number in the template is that value in every run, not a parameter (trial 29: `{N}
    // 20` left NSTEPS in T, fitted to runs that all read 20)
    let fixed = crate::build(
        &lowered,
        &crate::AptOptions {
            stdin_names: vec![Named("N".into()), crate::params::StdinItem::Literal(40.0)],
            ..Default::default()
        },
    );
    let l = loops(&fixed);
    assert_eq!((&l[0].trip, &l[1].trip), (&e("40"), &e("N")), "{l:?}");
    assert!(
        fixed.params.iter().all(|p| p.name != "IBUF_2"),
        "{:?}",
        fixed.params
    );
    // without the template's names the buffer's element names the parameter
    let plain = apt_of("heat.f", src);
    assert_eq!(loops(&plain)[1].trip, e("IBUF_1"));
    // a name the template gives twice is one parameter, and the values after it keep their
    // places (trial 14: `{N} {N} {NSTEP}` made the second a parameter N_2 no run sets)
    let twice = crate::build(
        &lowered,
        &crate::AptOptions {
            stdin_names: vec![Named("N".into()), Named("N".into())],
            ..Default::default()
        },
    );
    let l = loops(&twice);
    assert_eq!((&l[0].trip, &l[1].trip), (&e("N"), &e("N")), "{l:?}");
    let three = "\
      PROGRAM HEAT3
      INCLUDE 'mpif.h'
      INTEGER NX, NY, NSTEP, I, J, IT, IERR
      DOUBLE PRECISION S
      CALL MPI_INIT(IERR)
      READ(5,*) NX, NY, NSTEP
      S = 0.0D0
      DO 30 IT = 1, NSTEP
         DO 20 J = 1, NY
            DO 10 I = 1, NX
               S = S + 1.0D-9 * I
   10       CONTINUE
   20    CONTINUE
   30 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";
    let lowered = frontend::load_str("heat3.f", three, &frontend::Options::default()).unwrap();
    let apt = crate::build(
        &lowered,
        &crate::AptOptions {
            stdin_names: vec![Named("N".into()), Named("N".into()), Named("NSTEP".into())],
            ..Default::default()
        },
    );
    let trips: Vec<_> = loops(&apt).into_iter().map(|l| l.trip.clone()).collect();
    assert_eq!(trips, vec![e("NSTEP"), e("N"), e("N")]);
}
