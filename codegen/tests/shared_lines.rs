//! Several statements on one line (`u = 0d0; unew = 0d0`) each get markers of their own: the
//! Fortran line is split at the `;` where a statement with lines of its own starts or ends
//! (trial 16: the two whole-array assignments of jac.f90 line 102 were both wrapped by both
//! phases' markers, so each phase timed both statements and the phase ends were unbalanced).
//! C inserts at each statement's own bytes. Checked as text and run under Open MPI (same
//! stdout as the original, no runtime anomalies, one record per statement).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod common;

use common::*;

/// Trial 16's jac.f90, line 102.
#[test]
fn two_array_assignments_on_one_line_get_their_own_phases() {
    let src = "program jac\n  implicit none\n  integer :: n\n  double precision, allocatable :: u(:,:), unew(:,:)\n  n = 4\n  allocate(u(0:n+1,0:n+1), unew(0:n+1,0:n+1))\n  u = 0d0; unew = 0d0\n  print *, sum(u) + sum(unew)\nend program jac\n";
    let t = instrument_str("jac.f90", src);
    let want = "  call augur_phase_begin(1)\n  call augur_loop_enter(1)\n  u = 0d0\n  augur_n_1 = size(u)\n  call augur_loop_exit8(1, (augur_n_1))\n  call augur_phase_end(1)\n  call augur_phase_begin(2)\n  call augur_loop_enter(2)\n  unew = 0d0\n  augur_n_2 = size(unew)\n  call augur_loop_exit8(2, (augur_n_2))\n  call augur_phase_end(2)\n  print *";
    assert!(t.contains(want), "{t}");
}

#[test]
fn fixed_form_lines_split_at_column_7() {
    let src = "      PROGRAM P\n      DOUBLE PRECISION U(10), V(10)\n      INTEGER K\n   10 U = 0D0; V = 0D0\n      K = 1; CALL S(K); CALL S(K)\n      PRINT *, 'a;b', SUM(U) + SUM(V); V = V + K\n      END\n      SUBROUTINE S(K)\n      INTEGER K\n      K = K + 1\n      END\n";
    let t = instrument_str("p.f", src);
    // the label moves onto the first phase's first line; the second statement gets a line of
    // its own, code from column 7
    let want = "   10 call augur_phase_begin(1)\n      call augur_loop_enter(1)\n      U = 0D0\n      augur_n_1 = size(U)\n      call augur_loop_exit8(1, (augur_n_1))\n      call augur_phase_end(1)\n      call augur_phase_begin(2)\n      call augur_loop_enter(2)\n      V = 0D0\n";
    assert!(t.contains(want), "{t}");
    let want = "      K = 1\n      call augur_call_enter(3)\n      CALL S(K)\n      call augur_call_exit(3)\n      call augur_call_enter(4)\n      CALL S(K)\n      call augur_call_exit(4)\n";
    assert!(t.contains(want), "{t}");
    // a `;` inside a string is not a separator
    let want = "      PRINT *, 'a;b', SUM(U) + SUM(V)\n      call augur_phase_begin(5)\n";
    assert!(t.contains(want), "{t}");
}

#[test]
fn a_logical_if_closes_before_the_next_statement_on_its_line() {
    let src = "program p\n  integer :: k, n\n  double precision :: u(4)\n  n = 5; k = 0; u = 0d0\n  if (n > 4) u = u + 1d0; k = k + 1\n  do k = 1, n\n    u(1) = u(1) + k\n  end do; u = 2 * u\n  print *, k, u\nend program p\n";
    let t = instrument_str("p.f90", src);
    let want = "  if (n > 4) then\n    call augur_branch(2, 0)\n    call augur_phase_begin(3)\n    call augur_loop_enter(3)\n    u = u + 1d0\n    augur_n_3 = size(u)\n    call augur_loop_exit8(3, (augur_n_3))\n    call augur_phase_end(3)\n  else\n    call augur_branch(2, 1)\n  end if\n  k = k + 1\n";
    assert!(t.contains(want), "{t}");
    let want = "  end do\n  call augur_loop_exit8(4, (augur_n_4))\n  call augur_phase_end(4)\n  call augur_phase_begin(5)\n  call augur_loop_enter(5)\n  u = 2 * u\n";
    assert!(t.contains(want), "{t}");
}

#[test]
fn c_statements_on_one_line_are_wrapped_each() {
    let src = "void s(int *k) { *k += 1; }\nint main(void) {\n  int i, k = 0; double a[4], b[4];\n  for (i = 0; i < 4; i++) a[i] = 0; for (i = 0; i < 4; i++) b[i] = 1;\n  s(&k); s(&k);\n  return k;\n}\n";
    let t = instrument_str("a.c", src);
    let want = "  { long long augur_n_2 = 0; augur_phase_begin(2); augur_loop_enter(2); for (i = 0; i < 4; i++) { augur_n_2++; a[i] = 0; } augur_loop_exit(2, augur_n_2); augur_phase_end(2); } { long long augur_n_3 = 0; augur_phase_begin(3); augur_loop_enter(3); for (i = 0; i < 4; i++) { augur_n_3++; b[i] = 1; } augur_loop_exit(3, augur_n_3); augur_phase_end(3); }\n  { augur_call_enter(4); s(&k); augur_call_exit(4); } { augur_call_enter(5); s(&k); augur_call_exit(5); }\n";
    assert!(t.contains(want), "{t}");
}

/// Runs tests/data/`file` under Open MPI (same stdout as the original, balanced markers: no
/// runtime anomalies) and checks rank 0's loop records of the statements on `line`:
/// (executions, iterations) in statement order.
fn run_and_check(file: &str, fixed: bool, line: u32, want: &[(u64, u64)]) {
    let (lowered, plan, ranks) = run_data_file(file, fixed);
    let sites: Vec<u32> = plan
        .marks()
        .iter()
        .filter(|m| matches!(m.role, codegen::Role::Loop { .. }))
        .filter(|m| {
            let s = lowered.program.stmt(m.stmt).unwrap();
            lowered.sources.first_line(s.span) == line
        })
        .map(|m| m.site)
        .collect();
    let r0 = ranks.iter().find(|r| r.header.rank == 0).unwrap();
    let got: Vec<(u64, u64)> = sites
        .iter()
        .map(|site| {
            let a = r0
                .aggregates
                .iter()
                .find(|a| a.kind == trace::AggKind::Loop && a.site == *site)
                .unwrap_or_else(|| panic!("{file}: no record of site {site}"));
            (a.count, a.sum)
        })
        .collect();
    assert_eq!(got, want, "{file} line {line}");
    // each phase of the line timed once
    for site in &sites {
        assert_eq!(
            r0.phases().filter(|p| p.site == *site).count(),
            1,
            "{file}: phase {site}"
        );
    }
}

#[test]
fn shared_lines_run_balanced_in_free_form() {
    run_and_check("shared_lines.f90", false, 20, &[(1, 100), (1, 100)]);
}

#[test]
fn shared_lines_run_balanced_in_fixed_form() {
    run_and_check("shared_lines.f", true, 18, &[(1, 100), (1, 100)]);
}

#[test]
fn shared_lines_run_balanced_in_c() {
    run_and_check("shared_lines.c", false, 13, &[(1, 8), (1, 8)]);
}
