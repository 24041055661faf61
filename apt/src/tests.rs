//! Unit tests of the propagation rules on small programs (C and Fortran through the real
//! front end): constants, branch merges, triangular nests, loop-variant values, binding
//! through calls, wildcard peers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::{build, Apt, AptOptions, Attr, Node, NodeData};
use symbolic::{parse, Expr};

pub(crate) fn apt_of(name: &str, src: &str) -> Apt {
    let lowered = frontend::load_str(name, src, &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    build(&lowered, &AptOptions::default())
}

pub(crate) fn loops(apt: &Apt) -> Vec<&crate::LoopNode> {
    apt.nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            NodeData::Loop(l) => Some(l),
            _ => None,
        })
        .collect()
}

/// The COMM nodes that move data, in pre-order (a communicator's creation is a COMM node
/// too, costed as a collective, but these tests are about messages).
pub(crate) fn comms(apt: &Apt) -> Vec<&crate::CommFacts> {
    apt.nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            NodeData::Comm(c) if !c.op.makes_communicator() => Some(c),
            _ => None,
        })
        .collect()
}

/// A set of names, as `writes` and send buffers hold them.
pub(crate) fn set(names: &[&str]) -> std::collections::BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// CALL sites of `callee`, in pre-order.
pub(crate) fn calls(apt: &Apt, callee: &str) -> Vec<crate::SiteId> {
    apt.nodes()
        .into_iter()
        .filter(|n| matches!(&n.data, NodeData::Call { callee: c, .. } if c == callee))
        .map(|n| n.site)
        .collect()
}

pub(crate) fn e(s: &str) -> Attr {
    Attr::Expr(parse(s).unwrap())
}

pub(crate) fn eval(a: &Attr, vars: &[(&str, f64)]) -> f64 {
    let e: &Expr = a
        .expr()
        .unwrap_or_else(|| panic!("not an expression: {a:?}"));
    e.eval(&|v| vars.iter().find(|(n, _)| *n == v).map(|(_, x)| *x))
        .unwrap()
}

const CONSTS: &str = r#"
#include <mpi.h>
#include <stdlib.h>
#define M 4
double a[100];
int main(int argc, char **argv) {
    int n, p, r, m2, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    n = atoi(argv[1]);
    m2 = 2 * n / p + M;
    for (i = 0; i < m2; i++) a[i] = 0;
    MPI_Send(a, m2 % 3, MPI_DOUBLE, (r + 1) % p, 5, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn constant_propagation_substitutes_along_def_use_chains() {
    let apt = apt_of("c.c", CONSTS);
    assert_eq!(loops(&apt)[0].trip, e("2*N/P + M"));
    let send = comms(&apt)[0];
    // m2 % 3 = m2 - 3*floor(m2/3); (rank+1) % P likewise
    assert_eq!(
        send.bytes,
        Some(e("8*((2*N/P + M) - 3*floor((2*N/P + M)/3))"))
    );
    assert_eq!(send.peer, Some(e("rank + 1 - P*floor((rank + 1)/P)")));
    assert_eq!(send.tag, Some(e("5")));
    let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["N", "P", "rank", "M"]);
    assert_eq!(
        apt.params[3].origin,
        crate::ParamOrigin::Constant { default: 4.0 }
    );
}

#[test]
fn branch_merge_keeps_values_only_when_arms_agree() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, r, x, y, i;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    n = atoi(argv[1]);
    if (r == 0) { x = n; y = 1; } else { x = n; y = 2; }
    for (i = 0; i < x; i++) MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < y; i++) MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0) { MPI_Abort(MPI_COMM_WORLD, 1); y = 7; } else { y = 1; }
    for (i = 0; i < y; i++) MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}
"#;
    let apt = apt_of("m.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("bound differs between branches at line 8".into())
    );
    // an arm ending in MPI_Abort does not fall through: only y = 1 reaches the loop
    assert_eq!(l[2].trip, e("1"));
}

