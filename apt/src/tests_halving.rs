//! Binary searches (trial 7 item 10): while loops that halve an integer interval take
//! ⌈log2(n + 2 − k)⌉ iterations at most (n = hi − lo at entry, the loop running while
//! hi − lo ≥ k), in C and Fortran, and loops that only look like one stay "while loop".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};
use crate::{Apt, Attr};

/// A C program calling `search(v, n, key)`, whose body is `body`, with `n` from argv.
fn c_search(body: &str) -> Apt {
    let src = format!(
        r#"
#include <mpi.h>
#include <stdlib.h>
static int search(const unsigned *v, int n, unsigned s)
{{
{body}
}}
int main(int argc, char **argv)
{{
    int nloc, p, cut;
    unsigned keys[100000], split[64];
    MPI_Init(&argc, &argv);
    nloc = atoi(argv[1]);
    for (p = 0; p < 16; p++) cut = search(keys, nloc, split[p]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return cut;
}}
"#
    );
    apt_of("search.c", &src)
}

fn note_on(apt: &Apt, line: u32) -> Option<&str> {
    apt.notes
        .iter()
        .find(|(l, _)| *l == line)
        .map(|(_, t)| t.as_str())
}

#[test]
fn upper_bound_takes_log2_of_the_interval() {
    // trial 7, ssort.c site 3
    let apt = c_search(
        "    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] <= s) lo = mid + 1; else hi = mid;
    }
    return lo;",
    );
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("ceil(log2(NLOC + 1))"));
    assert_eq!(l[0].cap, None);
    let note = note_on(&apt, 7).unwrap();
    assert_eq!(
        note,
        "while loop at line 7 is a binary search: each iteration halves `hi - lo` (NLOC at \
         entry), so it runs at most ceil(log2(NLOC + 1)) times (one fewer for some data)"
    );
}

#[test]
fn the_usual_variants_of_midpoint_and_test() {
    // lo <= hi, hi = mid - 1, mid = lo + (hi - lo) / 2: n + 1 elements
    let apt = c_search(
        "    int lo = 0, hi = n - 1, mid;
    while (lo <= hi) {
        mid = lo + (hi - lo) / 2;
        if (v[mid] < s) lo = mid + 1;
        else hi = mid - 1;
    }
    return lo;",
    );
    assert_eq!(loops(&apt)[0].trip, e("ceil(log2(NLOC + 1))"));
    // (hi - lo) / 2 + lo with a shift, hi - lo > 1 and both ends moving to the midpoint
    let apt = c_search(
        "    int lo = 0, hi = n, mid;
    while (hi - lo > 1) {
        mid = ((hi - lo) >> 1) + lo;
        if (v[mid] <= s) { lo = mid; } else { hi = mid; }
    }
    return lo;",
    );
    assert_eq!(loops(&apt)[0].trip, e("ceil(log2(NLOC))"));
    // the midpoint written straight into the ends
    let apt = c_search(
        "    int lo = 0, hi = n;
    while (lo < hi) {
        if (v[(lo + hi) / 2] <= s) lo = (lo + hi) / 2 + 1;
        else hi = (lo + hi) / 2;
    }
    return lo;",
    );
    assert_eq!(loops(&apt)[0].trip, e("ceil(log2(NLOC + 1))"));
}

#[test]
fn a_search_that_may_find_its_key_is_capped() {
    let apt = c_search(
        "    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] == s) return mid;
        else if (v[mid] < s) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;",
    );
    let l = loops(&apt);
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("exits early (return at line 9)".into())
    );
    assert_eq!(l[0].cap, Some(e("ceil(log2(NLOC + 1))")));
}

#[test]
fn an_interval_of_unknown_length_is_said_to_be_one() {
    let apt = c_search(
        "    int lo = 0, hi = v[0];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] <= s) lo = mid + 1; else hi = mid;
    }
    return lo;",
    );
    assert_eq!(
        loops(&apt)[0].trip,
        Attr::Unresolved("binary search over an interval of unknown length".into())
    );
}

#[test]
fn loops_that_do_not_halve_stay_while_loops() {
    let plain = Attr::Unresolved("while loop".into());
    for body in [
        // lo = mid can stop moving (lo + 1 == hi): not a halving
        "    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] <= s) lo = mid; else hi = mid;
    }
    return lo;",
        // a path that moves neither end
        "    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] <= s) lo = mid + 1;
        if (v[mid] > s) hi = mid;
    }
    return lo;",
        // a third of the interval, not half
        "    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 3;
        if (v[mid] <= s) lo = mid + 1; else hi = mid;
    }
    return lo;",
        // a real bisection
        "    double lo = 0, hi = n, mid;
    while (hi - lo > 1) {
        mid = (lo + hi) / 2;
        if (v[(int)mid] <= s) lo = mid; else hi = mid;
    }
    return (int)lo;",
    ] {
        let apt = c_search(body);
        assert_eq!(loops(&apt)[0].trip, plain, "{body}");
        assert!(apt.notes.is_empty(), "{body}: {:?}", apt.notes);
    }
}

