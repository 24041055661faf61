//! Fortran GOTOs inside a DO loop (trial 5 item 7): a computed or assigned GOTO leaves the
//! loop only when one of its labels is outside it, a plain GOTO to the DO's own
//! terminating label is a `cycle` the front end does not warn about, and one to the statement
//! right after the DO a `break` (trial 26).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};
use crate::Attr;

const COMPUTED_F: &str = "      PROGRAM CYC2
      INCLUDE 'mpif.h'
      INTEGER N, I, IERR, K
      DOUBLE PRECISION A(100000), S
      CALL MPI_INIT(IERR)
      READ(5,*) N
      S = 0.0D0
      DO 20 I = 1, N
         K = MOD(I, 2) + 1
         GOTO (15, 17) K
   15    S = S + A(I)
         GOTO 20
   17    S = S - A(I)
   20 CONTINUE
      DO 40 I = 1, N
         K = MOD(I, 3) + 1
         GO TO (35, 40, 50), K
   35    S = S + A(I)
   40 CONTINUE
   50 CONTINUE
      DO 70 I = 1, N
         K = MOD(I, 2) + 1
         GO TO (65, 70), K
   65    S = S + A(I)
   70 CONTINUE
      CALL MPI_ALLREDUCE(S, S, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn a_computed_goto_leaves_the_loop_only_for_a_label_outside_it() {
    let apt = apt_of("cyc2.f", COMPUTED_F);
    let l = loops(&apt);
    assert_eq!(l.len(), 3);
    // labels 15 and 17 in the body, 20 its terminator: every iteration runs
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(l[0].cap, None);
    // 50 follows the loop
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (goto at line 17)".into())
    );
    assert_eq!(l[1].cap, Some(e("N")));
    // its own terminator in the list
    assert_eq!(l[2].trip, e("N"));
}

/// The diagnostics' messages with their lines.
fn warnings(name: &str, src: &str) -> Vec<(String, u32)> {
    let lowered = frontend::load_str(name, src, &frontend::Options::default()).unwrap();
    lowered
        .diagnostics
        .iter()
        .map(|d| {
            let line = d
                .labels
                .first()
                .map(|l| lowered.sources.first_line(l.span))
                .unwrap_or(0);
            (d.message.clone(), line)
        })
        .collect()
}

const CYCLE_F: &str = "      PROGRAM CYC
      INCLUDE 'mpif.h'
      INTEGER N, I, J, IERR
      DOUBLE PRECISION A(100000), S
      CALL MPI_INIT(IERR)
      READ(5,*) N
      S = 0.0D0
      DO 20 I = 1, N
         IF (A(I) .LT. 0.0D0) GOTO 20
         DO 10 J = 1, N
            IF (A(J) .LT. 0.0D0) GOTO 20
   10    CONTINUE
         S = S + A(I)
   20 CONTINUE
      DO 30 I = 1, N
         IF (A(I) .LT. 0.0D0) GOTO 40
         S = S + A(I)
   30 CONTINUE
   40 CONTINUE
      DO 60 I = 1, N
         DO 50 J = 1, N
            IF (A(J) .LT. 0.0D0) GOTO 70
   50    CONTINUE
   60 CONTINUE
   70 CONTINUE
      CALL MPI_ALLREDUCE(S, S, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn a_goto_to_an_enclosing_do_terminator_is_not_warned_about() {
    let w = warnings("cyc.f", CYCLE_F);
    let gotos: Vec<u32> = w
        .iter()
        .filter(|(m, _)| m.contains("GOTO is not analysed"))
        .map(|(_, l)| *l)
        .collect();
    // the jump past the loop (line 16) to the statement after it leaves it (trial 26); one
    // past two loops (line 22) is not understood
    assert_eq!(gotos, [22], "{w:?}");
    let apt = apt_of("cyc.f", CYCLE_F);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"));
    // the inner loop is left for the outer loop's next iteration
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (goto at line 11)".into())
    );
    assert_eq!(
        l[2].trip,
        Attr::Unresolved("exits early (goto at line 16)".into())
    );
    assert_eq!(
        l[4].trip,
        Attr::Unresolved("exits early (goto at line 22)".into())
    );
}

/// Trial 21's pipelined Thomas solver: blocks of NB systems walked by a GOTO loop stepping
/// `IB = IB + NB`, its body holding a shared-terminator DO nest (`DO 30 I`, `DO 30 J`,
/// `30 CONTINUE`). The DO statements' labels name their terminator and are no jumps out of
/// the GOTO loop, and a step the loop leaves unchanged counts its trips as a DO's would.
const BLOCKS_F: &str = "      PROGRAM BLK
      INCLUDE 'mpif.h'
      INTEGER N, NB, NSYS, I, J, IB, IERR
      DOUBLE PRECISION A(512,4096)
      CALL MPI_INIT(IERR)
      READ(5,*) N, NB
      NSYS = 512
      IB = 1
   20 CONTINUE
      DO 30 I = 2, N
        DO 30 J = IB, IB+NB-1
          A(J,I) = A(J,I) - A(J,I-1)
   30 CONTINUE
      IB = IB + NB
      IF (IB .LE. NSYS) GOTO 20
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn a_goto_loop_stepping_by_a_parameter_around_a_shared_terminator_is_counted() {
    let w = warnings("blk.f", BLOCKS_F);
    assert!(
        !w.iter().any(|(m, _)| m.contains("GOTO is not analysed")),
        "{w:?}"
    );
    let apt = apt_of("blk.f", BLOCKS_F);
    let l = loops(&apt);
    assert_eq!(l.len(), 3);
    assert_eq!(l[0].trip, e("floor(511/NB) + 1"));
    assert_eq!(l[1].trip, e("N - 1"));
    assert_eq!(l[2].trip, e("NB"));
}
