//! A red-black sweep (trial 11's sor: `DO I = ISTART, N - 1, 2` with
//! `ISTART = MOD(J + IT, 2) + 2`): its rows alternate in start, and summed over the rows its points are the trip count
//! over one period's rows (the row loop's work was unresolved and fitted by regression).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, eval, loops};

const SOR_F: &str = "\
      PROGRAM SOR
      INCLUDE 'mpif.h'
      INTEGER N, NITER, I, J, IT, ISTART, IERR, RANK, NP
      DOUBLE PRECISION U(2048, 2048)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      READ(5,*) N, NITER
      DO 30 IT = 1, NITER
         DO 20 J = 2, N - 1
            ISTART = MOD(J + IT, 2) + 2
            DO 10 I = ISTART, N - 1, 2
               U(I,J) = 0.25D0*(U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1))
   10       CONTINUE
   20    CONTINUE
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
   30 CONTINUE
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn a_red_black_sweep_has_its_points_in_closed_form() {
    let apt = apt_of("sor.f", SOR_F);
    let l = loops(&apt);
    assert_eq!(l[1].var.as_deref(), Some("j"));
    assert!(l[1].compute, "{:?}", l[1]);
    let work = l[1].work.as_ref().expect("the row loop's work");
    assert!(work.expr().is_some(), "{work:?}");
    // every interior point of N - 2 rows, every other one per row
    for n in [64.0, 512.0, 1000.0] {
        let brute: f64 = (2..(n as i64))
            .map(|j| {
                let start = ((j + 1) % 2 + 2) as f64;
                ((n - 1.0 - start) / 2.0).floor() + 1.0
            })
            .sum();
        assert_eq!(eval(work, &[("N", n)]), brute, "N = {n}");
    }
}
