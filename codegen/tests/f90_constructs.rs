//! Constructs trial 9 found miscounted or unbuildable (tests/data/arif.f, concurrent.f90): a
//! loop closed by an arithmetic IF gets its exit marker on the labelled statement after it,
//! and a DO CONCURRENT (inside ASSOCIATE and BLOCK) gets no marker or call in its body, its
//! count being the product of its ranges. Instrumented, compiled with mpif77 / mpif90, run at
//! P=2 beside the original (same stdout, balanced traces); rank 0's loop records checked.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

#[test]
fn a_loop_closed_by_an_arithmetic_if_is_traced_as_a_loop() {
    check_loop_records(
        "arif.f",
        true,
        &[
            (9, 1, 7),   // 10 CONTINUE … IF (K - N) 10, 30, 30
            (11, 7, 49), // DO 20 inside it
            (17, 1, 7),  // 40 K = K + 1 … IF (N - K) 50, 50, 40
        ],
    );
}

#[test]
fn do_concurrent_builds_and_counts_every_index() {
    check_loop_records(
        "concurrent.f90",
        false,
        &[
            (10, 1, 3),  // the time loop
            (12, 3, 90), // do concurrent (j = 1:m, i = 1:nx) inside associate: 5 * 6 per entry
            (15, 3, 15), // do j = 1, m inside associate
            (16, 15, 90),
            (24, 3, 9), // do concurrent (k = 1:n:2) inside block
        ],
    );
}
