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

/// A computed GOTO choosing one of three blocks per iteration (`GO TO (100, 200, 300) MODE`,
/// MODE = MOD(IT, 3) + 1), each block a loop of N/P: augur does not analyse the jumps and reads
/// the three blocks as straight code, but their traced entries show each ran one iteration in
/// three, and T charges that share (trial, stop 32: every block was charged every iteration,
/// leave-one-out errors 130–216%).
const COMPUTED: &str = "\
C     Three kernels chosen by a computed GOTO in each iteration.
      PROGRAM CHOOSE
      INCLUDE 'mpif.h'
      INTEGER NMAX
      PARAMETER (NMAX = 400000)
      DOUBLE PRECISION U(NMAX), S, G
      INTEGER N, NITER, IT, I, IERR, RANK, NP, MODE, NL
      CHARACTER*32 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) N
      CALL GET_COMMAND_ARGUMENT(2, ARG)
      READ (ARG, *) NITER
      NL = N / NP
      DO 5 I = 1, NL
         U(I) = I
    5 CONTINUE
      DO 500 IT = 1, NITER
         MODE = MOD(IT, 3) + 1
         GO TO (100, 200, 300) MODE
  100    DO 110 I = 1, NL
            U(I) = 0.5D0 * U(I) + 1.0D0
  110    CONTINUE
         GO TO 400
  200    DO 210 I = 1, NL
            U(I) = SQRT(ABS(U(I))) + 0.25D0
  210    CONTINUE
         GO TO 400
  300    DO 310 I = 1, NL
            U(I) = U(I) * 0.75D0
  310    CONTINUE
  400    S = U(1) + U(NL)
         CALL MPI_ALLREDUCE(S, G, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &        MPI_COMM_WORLD, IERR)
  500 CONTINUE
      IF (RANK .EQ. 0) PRINT *, G
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn blocks_a_computed_goto_chooses_are_charged_the_share_they_ran() {
    need("mpif77");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "choose.f",
        COMPUTED,
        "1,2",
        &["N=100000,200000,400000"],
        &["{N}", "30"],
    );
    let reach: Vec<(u64, f64)> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "reach")
        .map(|q| {
            let e = q["expr"].as_str().unwrap();
            (
                q["line"].as_u64().unwrap(),
                e.parse::<f64>().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let lines: Vec<u64> = reach.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [23, 27, 31], "{reach:?}");
    for (_, share) in &reach {
        assert!((share - 1.0 / 3.0).abs() < 0.01, "{reach:?}");
    }
    let warned = m["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .contains("line 23 ran 0.333 times per rank")
    });
    assert!(warned, "{}", m["warnings"]);
}
