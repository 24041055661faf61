//! Write sets of particle-code stores (trial 5 item 8): a member of an element with a
//! computed subscript (`p[i].x += …`) writes the array, and a store through a `T **`
//! formal (`(*sl)[(*nl)++] = p[i]`, a send buffer grown by the callee) writes the caller's
//! actual at the call, and is unknown in the callee's own loops.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, comms, loops, set};
use crate::{call_may_rewrite, may_rewrite};

const PIC_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { double x, v; } particle_t;
typedef struct { particle_t parts[100]; int n; } box_t;

static void push(particle_t *p, int n, double dt) {
    for (int i = 0; i < n; i++) {
        p[i].x += p[i].v * dt;
        if (p[i].x < 0.0) p[i].x += 1.0;
    }
}

static int sort_out(particle_t *p, int n, particle_t **sl, int *nl, int *capl) {
    int keep = 0;
    *nl = 0;
    for (int i = 0; i < n; i++) {
        if (p[i].x < 0.5) {
            if (*nl == *capl) { *capl = 2 * *capl + 16; *sl = realloc(*sl, *capl * sizeof(particle_t)); }
            (*sl)[(*nl)++] = p[i];
        } else {
            p[keep++] = p[i];
        }
    }
    return keep;
}

int main(int argc, char **argv) {
    int rank, n = 1000, nl = 0, capl = 16;
    box_t b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    particle_t *p = malloc(n * sizeof(particle_t));
    particle_t *sl = malloc(capl * sizeof(particle_t));
    particle_t *q = malloc(n * sizeof(particle_t));
    for (int step = 0; step < 10; step++) {
        push(p, n, 0.1);
        n = sort_out(p, n, &sl, &nl, &capl);
        MPI_Send(sl, 2 * nl, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Send(q, 2 * n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        for (int i = 0; i < 100; i++)
            b.parts[i].v = 0.0;
        MPI_Send(b.parts, 200, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_member_of_an_element_writes_the_array() {
    let apt = apt_of("pic.c", PIC_C);
    let l = loops(&apt);
    // push's loop, sort_out's, main's step loop and its member loop
    assert_eq!(l.len(), 4);
    assert_eq!(l[0].writes, Some(set(&["i", "p"])));
    let push = calls(&apt, "push")[0];
    assert_eq!(apt.call_writes[&push], Ok(set(&["p"])));
    let c = comms(&apt);
    // `b.parts[i].v = 0` writes b.parts, which is sent
    assert_eq!(l[3].writes, Some(set(&["b.parts", "i"])));
    assert!(may_rewrite(l[3], c[2]));
    assert!(!may_rewrite(l[3], c[0]));
    assert!(!call_may_rewrite(&apt, push, c[1]));
}

#[test]
fn a_store_through_a_pointer_to_pointer_formal_writes_the_callers_actual() {
    let apt = apt_of("pic.c", PIC_C);
    let sort = calls(&apt, "sort_out")[0];
    let w = apt.call_writes[&sort].clone().unwrap();
    assert!(w.contains("sl"), "{w:?}");
    assert!(w.contains("p"), "{w:?}");
    assert!(!w.contains("q"), "{w:?}");
    let c = comms(&apt);
    assert!(call_may_rewrite(&apt, sort, c[0]));
    assert!(!call_may_rewrite(&apt, sort, c[1]));
    // in sort_out itself the store names no storage of its own
    let l = loops(&apt);
    assert_eq!(l[1].writes, None);
    let why = l[1].writes_unknown.clone().unwrap_or_default();
    assert!(why.contains("`*sl`"), "{why}");
}

#[test]
fn a_store_through_an_element_pointer_stays_unknown() {
    let src = r#"
#include <mpi.h>
typedef struct { double *x; } row_t;
double buf[100];
static void fill(row_t *r, int n) {
    for (int i = 0; i < n; i++)
        r[i].x[0] = 1.0;
}
int main(int argc, char **argv) {
    row_t rows[10];
    MPI_Init(&argc, &argv);
    fill(rows, 10);
    MPI_Send(buf, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("rows.c", src);
    assert_eq!(loops(&apt)[0].writes, None);
}

/// A program that points `p` at `a`, runs `set` (a statement that may point it elsewhere)
/// and writes through `p` in a loop of `n` iterations.
fn pointer_set_by(set: &str) -> String {
    format!(
        r#"
#include <mpi.h>
double a[100], b[100];
int main(int argc, char **argv) {{
    double *p = a;
    int n;
    MPI_Init(&argc, &argv);
    {set}
    for (int i = 0; i < n; i++)
        p[i] = 1.0;
    MPI_Send(a, 100, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}}
"#
    )
}

#[test]
fn a_pointer_set_by_an_opaque_statement_reads_an_opaque() {
    let apt = apt_of(
        "opaque.c",
        &pointer_set_by("n = 100;\n    *(p = b, &n) = 100;"),
    );
    let l = loops(&apt);
    let why = l[0].writes_unknown.clone().unwrap_or_default();
    assert_eq!(why, "pointer `p` is set by an opaque statement");
}

#[test]
fn a_comma_statement_is_its_operands_in_turn() {
    let apt = apt_of("comma.c", &pointer_set_by("p = b, n = 100;"));
    let l = loops(&apt);
    // p may point to a or b (what pointers may point to is not flow-sensitive), and the loop
    // runs n = 100 times: the statement is read, not set aside as opaque
    assert_eq!(l[0].writes, Some(set(&["a", "b", "i", "p"])));
    assert_eq!(l[0].writes_unknown, None);
    assert_eq!(l[0].trip, crate::tests::e("100"));
}
