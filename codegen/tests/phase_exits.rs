//! Loops nested in a computation phase make no call at their exits: they add to the phase's
//! locals, which the phase flushes (`augur_loop_exits`) on every path out of it — normal end,
//! break/EXIT, return, goto, `exit NAME`/`cycle NAME`. The aggregates the traces hold must be
//! those one `augur_loop_exit` per exit gave: tests/data/phase_nest.{c,f,f90} are run under
//! Open MPI and rank 0's loop records compared with counts worked out by hand. Where a path
//! out of the phase may skip its markers (OpenMP, a jump the front end does not follow), the
//! nested loops keep their call. The branch markers of such a phase count each (site, arm) in
//! a local flushed (`augur_branches`) on the same paths: rank 0's branch records are compared
//! with counts worked out by hand too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

// Rank 0's records, [executions, iterations, least, most], of:
// find (called for t = 2, then t = 1, returning from inside its nest at i == t, j == 3)
const FIND_OUTER: [u64; 4] = [2, 5, 2, 3]; // 3 and 2 iterations
const FIND_INNER: [u64; 4] = [5, 21, 4, 5]; // 4, 5, 4 then 4, 4
                                            // i = 0..4, j = 0..i
const TRI_OUTER: [u64; 4] = [1, 5, 5, 5];
const TRI_INNER: [u64; 4] = [5, 15, 1, 5];
// k = 0..2; i = 0..3 left at i == k + 1; j = 0..2i
const DEEP_K: [u64; 4] = [1, 3, 3, 3];
const DEEP_I: [u64; 4] = [3, 9, 2, 4]; // k + 2 iterations each
const DEEP_J: [u64; 4] = [6, 14, 1, 5]; // 1 | 1 3 | 1 3 5
                                        // i = 0..3, j = 0..5, left by a jump out of both at i == 2, j == 4
const JUMP_OUTER: [u64; 4] = [1, 3, 3, 3];
const JUMP_INNER: [u64; 4] = [3, 17, 5, 6]; // 6, 6, 5
                                            // the loop calling find: not a phase
const CALLS: [u64; 4] = [1, 2, 2, 2];
// i = 0..3, j = 0..4: the phase of branches
const BR_OUTER: [u64; 4] = [1, 4, 4, 4];
const BR_INNER: [u64; 4] = [4, 20, 5, 5];
const BR_CASE_0: [u64; 4] = [4, 8, 2, 2]; // j = 3
const BR_CASE_1: [u64; 4] = [8, 8, 1, 1]; // j = 1, 4
const BR_LESS: [u64; 4] = [3, 4, 1, 2]; // j iterations for (i, j) = (2, 1), (3, 1), (3, 2)
const BR_ELSE: [u64; 4] = [10, 10, 1, 1];

// Rank 0's branch records, [taken, not taken], of the IF nodes (an IF is one when a loop, a
// call or a communication is in an arm or, for an IF that may leave the block, after it) of:
const DEEP_IF: [u64; 2] = [3, 6]; // once per k, after k + 1 false
                                  // the phase of branches: j == 0 skips the rest; j = 1..4 gives j % 3 = 1, 2, 0, 1
const SKIP_IF: [u64; 2] = [4, 16];
const CASE_0: [u64; 2] = [4, 12];
const CASE_1: [u64; 2] = [8, 4]; // not taken: the default added (j = 2)
const LESS_IF: [u64; 2] = [3, 13]; // j < i: (2, 1), (3, 1), (3, 2)
const EQUAL_IF: [u64; 2] = [3, 10]; // j == i for i = 1, 2, 3
const NEVER_IF: [u64; 2] = [0, 16]; // taken never: no record, the flush of 0 adds none

// i = 0..2, j = 0..3: the phase of leaf calls (counted in locals), then a single loop r = 0..4
const LEAF_OUTER: [u64; 4] = [1, 3, 3, 3];
const LEAF_INNER: [u64; 4] = [3, 12, 4, 4];
const LEAF_SINGLE: [u64; 4] = [1, 5, 5, 5];
const ARM_IF: [u64; 2] = [3, 9]; // j == i
const EACH: &[u64] = &[12]; // once per inner iteration
const BOTH: &[u64] = &[12, 12]; // sq(j) + sq(i)
const ARM: &[u64] = &[3]; // the call in the arm j == i
const SINGLE: &[u64] = &[5];

