//! Loops built from GOTO (fixed form, tests/data/goto.f; C, tests/data/goto.c) and named DO
//! constructs left by `exit NAME` / `cycle NAME` (tests/data/named.f90): instrumented,
//! compiled with mpif77 / mpif90 / mpicc, run at P=2 beside the original (same stdout, balanced traces), and every loop's
//! record counts the executions and iterations the program makes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

#[test]
fn goto_loops_are_traced_as_loops() {
    check_loop_records(
        "goto.f",
        true,
        &[
            (17, 1, 6), // 10 CONTINUE … IF (IT .LT. NITER) GOTO 10
            (25, 1, 4), // 20 IF (K .GE. NITER) GO TO 30 … left at K = 4 by GOTO 30
            (34, 1, 3), // DO 50 J = 1, 3
            (36, 3, 6), // 40 K = K + 1 … IF (K .LT. J) GOTO 40: J iterations
            (41, 1, 3), // DO 60 J = 1, NITER left at J = 3 by GOTO 70, the next statement
        ],
    );
}

#[test]
fn named_do_exit_and_cycle_keep_loops_balanced() {
    check_loop_records(
        "named.f90",
        false,
        &[
            (12, 1, 4),  // outer: left by exit outer at i = 4
            (13, 4, 15), // inner: 3 (cycle outer at j = 3), 4, 4, 4 (exit outer at j = 4)
            (21, 1, 3),  // search: n = 3, 2, 1
        ],
    );
}

#[test]
fn c_goto_loops_are_traced_as_loops() {
    check_loop_records(
        "goto.c",
        false,
        &[
            (9, 1, 2),  // scan: if (k >= n) goto none; … left by return at k = 2
            (26, 1, 6), // again: … if (it < niter) goto again;
            (32, 1, 4), // top: if (k >= niter) goto done; … left at k = 4 by goto done
            (41, 1, 3), // for (j = 1; j <= 3; j++)
            (43, 3, 6), // inner: … if (k < j) goto inner: j iterations
        ],
    );
}