#[test]
fn triangular_nest_gives_its_true_total() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
double a[1000];
int main(int argc, char **argv) {
    int n, i, j;
    n = atoi(argv[1]);
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            a[j] = a[j] - a[i];
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}
"#;
    let apt = apt_of("t.c", src);
    let l = loops(&apt);
    assert_eq!(l[1].trip, e("N - i - 1"));
    let total = l[1].trip_total.as_ref().unwrap();
    assert!(
        total.expr().unwrap().vars().iter().all(|v| v == "N"),
        "{total:?}"
    );
    for n in [1.0, 7.0, 10.0] {
        assert_eq!(eval(total, &[("N", n)]), n * (n - 1.0) / 2.0);
    }
    // the outer loop is the computation phase; its work is the same sum
    assert!(l[0].compute && !l[1].compute);
    assert_eq!(eval(l[0].work.as_ref().unwrap(), &[("N", 10.0)]), 45.0);
}

#[test]
fn values_assigned_in_loops_are_unresolved_with_the_line() {
    let src = r#"
#include <mpi.h>
int main(int argc, char **argv) {
    int k, i, j;
    k = 0;
    for (i = 0; i < 10; i++) {
        k = k + 1;
        for (j = 0; j < k; j++) MPI_Barrier(MPI_COMM_WORLD);
    }
    for (j = 0; j < k; j++) MPI_Barrier(MPI_COMM_WORLD);
    while (k > 0) { k = k - 1; }
    return 0;
}
"#;
    let apt = apt_of("v.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("10"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("bound assigned in loop at line 6".into())
    );
    // after the loop `k` has been stepped by 1 on each of its 10 iterations
    // (tests_counters)
    assert_eq!(l[2].trip, e("10"));
    assert_eq!(l[3].trip, Attr::Unresolved("while loop".into()));
}

const CALLS: &str = r#"
program t
  use mpi
  implicit none
  integer :: n, ierr
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  call work(n, 3)
  call work(n, 3)
  call other(n)
  call other(2 * n)
end program t

subroutine work(m, k)
  use mpi
  integer :: m, k, i, ierr
  do i = 1, m * k
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
end subroutine work

subroutine other(m)
  integer :: m, i
  do i = 1, m
  end do
end subroutine other

recursive subroutine rec(m)
  integer :: m, i
  do i = 1, m
  end do
  if (m > 1) call rec(m - 1)
end subroutine rec
"#;

#[test]
fn formals_bind_when_all_call_sites_agree() {
    let apt = apt_of("calls.f90", CALLS);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("3*N"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved(
            "bound argument `m` of `other` differs between call sites: N at line 11, 2*N at line 12"
                .into()
        )
    );
    assert_eq!(
        l[2].trip,
        Attr::Unresolved("bound argument `m` of `rec`: `rec` is recursive".into())
    );
    let calls: Vec<&Node> = apt
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.data, NodeData::Call { .. }))
        .collect();
    assert_eq!(calls.len(), 5);
    // `work` communicates: its loop is not a computation phase; `other`'s is
    assert!(!l[0].compute && l[1].compute);
}

#[test]
fn wildcard_and_null_peers() {
    let src = r#"
#include <mpi.h>
int main(int argc, char **argv) {
    int buf[4], src;
    MPI_Status st;
    MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    src = MPI_PROC_NULL;
    MPI_Send(buf, 2, MPI_CHAR, src, 1, MPI_COMM_WORLD);
    MPI_Send(buf, 2, mytype, 0, 1, MPI_COMM_WORLD);
    return 0;
}
"#;
    let apt = apt_of("w.c", src);
    let c = comms(&apt);
    assert_eq!(
        (c[0].peer.clone(), c[0].tag.clone(), c[0].bytes.clone()),
        (Some(Attr::Any), Some(Attr::Any), Some(e("16")))
    );
    assert_eq!(
        (c[1].peer.clone(), c[1].bytes.clone()),
        (Some(Attr::Null), Some(e("2")))
    );
    assert_eq!(
        c[2].bytes,
        Some(Attr::Unresolved("derived datatype `mytype`".into()))
    );
    let json = crate::render::to_json(&apt);
    let first = &json["routines"][0]["children"][0];
    assert_eq!(
        (first["peer"].as_str(), first["tag"].as_str()),
        (Some("any"), Some("any"))
    );
}

