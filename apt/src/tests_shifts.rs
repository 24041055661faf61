//! Shifts by a constant (trial 13: `long n = argc > 1 ? atol(argv[1]) : 1 << 16;` left N
//! unresolved in every loop over it, "a bitwise operation").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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
