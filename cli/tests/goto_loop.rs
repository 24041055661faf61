//! `augur profile` (native Open MPI) + `augur analyze` on an F77 program whose iteration loop is
//! built from GOTO (`10 CONTINUE … IF (IT .LT. NITER) GOTO 10`), with COMMON and a ring
//! SENDRECV in it: the loop is a loop, so T grows with NITER (it once counted the body once).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;
use common::{native_model, need};

const SOURCE: &str = "\
C     Ring exchange and relaxation in an iteration loop built from GOTO.
      PROGRAM RING
      INCLUDE 'mpif.h'
      INTEGER NMAX
      PARAMETER (NMAX = 200000)
      DOUBLE PRECISION U(NMAX), H
      COMMON /FIELD/ U, H
      INTEGER N, NITER, IT, I, IERR, RANK, NP, LEFT, RIGHT
      INTEGER STATUS(MPI_STATUS_SIZE)
      CHARACTER*32 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) N
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) NITER
      RIGHT = MOD(RANK + 1, NP)
      LEFT = MOD(RANK + NP - 1, NP)
      DO 5 I = 1, N / NP
         U(I) = I
    5 CONTINUE
      IT = 0
   10 CONTINUE
      IT = IT + 1
      CALL MPI_SENDRECV(U(1), 1, MPI_DOUBLE_PRECISION, RIGHT, 7,
     &     H, 1, MPI_DOUBLE_PRECISION, LEFT, 7, MPI_COMM_WORLD,
     &     STATUS, IERR)
      DO 20 I = 2, N / NP
         U(I) = 0.5D0 * (U(I) + U(I - 1)) + 1.0D-3 * H
   20 CONTINUE
      IF (IT .LT. NITER) GOTO 10
      IF (RANK .EQ. 0) PRINT *, IT, U(2)
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn goto_iteration_loop_puts_niter_in_t() {
    need("mpif77");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "ring.f",
        SOURCE,
        "1,2",
        &["NITER=20,40,80"],
        &["200000", "{NITER}"],
    );
    let t = m["t"].as_str().unwrap();
    assert!(t.to_ascii_uppercase().contains("NITER"), "T = {t}");
}
