//! Counters a loop nest steps by constants (trial 19's 3-D stencil: `req[nr++]` twice in a
//! loop over 3 dimensions × 2 sides, then `MPI_Waitall(nr, …)`, read "assigned in loop"): the
//! count after the nest is the steps summed over its iterations; a step under a condition,
//! or one a `continue` may skip, leaves it unknown and says so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, eval};
use crate::Attr;

const FACES_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
double u[4096];
int nbr[3][2];
static void exchange(void) {
  MPI_Request req[12];
  int nr = 0;
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 2; s++) {
      MPI_Irecv(u, 8, MPI_DOUBLE, nbr[d][s], 1, MPI_COMM_WORLD, &req[nr++]);
      MPI_Isend(u, 8, MPI_DOUBLE, nbr[d][s], 1, MPI_COMM_WORLD, &req[nr++]);
    }
  MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  exchange();
  MPI_Finalize();
  return 0;
}
"#;

fn waitall_count(src: &str) -> Attr {
    let apt = apt_of("counters.c", src);
    comms(&apt)
        .iter()
        .find(|c| c.op == frontend::MpiOp::Waitall)
        .and_then(|c| c.count.clone())
        .unwrap()
}

#[test]
fn requests_counted_in_a_loop_nest_are_the_product_of_its_trips() {
    assert_eq!(waitall_count(FACES_C), e("12"));
    // from a count already started, stepped by a statement of its own
    let started = FACES_C
        .replace("int nr = 0;", "int nr = 2;")
        .replace("&req[nr++]);\n    }", "&req[nr]);\n      nr += 1;\n    }");
    assert_eq!(waitall_count(&started), e("14"));
}

#[test]
fn a_count_over_a_triangular_nest_is_its_sum() {
    let src = FACES_C
        .replace(
            "static void exchange(void) {",
            "static void exchange(int n) {",
        )
        .replace("d < 3", "d < n")
        .replace("s < 2", "s <= d")
        .replace("exchange();", "int n = atoi(argv[1]);\n  exchange(n);");
    let c = waitall_count(&src);
    for n in [1.0, 3.0, 5.0] {
        let want = n * (n + 1.0);
        assert_eq!(eval(&c, &[("N", n)]), want, "{c:?}");
    }
}

#[test]
fn a_count_the_nest_does_not_fix_says_why() {
    // a step under a condition (an edge rank has no neighbour) is not weighed
    let guarded = FACES_C.replace(
        "      MPI_Irecv(",
        "      if (nbr[d][s] >= 0)\n        MPI_Irecv(",
    );
    let c = waitall_count(&guarded);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("counted under a condition at line 11"), "{c:?}");
    // a `continue` before a step may skip it
    let skipped = FACES_C.replace(
        "      MPI_Irecv(",
        "      if (nbr[d][s] < 0) continue;\n      MPI_Irecv(",
    );
    let c = waitall_count(&skipped);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("a `continue` at line 11 may skip it"), "{c:?}");
    // and so may a `goto` to a label inside the loop
    let jumped = FACES_C
        .replace(
            "      MPI_Irecv(",
            "      if (nbr[d][s] < 0) goto next;\n      MPI_Irecv(",
        )
        .replace("&req[nr++]);\n    }", "&req[nr++]);\n    next:;\n    }");
    let c = waitall_count(&jumped);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("a `goto` at line 11 may skip it"), "{c:?}");
    // a step that is not a constant: no counter
    let scaled = FACES_C.replace("&req[nr++]);\n    }", "&req[nr]);\n      nr += d;\n    }");
    let c = waitall_count(&scaled);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("assigned in loop at line"), "{c:?}");
    // a loop left early counts no fixed number of steps
    let left = FACES_C.replace(
        "      MPI_Irecv(",
        "      if (nbr[d][s] == -2) break;\n      MPI_Irecv(",
    );
    let c = waitall_count(&left);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("whose trip is unresolved"), "{c:?}");
}

#[test]
fn fortran_counters_in_do_loops() {
    let src = "\
      PROGRAM FACES
      INCLUDE 'mpif.h'
      INTEGER REQ(64), NR, D, S, N, IERR
      DOUBLE PRECISION U(4096)
      CALL MPI_INIT(IERR)
      READ(5,*) N
      NR = 0
      DO 20 D = 1, N, 2
         DO 10 S = 1, 2
            NR = NR + 1
            CALL MPI_IRECV(U, 8, MPI_DOUBLE_PRECISION, S, 1,
     &           MPI_COMM_WORLD, REQ(NR), IERR)
   10    CONTINUE
   20 CONTINUE
      CALL MPI_WAITALL(NR, REQ, MPI_STATUSES_IGNORE, IERR)
      CALL MPI_FINALIZE(IERR)
      END
";
    let apt = apt_of("faces.f", src);
    let c = comms(&apt)
        .iter()
        .find(|c| c.op == frontend::MpiOp::Waitall)
        .and_then(|c| c.count.clone())
        .unwrap();
    for n in [1.0, 4.0, 7.0] {
        assert_eq!(eval(&c, &[("N", n)]), 2.0 * (n / 2.0).ceil(), "{c:?}");
    }
    // a GOTO to the loop's end skips the step
    let skipped = src.replace(
        "            NR = NR + 1\n",
        "            IF (S .EQ. N) GOTO 10\n            NR = NR + 1\n",
    );
    assert_ne!(skipped, src);
    let apt = apt_of("faces.f", &skipped);
    let c = comms(&apt)
        .iter()
        .find(|c| c.op == frontend::MpiOp::Waitall)
        .and_then(|c| c.count.clone())
        .unwrap();
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("a `goto` at line 10 may skip it"), "{c:?}");
}

/// Trial 29's task farm primes `min(P - 1, NTASK)` workers: `if (sent < ntask)` in the loop
/// over workers, whose arm steps `sent`, holds for the iterations `w - 1 < NTASK` (sent = 0 on
/// entry). A counter stepped elsewhere too, or a bound the loop changes, is left unresolved.
#[test]
fn a_counter_its_guarded_arm_steps_reads_as_the_loop_index() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
static double buf[100000];
int main(int argc, char **argv) {
    int size, ntask, n, w, i, sent = 0, extra = 0, lim;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = atoi(argv[1]);
    ntask = atoi(argv[2]);
    for (w = 1; w < size; w++) {
        if (sent < ntask) {
            for (i = 0; i < n; i++)
                buf[i] = 0.5 * i + sent;
            sent++;
        } else {
            buf[0] = 1.0;
        }
    }
    for (w = 1; w < size; w++) {
        if (extra < ntask) {
            for (i = 0; i < n; i++)
                buf[i] = 0.25 * i;
            extra++;
        }
        extra = extra + 1;
    }
    lim = ntask;
    for (w = 1; w < size; w++) {
        if (sent < lim) {
            for (i = 0; i < n; i++)
                buf[i] = 0.125 * i;
            sent++;
            lim = lim - 1;
        }
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("farm.c", src);
    let conds: Vec<(String, bool)> = apt
        .nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            crate::NodeData::If(i) => Some((i.cond.clone(), i.unresolved.is_none())),
            _ => None,
        })
        .collect();
    assert_eq!(
        conds,
        [
            ("w - 1 < NTASK".to_string(), true),
            ("extra < ntask".to_string(), false),
            ("sent < lim".to_string(), false),
        ]
    );
}
