//! Regression tests (trial 6, item 8): a global set once before a recursive routine is first
//! called keeps its value inside the routine and its callees when nothing on the recursive
//! cycle writes it (a V-cycle's `up`/`down` neighbours and `nlevels`); one the cycle may write,
//! itself or through a callee, is unknown with that reason, and so is a formal, unless every
//! recursive call passes it on unchanged (`vcycle(l + 1, nu)` for `nu`). A bound through a pointer to an
//! element (`L0 = &lev[0]; L0->ny`) names the pointer's target and why that is not known.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, comms, e, loops};
use crate::Attr;

// mg2d.c of the trial, reduced: vcycle recurses; halo is reached only through it
const VCYCLE_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int nx, ny; double *u; } level_t;
static level_t *lev;
static int up, down, nlevels, depth;
static void halo(double *a, int w) {
  MPI_Sendrecv(&a[w], w, MPI_DOUBLE, down, 10, &a[0], w, MPI_DOUBLE, up, 10,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void set_depth(int l) { depth = l; }
static void vcycle(int l, double *a, int nu) {
  int i;
  for (i = 0; i < nlevels; i++) a[i] = 0.5 * a[i];
  for (i = 0; i < depth; i++) a[i] = 2.0 * a[i];
  for (i = 0; i < nu; i++) a[i] += 1.0;
  for (i = 0; i < l; i++) a[i] -= 1.0;
  if (l == nlevels - 1) { halo(a, 4); return; }
  halo(a, 4);
  set_depth(l);
  vcycle(l + 1, a, nu);
}
int main(int argc, char **argv) {
  int rank, size, l, i, ny;
  double *a;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nlevels = atoi(argv[1]);
  depth = 3;
  up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  a = malloc(100 * sizeof(double));
  lev = malloc(nlevels * sizeof(level_t));
  ny = 64 / size;
  for (l = 0; l < nlevels; l++) { lev[l].ny = ny; ny /= 2; }
  level_t *L0 = &lev[0];
  for (i = 0; i < L0->ny; i++) a[i] = 1.0;
  vcycle(0, a, 2);
  MPI_Finalize();
  return 0;
}
"#;

#[test]
fn globals_a_recursive_cycle_never_writes_keep_their_value() {
    let apt = apt_of("vcycle.c", VCYCLE_C);
    let c = comms(&apt);
    // halo's neighbours: set once in main, written nowhere on the cycle
    assert_eq!(c[0].peer, Some(e("rank + 1")), "{:?}", c[0]);
    assert_eq!(c[0].source, Some(e("rank - 1")), "{:?}", c[0]);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("NLEVELS"));
    // depth: written on the cycle through set_depth, so unknown at re-entry
    let r = l[1].trip.unresolved().unwrap_or_default();
    assert!(
        r.contains("`vcycle` is recursive and may write `depth`"),
        "{:?}",
        l[1].trip
    );
    // nu: passed on unchanged, so what main gave; l: changes at every level
    assert_eq!(l[2].trip, e("2"));
    assert_eq!(
        l[3].trip,
        Attr::Unresolved("bound argument `l` of `vcycle`: `vcycle` is recursive".into())
    );
    assert_eq!(calls(&apt, "vcycle").len(), 2);
}

#[test]
fn a_bound_through_a_pointer_to_an_element_says_where_it_points() {
    let apt = apt_of("vcycle.c", VCYCLE_C);
    let l = loops(&apt);
    let Attr::Unresolved(r) = &l[5].trip else {
        panic!("{:?}", l[5].trip)
    };
    assert!(r.contains("`L0` is `&lev[0]` from line 37"), "{r}");
    assert!(r.contains("`lev`: assigned in loop at line 36"), "{r}");
}