#[test]
fn nested_exits_accumulate_to_the_same_aggregates_in_c() {
    check_aggregates(
        "phase_nest.c",
        false,
        &[
            (13, FIND_OUTER),
            (14, FIND_INNER),
            (29, TRI_OUTER),
            (30, TRI_INNER),
            (32, DEEP_K),
            (33, DEEP_I),
            (36, DEEP_J),
            (40, JUMP_OUTER),
            (41, JUMP_INNER),
            (48, CALLS),
            (52, BR_OUTER),
            (53, BR_INNER),
            (58, BR_CASE_0),
            (62, BR_CASE_1),
            (67, BR_LESS),
            (72, BR_ELSE),
            (82, LEAF_OUTER),
            (83, LEAF_INNER),
            (92, LEAF_SINGLE),
        ],
        &[
            (34, DEEP_IF),
            (54, SKIP_IF),
            (56, CASE_0), // the switch's line
            (61, CASE_1),
            (66, LESS_IF),
            (69, EQUAL_IF),
            (75, NEVER_IF),
            (88, ARM_IF),
        ],
        &[
            (84, "bump", EACH),
            (85, "sq", BOTH),
            (86, "sq", EACH),
            (89, "bump", ARM),
            (93, "sq", SINGLE),
        ],
    );
}

#[test]
fn nested_exits_accumulate_to_the_same_aggregates_in_free_form() {
    check_aggregates(
        "phase_nest.f90",
        false,
        &[
            (9, FIND_OUTER),
            (10, FIND_INNER),
            (30, TRI_OUTER),
            (31, TRI_INNER),
            (35, DEEP_K),
            (36, DEEP_I),
            (38, DEEP_J),
            (43, JUMP_OUTER),
            (44, JUMP_INNER),
            (50, CALLS),
            // outer: i = 1..4, left by `exit outer` at i = 4; j left by `cycle outer` / `exit
            // outer` after 2, 3, 4, 3 iterations
            (53, [1, 4, 4, 4]),
            (54, [4, 12, 2, 4]),
            (62, BR_OUTER),
            (63, BR_INNER),
            (67, BR_CASE_0),
            (71, BR_CASE_1),
            (76, BR_LESS),
            (82, BR_ELSE),
            (95, LEAF_OUTER),
            (96, LEAF_INNER),
            (103, LEAF_SINGLE),
        ],
        &[
            (37, DEEP_IF),
            (64, SKIP_IF),
            (65, CASE_0), // the SELECT's line
            (70, CASE_1),
            (75, LESS_IF),
            (79, EQUAL_IF),
            (86, NEVER_IF),
            (100, ARM_IF),
        ],
        &[
            (97, "bump", EACH),
            (98, "sq", BOTH),
            (99, "sq", EACH),
            (100, "bump", ARM),
            (104, "sq", SINGLE),
        ],
    );
}

#[test]
fn nested_exits_accumulate_to_the_same_aggregates_in_fixed_form() {
    check_aggregates(
        "phase_nest.f",
        true,
        &[
            (10, FIND_OUTER),
            (11, FIND_INNER),
            (31, TRI_OUTER),
            (32, TRI_INNER),
            (35, DEEP_K),
            (36, DEEP_I), // left by GOTO 60, the next K
            (38, DEEP_J),
            (43, JUMP_OUTER),
            (44, JUMP_INNER),
            (50, CALLS),
            (55, BR_OUTER),
            (56, BR_INNER),
            (60, BR_CASE_0),
            (64, BR_CASE_1),
            (69, BR_LESS),
            (75, BR_ELSE),
            (88, LEAF_OUTER),
            (89, LEAF_INNER),
            (96, LEAF_SINGLE),
        ],
        &[
            (58, CASE_0), // the SELECT's line
            (63, CASE_1),
            (68, LESS_IF),
            (72, EQUAL_IF),
            (79, NEVER_IF),
            (93, ARM_IF),
        ],
        &[
            (90, "bump", EACH),
            (91, "sq", BOTH),
            (92, "sq", EACH),
            (93, "bump", ARM),
            (97, "sq", SINGLE),
        ],
    );
}

