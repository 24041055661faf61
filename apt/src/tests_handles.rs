//! Handles and neighbours kept in array elements at constant indices (`MPI_Cart_shift(cart,
//! 0, 1, &nbr[0], &nbr[1])`, `MPI_Type_vector(…, &face[0])`, a struct's `g.face[1]`; trial 19's
//! 3-D stencil kept them in `g->nbr[d][s]` and `g->face[d][s][r]`): the element holds the
//! neighbour or the type's size as a plain variable does, and writing one element leaves the
//! others. Elements at indices that vary (`&nbr[d]` in a loop) stay unresolved.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e};
use crate::Attr;

const ELEMENTS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int nbr[2][2]; MPI_Datatype face[2]; } grid_t;
int main(int argc, char **argv) {
    int nprocs, dims[2] = {0, 0}, periods[2] = {0, 0}, nbr[2][2];
    MPI_Datatype face[2];
    MPI_Comm cart;
    grid_t g;
    double u[100000];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n = atoi(argv[1]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &nbr[0][0], &nbr[0][1]);
    MPI_Cart_shift(cart, 1, 1, &g.nbr[1][0], &g.nbr[1][1]);
    MPI_Type_vector(n, 1, n + 2, MPI_DOUBLE, &face[0]);
    MPI_Type_commit(&face[0]);
    MPI_Type_contiguous(n, MPI_DOUBLE, &face[1]);
    MPI_Type_commit(&face[1]);
    MPI_Type_vector(n, 2, n + 2, MPI_DOUBLE, &g.face[0]);
    MPI_Type_commit(&g.face[0]);
    MPI_Send(u, 1, face[0], nbr[0][0], 0, cart);
    MPI_Send(u, 1, face[1], nbr[0][1], 0, cart);
    MPI_Send(u, 1, g.face[0], g.nbr[1][0], 0, cart);
    for (int d = 0; d < 2; d++)
        MPI_Send(u, 1, face[d], nbr[d][1], 0, cart);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn neighbours_and_types_in_elements_are_followed() {
    let apt = apt_of("elements.c", ELEMENTS_C);
    let c = comms(&apt);
    assert_eq!(c.len(), 4, "{c:#?}");
    assert_eq!(c[0].peer, Some(e("rank - dims(P, 2, 1)")));
    assert_eq!(c[0].bytes, Some(e("8*N")));
    assert_eq!(c[1].peer, Some(e("rank + dims(P, 2, 1)")));
    assert_eq!(c[1].bytes, Some(e("8*N")));
    assert_eq!(c[2].peer, Some(e("rank - 1")));
    assert_eq!(c[2].bytes, Some(e("16*N")));
    // the edge of the grid is said for an element as for a variable
    let notes = format!("{:?}", apt.notes);
    assert!(
        notes.contains("`nbr[0][0]` is rank - dims(P, 2, 1) where"),
        "{notes}"
    );
    assert!(notes.contains("`g.nbr[1][0]` is rank - 1 where"), "{notes}");
    // at indices that vary: not followed, and said so
    assert!(c[3].peer.as_ref().and_then(Attr::unresolved).is_some());
    assert_eq!(
        c[3].bytes,
        Some(Attr::Unresolved(
            "datatype held in an array at indices that vary".into()
        ))
    );
}

#[test]
fn writing_one_element_leaves_the_others() {
    // a later shift into nbr[1][…] keeps nbr[0][…]; a new type in face[1] keeps face[0]
    let src = ELEMENTS_C.replace(
        "    MPI_Send(u, 1, face[0],",
        "    MPI_Cart_shift(cart, 1, 1, &nbr[1][0], &nbr[1][1]);\n    MPI_Type_contiguous(3, MPI_INT, &face[1]);\n    MPI_Send(u, 1, face[0],",
    );
    let apt = apt_of("elements.c", &src);
    let c = comms(&apt);
    assert_eq!(c[0].peer, Some(e("rank - dims(P, 2, 1)")));
    assert_eq!(c[0].bytes, Some(e("8*N")));
    assert_eq!(c[1].bytes, Some(e("12")));
}