/// F77 fixed form: DO WHILE over a 1-based interval, the end past the last element.
const FIND_F: &str = "\
      PROGRAM MAIN
      INCLUDE 'mpif.h'
      INTEGER N, K, IERR
      DOUBLE PRECISION A(100000), S
      CALL MPI_INIT(IERR)
      READ(5,*) N, S
      CALL FIND(A, N, S, K)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
      SUBROUTINE FIND(A, N, S, K)
      INTEGER N, K, LO, HI, MID
      DOUBLE PRECISION A(N), S
      LO = 1
      HI = N + 1
      DO WHILE (LO .LT. HI)
         MID = (LO + HI) / 2
         IF (A(MID) .LE. S) THEN
            LO = MID + 1
         ELSE
            HI = MID
         END IF
      END DO
      K = LO
      END
";

#[test]
fn fortran_do_while_binary_search() {
    let apt = apt_of("find.f", FIND_F);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("ceil(log2(N + 1))"));
    assert!(note_on(&apt, 16).is_some_and(|n| n.contains("binary search")));
    // LO .LE. HI over [1, N], leaving by EXIT when the key is found: capped
    let found = FIND_F
        .replace("      HI = N + 1\n", "      HI = N\n")
        .replace("(LO .LT. HI)", "(LO .LE. HI)")
        .replace(
            "         IF (A(MID) .LE. S) THEN\n            LO = MID + 1\n",
            "         IF (A(MID) .EQ. S) THEN\n            EXIT\n         ELSE IF (A(MID) .LT. S) THEN\n            LO = MID + 1\n",
        )
        .replace("            HI = MID\n", "            HI = MID - 1\n");
    let apt = apt_of("find.f", &found);
    let l = loops(&apt);
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("exits early (exit at line 19)".into())
    );
    assert_eq!(l[0].cap, Some(e("ceil(log2(N + 1))")));
    // HI read from the file: the length is unknown
    let unknown = FIND_F.replace("      HI = N + 1\n", "      READ(7,*) HI\n");
    let apt = apt_of("find.f", &unknown);
    assert_eq!(
        loops(&apt)[0].trip,
        Attr::Unresolved("binary search over an interval of unknown length".into())
    );
}

/// The bound against the searches themselves: every key position of sorted arrays of
/// every length up to 300, each variant's iteration count.
#[test]
fn the_bound_is_the_most_iterations_and_at_most_one_more_than_the_least() {
    let ceil_log2 = |x: i64| (x as f64).log2().ceil() as i64;
    for n in 0i64..300 {
        let mut counts = [(i64::MAX, 0i64), (i64::MAX, 0i64)];
        for key in -1..=n {
            // lo < hi, lo = mid + 1, hi = mid over [0, n)
            let (mut lo, mut hi, mut it) = (0i64, n, 0i64);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if mid <= key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
                it += 1;
            }
            counts[0] = (counts[0].0.min(it), counts[0].1.max(it));
            // lo <= hi, hi = mid - 1 over [0, n - 1], key never found (half keys)
            let (mut lo, mut hi, mut it) = (0i64, n - 1, 0i64);
            while lo <= hi {
                let mid = lo + (hi - lo) / 2;
                if 2 * mid < 2 * key + 1 {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
                it += 1;
            }
            counts[1] = (counts[1].0.min(it), counts[1].1.max(it));
        }
        // n = hi - lo at entry: n for the first (k = 1), n - 1 for the second (k = 0)
        let bounds = [ceil_log2(n + 1), ceil_log2(n - 1 + 2)];
        for (c, b) in counts.iter().zip(bounds) {
            assert_eq!(c.1, b, "n = {n}");
            assert!(c.0 >= b - 1, "n = {n}: {c:?} vs {b}");
        }
    }
}

/// Trial 12: a convergence loop that counts its last iteration on the way out
/// (`if (resid < tol) { it++; break; }`) is the counted loop with an early exit, capped by its
/// bound, as with a plain `break`; the update on the way out counts no iteration.
#[test]
fn an_update_on_the_way_out_leaves_the_loop_counted() {
    let src = r#"#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int it, iters;
    double resid = 1.0, g;
    MPI_Init(&argc, &argv);
    iters = atoi(argv[1]);
    for (it = 0; it < iters; it++) {
        resid = 0.5 * resid;
        MPI_Allreduce(&resid, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (g < 1e-8) { it++; break; }
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("conv.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].cap, Some(e("ITERS")), "{:?}", l[0]);
}