/// The C nest's exits in the instrumented text: no call at an inner loop's exit, one flush
/// per nested site before the phase's own exit marker on each path out of it.
#[test]
fn c_nested_exits_are_local_updates_and_the_phase_flushes_them() {
    let src = "int find(int n, int t) {\n  int i, j, k;\n  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++) {\n      if (j == t) return j;\n      for (k = 0; k < 3; k++) if (k == t) break;\n      if (i == t) goto out;\n    }\n    if (i > t) break;\n  }\nout:\n  return -1;\n}\nint main(void) { return find(4, 2); }\n";
    let t = instrument_str("a.c", src);
    // sites: 1 the phase, 2 and 4 its nested loops, 3 the `if` (its arms counted in locals)
    assert!(!t.contains("augur_loop_exit(2,"), "{t}");
    assert!(!t.contains("augur_loop_exit(4,"), "{t}");
    assert!(!t.contains("augur_branch("), "{t}");
    let flush = "augur_loop_exits(2, augur_nk_2, augur_ns_2, augur_nlo_2, augur_nhi_2); augur_loop_exits(4, augur_nk_4, augur_ns_4, augur_nlo_4, augur_nhi_4); augur_branches(3, 0, augur_bk_3_0); augur_branches(3, 1, augur_bk_3_1); augur_loop_exit(1, augur_n_1); augur_phase_end(1);";
    // the return, the goto and the end of the loop (which the `break` reaches)
    assert_eq!(t.matches(flush).count(), 3, "{t}");
    let add = "augur_nk_2++; augur_ns_2 += augur_n_2; if (augur_n_2 < augur_nlo_2) augur_nlo_2 = augur_n_2; if (augur_n_2 > augur_nhi_2) augur_nhi_2 = augur_n_2;";
    assert!(t.contains(&format!("if (j == t) {{ augur_bk_3_0++; {{ {add} {flush} return j; }} }} else {{ augur_bk_3_1++; }}")), "{t}");
    assert!(t.contains(&format!("{{ {add} {flush} goto out; }}")), "{t}");
    assert!(t.contains(&format!("}} {add} }}")), "{t}");
    assert!(t.contains("{ long long augur_n_1 = 0; long long augur_nk_2 = 0, augur_ns_2 = 0, augur_nlo_2 = 0x7fffffffffffffffLL, augur_nhi_2 = 0; long long augur_nk_4 = 0, augur_ns_4 = 0, augur_nlo_4 = 0x7fffffffffffffffLL, augur_nhi_4 = 0; long long augur_bk_3_0 = 0, augur_bk_3_1 = 0; augur_phase_begin(1);"), "{t}");
}

/// Fortran free form: `exit`/`cycle` of the phase by name, RETURN, and the phase loop's own
/// EXIT; accumulators declared with the counters and set just before the phase begins.
#[test]
fn fortran_nested_exits_are_local_updates_and_the_phase_flushes_them() {
    let src = "subroutine s(n, t)\n  integer :: n, t, i, j\n  outer: do i = 1, n\n    do j = 1, n\n      if (j == t) cycle outer\n      if (i == t) exit outer\n      if (i + j == t) return\n    end do\n    if (i > t) exit\n  end do outer\nend subroutine s\n";
    let t = instrument_str("a.f90", src);
    let want = "  integer*8 augur_n_1\n  integer*8 augur_n_2\n  integer*8 augur_nk_2\n  integer*8 augur_ns_2\n  integer*8 augur_nlo_2\n  integer*8 augur_nhi_2\n  augur_n_1 = 0\n  augur_nk_2 = 0\n  augur_ns_2 = 0\n  augur_nlo_2 = 9223372036854775807_8\n  augur_nhi_2 = 0\n  call augur_phase_begin(1)\n";
    assert!(t.contains(want), "{t}");
    let add = "augur_nk_2 = augur_nk_2 + 1\n        augur_ns_2 = augur_ns_2 + augur_n_2\n        if (augur_n_2 .lt. augur_nlo_2) augur_nlo_2 = augur_n_2\n        if (augur_n_2 .gt. augur_nhi_2) augur_nhi_2 = augur_n_2\n";
    let flush =
        "call augur_loop_exits8(2, (augur_nk_2), (augur_ns_2), (augur_nlo_2), (augur_nhi_2))\n";
    // cycle outer: the inner loop's exit only; exit outer: its exit, the phase's at its end;
    // return: both
    assert!(t.contains(&format!("{add}        cycle outer")), "{t}");
    assert!(t.contains(&format!("{add}        exit outer")), "{t}");
    assert!(t.contains(&format!("{add}        {flush}        call augur_loop_exit8(1, (augur_n_1))\n        call augur_phase_end(1)\n        return")), "{t}");
    assert!(t.contains(&format!("  end do outer\n  {flush}  call augur_loop_exit8(1, (augur_n_1))\n  call augur_phase_end(1)\n")), "{t}");
    assert!(!t.contains("augur_loop_exit8(2,"), "{t}");
    assert_eq!(t.matches("augur_loop_exits8(").count(), 2, "{t}");
}