#[test]
fn site_ids_are_preorder_and_stable() {
    let a = apt_of("calls.f90", CALLS);
    let b = apt_of("calls.f90", CALLS);
    let ids: Vec<u32> = a.nodes().iter().map(|n| n.site.0).collect();
    assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>());
    assert_eq!(a.sites, b.sites);
    for n in a.nodes() {
        let site = a.site(n.site).unwrap();
        assert_eq!(
            (site.kind, site.stmt, site.line),
            (n.kind(), n.stmt, n.line)
        );
    }
}

#[test]
fn common_values_set_by_a_callee_reach_the_caller_and_its_other_callees() {
    let src = r#"
program t
  use mpi
  integer :: n, nx, ierr
  common /size/ n, nx
  call read_input
  call compute
end program t

subroutine read_input
  integer :: n, nx, g(3)
  common /size/ n, nx
  read (*, *) n
  read (*, *) g
  nx = g(1)
end subroutine read_input

subroutine compute
  use mpi
  integer :: n, nx, i, ierr
  common /size/ n, nx
  do i = 1, n
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  do i = 1, nx
  end do
end subroutine compute
"#;
    let apt = apt_of("common.f90", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(apt.params[0].origin, crate::ParamOrigin::Stdin);
    assert_eq!(
        l[1].trip,
        Attr::Unresolved(
            "bound global `nx` of `compute`: `nx`: assigned by call to `read_input` at line 6: \
             held in array `g`"
                .into()
        )
    );
}

#[test]
fn inputs_with_defaults_and_side_effects_in_arguments() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, m, i, nreq = 0;
    MPI_Request reqs[2];
    double buf[8];
    n = (argc > 1) ? atoi(argv[1]) : 256;
    if (argc > 2) m = atoi(argv[2]); else m = 16;
    for (i = 0; i < n * m; i++) MPI_Barrier(MPI_COMM_WORLD);
    nreq = 0;
    MPI_Irecv(buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &reqs[nreq++]);
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return 0;
}
"#;
    let apt = apt_of("d.c", src);
    assert_eq!(loops(&apt)[0].trip, e("N*M"));
    let wait = comms(&apt)[2];
    assert_eq!(
        wait.count,
        Some(e("1")),
        "a constant step of a known count keeps it known"
    );
}

