//! Unit tests of access paths as variables (struct members, constant-subscript elements)
//! through the real front end: sizes kept in a struct set from argv, set through a pointer
//! in a called procedure, read through a `const struct *`, the writes that must forget them,
//! and parameters packed into an array or struct and broadcast by the root.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms, e, loops};

const GRID_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
struct grid { int nx, ny, px, py; };
int main(int argc, char **argv) {
    struct grid g;
    int i, j;
    double buf[1000];
    MPI_Init(&argc, &argv);
    g.nx = atoi(argv[1]);
    g.ny = atoi(argv[2]);
    g.px = atoi(argv[3]);
    g.py = 2;
    for (i = 1; i <= g.nx / g.px; i++) {
        for (j = 0; j < g.ny; j++)
            buf[j] = i;
        MPI_Send(buf, g.ny / g.py, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn struct_members_set_from_argv_are_parameters() {
    let apt = apt_of("grid.c", GRID_C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("NX/PX"));
    assert_eq!(l[1].trip, e("NY"));
    assert_eq!(comms(&apt)[0].bytes, Some(e("4*NY")));
    let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["NX", "NY", "PX"]);
    assert_eq!(apt.params[0].source_name, "g.nx");
}

const SETUP_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
struct grid { int nx, ny, px; };
void setup(struct grid *q, int n, int p) {
    q->nx = n;
    q->ny = 2 * n;
    q->px = p;
}
void sweep(const struct grid *g) {
    int i;
    for (i = 0; i < g->nx / g->px; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < (*g).ny; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
    struct grid g;
    int n, p, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    setup(&g, n, p);
    for (k = 0; k < g.ny; k++)
        MPI_Barrier(MPI_COMM_WORLD);
    sweep(&g);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn members_set_through_a_pointer_in_a_callee_reach_the_caller_and_other_callees() {
    let apt = apt_of("setup.c", SETUP_C);
    let l = loops(&apt);
    // sweep's loops (sweep is defined before main), then main's
    assert_eq!(l[0].trip, e("N/P"));
    assert_eq!(l[1].trip, e("2*N"));
    assert_eq!(l[2].trip, e("2*N"));
}

/// Every write that may change a member or element forgets its value: the struct copied
/// whole, passed by address to a function the program does not define, an element written
/// at a run-time index, the member written through a pointer, the array read whole.
#[test]
fn whole_struct_and_array_writes_forget_members_and_elements() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
struct grid { int nx, ny; };
void fill(struct grid *q);
int main(int argc, char **argv) {
    struct grid g, h, *p;
    int a[4], i, k;
    MPI_Init(&argc, &argv);
    p = &g;
    g.nx = atoi(argv[1]);
    memcpy(&g, &h, sizeof g);
    for (i = 0; i < g.nx; i++) MPI_Barrier(MPI_COMM_WORLD);
    g.nx = atoi(argv[1]);
    g = h;
    for (i = 0; i < g.nx; i++) MPI_Barrier(MPI_COMM_WORLD);
    g.nx = atoi(argv[1]);
    fill(&g);
    for (i = 0; i < g.nx; i++) MPI_Barrier(MPI_COMM_WORLD);
    g.nx = atoi(argv[1]);
    p->nx = 7;
    for (i = 0; i < g.nx; i++) MPI_Barrier(MPI_COMM_WORLD);
    a[2] = atoi(argv[2]);
    k = atoi(argv[3]);
    a[k] = 5;
    for (i = 0; i < a[2]; i++) MPI_Barrier(MPI_COMM_WORLD);
    a[2] = atoi(argv[2]);
    scanf("%d %d %d %d", a, a + 1, a + 2, a + 3);
    for (i = 0; i < a[2]; i++) MPI_Barrier(MPI_COMM_WORLD);
    a[2] = atoi(argv[2]);
    for (i = 0; i < a[2]; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("kill.c", src);
    let l = loops(&apt);
    let unresolved = |k: usize| l[k].trip.unresolved().map(str::to_string);
    assert!(unresolved(0).unwrap().contains("memcpy"), "{:?}", l[0].trip);
    assert!(
        unresolved(1).unwrap().contains("through `g`"),
        "{:?}",
        l[1].trip
    );
    assert!(unresolved(2).unwrap().contains("fill"), "{:?}", l[2].trip);
    assert!(unresolved(3).unwrap().contains("p->nx"), "{:?}", l[3].trip);
    assert!(
        unresolved(4).unwrap().contains("held in array `a`"),
        "{:?}",
        l[4].trip
    );
    assert!(
        unresolved(5).unwrap().contains("held in array `a`"),
        "{:?}",
        l[5].trip
    );
    assert_eq!(l[6].trip, e("A_2"));
}

/// A struct passed by value: what the callee writes stays in its copy.
#[test]
fn a_struct_passed_by_value_keeps_the_callers_members() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
struct grid { int nx; };
void shrink(struct grid q) { q.nx = 1; }
int main(int argc, char **argv) {
    struct grid g;
    int i;
    MPI_Init(&argc, &argv);
    g.nx = atoi(argv[1]);
    shrink(g);
    for (i = 0; i < g.nx; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("byval.c", src);
    assert_eq!(loops(&apt)[0].trip, e("NX"));
}

#[test]
fn parameters_packed_into_an_array_and_broadcast_are_followed() {
    let src = r#"
program packed
  use mpi
  implicit none
  integer :: n, niter, rank, ierr, i, it
  integer :: ibuf(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    read (*, *) n, niter
    ibuf(1) = n
    ibuf(2) = niter
  end if
  call MPI_Bcast(ibuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  n = ibuf(1)
  niter = ibuf(2)
  do it = 1, niter
    do i = 1, n
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
  end do
  call MPI_Finalize(ierr)
end program packed
"#;
    let apt = apt_of("packed.f90", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("NITER"));
    assert_eq!(l[1].trip, e("N"));
}

#[test]
fn a_struct_and_a_c_array_broadcast_by_the_root_give_what_it_read() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
struct params { int n; int iters; };
int main(int argc, char **argv) {
    struct params prm;
    int rank, i, ibuf[2], m, w;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        prm.n = atoi(argv[1]);
        prm.iters = atoi(argv[2]);
        ibuf[0] = atoi(argv[3]);
        ibuf[1] = 4 * prm.n;
    }
    MPI_Bcast(&prm, sizeof(prm), MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(ibuf, 2, MPI_INT, 0, MPI_COMM_WORLD);
    w = ibuf[1];
    for (i = 0; i < prm.iters; i++)
        MPI_Allreduce(MPI_IN_PLACE, &m, prm.n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < ibuf[0]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < w; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("bstruct.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("ITERS"));
    assert_eq!(comms(&apt)[2].bytes, Some(e("8*N")));
    assert_eq!(l[1].trip, e("IBUF_0"));
    assert_eq!(l[2].trip, e("4*N"));
}

/// Without a broadcast, a member set only on the root stays unknown on the other ranks.
#[test]
fn a_member_set_only_by_the_root_is_not_known_without_a_broadcast() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
struct params { int n; };
int main(int argc, char **argv) {
    struct params prm;
    int rank, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) prm.n = atoi(argv[1]);
    MPI_Recv(&prm, sizeof(prm), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < prm.n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("norecv.c", src);
    assert_eq!(
        loops(&apt)[0].trip.unresolved(),
        Some("bound set by MPI_Recv at line 11")
    );
}

/// A global struct: members set in `main` reach the procedures it calls, and members a
/// procedure reads from stdin reach `main`.
#[test]
fn members_of_a_global_struct_cross_calls() {
    let src = r#"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
struct config { int nx, iters; } cfg;
void read_config(void) { scanf("%d", &cfg.iters); }
void sweep(void) {
    int i;
    for (i = 0; i < cfg.nx; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
    int it;
    MPI_Init(&argc, &argv);
    cfg.nx = atoi(argv[1]);
    read_config();
    for (it = 0; it < cfg.iters; it++)
        sweep();
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("global.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("NX"));
    assert_eq!(l[1].trip, e("ITERS"));
}

/// The root packs what it read in a subroutine; the broadcast array still gives it.
#[test]
fn an_array_packed_by_a_subroutine_and_broadcast_is_followed() {
    let src = r#"
subroutine pack(ibuf, n, niter)
  integer :: ibuf(2), n, niter
  ibuf(1) = n
  ibuf(2) = 2 * niter
end subroutine pack

program main
  use mpi
  integer :: n, niter, rank, ierr, i
  integer :: ibuf(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    read (*, *) n, niter
    call pack(ibuf, n, niter)
  end if
  call MPI_Bcast(ibuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, ibuf(2)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program main
"#;
    let apt = apt_of("pack.f90", src);
    assert_eq!(loops(&apt)[0].trip, e("2*NITER"));
}

/// What the root stored in an element is forgotten when the array is overwritten whole
/// before the broadcast, and two different stores give no value.
#[test]
fn stores_overwritten_before_the_broadcast_are_not_followed() {
    let src = r#"
program stale
  use mpi
  integer :: n, m, rank, ierr, i
  integer :: ibuf(2), jbuf(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    read (*, *) n, m
    ibuf(1) = n
    read (10, *) ibuf
    jbuf(1) = n
  else
    jbuf(1) = m
  end if
  call MPI_Bcast(ibuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(jbuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, ibuf(1)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  do i = 1, jbuf(1)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program stale
"#;
    let apt = apt_of("stale.f90", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip.unresolved(), Some("bound held in array `ibuf`"));
    assert_eq!(l[1].trip.unresolved(), Some("bound held in array `jbuf`"));
}

const GRID_F: &str = r#"
module geom
  implicit none
  type grid
    integer :: nx, ny, np
    integer :: halo(2)
  end type grid
contains
  subroutine setup(g, n, p)
    type(grid), intent(out) :: g
    integer, intent(in) :: n, p
    g%nx = n
    g%ny = 2 * n
    g%np = p
    g%halo(1) = 1
  end subroutine setup
end module geom

program relax
  use mpi
  use geom
  implicit none
  type(grid) :: t, u
  integer :: n, p, i, k, ierr
  double precision :: buf(100000)
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call setup(t, n, p)
  do k = 1, t%ny
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  do i = 1, t%nx / t%np
    call MPI_Send(buf, t%halo(1) * t%nx, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
  end do
  call get_command_argument(2, arg)
  read (arg, *) u%nx
  do i = 1, u%nx
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  u = t
  do i = 1, u%nx
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program relax
"#;

#[test]
fn fortran_components_are_followed_like_struct_members() {
    let apt = apt_of("relax.f90", GRID_F);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("2*N"));
    assert_eq!(l[1].trip, e("N/P"));
    // the barriers come first
    assert_eq!(comms(&apt)[1].bytes, Some(e("8*N")));
    // a component read from input is a parameter named by its last member
    assert_eq!(l[2].trip, e("NX"));
    let nx = apt.params.iter().find(|p| p.name == "NX").unwrap();
    assert_eq!(nx.source_name, "u%nx");
    // a whole-variable assignment forgets the components
    assert!(l[3].trip.unresolved().is_some(), "{:?}", l[3].trip);
}
