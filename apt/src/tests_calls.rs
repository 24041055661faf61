//! Unit tests of what a CALL node may write in the caller's names (`Apt::call_writes`) and of
//! `call_may_rewrite`: a loop moved into a helper routine still rewrites the array the caller
//! sent (trial 4, shift with `update(a, b, n)`), through C pointer parameters, Fortran
//! dummies, struct pointers (the member written, not its siblings), derived-type components,
//! globals, and stays unknown through an external routine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, comms, e, loops, set};
use crate::{call_may_rewrite, SiteId};

const SHIFT_CALL_C: &str = r#"
#include <mpi.h>
#define NMAX 65536
static double a[NMAX];
static double b[NMAX];
double total;
static void update(double *x, const double *y, int m) {
    int i;
    for (i = 0; i < m; i++)
        x[i] = 0.75 * x[i] + 0.5 * y[i];
}
static void sum(const double *x, int m) {
    int i;
    for (i = 0; i < m; i++) total += x[i];
}
static void step(double *p, double *q, int m) {
    update(q, p, m);
}
int main(int argc, char **argv) {
    int it, rank, n = 1024;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (it = 0; it < 10; it++) {
        MPI_Send(a, n, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
        update(a, b, n);
        update(b, a, n);
        sum(a, n);
        step(b, a, n);
        MPI_Recv(b, n, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Send(&total, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_helper_writing_its_pointer_parameter_rewrites_the_actual_the_caller_sent() {
    let apt = apt_of("shift_call.c", SHIFT_CALL_C);
    let c = comms(&apt);
    let (send, recv, send_total) = (c[0], c[1], c[2]);
    let upd = calls(&apt, "update");
    // step's own call of update, then main's two
    let [in_step, ab, ba] = upd.as_slice() else {
        panic!("{upd:?}")
    };
    assert_eq!(apt.call_writes[ab], Ok(set(&["a"])));
    assert_eq!(apt.call_writes[ba], Ok(set(&["b"])));
    // in step's names: its parameter q
    assert_eq!(apt.call_writes[in_step], Ok(set(&["q"])));
    assert!(call_may_rewrite(&apt, *ab, send));
    assert!(!call_may_rewrite(&apt, *ba, send));
    // a receive sends nothing
    assert!(!call_may_rewrite(&apt, *ab, recv));
    // sum reads its parameter and writes a global
    let s = calls(&apt, "sum")[0];
    assert_eq!(apt.call_writes[&s], Ok(set(&["total"])));
    assert!(!call_may_rewrite(&apt, s, send));
    assert!(call_may_rewrite(&apt, s, send_total));
    // transitively: step(b, a, n) passes a on to update's written x
    let st = calls(&apt, "step")[0];
    assert_eq!(apt.call_writes[&st], Ok(set(&["a"])));
    assert!(call_may_rewrite(&apt, st, send));
    // a site that is not a CALL node: nothing known, so the term is offered
    assert!(call_may_rewrite(&apt, SiteId(u32::MAX), send));
    let text = crate::render::to_text(&apt);
    assert!(
        text.contains("call #") && text.contains("update writes={a}"),
        "{text}"
    );
}

const UPDATE_F90: &str = r#"
module kernels
  double precision :: halo(10)
contains
  subroutine update(x, y, n)
    integer :: n, i
    double precision :: x(n), y(n)
    do i = 1, n
      x(i) = x(i) + y(i)
    end do
    halo(1) = x(1)
  end subroutine
  subroutine opaque(x, n)
    integer :: n
    double precision :: x(n)
    call ext(x)
  end subroutine
end module

program main
  use mpi
  use kernels
  implicit none
  integer, parameter :: n = 64
  double precision :: u(n), w(n)
  integer :: it, ierr
  call mpi_init(ierr)
  do it = 1, 10
    call mpi_send(u, n, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
    call mpi_send(halo, 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
    call update(w, u, n)
    call update(u, w, n)
    call opaque(w, n)
  end do
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn fortran_dummies_and_module_variables_map_to_the_callers_names() {
    let apt = apt_of("update.f90", UPDATE_F90);
    let c = comms(&apt);
    let (u, halo) = (c[0], c[1]);
    let upd = calls(&apt, "update");
    let [wu, uw] = upd.as_slice() else {
        panic!("{upd:?}")
    };
    assert_eq!(apt.call_writes[wu], Ok(set(&["halo", "w"])));
    assert_eq!(apt.call_writes[uw], Ok(set(&["halo", "u"])));
    assert!(!call_may_rewrite(&apt, *wu, u));
    assert!(call_may_rewrite(&apt, *uw, u));
    // the module variable it writes is named alike on both sides
    assert!(call_may_rewrite(&apt, *wu, halo));
    // a callee handing its dummy to a routine apt cannot see: unknown, the term is offered
    let o = calls(&apt, "opaque")[0];
    let r = apt.call_writes[&o].as_ref().unwrap_err();
    assert!(r.contains("opaque") && r.contains("ext"), "{r}");
    assert!(call_may_rewrite(&apt, o, u));
}

const MEMBERS_C: &str = r#"
#include <mpi.h>
typedef struct { int n; double *f; double *u; } grid_t;
static void relax(grid_t *g) { int i; for (i = 1; i <= g->n; i++) g->u[i] *= 0.5; }
static void fill(grid_t *g) { int i; for (i = 0; i < g->n; i++) g->f[i] = 1.0; }
int main(int argc, char **argv) {
    int it;
    grid_t g, *p = &g;
    MPI_Init(&argc, &argv);
    for (it = 0; it < 10; it++) {
        MPI_Send(&g.u[0], g.n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        relax(&g);
        fill(&g);
        relax(p);
    }
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_callee_writing_one_member_through_a_struct_pointer_writes_that_member() {
    let apt = apt_of("members.c", MEMBERS_C);
    let send = comms(&apt)[0];
    let relax = calls(&apt, "relax");
    let fill = calls(&apt, "fill")[0];
    assert_eq!(apt.call_writes[&relax[0]], Ok(set(&["g.u"])));
    assert_eq!(apt.call_writes[&fill], Ok(set(&["g.f"])));
    assert!(call_may_rewrite(&apt, relax[0], send));
    assert!(!call_may_rewrite(&apt, fill, send));
    // through a pointer to g: its member path, and g whole (what p points to)
    assert_eq!(apt.call_writes[&relax[1]], Ok(set(&["g", "p->u"])));
    assert!(call_may_rewrite(&apt, relax[1], send));
}

const COMPONENTS_F90: &str = r#"
module fields
  type field
    double precision :: u(100)
    double precision :: v(100)
  end type
contains
  subroutine setu(t)
    type(field) :: t
    integer :: i
    do i = 1, 100
      t%u(i) = 0.0d0
    end do
  end subroutine
end module

program main
  use mpi
  use fields
  implicit none
  type(field) :: s
  integer :: ierr
  call mpi_init(ierr)
  call mpi_send(s%v, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(s%u, 100, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call setu(s)
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn a_callee_writing_one_component_of_a_dummy_writes_that_component() {
    let apt = apt_of("components.f90", COMPONENTS_F90);
    let c = comms(&apt);
    let setu = calls(&apt, "setu")[0];
    assert_eq!(apt.call_writes[&setu], Ok(set(&["s%u"])));
    assert!(!call_may_rewrite(&apt, setu, c[0]));
    assert!(call_may_rewrite(&apt, setu, c[1]));
}

const ROW_FFT_C: &str = r#"
#include <mpi.h>
static void fft_row(double *x, int n) {
    int i, j, len, k;
    for (i = 1, j = 0; i < n; i++) {
        j = j ^ 1;
        if (i < j) x[i] = x[j];
    }
    for (len = 2; len <= n; len <<= 1)
        for (k = 0; k < n; k++)
            x[k] = x[k] * 0.5;
}
static double sq(double v) { return v * v; }
int main(int argc, char **argv) {
    int i, p, n;
    static double a[1 << 20];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = 1024;
    for (i = 0; i < n / p; i++)
        fft_row(a + i * n, n);
    for (i = 0; i < n; i++)
        a[i] = sq(a[i]);
    MPI_Finalize();
    return 0;
}
"#;

/// A loop calling a routine that loops (a row FFT per row) is composed bottom-up from the
/// callee's computation phases, each fitted to its own work, not one phase whose cost per
/// iteration would have to fit the callee's work as a law of the caller's iterations (trial
/// 14: `N/P*(4.9e-8*min(N, 1024) + …)`, 45–60% low beyond the traced N). A loop calling a
/// routine without loops stays a computation phase. `for (i = 1, j = 0; …)` is counted.
#[test]
fn a_loop_calling_a_routine_that_loops_is_composed_from_its_phases() {
    let apt = apt_of("rowfft.c", ROW_FFT_C);
    let phases: Vec<(u32, Option<String>)> = apt
        .nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            crate::NodeData::Loop(l) if l.compute => Some((n.line, l.trip.text().into())),
            _ => None,
        })
        .collect();
    assert_eq!(
        phases,
        vec![
            (5, Some("1023".to_string())),
            (9, Some("10".to_string())),
            (22, Some("1024".to_string())),
        ]
    );
    let caller = apt
        .nodes()
        .into_iter()
        .find(|n| n.line == 20 && matches!(n.data, crate::NodeData::Loop(_)))
        .unwrap();
    let crate::NodeData::Loop(l) = &caller.data else {
        unreachable!()
    };
    assert!(!l.compute && l.work.is_none());
    assert_eq!(calls(&apt, "fft_row").len(), 1);
}

/// The MPI_Aborts a run's parameters decide: under IFs with resolved conditions (the arm's
/// true, the earlier arms' false), not under a loop, not where a condition is unresolved.
#[test]
fn aborts_under_resolved_conditions_are_kept_with_them() {
    let src = r#"
#include <mpi.h>
#include <math.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int size, rank, q, n, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 1);
    n = atoi(argv[1]);
    q = (int)(sqrt((double)size) + 0.5);
    if (q * q != size || n % q != 0) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    } else if (n > 4096) {
        n = 4096;
    } else {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (i = 0; i < n; i++)
        if (i > 100000)
            MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("aborts.c", src);
    let got: Vec<(u32, Vec<(String, bool)>)> = apt
        .aborts
        .iter()
        .map(|a| (a.line, a.conds.clone()))
        .collect();
    let square = "floor(sqrt(P) + 0.5)^2 != P || mod(N, floor(sqrt(P) + 0.5)) != 0".to_string();
    assert_eq!(
        got,
        vec![
            (15, vec![(square.clone(), true)]),
            (19, vec![(square, false), ("N > 4096".to_string(), false)]),
        ]
    );
}

/// Trial 28's bitonic sort: `if ((nprocs & (nprocs - 1)) != 0 || n % nprocs != 0)
/// MPI_Abort(…)`. The bitwise test does not resolve, the divisibility does: the abort is
/// certain where it holds (the guard keeps that disjunct); an else path past such an IF, or a
/// conjunction with an unresolved side, says nothing.
#[test]
fn an_abort_under_a_disjunction_is_kept_with_its_resolved_disjuncts() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int nprocs, n, m;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    m = atoi(argv[2]);
    if ((nprocs & (nprocs - 1)) != 0 || n % nprocs != 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if ((nprocs & (nprocs - 1)) != 0 || m > n) {
        n = 1;
    } else {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if ((nprocs & (nprocs - 1)) != 0 && m > n)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("bitonic.c", src);
    let got: Vec<(u32, Vec<(String, bool)>)> = apt
        .aborts
        .iter()
        .map(|a| (a.line, a.conds.clone()))
        .collect();
    assert_eq!(
        got,
        vec![(11, vec![("mod(N, P) != 0".to_string(), true)])],
        "{got:?}"
    );
}

/// Trial 19's multigrid: `smooth(u, NU1)` before and `smooth(u, NU2)` after the coarse solve,
/// both `#define`d as 2, read "differs between call sites" and left the sweeps to the runs.
/// Named constants of equal value agree; different values still do not.
#[test]
fn call_sites_passing_constants_of_one_value_agree() {
    let src = r#"
#include <mpi.h>
#define NU1 2
#define NU2 2
#define NU3 3
static double u[1024];
static void smooth(int nsweep) {
    for (int s = 0; s < nsweep; s++)
        for (int i = 1; i < 1023; i++)
            u[i] = 0.5 * (u[i - 1] + u[i + 1]);
}
static void relax(int nsweep) {
    for (int s = 0; s < nsweep; s++)
        u[0] = 0.5 * u[1];
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    smooth(NU1);
    smooth(NU2);
    relax(NU1);
    relax(NU3);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("mg.c", src);
    let trips: Vec<String> = loops(&apt).iter().map(|l| l.trip.text()).collect();
    assert_eq!(trips[0], "NU1", "{trips:?}");
    assert!(
        trips[2].contains("differs between call sites: NU1 at line 20, NU3 at line 21"),
        "{trips:?}"
    );
}

/// Trial 16's SOR: `if ((n / q) * q != n) MPI_Abort(…)` read `N != N` with the whole
/// quotient the model takes, a guard that never holds. The guard keeps the program's
/// truncation; the loop under it keeps the model's whole quotient.
#[test]
fn an_abort_guard_keeps_the_programs_truncating_division() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
static double a[1 << 20];
int main(int argc, char **argv) {
    int size, n, q, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = atoi(argv[1]);
    q = atoi(argv[2]);
    if ((n / q) * q != n)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n / q; i++)
        a[i] = 0.5 * a[i];
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("guard.c", src);
    let got: Vec<(u32, Vec<(String, bool)>)> = apt
        .aborts
        .iter()
        .map(|a| (a.line, a.conds.clone()))
        .collect();
    assert_eq!(
        got,
        vec![(12, vec![("Q*floor(N/Q) != N".to_string(), true)])]
    );
    assert_eq!(loops(&apt)[0].trip, e("N/Q"));
}

/// Trial 29's ADI and F77 SOR: the quotient stored first (`nloc = n / nprocs`), the test on
/// the variable (`if (nloc * nprocs /= n)`, `NLOC * NPROCS .NE. N .OR. N .GT. NMAX`) read
/// `N != N`. The guard reads the program's stored truncation; the variable, read anywhere
/// else, keeps the model's quotient, and a reassignment ends the truncated reading.
#[test]
fn an_abort_guard_reads_a_stored_quotient_as_truncated() {
    let src = r#"
program adi
  use mpi
  implicit none
  integer :: ierr, nprocs, n, nloc, i
  character(len=32) :: arg
  real(8) :: a(100000)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  nloc = n / nprocs
  if (nloc * nprocs /= n .or. n > 100000) then
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  do i = 1, nloc
    a(i) = 0.5d0 * a(i)
  end do
  nloc = n / 2
  if (nloc * 2 /= n) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  nloc = n
  if (nloc * nprocs /= n) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  call MPI_Finalize(ierr)
end program adi
"#;
    let apt = apt_of("adi.f90", src);
    let got: Vec<(u32, Vec<(String, bool)>)> = apt
        .aborts
        .iter()
        .map(|a| (a.line, a.conds.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                14,
                vec![("P*floor(N/P) != N || N > 100000".to_string(), true)]
            ),
            (20, vec![("2*floor(0.5*N) != N".to_string(), true)]),
            (22, vec![("N*P != N".to_string(), true)]),
        ]
    );
    assert_eq!(loops(&apt)[0].trip, e("N/P"));
}

/// `for (i = i0; i < i0 + nrows; i++)` with `i0` set from an enclosing loop's variable: the
/// bounds are unresolved, their difference is not (trial 15's wavefront block: nrows = K).
#[test]
fn a_trip_count_free_of_its_bounds_unknowns_is_resolved() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
static double a[1 << 20];
static void block(int i0, int nrows) {
    for (int i = i0; i < i0 + nrows; i++)
        a[i] = 0.5 * a[i];
}
int main(int argc, char **argv) {
    int n, k, b;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    k = atoi(argv[2]);
    for (b = 0; b < n / k; b++)
        block(b * k, k);
    for (b = 0; b < n; b += k)
        for (int i = b; i <= b + 2 * k; i++)
            a[i] = 1.0;
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("block.c", src);
    let trips: Vec<String> = crate::tests::loops(&apt)
        .iter()
        .map(|l| l.trip.text())
        .collect();
    assert_eq!(
        trips,
        ["K", "N/K", "floor(N/K - 1/K) + 1", "2*K + 1"],
        "{trips:?}"
    );
}

/// Trial 17: a routine called in a loop with an argument in the loop's variable (the halo
/// layers still to compute, `hw - 1 - s`) runs its loops for the mean argument; a note says so.
#[test]
fn an_argument_in_the_callers_loop_variable_enters_as_its_mean() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
double a[1000000];
static void sweep(int n, int ext) {
    int i;
    for (i = -ext; i < n + ext; i++)
        a[i + 100] += 1.0;
}
int main(int argc, char **argv) {
    int n, hw, s;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    hw = atoi(argv[2]);
    for (s = 0; s < hw; s++)
        sweep(n, hw - 1 - s);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("halo.c", src);
    let l = loops(&apt);
    let sweep = l.iter().find(|x| x.var.as_deref() == Some("i")).unwrap();
    assert_eq!(sweep.trip, e("N + HW - 1"), "{:?}", sweep.trip);
    assert!(
        apt.notes
            .iter()
            .any(|(_, t)| t.contains("analysed with its mean")),
        "{:?}",
        apt.notes
    );
}

/// Trial 27: a call in the subscript of an element updated in place (`cnt[f(i)]++`,
/// `cnt[f(i)] += 2`) is one call site, as the program calls it once; read twice it was two,
/// and codegen wrapped its one text twice into code that did not compile.
#[test]
fn a_call_in_an_updated_elements_subscript_is_one_call() {
    let src = r#"#include <mpi.h>
static int f(int i, int n) { return i % n; }
int main(int argc, char **argv) {
    int cnt[8] = {0}, i;
    MPI_Init(&argc, &argv);
    for (i = 0; i < 100; i++)
        cnt[f(i, 8)]++;
    for (i = 0; i < 100; i++)
        cnt[f(i, 8)] += 2;
    MPI_Finalize();
    return cnt[0];
}
"#;
    let apt = crate::tests::apt_of("inc.c", src);
    let calls: Vec<u32> = apt
        .nodes()
        .into_iter()
        .filter(|n| matches!(n.data, crate::NodeData::Call { .. }))
        .map(|n| n.line)
        .collect();
    assert_eq!(calls, [7, 9]);
}

/// Trial 28: a user reduction given to MPI_Op_create is called by MPI, not by the program:
/// its unresolved arguments say so rather than "which nothing calls".
#[test]
fn a_routine_given_to_mpi_op_create_is_called_by_mpi() {
    let src = "subroutine absmax(invec, inoutvec, len, dtype)
  integer :: len, dtype, i
  double precision :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax

program p
  use mpi
  external absmax
  integer :: op, ierr
  double precision :: x, y
  call MPI_Init(ierr)
  call MPI_Op_create(absmax, .true., op, ierr)
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program p
";
    let apt = apt_of("op.f90", src);
    let l = loops(&apt);
    assert!(
        matches!(&l[0].trip, crate::Attr::Unresolved(r) if r.contains("which MPI calls (the program gives it to MPI_Op_create at line 15)")),
        "{:?}",
        l[0].trip
    );
}

/// Trial (stop 32): Fortran keyword arguments bind by name, not by position. `smooth(n=nl,
/// a=a, m=k)` passes K to `m` (the sweep count) and N/P to `n`; read by position its loop ran
/// N/P sweeps of K elements and T lost K. An optional dummy left out before a named one is
/// absent (unknown), not the next argument.
#[test]
fn fortran_keyword_arguments_bind_by_name() {
    let src = r#"
module m
  implicit none
contains
  subroutine smooth(m, n, a)
    integer, intent(in) :: m, n
    real(8), intent(inout) :: a(n)
    integer :: ip, i
    do ip = 1, m
      do i = 2, n - 1
        a(i) = 0.5d0 * (a(i - 1) + a(i + 1))
      end do
    end do
  end subroutine smooth
  subroutine scale(a, n, alpha, passes)
    integer, intent(in) :: n
    real(8), intent(inout) :: a(n)
    real(8), intent(in), optional :: alpha
    integer, intent(in) :: passes
    integer :: ip, i
    do ip = 1, passes
      do i = 1, n
        a(i) = a(i) * 0.5d0
      end do
    end do
  end subroutine scale
end module m
program kw
  use mpi
  use m
  implicit none
  integer :: n, k, nl, np, ierr
  character(len=32) :: arg
  real(8), allocatable :: a(:)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
  call get_command_argument(2, arg)
  read(arg, *) k
  nl = n / np
  allocate(a(nl))
  a = 1
  call smooth(n=nl, a=a, m=k)
  call scale(a, nl, passes=3)
  call MPI_Finalize(ierr)
end program kw
"#;
    let apt = apt_of("kw.f90", src);
    let trips: Vec<String> = crate::tests::loops(&apt)
        .iter()
        .map(|l| l.trip.text())
        .collect();
    assert_eq!(trips, ["K", "N/P - 2", "3", "N/P", "N/P"], "{trips:?}");
}
