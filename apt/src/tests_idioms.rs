//! Unit tests of source idioms real MPI codes use (trial-c #4 and #12, trial-f #8), through
//! the real front end: iteration caps of loops that may end early, expression macros,
//! getopt parameters, default-or-argv values, parameters broadcast by the root.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};
use crate::Attr;

const CAPS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
#include <math.h>
int main(int argc, char **argv) {
    int n, maxit, it, k;
    double rr = 1.0, tol = 1e-8;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    maxit = atoi(argv[2]);
    it = 0;
    while (it < maxit && sqrt(rr) > tol) {
        MPI_Barrier(MPI_COMM_WORLD);
        rr = rr * 0.5;
        it++;
    }
    for (it = 0; it < maxit; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rr < tol)
            break;
    }
    it = 1;
    while (it <= n) {
        MPI_Barrier(MPI_COMM_WORLD);
        it += 2;
    }
    for (it = 5; tol < rr && it < maxit; it++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (k = 0; k < 3; k++) {
        it = 0;
        do {
            MPI_Barrier(MPI_COMM_WORLD);
            it = it + 1;
        } while (rr > tol && it < maxit);
    }
    it = 0;
    while (it < maxit && rr > tol) {
        if (rr > 1.0) it++;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    it = 0;
    while (it < maxit && rr > tol) {
        if (rr > 2.0) continue;
        MPI_Barrier(MPI_COMM_WORLD);
        it++;
    }
    it = 0;
    while (it < n && rr > tol) {
        MPI_Barrier(MPI_COMM_WORLD);
        n = n - 1;
        it++;
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn iteration_caps_of_c_loops_that_may_end_early() {
    let apt = apt_of("caps.c", CAPS_C);
    let l = loops(&apt);
    // while (it < maxit && …) with it++ every iteration
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("exits early (condition at line 12)".into())
    );
    assert_eq!(l[0].cap, Some(e("MAXIT")));
    // a counted loop left by break: its count is the cap
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (break at line 20)".into())
    );
    assert_eq!(l[1].cap, Some(e("MAXIT")));
    // a counter alone is the trip, exactly
    assert_eq!(l[2].trip, e("ceil(N/2)"));
    assert_eq!(l[2].cap, None);
    // for with a compound condition, counter from 5, any conjunct order
    assert_eq!(l[3].cap, Some(e("MAXIT - 5")));
    // do-while, inside a counted loop: its body runs at least once
    assert_eq!(l[4].trip, e("3"));
    assert_eq!(l[5].cap, Some(e("max(1, MAXIT)")));
    assert!(l[5].trip.unresolved().unwrap().starts_with("exits early"));
    // no cap: the increment is conditional / a continue may skip it / the limit changes
    for k in [6, 7, 8] {
        assert_eq!(l[k].trip, Attr::Unresolved("while loop".into()), "loop {k}");
        assert_eq!(l[k].cap, None, "loop {k}");
    }
    let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"MAXIT"), "{names:?}");
}

const CAPS_F: &str = r#"
program caps
  use mpi
  implicit none
  integer :: maxit, it, ierr
  double precision :: err, tol
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) maxit
  err = 1.0d0
  tol = 1.0d-8
  it = 0
  do while (it < maxit .and. err > tol)
    it = it + 1
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    err = err * 0.5d0
  end do
  do it = 1, maxit
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (err < tol) exit
  end do
  call MPI_Finalize(ierr)
end program caps
"#;

