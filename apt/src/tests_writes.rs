//! Unit tests of what computation phases may write and which variable a send's buffer is
//! (C and Fortran through the real front end), and of `may_rewrite` on them: the shift loop
//! rewriting what it sent, a loop writing another array, writes through callees (Fortran
//! dummies, C pointer parameters, transitively and recursively), derived-type components and
//! struct members, pointers with known and unknown targets, external routines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use crate::tests::{apt_of, calls, comms, loops, set};
use crate::{call_may_rewrite, may_rewrite, Apt, CommFacts, LoopNode, SendBuffer, SiteId};

fn phases(apt: &crate::Apt) -> Vec<&LoopNode> {
    loops(apt).into_iter().filter(|l| l.compute).collect()
}

/// What the call at `site` may write, in the caller's names (`None`: unknown).
fn call_writes(apt: &Apt, site: SiteId) -> Option<BTreeSet<String>> {
    apt.call_writes.get(&site).and_then(|w| w.clone().ok())
}

fn named(c: &CommFacts) -> BTreeSet<String> {
    match &c.buffer {
        Some(SendBuffer::Named(n)) => n.clone(),
        other => panic!("buffer not named: {other:?}"),
    }
}

const SHIFT_C: &str = r#"
#include <mpi.h>
#define N 1000
double a[N], b[N];
int main(int argc, char **argv) {
    int i, it, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (it = 0; it < 10; it++) {
        MPI_Send(a, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        for (i = 0; i < N; i++)
            a[i] = 0.75 * a[i] + 0.5 * b[i];
        for (i = 0; i < N; i++)
            b[i] = 0.5 * a[i];
        MPI_Recv(b, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn shift_loop_rewrites_the_array_it_sent_and_a_loop_over_another_does_not() {
    let apt = apt_of("shift.c", SHIFT_C);
    let p = phases(&apt);
    assert_eq!(p.len(), 2);
    // loop counters are written too: harmless, no buffer is a counter
    assert_eq!(p[0].writes, Some(set(&["a", "i"])));
    assert_eq!(p[1].writes, Some(set(&["b", "i"])));
    let c = comms(&apt);
    assert_eq!(named(c[0]), set(&["a"]));
    assert!(may_rewrite(p[0], c[0]));
    assert!(!may_rewrite(p[1], c[0]));
    // a receive sends nothing: no buffer, nothing to rewrite
    assert_eq!(c[1].buffer, None);
    assert!(!may_rewrite(p[0], c[1]));
}

const UPDATE_F90: &str = r#"
module kernels
contains
  subroutine bump(x, n)
    integer :: n, i
    double precision :: x(n)
    do i = 1, n
      x(i) = x(i) + 1.0d0
    end do
  end subroutine
  subroutine update(u, n)
    integer :: n
    double precision :: u(n)
    call bump(u, n)
  end subroutine
  subroutine reader(v, n)
    integer :: n
    double precision :: v(n), s
    s = sum(v)
  end subroutine
end module

program main
  use mpi
  use kernels
  implicit none
  integer, parameter :: n = 64
  double precision :: u(n, n), w(n, n)
  integer :: j, ierr
  call mpi_init(ierr)
  do j = 1, n
    call mpi_send(u(1, j), n, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  end do
  do j = 1, n
    call update(u(1, j), n)
  end do
  do j = 1, n
    call reader(u(1, j), n)
    call update(w(1, j), n)
  end do
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn fortran_dummies_written_in_callees_map_to_the_actuals() {
    let apt = apt_of("update.f90", UPDATE_F90);
    let send = comms(&apt)[0];
    assert_eq!(named(send), set(&["u"]));
    let p = phases(&apt);
    // bump's loop and reader's `sum(v)` (an implicit loop); main's loops call routines that
    // loop, so they are composed from those phases rather than phases of their own
    let [_, sum] = p.as_slice() else {
        panic!("{p:?}")
    };
    assert_eq!(sum.writes, Some(set(&["s"])));
    // update passes u on to bump, which assigns its dummy
    let [upd_u, upd_w] = calls(&apt, "update")[..] else {
        panic!("two calls of update")
    };
    assert_eq!(call_writes(&apt, upd_u), Some(set(&["u"])));
    assert!(call_may_rewrite(&apt, upd_u, send));
    // reader only reads its dummy; w is another array
    let [read] = calls(&apt, "reader")[..] else {
        panic!("one call of reader")
    };
    assert_eq!(call_writes(&apt, read), Some(set(&[])));
    assert!(!call_may_rewrite(&apt, read, send));
    assert_eq!(call_writes(&apt, upd_w), Some(set(&["w"])));
    assert!(!call_may_rewrite(&apt, upd_w, send));
}

const TYPES_F90: &str = r#"
module fields
  type field
    double precision :: u(100)
    double precision :: v(100)
  end type
end module

program main
  use mpi
  use fields
  implicit none
  type(field) :: t, s
  integer :: i, ierr
  call mpi_init(ierr)
  call mpi_send(t%u, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  do i = 1, 100
    t%u(i) = 2.0d0 * i
  end do
  do i = 1, 100
    s%v(i) = 1.0d0
  end do
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn derived_type_components_are_named_by_path() {
    let apt = apt_of("types.f90", TYPES_F90);
    let send = comms(&apt)[0];
    assert_eq!(named(send), set(&["t%u"]));
    let p = phases(&apt);
    assert_eq!(p[0].writes, Some(set(&["i", "t%u"])));
    assert!(may_rewrite(p[0], send));
    assert_eq!(p[1].writes, Some(set(&["i", "s%v"])));
    assert!(!may_rewrite(p[1], send));
}

const SIBLINGS_F90: &str = r#"
module fields
  type field
    double precision :: u(100)
    double precision :: v(100)
    integer :: step
  end type
end module

program main
  use mpi
  use fields
  implicit none
  type(field) :: t, s
  integer :: i, ierr
  call mpi_init(ierr)
  call mpi_send(t%u, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(t, 201, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  do i = 1, 100
    t%v(i) = 2.0d0 * i
  end do
  do i = 1, 100
    t%step = i
  end do
  do i = 1, 3
    t = s
  end do
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn a_sibling_component_is_not_the_sent_one_the_whole_variable_is() {
    let apt = apt_of("siblings.f90", SIBLINGS_F90);
    let c = comms(&apt);
    let (part, whole) = (c[0], c[1]);
    assert_eq!(named(whole), set(&["t"]));
    let p = phases(&apt);
    let [v, step, all] = p.as_slice() else {
        panic!("{p:?}")
    };
    assert_eq!(v.writes, Some(set(&["i", "t%v"])));
    assert_eq!(step.writes, Some(set(&["i", "t%step"])));
    assert_eq!(all.writes, Some(set(&["i", "t"])));
    // `t%v` and `t%step` are beside `t%u`, not in it
    assert!(!may_rewrite(v, part) && !may_rewrite(step, part));
    // the whole of `t` holds `t%u`, both ways round
    assert!(may_rewrite(all, part));
    assert!(may_rewrite(v, whole) && may_rewrite(step, whole));
}

const SIBLINGS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
struct grid { double *u; double *v; int n; };
int main(int argc, char **argv) {
    int i, n = 100;
    struct grid g, h;
    MPI_Init(&argc, &argv);
    g.u = malloc(n * sizeof(double));
    g.v = malloc(n * sizeof(double));
    MPI_Send(&g.u[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&g, sizeof(g), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    for (i = 0; i < n; i++) g.v[i] = 1.0;
    for (i = 0; i < n; i++) g.n = i;
    for (i = 0; i < 3; i++) g = h;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_sibling_member_is_not_the_sent_one_the_whole_struct_is() {
    let apt = apt_of("siblings.c", SIBLINGS_C);
    let c = comms(&apt);
    let (part, whole) = (c[0], c[1]);
    assert_eq!(named(part), set(&["g.u"]));
    assert_eq!(named(whole), set(&["g"]));
    let p = phases(&apt);
    let [v, n, all] = p.as_slice() else {
        panic!("{p:?}")
    };
    assert_eq!(v.writes, Some(set(&["g.v", "i"])));
    assert_eq!(n.writes, Some(set(&["g.n", "i"])));
    assert_eq!(all.writes, Some(set(&["g", "i"])));
    assert!(!may_rewrite(v, part) && !may_rewrite(n, part));
    assert!(may_rewrite(all, part));
    assert!(may_rewrite(v, whole) && may_rewrite(n, whole));
}

const POINTERS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
struct grid { double *u; int n; };
double *unknown_place(int n);
void ext(double *x, int n);
void scale(double *x, int n) {
    int i;
    for (i = 0; i < n; i++) x[i] = 2.0 * x[i];
}
void twice(double *y, int n, int depth) {
    if (depth > 0) twice(y, n, depth - 1);
    else scale(y, n);
}
int main(int argc, char **argv) {
    int i, n = 100;
    double a[100], c[100];
    double *buf = malloc(n * sizeof(double));
    double *other = malloc(n * sizeof(double));
    double *p = a;
    double *q = unknown_place(n);
    struct grid g;
    MPI_Init(&argc, &argv);
    g.u = malloc(n * sizeof(double));
    MPI_Send(buf, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&a[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&g.u[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(a + 10, n - 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(unknown_place(n), n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    for (i = 0; i < n; i++) buf[i] = i;
    for (i = 0; i < n; i++) other[i] = i;
    for (i = 0; i < n; i++) p[i] = 1.0;
    for (i = 0; i < n; i++) g.u[i] = 0.0;
    for (i = 0; i < n; i++) *q = i;
    for (i = 0; i < 2; i++) ext(c, n);
    for (i = 0; i < 2; i++) twice(a, n, 3);
    for (i = 0; i < n; i++) c[i] = 0.0;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn c_pointers_are_named_by_what_they_point_to_or_unknown() {
    let apt = apt_of("pointers.c", POINTERS_C);
    let c = comms(&apt);
    let (buf, a0, gu, shifted) = (c[0], c[1], c[2], c[3]);
    assert_eq!(named(buf), set(&["buf"]));
    assert_eq!(named(a0), set(&["a"]));
    assert_eq!(named(gu), set(&["g.u"]));
    assert_eq!(named(shifted), set(&["a"]));
    assert!(matches!(c[4].buffer, Some(SendBuffer::Unknown(_))));
    let p = phases(&apt);
    // scale's loop writes through its pointer parameter
    assert_eq!(p[0].writes, Some(set(&["i", "x"])));
    let main = &p[1..];
    let [bufw, otherw, pw, guw, qw, extw, cw] = main else {
        panic!("{main:?}")
    };
    assert_eq!(bufw.writes, Some(set(&["buf", "i"])));
    assert!(may_rewrite(bufw, buf));
    assert!(!may_rewrite(otherw, buf));
    // p points to a: a write through p may rewrite what `&a[0]` and `a + 10` sent
    assert_eq!(pw.writes, Some(set(&["a", "i", "p"])));
    assert!(may_rewrite(pw, a0) && may_rewrite(pw, shifted));
    assert!(!may_rewrite(pw, buf));
    assert_eq!(guw.writes, Some(set(&["g.u", "i"])));
    assert!(may_rewrite(guw, gu));
    // q comes from a routine apt cannot see: unknown, so the term is offered
    assert_eq!(qw.writes, None);
    assert!(qw.writes_unknown.as_deref().unwrap().contains("`q`"));
    assert!(may_rewrite(qw, buf));
    // an external routine receiving an array
    assert_eq!(extw.writes, None);
    assert!(extw.writes_unknown.as_deref().unwrap().contains("ext"));
    assert!(may_rewrite(extw, buf));
    // recursive callee passing its pointer on to scale, which writes through it (the loop
    // calling it is composed from scale's phase, not one of its own)
    let rec = *calls(&apt, "twice").last().unwrap();
    assert_eq!(call_writes(&apt, rec), Some(set(&["a"])));
    assert!(call_may_rewrite(&apt, rec, a0));
    assert!(!may_rewrite(cw, a0));
    // an unknown buffer may be anything
    assert!(may_rewrite(cw, c[4]));
}

const MISC_C: &str = r#"
#include <mpi.h>
typedef void (*kernel_t)(double *, int);
kernel_t pick(int k);
int main(int argc, char **argv) {
    int i, n = 10;
    double a[10], r[10];
    kernel_t k = pick(n);
    MPI_Init(&argc, &argv);
    MPI_Sendrecv(a, n, MPI_DOUBLE, 1, 0, r, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < 2; i++) k(a, n);
    for (i = 0; i < n; i++) *(r + i) = 0.0;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn send_buffers_of_combined_and_collective_operations() {
    let apt = apt_of("misc.c", MISC_C);
    let c = comms(&apt);
    assert_eq!(named(c[0]), set(&["a"]), "sendrecv: its send buffer");
    assert_eq!(
        named(c[1]),
        set(&["r"]),
        "in place: the receive buffer is sent"
    );
    assert_eq!(named(c[2]), set(&["a"]), "bcast: the root sends its buffer");
    assert_eq!(c[3].buffer, None, "a barrier sends no data");
    let p = phases(&apt);
    // a call through a pointer apt cannot resolve, and a write apt keeps as text
    assert_eq!(p[0].writes, None);
    assert!(p[0].writes_unknown.as_deref().unwrap().contains("pointer"));
    assert_eq!(p[1].writes, None);
    assert!(may_rewrite(p[0], c[0]) && may_rewrite(p[1], c[1]));
}

const SHARED_F90: &str = r#"
program main
  use mpi
  implicit none
  double precision :: x(100), u(100)
  common /blk/ x
  integer :: i, ierr
  call mpi_init(ierr)
  call mpi_send(x, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(u, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  do i = 1, 10
    call fill
  end do
  do i = 1, 10
    call smooth()
  end do
  call mpi_finalize(ierr)
contains
  subroutine smooth()
    integer :: k
    do k = 1, 100
      u(k) = 0.5d0 * u(k)
    end do
  end subroutine
end program

subroutine fill
  double precision :: y(100)
  common /blk/ y
  integer :: j
  do j = 1, 100
    y(j) = 1.0d0
  end do
end subroutine
"#;

#[test]
fn common_blocks_and_host_variables_written_by_callees() {
    let apt = apt_of("shared.f90", SHARED_F90);
    let c = comms(&apt);
    // COMMON storage is also named by its block and position (laid out alike in both
    // procedures): `fill` calls it `y`
    assert_eq!(named(c[0]), set(&["/blk/%0", "x"]));
    assert_eq!(named(c[1]), set(&["u"]));
    let p = phases(&apt);
    let fill = p.iter().find(|l| l.var.as_deref() == Some("j")).unwrap();
    assert_eq!(fill.writes, Some(set(&["/blk/%0", "j", "y"])));
    // main's loops call routines that loop: no phases of their own, the calls write
    assert!(p.iter().all(|l| l.var.as_deref() != Some("i")), "{p:?}");
    let fill = calls(&apt, "fill")[0];
    assert_eq!(call_writes(&apt, fill), Some(set(&["/blk/%0"])));
    assert!(call_may_rewrite(&apt, fill, c[0]));
    assert!(!call_may_rewrite(&apt, fill, c[1]));
    // the contained procedure writes its host's `u`
    let smooth = calls(&apt, "smooth")[0];
    assert_eq!(call_writes(&apt, smooth), Some(set(&["u"])));
    assert!(call_may_rewrite(&apt, smooth, c[1]));
    assert!(!call_may_rewrite(&apt, smooth, c[0]));
}

const COMMON_F77: &str = r#"
      PROGRAM WV
      INCLUDE 'mpif.h'
      INTEGER N, NX, NY, NSTEP, IERR
      DOUBLE PRECISION U(100), V(100)
      COMMON /GRIDC/ NX, NY
      COMMON /FIELD/ U, V, NSTEP
      CALL MPI_INIT(IERR)
      N = 100
      CALL SETUP(N)
      CALL MPI_SEND(U, NX, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, IERR)
      CALL STEP
      CALL MPI_SEND(V, NX, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, IERR)
      CALL COUNT
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE SETUP(N)
      INTEGER N, NX, NY
      COMMON /GRIDC/ NX, NY
      NX = N / 2
      NY = N
      END

      SUBROUTINE STEP
      INTEGER NSTEP, I
      DOUBLE PRECISION A(100), B(100)
      COMMON /FIELD/ A, B, NSTEP
      DO 10 I = 1, 100
      B(I) = 0.5D0 * A(I)
   10 CONTINUE
      END

      SUBROUTINE COUNT
      INTEGER NSTEP
      DOUBLE PRECISION A(100), B(100)
      COMMON /FIELD/ A, B, NSTEP
      NSTEP = NSTEP + 1
      END
"#;

/// Trial 22 E14: a routine setting COMMON scalars wrote nothing its callers could see, and
/// any write to a block was a write to all of it. A block laid out alike in every procedure
/// names each member by its position: `STEP` writes `/field/`'s second array, not the first,
/// and `COUNT`'s counter is neither.
#[test]
fn common_members_are_named_by_their_block_and_position() {
    let apt = apt_of("wv.f", COMMON_F77);
    let setup = calls(&apt, "setup")[0];
    assert_eq!(
        call_writes(&apt, setup),
        Some(set(&["/gridc/%0", "/gridc/%1"]))
    );
    let c = comms(&apt);
    assert_eq!(named(c[0]), set(&["/field/%0", "u"]));
    assert_eq!(named(c[1]), set(&["/field/%1", "v"]));
    let step = calls(&apt, "step")[0];
    assert_eq!(call_writes(&apt, step), Some(set(&["/field/%1"])));
    assert!(!call_may_rewrite(&apt, step, c[0]));
    assert!(call_may_rewrite(&apt, step, c[1]));
    let count = calls(&apt, "count")[0];
    assert!(!call_may_rewrite(&apt, count, c[0]) && !call_may_rewrite(&apt, count, c[1]));
    // laid out otherwise in one procedure (one array of 200 where the others have two of
    // 100): the whole block names every member, and any write to it may be any of them
    let other = COMMON_F77.replace(
        "      SUBROUTINE COUNT\n      INTEGER NSTEP\n      DOUBLE PRECISION A(100), B(100)\n      COMMON /FIELD/ A, B, NSTEP",
        "      SUBROUTINE COUNT\n      INTEGER NSTEP\n      DOUBLE PRECISION A(200)\n      COMMON /FIELD/ A, NSTEP",
    );
    assert_ne!(other, COMMON_F77);
    let apt = apt_of("wv.f", &other);
    let c = comms(&apt);
    assert_eq!(named(c[0]), set(&["/field/", "u"]));
    let count = calls(&apt, "count")[0];
    assert!(call_may_rewrite(&apt, count, c[0]));
}

const ROWS_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
double *rows[4];
int main(int argc, char **argv) {
    int i, j;
    double grid[4][10];
    MPI_Init(&argc, &argv);
    for (i = 0; i < 4; i++) rows[i] = malloc(10 * sizeof(double));
    MPI_Send(rows[1], 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(grid[1], 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    for (i = 0; i < 4; i++) for (j = 0; j < 10; j++) rows[i][j] = 0;
    for (i = 0; i < 4; i++) for (j = 0; j < 10; j++) grid[i][j] = 0;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn pointers_held_in_arrays_are_unknown_rows_of_2d_arrays_are_not() {
    let apt = apt_of("rows.c", ROWS_C);
    let c = comms(&apt);
    assert!(matches!(c[0].buffer, Some(SendBuffer::Unknown(_))));
    assert_eq!(named(c[1]), set(&["grid"]));
    let p = phases(&apt);
    assert_eq!(p[0].writes, Some(set(&["i", "rows"])));
    assert_eq!(p[1].writes, None);
    assert_eq!(p[2].writes, Some(set(&["grid", "i", "j"])));
    assert!(may_rewrite(p[2], c[1]));
}

const EQUIV_F: &str = "      program main
      include 'mpif.h'
      double precision a(100), b(100), c(100)
      equivalence (a(1), b)
      integer i, ierr
      call mpi_init(ierr)
      call mpi_send(a, 100, MPI_DOUBLE_PRECISION, 1, 0,
     &              MPI_COMM_WORLD, ierr)
      do i = 1, 100
         b(i) = 0.0d0
      end do
      do i = 1, 100
         c(i) = 0.0d0
      end do
      call mpi_finalize(ierr)
      end
";

#[test]
fn equivalenced_arrays_share_their_names() {
    let apt = apt_of("equiv.f", EQUIV_F);
    let send = comms(&apt)[0];
    assert_eq!(named(send), set(&["a", "b"]));
    let p = phases(&apt);
    assert_eq!(p[0].writes, Some(set(&["a", "b", "i"])));
    assert!(may_rewrite(p[0], send));
    assert!(!may_rewrite(p[1], send));
}

const MEMBER_POINTEES_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
typedef struct { int n; double *f; double *u; } grid_t;
static void init(grid_t *g, int n) {
    int i;
    for (i = 0; i < n; i++) g->f[i] = 0.0;
    MPI_Send(&g->u[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(g, sizeof(grid_t), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
    int i;
    grid_t grid, *p = &grid;
    MPI_Init(&argc, &argv);
    for (i = 0; i < 10; i++) p->u[i] = 1.0;
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_write_through_a_pointer_member_names_the_member_path_not_the_root() {
    let apt = apt_of("members.c", MEMBER_POINTEES_C);
    let c = comms(&apt);
    let (u, whole) = (c[0], c[1]);
    assert_eq!(named(u), set(&["g->u"]));
    assert_eq!(named(whole), set(&["g"]));
    let p = phases(&apt);
    // trial 4: `g->f[i]` writes g->f, not all of g
    assert_eq!(p[0].writes, Some(set(&["g->f", "i"])));
    assert!(!may_rewrite(p[0], u));
    assert!(may_rewrite(p[0], whole));
    // through a pointer to a local struct: the path, and the struct it points to
    assert_eq!(p[1].writes, Some(set(&["grid", "i", "p->u"])));
}

/// Trial 27: a component of one element of an array of derived type (`p(i)%alive = .false.`)
/// is one element written, not an array assignment over all of `p` (whose instrumented
/// `size(p(i)%alive)` did not compile); a component of a section (`p(:)%e = 0`) is one over
/// the section. Either writes `p`.
#[test]
fn a_component_of_one_element_is_no_array_assignment() {
    let src = r#"module m
  implicit none
  type :: pt
     double precision :: pos(3)
     double precision :: e
     logical :: alive
  end type pt
contains
  subroutine init(p, n)
    integer, intent(in) :: n
    type(pt), intent(inout) :: p(n)
    integer :: i
    do i = 1, n
       p(i)%e = 1d0
       p(i)%alive = .true.
    end do
    p(:)%e = 0d0
  end subroutine init
end module m
"#;
    let apt = crate::tests::apt_of("comp.f90", src);
    let loops = crate::tests::loops(&apt);
    let shown: Vec<(Option<String>, Option<String>)> = loops
        .iter()
        .map(|l| (l.var.clone(), l.array.clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (Some("i".to_string()), None),
            (None, Some("p(:)%e".to_string()))
        ],
        "{loops:#?}"
    );
    assert!(
        loops[0].writes.as_ref().unwrap().contains("p"),
        "{loops:#?}"
    );
}