#[test]
fn broadcast_of_a_value_read_by_the_root() {
    let src = r#"
program b
  use mpi
  integer :: n, niter, rank, ierr, i
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    read (*, *) n
    read (10, *) niter
  end if
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(niter, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, n
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  do i = 1, niter
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
end program b
"#;
    let apt = apt_of("b.f90", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N"));
    assert_eq!(
        l[1].trip,
        Attr::Unresolved("bound read from a file at line 8".into())
    );
}

#[test]
fn c_bounds_changed_in_the_body_are_unresolved() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, i;
    n = atoi(argv[1]);
    for (i = 0; i < n; i++) {
        if (i % 7 == 0) n = n - 1;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return 0;
}
"#;
    let apt = apt_of("b.c", src);
    assert_eq!(
        loops(&apt)[0].trip,
        Attr::Unresolved("bound `n` changes in the loop body at line 7".into())
    );
}

/// Fortran array syntax is an implicit loop (trial-f #2: `unew(1:nx, j) = ...` and
/// `maxval(abs(...))` counted as no work): sections give their extents, whole arrays their
/// declared extents, allocatables stay unresolved with the reason.
#[test]
fn array_syntax_is_an_implicit_loop() {
    let apt = apt_of(
        "a.f90",
        r#"
program arr
  use mpi
  implicit none
  integer :: n, m, j, ierr, p
  double precision :: u(0:n + 1, 0:m + 1), c(50, 10), s
  double precision, allocatable :: w(:)
  character(len=8) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  m = n / p
  do j = 1, m
    u(1:n, j) = 0.25d0 * (u(0:n - 1, j) + u(2:n + 1, j))
  end do
  s = maxval(abs(u(1:n, 1:m) - 1.0d0))
  c = 0
  c(:, 2) = 1
  c(1:50:2, 1:3) = 2
  w = 0
  arg(1:3) = 'abc'
  u(1, 1) = s
  call MPI_Allreduce(s, s, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program arr
"#,
    );
    let ls = loops(&apt);
    let arrays: Vec<(&str, &Attr, bool)> = ls
        .iter()
        .filter_map(|l| l.array.as_deref().map(|a| (a, &l.trip, l.compute)))
        .collect();
    let texts: Vec<&str> = arrays.iter().map(|a| a.0).collect();
    // the substring assignment and the element assignment are not array syntax
    assert_eq!(
        texts,
        [
            "u(1:n, j)",
            "u(1:n, 1:m)",
            "c",
            "c(:, 2)",
            "c(1:50:2, 1:3)",
            "w"
        ]
    );
    let at = [("N", 1000.0), ("P", 4.0)];
    assert_eq!(eval(arrays[0].1, &at), 1000.0);
    assert!(!arrays[0].2, "inside the DO loop: part of its phase");
    assert_eq!(eval(arrays[1].1, &at), 1000.0 * 250.0);
    assert!(arrays[1].2, "at procedure level: a computation phase");
    assert_eq!(*arrays[2].1, e("500"));
    assert_eq!(*arrays[3].1, e("50"));
    assert_eq!(*arrays[4].1, e("75"));
    let w = arrays[5].1.unresolved().unwrap();
    assert!(w.contains("`w`") && w.contains("allocatable"), "{w}");
    // the DO loop's work is its trip times the section's extent
    let outer = ls.iter().find(|l| l.var.as_deref() == Some("j")).unwrap();
    assert!(outer.compute);
    assert_eq!(eval(outer.work.as_ref().unwrap(), &at), 250.0 * 1000.0);
}

/// A reduction over a section whose bounds the source does not resolve is unresolved with the
/// culprit, so the runs measure it; a statement calling a user function is left to the callee.
#[test]
fn array_syntax_unresolved_and_user_calls() {
    let apt = apt_of(
        "b.f90",
        r#"
module m
  implicit none
  integer :: nx
  double precision :: a(100)
contains
  double precision function f(x)
    double precision, intent(in) :: x(:)
    f = sum(x)
  end function f
  subroutine g()
    double precision :: s
    s = sum(a(1:nx))
    s = f(a(1:nx))
  end subroutine g
end module m
"#,
    );
    let ls: Vec<_> = loops(&apt)
        .into_iter()
        .filter(|l| l.array.is_some())
        .collect();
    // `sum(x)` over an assumed-shape dummy, `sum(a(1:nx))`; not `f(a(1:nx))`
    assert_eq!(ls.len(), 2, "{ls:?}");
    // the dummy's extent is its actual's, whose bound `nx` is not known
    assert!(
        ls[0]
            .trip
            .unresolved()
            .unwrap()
            .contains("`ubound(x, 1)` of `f`")
            && ls[0].trip.unresolved().unwrap().contains("`nx`"),
        "{:?}",
        ls[0].trip
    );
    assert!(
        ls[1].trip.unresolved().unwrap().contains("nx"),
        "{:?}",
        ls[1].trip
    );
    assert!(ls.iter().all(|l| l.compute));
}

/// A communicator variable holding MPI_COMM_WORLD (mpi_f08's `type(MPI_Comm) :: comm`) still
/// gives P and rank (trial-f #11 lost both).
#[test]
fn comm_world_through_a_variable() {
    let apt = apt_of(
        "f08.f90",
        r#"
program f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  integer :: rank, nprocs, i
  double precision :: s(100)
  call MPI_Init()
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nprocs)
  do i = 1, 100 / nprocs
    call MPI_Send(s, i, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), 1, comm)
  end do
  call MPI_Finalize()
end program f08
"#,
    );
    let names: Vec<&str> = apt.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["P", "rank"]);
    assert_eq!(loops(&apt)[0].trip, e("100/P"));
    let c = comms(&apt)[0];
    assert_eq!(c.peer, Some(e("rank + 1 - P*floor((rank + 1)/P)")));
}
