//! Unit tests of C struct members handed to a setup routine (trial 22 E6, E10): a member the
//! callee sets from another pointer argument's member (`g->nloc = n / pg->q`) takes the
//! caller's value of that member, a store through a pointer to one struct type leaves
//! another struct type's members alone, an allocation reads its size, and a quotient of
//! `int` members is listed as truncating.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, e, loops};

const SETUP_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n, q, nloc; double *u; } grid_t;
struct pg { int q; int r; };
static void setup(grid_t *g, const struct pg *pg, int n) {
    g->n = n;
    g->q = pg->q;
    g->nloc = n / pg->q;
    g->u = malloc(sizeof(double) * g->nloc);
    for (int i = 0; i < n / pg->q; i++) g->u[i] = 0.0;
}
int main(int argc, char **argv) {
    int rank, p, n = atoi(argv[1]);
    grid_t g;
    struct pg pg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    pg.q = p;
    pg.r = rank;
    setup(&g, &pg, n);
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < g.nloc; i++) g.u[i] = 0.5 * g.u[i] + 1.0;
        MPI_Allreduce(MPI_IN_PLACE, g.u, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_member_set_from_another_arguments_member_takes_the_callers_value() {
    let apt = apt_of("setup.c", SETUP_C);
    let l = loops(&apt);
    // in the callee: `pg->q` survives the store to `g->q` (a `grid_t *` cannot point to a
    // `struct pg`), and is P at the one call
    assert_eq!(l[0].trip, e("N/P"), "{:?}", l[0].trip);
    // in the caller: `g.nloc` from the callee's `n / pg->q`, completed with `pg.q` = P
    assert_eq!(l.len(), 3, "{l:?}");
    assert_eq!(l[1].var.as_deref(), Some("it"));
    assert_eq!(l[2].trip, e("N/P"), "{:?}", l[2].trip);
    // malloc reads its size: the call's writes are named
    let setup = calls(&apt, "setup")[0];
    let w = apt.call_writes.get(&setup).unwrap();
    assert!(w.is_ok(), "{w:?}");
    // both quotients of `int`s are listed as truncating
    let got: Vec<(u32, String)> = apt.divisions.iter().map(|d| (d.line, d.text())).collect();
    assert!(got.contains(&(9, "N/P".to_string())), "{got:?}");
    assert!(got.contains(&(11, "N/P".to_string())), "{got:?}");
}

/// The loop-body rule follows the same aliasing as a store: a loop that stores `g->q` and
/// runs while `i < pg->q` keeps its bound (a `grid_t *` cannot point to a `struct pg`), where
/// a store to another `struct pg`'s `q` may change it.
const LOOP_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n, q, nloc; double *u; } grid_t;
struct pg { int q; int r; };
static void fill(grid_t *g, struct pg *pg, struct pg *other) {
    for (int i = 0; i < pg->q; i++) {
        g->q = i;
        g->u[i] = 0.0;
    }
    for (int i = 0; i < pg->q; i++) {
        other->q = i;
        g->u[i] = 1.0;
    }
}
int main(int argc, char **argv) {
    int p;
    grid_t g;
    struct pg pg, o;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    pg.q = p;
    o.q = 1;
    g.u = malloc(sizeof(double) * p);
    fill(&g, &pg, &o);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_loop_storing_another_struct_types_member_keeps_its_bound() {
    let apt = apt_of("fill.c", LOOP_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("P"), "{:?}", l[0].trip);
    assert!(
        matches!(&l[1].trip, crate::Attr::Unresolved(why) if why.contains("changes in the loop body")),
        "{:?}",
        l[1].trip
    );
}