#[test]
fn iteration_caps_of_fortran_loops_that_may_end_early() {
    let apt = apt_of("caps.f90", CAPS_F);
    let l = loops(&apt);
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("exits early (condition at line 14)".into())
    );
    assert_eq!(l[0].cap, Some(e("MAXIT")));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (exit at line 21)".into())
    );
    assert_eq!(l[1].cap, Some(e("MAXIT")));
    let text = crate::render::to_text(&apt);
    assert!(
        text.contains("trip=unresolved (exits early (condition at line 14)) cap=MAXIT"),
        "{text}"
    );
    let json = crate::render::to_json(&apt).to_string();
    assert!(json.contains(r#""cap":"MAXIT""#), "{json}");
}

#[test]
fn a_named_default_overridden_from_argv_is_the_parameter() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
#define DEFAULT_N 128
#define DEFAULT_STEPS 10
int main(int argc, char **argv) {
    int n = DEFAULT_N, steps = 2 * DEFAULT_STEPS, i, s;
    MPI_Init(&argc, &argv);
    if (argc > 1) n = atoi(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    for (s = 0; s < steps; s++)
        for (i = 0; i < n; i++)
            MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("dflt.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("STEPS"));
    assert_eq!(l[1].trip, e("N"));
    let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["N", "STEPS"]);
}

#[test]
fn options_parsed_with_getopt_are_parameters() {
    let src = r#"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int opt, n = 64, steps = 100, check, i, s;
    double tol = 1e-6;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "n:s:k:t:")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 's': steps = (int)strtol(optarg, NULL, 10); break;
        case 'k': sscanf(optarg, "%d", &check); break;
        case 't': tol = atof(optarg); break;
        default: MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (s = 0; s < steps; s++)
        for (i = 0; i < n; i++)
            MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < check; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("opts.c", src);
    let l = loops(&apt);
    assert_eq!(l[1].trip, e("STEPS"));
    assert_eq!(l[2].trip, e("N"));
    assert_eq!(l[3].trip, e("CHECK"));
    let params: Vec<String> = apt
        .params
        .iter()
        .map(|p| format!("{} ({})", p.name, p.origin.describe()))
        .collect();
    assert_eq!(
        params,
        [
            "N (option -n)",
            "STEPS (option -s)",
            "CHECK (option -k)",
            "TOL (option -t)"
        ]
    );
}

#[test]
fn a_do_while_counter_loop_runs_at_least_once() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int maxit, it;
    MPI_Init(&argc, &argv);
    maxit = atoi(argv[1]);
    it = 0;
    do {
        it++;
        MPI_Barrier(MPI_COMM_WORLD);
    } while (it < maxit);
    it = 10;
    do {
        it++;
        MPI_Barrier(MPI_COMM_WORLD);
    } while (it < 5);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("dowhile.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("max(1, MAXIT)"));
    assert_eq!(l[0].cap, None);
    // entered past its limit: the body still runs once (was an exact trip of -4)
    assert_eq!(l[1].trip, e("1"));
}

#[test]
fn a_return_inside_an_inner_loop_ends_the_outer_loop_early() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int solve(int n, int maxit, double r, double tol) {
    int it, j;
    for (it = 0; it < maxit; it++) {
        for (j = 0; j < n; j++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (r < tol)
                return it;
            r = r * 0.5;
        }
    }
    for (it = 0; it < maxit; it++) {
        for (j = 0; j < n; j++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (r < tol)
                break;
        }
    }
    return maxit;
}
int main(int argc, char **argv) {
    int n, maxit;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    maxit = atoi(argv[2]);
    solve(n, maxit, 1.0, 1e-8);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("ret.c", src);
    let l = loops(&apt);
    assert_eq!(
        l[0].trip,
        Attr::Unresolved("exits early (return at line 10)".into())
    );
    assert_eq!(l[0].cap, Some(e("MAXIT")));
    // an inner loop's own break leaves the outer loop's count exact
    assert_eq!(l[2].trip, e("MAXIT"));
    assert_eq!(l[2].cap, None);
    assert_eq!(l[3].cap, Some(e("N")));
}

const LEFT_FOR_OUTER_F: &str = r#"
program caps
  use mpi
  implicit none
  integer :: n, i, j, ierr
  character(len=32) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  outer: do i = 1, n
    inner: do j = 1, n
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      if (j > i) cycle outer
    end do inner
  end do outer
  do i = 1, n
    do j = 1, n
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      if (j > i) cycle
    end do
  end do
  call MPI_Finalize(ierr)
end program caps
"#;

#[test]
fn an_inner_loop_left_by_cycle_outer_ends_early() {
    let apt = apt_of("cyc.f90", LEFT_FOR_OUTER_F);
    let l = loops(&apt);
    // the outer loop runs its N iterations; the inner one is left by `cycle outer`
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (cycle at line 13)".into())
    );
    assert_eq!(l[1].cap, Some(e("N")));
    // a plain `cycle` stays in its own loop
    assert_eq!(l[3].trip, e("N"));
}