/// Fixed form: the flush passes column 72 and continues in column 6.
#[test]
fn fixed_form_flush_is_continued_in_column_6() {
    let src = "      SUBROUTINE S(N)\n      INTEGER N, I, J\n      DOUBLE PRECISION A(100)\n      DO 20 I = 1, N\n         DO 10 J = 1, N\n            A(J) = A(J) + I\n   10    CONTINUE\n   20 CONTINUE\n      END\n";
    let t = instrument_str("a.f", src);
    assert!(
        t.contains("   10    CONTINUE\n         augur_nk_2 = augur_nk_2 + 1\n"),
        "{t}"
    );
    assert!(t.contains("   20 CONTINUE\n      call augur_loop_exits8(2, (augur_nk_2), (augur_ns_2),\n     &  (augur_nlo_2), (augur_nhi_2))\n      call augur_loop_exit8(1, (augur_n_1))\n"), "{t}");
    assert!(t.lines().all(|l| l.len() <= 72), "{t}");
}

/// Where a path out of the phase may skip its markers, or threads share the nest, inner loops
/// keep their call: an OpenMP loop, a computed GOTO, an I/O statement's `end=` label.
#[test]
fn nested_exits_keep_their_call_where_a_flush_is_not_certain() {
    let c = "void f(int n, double *a) {\n  int i, j;\n  for (i = 0; i < n; i++) {\n#pragma omp simd\n    for (j = 0; j < n; j++) a[j] += i;\n  }\n}\nint main(void) { double a[4]; f(4, a); return 0; }\n";
    let t = instrument_str("a.c", c);
    assert!(t.contains("augur_loop_exit(2, augur_n_2);"), "{t}");
    assert!(!t.contains("augur_loop_exits"), "{t}");
    // a goto into the nest from outside would skip the locals' initialisation
    let c = "void f(int n, double *a) {\n  int i, j;\n  if (n < 0) goto in;\n  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++) {\n    in:\n      a[j] += i;\n    }\n  }\n}\nint main(void) { double a[4]; f(4, a); return 0; }\n";
    let t = instrument_str("a.c", c);
    assert!(t.contains("augur_loop_exit(2, augur_n_2);"), "{t}");
    assert!(!t.contains("augur_loop_exits"), "{t}");
    for body in ["        go to (10, 20) j", "        read (5, *, end=20) x"] {
        let f = format!("subroutine s(n)\n  integer :: n, i, j\n  real :: x\n  do i = 1, n\n    do j = 1, n\n{body}\n10      continue\n    end do\n  end do\n20 continue\nend subroutine s\n");
        let t = instrument_str("a.f90", &f);
        assert!(t.contains("call augur_loop_exit8(2, (augur_n_2))"), "{t}");
        assert!(!t.contains("augur_loop_exits8"), "{t}");
    }
}

