//! Regression tests (trial 4, item 4): a callee writing an element of a struct's array
//! member through a struct pointer parameter, or an MPI receive into that member, changes
//! that member only: the caller keeps the values of the struct's other members (a loop
//! bound `g->n` stays `N/P`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{e, loops};
use crate::Attr;

fn trips(src: &str, name: &str) -> Vec<Attr> {
    let apt = crate::tests::apt_of(name, src);
    loops(&apt).into_iter().map(|l| l.trip.clone()).collect()
}

// t_recv6.c of the trial: recv_left writes g->u[0] before relax(&g) loops to g->n
const RECV_CALL_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n; double *u; } grid_t;
static double relax(grid_t *g) { int i; double s = 0; for (i = 1; i <= g->n; i++) { g->u[i] *= 0.5; s += g->u[i]; } return s; }
static void recv_left(grid_t *g, int left) { g->u[0] = left; }
int main(int argc, char **argv) {
  int rank, size, it; grid_t g; double r;
  MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  g.n = atoi(argv[1]) / size; g.u = malloc((g.n + 2) * sizeof(double));
  for (it = 0; it < 10; it++) {
    if (rank > 0) recv_left(&g, rank - 1);
    r = relax(&g);
    if (rank < size - 1) MPI_Send(&g.u[g.n], 1, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize(); return 0;
}
"#;

#[test]
fn a_callee_writing_one_member_keeps_the_others() {
    // relax's loop, entered with g->n = N/P: recv_left wrote g.u only
    assert_eq!(trips(RECV_CALL_C, "t_recv6.c")[0], e("N/P"));
    // a callee that writes the member itself (on some iterations) still changes it
    let set_n = RECV_CALL_C.replace(
        "static void recv_left(grid_t *g, int left) { g->u[0] = left; }",
        "static void recv_left(grid_t *g, int left) { g->u[0] = left; g->n = 7; }",
    );
    let t = trips(&set_n, "t_recv6b.c");
    assert!(
        t[0].unresolved().is_some_and(|r| r.contains("g->n")),
        "{t:?}"
    );
}

// gsinline.c of the trial: the receive into g.u[0] inlined in the sweep loop
const RECV_INLINE_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n; double *u; } grid_t;
int main(int argc, char **argv) {
  int rank, size, it, i; grid_t g; double r = 0;
  MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  g.n = atoi(argv[1]) / size; g.u = malloc((g.n + 2) * sizeof(double));
  for (it = 0; it < 10; it++) {
    if (rank > 0) MPI_Recv(&g.u[0], 1, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 1; i <= g.n; i++) r += g.u[i];
    if (rank < size - 1) MPI_Send(&g.u[g.n], 1, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
  }
  MPI_Finalize(); return 0;
}
"#;

#[test]
fn a_receive_into_one_member_keeps_the_others() {
    let t = trips(RECV_INLINE_C, "gsinline.c");
    assert_eq!(t[0], e("10"));
    assert_eq!(t[1], e("N/P"));
}
