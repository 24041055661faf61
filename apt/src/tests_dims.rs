//! Unit tests of `MPI_Dims_create` through the real front end: a zeroed `dims` gets Open MPI's
//! exact extents `dims(P, d, k)`, with a note naming them; a `dims` not known to be zero stays
//! unknown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, eval, loops};

const GRID_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, p, i, dims[2] = {0, 0}, box[3] = {0}, free_[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    MPI_Dims_create(p, 2, dims);
    for (i = 0; i < n / dims[0]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < n / dims[1]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Dims_create(p, 3, box);
    for (i = 0; i < n / box[2]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Dims_create(p, 2, free_);
    for (i = 0; i < free_[0]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn c_dims_create_of_a_zeroed_array_is_the_grid_open_mpi_makes() {
    let apt = apt_of("grid.c", GRID_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/dims(P, 2, 0)"));
    assert_eq!(l[1].trip, e("N/dims(P, 2, 1)"));
    assert_eq!(l[2].trip, e("N/dims(P, 3, 2)"));
    // 8 ranks are 4 x 2: N/4 and N/2 iterations, not N/2.83 each
    let at8 = |t| eval(t, &[("P", 8.0), ("N", 64.0)]);
    assert_eq!(
        (at8(&l[0].trip), at8(&l[1].trip), at8(&l[2].trip)),
        (16.0, 32.0, 32.0)
    );
    // not zeroed: MPI keeps what is there, unknown here
    assert!(l[3].trip.unresolved().is_some(), "{:?}", l[3].trip);
    assert_eq!(apt.notes.len(), 2, "{:?}", apt.notes);
    assert_eq!(apt.notes[0].0, 9);
    assert_eq!(
        apt.notes[0].1,
        "MPI_Dims_create at line 9: dims[0] and dims[1] are dims(P, 2, 0) and dims(P, 2, 1), \
         the grid Open MPI makes of P ranks (prime factors, largest first, to the smallest \
         extent: 8 ranks give 4 x 2); another MPI library may factor differently"
    );
    assert!(
        apt.notes[1].1.contains(
            "box[0], box[1] and box[2] are dims(P, 3, 0), dims(P, 3, 1) and dims(P, 3, 2)"
        ) && apt.notes[1].1.contains("16 ranks give 4 x 2 x 2"),
        "{:?}",
        apt.notes
    );
    let text = crate::render::to_text(&apt);
    assert!(text.contains("note: MPI_Dims_create at line 9"), "{text}");
    let json = crate::render::to_json(&apt);
    assert_eq!(json["notes"][0]["line"], 9);
}

const GRID_F: &str = r#"
program grid
  use mpi
  implicit none
  integer :: n, p, i, ierr, dims(2), cube(3)
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  dims = 0
  call MPI_Dims_create(p, 2, dims, ierr)
  do i = 1, n / dims(2)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  cube(1) = 0
  cube(2) = 0
  cube(3) = 0
  call MPI_Dims_create(p, 3, cube, ierr)
  do i = 1, n / cube(1)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program grid
"#;

#[test]
fn fortran_dims_create_of_a_zeroed_array_is_the_grid_open_mpi_makes() {
    let apt = apt_of("grid.f90", GRID_F);
    let l = loops(&apt);
    // `dims = 0` is array syntax: an implicit loop of 2
    assert_eq!(l[0].trip, e("2"));
    // Fortran's dims(2) is the second extent, k = 1
    assert_eq!(l[1].trip, e("N/dims(P, 2, 1)"));
    assert_eq!(l[2].trip, e("N/dims(P, 3, 0)"));
    assert!(
        apt.notes[0]
            .1
            .contains("dims(1) and dims(2) are dims(P, 2, 0) and dims(P, 2, 1)"),
        "{:?}",
        apt.notes
    );
}

#[test]
fn a_program_without_dims_create_has_no_notes() {
    let apt = apt_of(
        "none.f90",
        "program p\n  integer :: i\n  do i = 1, 3\n  end do\nend program p\n",
    );
    assert!(apt.notes.is_empty());
    assert!(crate::render::to_json(&apt).get("notes").is_none());
}

const NAMED_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
#define NDIMS 3
int main(int argc, char **argv) {
    int n, p, i, dims[NDIMS] = {0, 0, 0}, flat[3] = {0, 0, 0}, half[NDIMS] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    MPI_Dims_create(p, NDIMS, dims);
    for (i = 0; i < n / dims[2]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Dims_create(p, NDIMS, flat);
    for (i = 0; i < n / flat[0]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Dims_create(p, 3, half);
    for (i = 0; i < n / half[1]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

/// trial3 #5: `#define NDIMS 3` as the array size and as the dimension count
#[test]
fn dims_create_with_a_named_dimension_count() {
    let apt = apt_of("named.c", NAMED_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/dims(P, 3, 2)"));
    assert_eq!(l[1].trip, e("N/dims(P, 3, 0)"));
    assert_eq!(l[2].trip, e("N/dims(P, 3, 1)"));
    assert_eq!(apt.notes.len(), 3, "{:?}", apt.notes);
}

const NAMED_F: &str = r#"
program grid
  use mpi
  implicit none
  integer, parameter :: nd = 2
  integer :: n, p, i, ierr, dims(nd)
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  dims = 0
  call MPI_Dims_create(p, nd, dims, ierr)
  do i = 1, n / dims(2)
     call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program grid
"#;

#[test]
fn fortran_dims_create_with_a_parameter_dimension_count() {
    let apt = apt_of("named.f90", NAMED_F);
    let l = loops(&apt);
    // l[0] is `dims = 0`
    assert_eq!(l[1].trip, e("N/dims(P, 2, 1)"));
    assert_eq!(apt.notes.len(), 1, "{:?}", apt.notes);
}

const MEMBER_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int size, n, nx, ny, dims[2]; } decomp_t;
int main(int argc, char **argv) {
    decomp_t d;
    int i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    d.n = atoi(argv[1]);
    d.dims[0] = d.dims[1] = 0;
    MPI_Dims_create(d.size, 2, d.dims);
    d.ny = d.n / d.dims[0];
    d.nx = d.n / d.dims[1];
    for (i = 0; i < d.ny; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < d.nx; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 17: the grid kept in a struct's member array, zeroed by a chained assignment, is the
/// grid MPI_Dims_create makes (every trip and size of its stencil was regression-fitted).
#[test]
fn dims_create_into_a_struct_member_array_zeroed_by_a_chained_assignment() {
    let apt = apt_of("member.c", MEMBER_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/dims(P, 2, 0)"), "{:?}", l[0].trip);
    assert_eq!(l[1].trip, e("N/dims(P, 2, 1)"), "{:?}", l[1].trip);
}

const CART_MEMBER_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int size, rank, n, dims[2], periods[2], north, south; MPI_Comm cart; } decomp_t;
double buf[100000];
int main(int argc, char **argv) {
    decomp_t d;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    d.n = atoi(argv[1]);
    d.dims[0] = d.dims[1] = 0;
    d.periods[0] = d.periods[1] = 0;
    MPI_Dims_create(d.size, 2, d.dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, d.dims, d.periods, 1, &d.cart);
    MPI_Comm_rank(d.cart, &d.rank);
    MPI_Cart_shift(d.cart, 0, 1, &d.north, &d.south);
    MPI_Send(buf, d.n, MPI_DOUBLE, d.south, 1, d.cart);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 17: a Cartesian grid made from a struct's member arrays gives its neighbours as a
/// grid kept in local arrays does (the halo's peers were "set by MPI_Cart_shift").
#[test]
fn cart_create_from_struct_member_arrays_gives_the_neighbours() {
    let apt = apt_of("cartm.c", CART_MEMBER_C);
    let c = crate::tests::comms(&apt);
    assert_eq!(
        c[0].peer,
        Some(e("rank + dims(P, 2, 1)")),
        "{:?}",
        c[0].peer
    );
}

/// Trial 22's Jacobi: the grid kept in a struct reached through a pointer, zeroed element by
/// element in a setup routine (`g->dims[0] = g->dims[1] = 0`). The write to `g->dims[0]` made
/// every member of `g->dims` unknown, so MPI_Dims_create saw `g->dims[1]` unknown and left the
/// grid unresolved: every trip, size and count of the program was regressed.
#[test]
fn dims_create_into_a_member_through_a_pointer() {
    let src = r#"#include <mpi.h>
#include <stdlib.h>
typedef struct { int dims[2]; int nx, ny; } grid_t;
static void setup(grid_t *g, int n, int size)
{
    g->dims[0] = g->dims[1] = 0;
    MPI_Dims_create(size, 2, g->dims);
    g->nx = n / g->dims[0];
    g->ny = n / g->dims[1];
}
int main(int argc, char **argv)
{
    int n, size, i, j;
    grid_t g;
    double s = 0;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setup(&g, n, size);
    for (i = 0; i < g.nx; i++)
        for (j = 0; j < g.ny; j++)
            s += i * j;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("member.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/dims(P, 2, 0)"));
    assert_eq!(l[1].trip, e("N/dims(P, 2, 1)"));
}

/// Trial 26: a row communicator made by MPI_Cart_sub of a grid made here holds the kept
/// extents' ranks; its collectives say so (their group was fitted from the traces alone,
/// `1.356*sqrt(P) - 0.3219` for `dims(P, 2, 0)`), in C and in Fortran (logical `remain` set
/// element by element, or by an array constructor `keep = [.true., .false.]`).
#[test]
fn a_cart_sub_communicator_holds_the_kept_extents() {
    let src = r#"#include <mpi.h>
int main(int argc, char **argv) {
    int p, dims[2] = {0, 0}, periods[2] = {1, 1}, keep[2] = {1, 0}, cols[2] = {0, 1};
    double s = 1.0, t;
    MPI_Comm grid, row, col;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, keep, &row);
    MPI_Cart_sub(grid, cols, &col);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, row);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, col);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("sub.c", src);
    let groups: Vec<Option<String>> = crate::tests::comms(&apt)
        .iter()
        .map(|c| c.group.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        groups,
        [
            Some("dims(P, 2, 0)".to_string()),
            Some("dims(P, 2, 1)".to_string()),
            None
        ]
    );
    let src = r#"program sub
  use mpi
  implicit none
  integer :: ierr, p, grid, row, dims(2)
  logical :: periods(2), keep(2)
  double precision :: s, t
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  dims = 0
  call MPI_Dims_create(p, 2, dims, ierr)
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., grid, ierr)
  keep(1) = .true.
  keep(2) = .false.
  call MPI_Cart_sub(grid, keep, row, ierr)
  s = 1d0
  call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, row, ierr)
  call MPI_Finalize(ierr)
end program sub
"#;
    let apt = apt_of("sub.f90", src);
    let groups: Vec<Option<String>> = crate::tests::comms(&apt)
        .iter()
        .map(|c| c.group.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(groups, [Some("dims(P, 2, 0)".to_string())]);
    // the same with array constructors, both spellings, and a lower bound of 0
    let src = src
        .replace("dims(2)\n", "dims(0:1)\n")
        .replace("  dims = 0\n", "  dims = (/ 0, 0 /)\n")
        .replace(
            "  keep(1) = .true.\n  keep(2) = .false.\n",
            "  keep = [.true., .false.]\n",
        );
    assert!(
        src.contains("[.true., .false.]") && src.contains("dims(0:1)"),
        "{src}"
    );
    let apt = apt_of("sub.f90", &src);
    let groups: Vec<Option<String>> = crate::tests::comms(&apt)
        .iter()
        .map(|c| c.group.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(groups, [Some("dims(P, 2, 0)".to_string())]);
    // a typed constructor or an implied DO is not listed element by element
    let typed = src.replace("[.true., .false.]", "[logical :: .true., .false.]");
    let apt = apt_of("sub.f90", &typed);
    assert_eq!(crate::tests::comms(&apt)[0].group, None);
}

/// `MPI_Comm_split` of the world by a colour in the rank: its collectives span the largest
/// group the colour makes (trial 26: `mod(rank, 2)`'s Allreduce had its group fitted
/// `0.3885*P + 0.4331`), in C and Fortran; a colour apt cannot read leaves the traces'.
#[test]
fn a_comm_split_communicator_holds_its_colours_group() {
    let src = r#"#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, p, q, colour;
    double s = 1.0, t;
    MPI_Comm half, block, dup, blockq, odd;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    q = atoi(argv[1]);
    colour = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, colour, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 4, rank, &block);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % q, 0, &blockq);
    MPI_Comm_split(MPI_COMM_WORLD, rank * rank % 3, 0, &odd);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, block);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, dup);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, blockq);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, odd);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("split.c", src);
    let groups: Vec<Option<String>> = crate::tests::comms(&apt)
        .iter()
        .filter(|c| c.op == frontend::MpiOp::Allreduce)
        .map(|c| c.group.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        groups,
        [
            Some("ceil(0.5*P)".to_string()),
            Some("min(P, 4)".to_string()),
            Some("P".to_string()),
            Some("ceil(P/Q)".to_string()),
            None,
            None
        ]
    );
    let src = r#"program split
  use mpi
  implicit none
  integer :: ierr, rank, row
  double precision :: s, t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, row, ierr)
  s = 1d0
  call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, row, ierr)
  call MPI_Finalize(ierr)
end program split
"#;
    let apt = apt_of("split.f90", src);
    let groups: Vec<Option<String>> = crate::tests::comms(&apt)
        .iter()
        .filter(|c| c.op == frontend::MpiOp::Allreduce)
        .map(|c| c.group.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(groups, [Some("ceil(0.5*P)".to_string())]);
}
