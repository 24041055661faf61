//! Message sizes of derived datatypes (trial2 #7): a send of k elements of a type built by
//! `MPI_Type_vector(count, blocklen, stride, old, t)` carries k·count·blocklen·sizeof(old)
//! bytes, one of `MPI_Type_contiguous(n, old, t)` k·n·sizeof(old), in the procedure that
//! built it and in callees reaching the handle as a global or an argument.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e};
use crate::Attr;

#[test]
fn c_vector_and_contiguous_types_give_bytes() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
MPI_Datatype rowtype;
void halo(double *u, int n) {
    MPI_Send(u, 2, rowtype, 1, 0, MPI_COMM_WORLD);
}
void ring(double *u, MPI_Datatype t) {
    MPI_Send(u, 1, t, 1, 0, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]), p;
    double *u = malloc(8 * n * n);
    MPI_Datatype col, pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Type_vector(n / p, 3, n + 2, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Type_contiguous(n, MPI_INT, &rowtype);
    MPI_Type_contiguous(4, col, &pair);
    MPI_Send(u, 5, col, 1, 0, MPI_COMM_WORLD);
    MPI_Send(u, 1, pair, 1, 0, MPI_COMM_WORLD);
    halo(u, n);
    ring(u, col);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("types.c", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(
        bytes,
        [
            // halo: 2 × n ints; ring: 1 × col
            Some(e("8*N")),
            Some(e("24*N/P")),
            Some(e("120*N/P")),
            Some(e("96*N/P")),
        ],
        "{bytes:?}"
    );
}

#[test]
fn fortran_vector_type_in_a_module_reaches_a_contained_subroutine() {
    let src = r#"
module fields
  integer :: nx, ny, coltype
end module fields

program t
  use mpi
  use fields
  implicit none
  integer :: ierr, n, p
  character(len=32) :: arg
  double precision :: u(100, 100)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  nx = n / p
  ny = n
  call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, coltype, ierr)
  call MPI_Type_commit(coltype, ierr)
  call MPI_Send(u, 1, coltype, 1, 0, MPI_COMM_WORLD, ierr)
  call exchange()
  call MPI_Finalize(ierr)
contains
  subroutine exchange()
    integer :: ierr2
    call MPI_Send(u, 2, coltype, 1, 0, MPI_COMM_WORLD, ierr2)
  end subroutine exchange
end program t
"#;
    let apt = apt_of("types.f90", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(bytes, [Some(e("8*N")), Some(e("16*N"))], "{bytes:?}");
}

#[test]
fn a_type_of_unknown_shape_stays_unresolved() {
    let src = r#"
#include <mpi.h>
int main(int argc, char **argv) {
    int bl[2] = {1, 2}, disp[2] = {0, 4};
    double u[10];
    MPI_Datatype ix;
    MPI_Init(&argc, &argv);
    MPI_Type_indexed(2, bl, disp, MPI_DOUBLE, &ix);
    MPI_Send(u, 1, ix, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("ix.c", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(
        bytes,
        [Some(Attr::Unresolved("derived datatype `ix`".into()))],
        "{bytes:?}"
    );
}

/// trial 26: a subarray type carries the product of its subsizes (a halo row `{1, ny}` of a
/// 2-D array), read from an initialized C array or Fortran elements set one by one; sizes the
/// source does not give stay unresolved, naming the array
#[test]
fn subarray_types_carry_the_product_of_their_subsizes() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), p;
    double u[100];
    MPI_Datatype row, box, odd;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int sizes[2] = {n / p + 2, n + 2}, sub[2] = {1, n}, start[2] = {0, 0};
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &row);
    int sizes3[3] = {n, n, n}, sub3[3] = {n / p, 2, n}, start3[3] = {0, 0, 0};
    MPI_Type_create_subarray(3, sizes3, sub3, start3, MPI_ORDER_C, MPI_FLOAT, &box);
    int subv[2];
    subv[0] = atoi(argv[2]);
    MPI_Type_create_subarray(2, sizes, subv, start, MPI_ORDER_C, MPI_DOUBLE, &odd);
    MPI_Send(u, 1, row, 1, 0, MPI_COMM_WORLD);
    MPI_Send(u, 2, box, 1, 0, MPI_COMM_WORLD);
    MPI_Send(u, 1, odd, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("sub.c", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(
        bytes,
        [
            Some(e("8*N")),
            Some(e("16*N^2/P")),
            Some(Attr::Unresolved("derived datatype `odd`".into())),
        ],
        "{bytes:?}"
    );
    let src = r#"
program t
  use mpi
  implicit none
  integer :: ierr, n, p, col, sizes(2), subsizes(2), starts(2)
  character(len=32) :: arg
  double precision :: u(100, 100)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  sizes(1) = n + 2
  sizes(2) = n / p + 2
  subsizes(1) = n
  subsizes(2) = 1
  starts(1) = 0
  starts(2) = 0
  call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, &
       MPI_DOUBLE_PRECISION, col, ierr)
  call MPI_Type_commit(col, ierr)
  call MPI_Send(u, 1, col, 1, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program t
"#;
    let apt = apt_of("sub.f90", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(bytes, [Some(e("8*N"))], "{bytes:?}");
}

/// trial 26: MPI_Reduce_scatter_block reduces its count per rank times the communicator's
/// size, the size the runtime records; of a communicator of unknown size, unresolved
#[test]
fn reduce_scatter_block_reduces_the_whole_vector() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), rank;
    double in[4096], out[64];
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Reduce_scatter_block(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(in, out, n, MPI_DOUBLE, MPI_SUM, half);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("rsb.c", src);
    let bytes: Vec<Option<Attr>> = comms(&apt).iter().map(|c| c.bytes.clone()).collect();
    assert_eq!(
        bytes,
        [
            Some(e("8*N*P")),
            Some(Attr::Unresolved(
                "the whole vector MPI_Reduce_scatter_block reduces at line 12: its count per rank times the size of a communicator other than MPI_COMM_WORLD".into()
            )),
        ],
        "{bytes:?}"
    );
}

/// trial3 #8: Scatterv and Gatherv size one rank's block from its scalar count, at workers
/// whose root-only arguments are NULL too; a root that moves no block of its own (count 0,
/// MPI_IN_PLACE) is recorded with the mean of the counts, unresolved here
#[test]
fn v_collectives_size_the_block_of_one_rank() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), rank, p, counts[64], displs[64];
    double items[1000], mine[1000], res[1000], all[1000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (rank == 0) {
        MPI_Scatterv(items, counts, displs, MPI_DOUBLE, mine, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(res, 0, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(MPI_IN_PLACE, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    } else {
        MPI_Scatterv(NULL, NULL, NULL, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(res, n, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(res, n, MPI_INT, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("farm.c", src);
    let bytes: Vec<Attr> = comms(&apt)
        .iter()
        .map(|c| c.bytes.clone().unwrap())
        .collect();
    let counts = Attr::Unresolved("per-rank counts held in array `counts`".into());
    assert_eq!(
        bytes,
        vec![
            counts.clone(),
            counts.clone(),
            counts,
            e("8*N"),
            e("8*N"),
            e("4*N"),
        ]
    );
}

/// Start and Startall of persistent requests (the runtime traces each start as the
/// Isend/Irecv it makes): the size, peer and tag of the messages their inits describe, when
/// the started requests agree on them
#[test]
fn starts_take_sizes_and_peers_from_their_inits() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), rank, p, step, left, right;
    double a[1000];
    MPI_Request reqs[4], one;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    left = (rank + p - 1) % p;
    right = (rank + 1) % p;
    MPI_Recv_init(a, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(a + n, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send_init(a, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Send_init(a + n, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[3]);
    MPI_Send_init(a, 2 * n, MPI_INT, right, 7, MPI_COMM_WORLD, &one);
    for (step = 0; step < 10; step++) {
        MPI_Startall(4, reqs);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        MPI_Start(&one);
        MPI_Wait(&one, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("persist.c", src);
    let c = comms(&apt);
    let all = c[0];
    assert_eq!(all.op, frontend::MpiOp::Startall);
    assert_eq!(all.bytes, Some(e("8*N")));
    assert_eq!(all.peer, Some(e("-P*floor(rank/P + 1/P) + rank + 1")));
    assert_eq!(
        all.source,
        Some(e("-P*floor((P + rank - 1)/P) + P + rank - 1"))
    );
    assert!(
        all.tag.as_ref().unwrap().unresolved().is_some(),
        "{:?}",
        all.tag
    );
    let start = c[2];
    assert_eq!(start.op, frontend::MpiOp::Start);
    assert_eq!(start.bytes, Some(e("8*N")));
    assert_eq!(start.tag, Some(e("7")));
    assert_eq!(start.source, None);
}

/// trial 26: MPI-3 neighbourhood collectives are collectives of the table, sized by the block
/// each neighbour gets (they were "MPI functions outside augur's table", their loop taken for
/// a computation phase)
#[test]
fn neighbourhood_collectives_send_a_block_to_each_neighbour() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), p, dims[1] = {0}, periods[1] = {1};
    double s[64], r[64];
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Dims_create(p, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, ring);
    MPI_Neighbor_allgather(s, 2 * n, MPI_INT, r, 2 * n, MPI_INT, ring);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("nbr.c", src);
    let c: Vec<(frontend::MpiOp, Option<Attr>)> = comms(&apt)
        .iter()
        .map(|c| (c.op, c.bytes.clone()))
        .collect();
    assert_eq!(
        c,
        [
            (frontend::MpiOp::NeighborAlltoall, Some(e("8*N"))),
            (frontend::MpiOp::NeighborAllgather, Some(e("8*N"))),
        ]
    );
    assert!(c.iter().all(|(op, _)| op.is_collective()));
}