const LEFT_BY_GOTO_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, i, j;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (j > i) goto next;
        }
    next:
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (i = 0; i < n; i++) {
        if (i > 3) goto skip;
        MPI_Barrier(MPI_COMM_WORLD);
    skip: ;
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_loop_left_by_goto_ends_early_and_a_jump_inside_it_does_not() {
    let apt = apt_of("gotos.c", LEFT_BY_GOTO_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("exits early (goto at line 11)".into())
    );
    assert_eq!(l[1].cap, Some(e("N")));
    assert_eq!(l[2].trip, e("N"));
}

/// trial3 #4: `-- {N} {N} {N} {NSTEPS}` names arguments 1 to 3 `N`: NX = NY = NZ = N, one
/// parameter, not N, N_2 and N_3.
#[test]
fn one_placeholder_for_several_arguments_is_one_parameter() {
    const SRC: &str = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int nx, ny, nz, nsteps, i, j, s;
    MPI_Init(&argc, &argv);
    nx = atoi(argv[1]);
    ny = atoi(argv[2]);
    nz = atoi(argv[3]);
    nsteps = atoi(argv[4]);
    for (s = 0; s < nsteps; s++)
        for (i = 0; i < nx * ny; i++)
            for (j = 0; j < nz; j++)
                MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let lowered = frontend::load_str("cube.c", SRC, &frontend::Options::default()).unwrap();
    let names = ["N", "N", "N", "NSTEPS"].map(String::from).to_vec();
    let apt = crate::build(
        &lowered,
        &crate::AptOptions {
            arg_names: names,
            ..Default::default()
        },
    );
    let l = loops(&apt);
    assert_eq!(l[1].trip, e("N^2"));
    assert_eq!(l[2].trip, e("N"));
    let params: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["N", "NSTEPS"]);
    assert_eq!(apt.params[0].also_argv, [2, 3]);
    let text = crate::render::to_text(&apt);
    assert!(text.contains("N (argv 1, 2, 3)"), "{text}");
    assert_eq!(
        crate::render::to_json(&apt)["params"][0]["also_argv"],
        serde_json::json!([2, 3])
    );
}

/// review8 H1: `GOTO` the label ending the loop (its own `100 CONTINUE` or `200 END DO`, an
/// inner DO's terminator) starts the next iteration, as `cycle` does: the trip stays exact.
const GOTO_TERMINATOR_F: &str = "      PROGRAM DOCONT
      INCLUDE 'mpif.h'
      INTEGER N, I, J, K, IERR
      DOUBLE PRECISION A(1000), S
      CALL MPI_INIT(IERR)
      READ (*,*) N
      S = 0.0
      DO 100 I = 1, N
         IF (A(I) .LT. 0.0) GOTO 100
         S = S + A(I)
  100 CONTINUE
      DO 200 K = 1, N
         IF (A(K) .LT. 0.0) GO TO 200
         S = S + A(K)
  200 END DO
      DO K = 1, N
         IF (A(K) .LT. 0.0) GO TO 250
         S = S + A(K)
  250 END DO
      DO 400 J = 1, N
         DO 300 I = 1, N
            IF (A(I) .LT. 0.0) GOTO 300
            S = S + A(I)
  300    CONTINUE
  400 CONTINUE
      DO 500 I = 1, N
         IF (A(I) .LT. 0.0) GOTO 600
         S = S + A(I)
  500 CONTINUE
  600 CONTINUE
      CALL MPI_ALLREDUCE(S, S, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
";

#[test]
fn a_goto_to_the_label_ending_a_do_is_a_cycle_not_an_exit() {
    let apt = apt_of("docont.f", GOTO_TERMINATOR_F);
    let l = loops(&apt);
    assert_eq!(l.len(), 6);
    for (k, l) in l.iter().take(5).enumerate() {
        assert_eq!(l.trip, e("N"), "loop {k}");
        assert_eq!(l.cap, None, "loop {k}");
    }
    // a jump past the terminator still leaves the loop
    assert_eq!(
        l[5].trip,
        Attr::Unresolved("exits early (goto at line 27)".into())
    );
    assert_eq!(l[5].cap, Some(e("N")));
}