/// A single loop whose body branches around a call counts its arms in the phase's locals too
/// (no nested loop needed): one flush per phase exit, no call per iteration.
#[test]
fn a_single_loops_branch_markers_accumulate() {
    let c = "#include <mpi.h>\nstatic double s;\nstatic void f(int i) { s += i; }\nint main(int argc, char **argv) {\n    int i, n = 100;\n    MPI_Init(&argc, &argv);\n    for (i = 0; i < n; i++) {\n        if (i % 3 == 0)\n            f(i);\n        s += 1.0;\n    }\n    MPI_Finalize();\n    return 0;\n}\n";
    let t = instrument_str("a.c", c);
    assert!(t.contains("augur_branches("), "{t}");
    assert!(!t.contains("augur_branch("), "{t}");
    let f = "program p\n  use mpi\n  implicit none\n  integer :: i, ierr\n  double precision :: s\n  call MPI_Init(ierr)\n  s = 0\n  do i = 1, 100\n     if (mod(i, 3) == 0) call g(s, i)\n     s = s + 1\n  end do\n  call MPI_Finalize(ierr)\ncontains\n  subroutine g(s, i)\n    double precision :: s\n    integer :: i\n    s = s + i\n  end subroutine g\nend program p\n";
    let t = instrument_str("a.f90", f);
    assert!(t.contains("augur_branches8("), "{t}");
    assert!(!t.contains("augur_branch("), "{t}");
}

/// Leaf calls in an accumulating phase (a statement, a call inside an expression, a Fortran
/// function reference) count in one local per site, flushed with `augur_calls`; a callee that
/// makes an MPI call (not a communication: the loop stays a phase) or jumps by a `goto` keeps
/// its enter/exit pair.
#[test]
fn leaf_calls_in_a_phase_count_in_locals() {
    let c = "#include <mpi.h>\nstatic double s;\nstatic double sq(int n) { return (double)n * n; }\nstatic void who(int *r) { MPI_Comm_rank(MPI_COMM_WORLD, r); }\nstatic void jump(int n) { if (n < 0) goto out; s += n; out: ; }\nint main(int argc, char **argv) {\n    int i, j, r;\n    MPI_Init(&argc, &argv);\n    for (i = 0; i < 4; i++) {\n        for (j = 0; j < 4; j++)\n            s += sq(j);\n        who(&r);\n        jump(i);\n    }\n    MPI_Finalize();\n    return 0;\n}\n";
    let t = instrument_str("a.c", c);
    // the nested call of sq counts in augur_ck_S
    let site: String = t[t.find("(augur_ck_").unwrap() + 10..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(
        t.contains(&format!("s += (augur_ck_{site}++, sq(j));")),
        "{t}"
    );
    assert!(
        t.contains(&format!("long long augur_ck_{site} = 0; ")),
        "{t}"
    );
    assert_eq!(
        t.matches(&format!("augur_calls({site}, augur_ck_{site}); "))
            .count(),
        1,
        "{t}"
    );
    assert!(!t.contains(&format!("augur_call_enter({site})")), "{t}");
    // who and jump keep their pair
    assert!(
        t.contains("augur_call_enter(") && t.contains("who(&r); augur_call_exit("),
        "{t}"
    );
    assert!(t.contains("jump(i); augur_call_exit("), "{t}");
    assert_eq!(t.matches("augur_calls(").count(), 1, "{t}");

    let f = "program p\n  use mpi\n  implicit none\n  integer :: i, j, ierr\n  double precision :: s, um\n  call MPI_Init(ierr)\n  s = 0\n  do i = 1, 10\n    do j = 1, 10\n      um = uex(i, j - 1)\n      s = s + um\n    end do\n    call g(s, i)\n  end do\n  call MPI_Finalize(ierr)\ncontains\n  double precision function uex(i, j)\n    integer :: i, j\n    uex = i + j\n  end function uex\n  subroutine g(s, i)\n    double precision :: s\n    integer :: i, r, ierr\n    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)\n    s = s + i + r\n  end subroutine g\nend program p\n";
    let t = instrument_str("a.f90", f);
    let site: String = t[t.find("augur_ck_").unwrap() + 9..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let n = format!("augur_ck_{site}");
    assert!(t.contains(&format!("  integer*8 {n}\n")), "{t}");
    assert!(t.contains(&format!("  {n} = 0\n")), "{t}");
    assert!(
        t.contains(&format!("      {n} = {n} + 1\n      um = uex(i, j - 1)\n")),
        "{t}"
    );
    assert_eq!(
        t.matches(&format!("call augur_calls8({site}, ({n}))\n"))
            .count(),
        1,
        "{t}"
    );
    assert!(!t.contains(&format!("augur_call_enter({site})")), "{t}");
    // g calls MPI: its pair stays
    assert!(t.contains("call augur_call_enter("), "{t}");
    assert!(
        t.contains("    call g(s, i)\n    call augur_call_exit("),
        "{t}"
    );
}
