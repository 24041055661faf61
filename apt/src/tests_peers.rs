//! Neighbour idioms (trial 4 item 8, trial 5 item 9): `rank > 0 ? rank - 1 :
//! MPI_PROC_NULL`, `left = rank - 1; if (left < 0) left = MPI_PROC_NULL`, and `MPI_Cart_shift`
//! on a Cartesian communicator (periodic or not, C and Fortran) give the neighbour as the
//! peer; where it is `MPI_PROC_NULL` a test on it (`left != MPI_PROC_NULL`) is the edge's
//! condition, and an unguarded call has a note saying where no message is made.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, eval};
use crate::{Attr, NodeData};

fn ifs(apt: &crate::Apt) -> Vec<String> {
    apt.nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            NodeData::If(i) => Some(i.cond.clone()),
            _ => None,
        })
        .collect()
}

fn note_at(apt: &crate::Apt, line: u32) -> Option<&str> {
    apt.notes
        .iter()
        .find(|(l, _)| *l == line)
        .map(|(_, n)| n.as_str())
}

#[test]
fn c_conditional_neighbours_are_the_neighbour_with_its_edge() {
    let src = r#"
#include <mpi.h>
static void recv_left(double *u, int left) {
    MPI_Status st;
    if (left != MPI_PROC_NULL)
        MPI_Recv(u, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
}
int main(int argc, char **argv) {
    int rank, size, left, right, first;
    double u[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    first = rank == 0 ? MPI_PROC_NULL : rank - 1;
    recv_left(u, left);
    MPI_Send(u, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Send(u, 1, MPI_DOUBLE, first, 4, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("nb.c", src);
    let c = comms(&apt);
    assert_eq!(c[0].peer, Some(e("rank - 1")));
    // the guard is the edge's condition; inside it the peer is never MPI_PROC_NULL: no note
    assert_eq!(ifs(&apt), vec!["rank > 0".to_string()]);
    assert_eq!(note_at(&apt, 6), None);
    assert_eq!(c[1].peer, Some(e("rank + 1")));
    assert_eq!(
        note_at(&apt, 18),
        Some("MPI_Send at line 18: `right` is rank + 1 where rank < P - 1, else MPI_PROC_NULL (no message)")
    );
    assert_eq!(c[2].peer, Some(e("rank - 1")));
    assert!(
        note_at(&apt, 19).unwrap().contains("where rank != 0"),
        "{:?}",
        apt.notes
    );
}

#[test]
fn fortran_neighbour_reset_to_proc_null_at_the_edge() {
    let src = r#"
program heat
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, left, right, reqs(2)
  real(8) :: u(0:101)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nprocs) right = MPI_PROC_NULL
  call MPI_IRECV(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(u(100), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_FINALIZE(ierr)
end program heat
"#;
    let apt = apt_of("heat.f90", src);
    let c = comms(&apt);
    assert_eq!(c[0].peer, Some(e("rank - 1")));
    assert_eq!(c[1].peer, Some(e("rank + 1")));
    assert!(
        note_at(&apt, 14)
            .unwrap()
            .contains("`left` is rank - 1 where rank >= 1"),
        "{:?}",
        apt.notes
    );
    assert!(
        note_at(&apt, 15)
            .unwrap()
            .contains("`right` is rank + 1 where rank < P - 1"),
        "{:?}",
        apt.notes
    );
}

#[test]
fn c_cart_shift_on_a_periodic_ring_wraps_around() {
    let src = r#"
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, size, left, right, dims[1], periods[1];
    double b[8];
    MPI_Comm ring;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    periods[0] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &rank);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    MPI_Sendrecv_replace(b, 8, MPI_DOUBLE, right, 11, left, 11, ring, &st);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("ring.c", src);
    let c = comms(&apt);
    let (peer, source) = (c[0].peer.clone().unwrap(), c[0].source.clone().unwrap());
    let at = |a: &Attr, r: f64| eval(a, &[("rank", r), ("P", 4.0)]);
    assert_eq!((at(&peer, 0.0), at(&peer, 3.0)), (1.0, 0.0));
    assert_eq!((at(&source, 0.0), at(&source, 2.0)), (3.0, 1.0));
    assert!(apt.notes.is_empty(), "{:?}", apt.notes);
}

#[test]
fn fortran_cart_shift_in_a_setup_routine_gives_the_grid_neighbours() {
    let src = r#"
module grid
  use mpi
  implicit none
  integer :: comm2d, nbr_n, nbr_s, nbr_w, nbr_e
  integer :: dims(2), coords(2)
contains
  subroutine setup(nprocs)
    integer, intent(in) :: nprocs
    integer :: ierr, r
    logical :: periods(2)
    dims = 0
    call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
    periods(1) = .true.
    periods(2) = .false.
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., comm2d, ierr)
    call MPI_CART_SHIFT(comm2d, 0, 1, nbr_w, nbr_e, ierr)
    call MPI_CART_SHIFT(comm2d, 1, 1, nbr_s, nbr_n, ierr)
    call MPI_COMM_RANK(comm2d, r, ierr)
    call MPI_CART_COORDS(comm2d, r, 2, coords, ierr)
  end subroutine setup
  subroutine exchange(u)
    real(8), intent(inout) :: u(0:101, 0:101)
    integer :: ierr, st(MPI_STATUS_SIZE)
    call MPI_SENDRECV(u(1, 1), 100, MPI_DOUBLE_PRECISION, nbr_n, 1, &
                      u(1, 0), 100, MPI_DOUBLE_PRECISION, nbr_s, 1, comm2d, st, ierr)
    call MPI_SENDRECV(u(1, 1), 100, MPI_DOUBLE_PRECISION, nbr_e, 3, &
                      u(0, 1), 100, MPI_DOUBLE_PRECISION, nbr_w, 3, comm2d, st, ierr)
  end subroutine exchange
end module grid
program main
  use mpi
  use grid
  implicit none
  integer :: ierr, p
  real(8) :: u(0:101, 0:101)
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  call setup(p)
  call exchange(u)
  if (coords(1) == 3) call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program main
"#;
    let apt = apt_of("cart.f90", src);
    let c = comms(&apt);
    // 8 ranks are a 4 x 2 grid, rank = 2*x + y; y is not periodic, x is
    let at = |a: &Option<Attr>, r: f64| eval(a.as_ref().unwrap(), &[("rank", r), ("P", 8.0)]);
    assert_eq!(c[0].peer, Some(e("rank + 1")));
    assert_eq!(c[0].source, Some(e("rank - 1")));
    let note = note_at(&apt, 25).unwrap();
    assert!(note.contains("`nbr_n` is rank + 1 where"), "{note}");
    assert!(note.contains("`nbr_s` is rank - 1 where"), "{note}");
    // east of (3, 1) wraps to (0, 1); west of (0, 0) is (3, 0)
    assert_eq!((at(&c[1].peer, 7.0), at(&c[1].peer, 2.0)), (1.0, 4.0));
    assert_eq!((at(&c[1].source, 0.0), at(&c[1].source, 5.0)), (6.0, 3.0));
    assert_eq!(note_at(&apt, 27), None);
    // MPI_Cart_coords in setup: coords(1) is x, as MPI numbers ranks
    let cond = ifs(&apt).pop().unwrap();
    let (lhs, rhs) = cond.split_once(" == ").unwrap();
    assert_eq!(rhs, "3");
    let x = e(lhs);
    assert_eq!((at(&Some(x.clone()), 7.0), at(&Some(x), 2.0)), (3.0, 1.0));
}
