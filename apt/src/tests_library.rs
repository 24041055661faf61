//! Unit tests of computing library calls as implicit loops ([`frontend::library`]): the site
//! exists as a loop, a computation phase at procedure level, with the routine's work law on
//! its resolved arguments as trip; unresolved arguments are named.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, eval, loops};
use crate::{Attr, LoopNode};

fn library<'a>(ls: &[&'a LoopNode], name: &str) -> Vec<&'a LoopNode> {
    ls.iter()
        .copied()
        .filter(|l| l.library.as_deref() == Some(name))
        .collect()
}

const SORT_C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
void dgemm_(const char *, const char *, int *, int *, int *, double *, double *, int *, double *, int *, double *, double *, int *);
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(int argc, char **argv) {
    int nloc = atoi(argv[1]), n = atoi(argv[2]), i, x, *found, m;
    int *keys = malloc(nloc * sizeof(int)), *all = malloc(nloc * sizeof(int));
    double one = 1.0, *a = malloc(n * n * sizeof(double));
    FILE *f = fopen("m", "r");
    MPI_Init(&argc, &argv);
    fscanf(f, "%d", &m);
    qsort(keys, nloc, sizeof(int), cmp);
    memcpy(all, keys, nloc * sizeof(int));
    memcpy(&x, keys, sizeof(int));
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, a, &n, &one, a, &n);
    bsearch(&x, keys, nloc, sizeof(int), cmp);
    found = bsearch(&x, keys, nloc, sizeof(int), cmp);
    for (i = 0; i < 10; i++)
        memset(all, 0, nloc * sizeof(int));
    qsort(keys, m, sizeof(int), cmp);
    x = x + found[0];
    MPI_Allreduce(&x, &i, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn c_library_calls_are_loops_with_their_work() {
    let apt = apt_of("ssort.c", SORT_C);
    let ls = loops(&apt);
    let q = library(&ls, "qsort");
    assert_eq!(q.len(), 2, "{ls:#?}");
    assert_eq!(q[0].trip, e("NLOC*log2(NLOC)"));
    assert!(q[0].compute, "at procedure level: a computation phase");
    assert_eq!(q[0].work, Some(e("NLOC*log2(NLOC)")));
    // `m` is read from a file: the site stays, its work unresolved, naming the argument
    assert!(q[1].compute);
    let r = q[1].trip.unresolved().unwrap();
    assert!(
        r.starts_with("number of elements `m` of `qsort`: read from a file"),
        "{r}"
    );
    // memcpy: bytes; the constant-size copy is no site
    let m = library(&ls, "memcpy");
    assert_eq!(m.len(), 1, "{ls:#?}");
    assert_eq!(m[0].trip, e("4*NLOC"));
    // dgemm_ through `&n`: N*N*N
    let g = library(&ls, "dgemm_");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].trip, e("N^3"));
    let at = [("N", 100.0), ("NLOC", 1023.0)];
    assert_eq!(eval(&g[0].trip, &at), 1e6);
    // bsearch: log2(n + 1) probes; the call inside an assignment is no site (C: codegen
    // cannot wrap a call inside an expression, which may be a declaration's initialiser)
    let b = library(&ls, "bsearch");
    assert_eq!(b.len(), 1, "{ls:#?}");
    assert_eq!(eval(&b[0].trip, &at), 10.0);
    // inside a loop: part of the loop's phase, the loop's work multiplies it
    let s = library(&ls, "memset");
    assert!(!s[0].compute);
    let outer = ls.iter().find(|l| l.var.as_deref() == Some("i")).unwrap();
    assert!(outer.compute);
    assert_eq!(eval(outer.work.as_ref().unwrap(), &at), 10.0 * 4.0 * 1023.0);
}

const BLAS_F: &str = r#"
program b
  use mpi
  implicit none
  integer :: ierr, n, k
  character(len=16) :: arg
  double precision :: a(1000, 1000), s, ddot
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call DGEMM('N', 'N', n, n, n, 1.0d0, a, 1000, a, 1000, 0.0d0, a, 1000)
  call dgemv('N', n, 2*n, 1.0d0, a, 1000, a, 1, 0.0d0, a, 1)
  s = ddot(n, a, 1, a, 1) + ddot(n, a, 1, a, 1)
  do k = 1, 3
    call daxpy(n, 2.0d0, a, 1, a, 1)
  end do
  call MPI_Allreduce(s, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program b
"#;

#[test]
fn fortran_blas_calls_are_loops_with_their_work() {
    let apt = apt_of("b.f90", BLAS_F);
    let ls = loops(&apt);
    let g = library(&ls, "dgemm");
    assert_eq!(g.len(), 1, "{ls:#?}");
    assert_eq!(g[0].trip, e("N^3"));
    assert!(g[0].compute);
    assert_eq!(library(&ls, "dgemv")[0].trip, e("2*N^2"));
    // a function in an assignment: the statement is the loop, its work both calls'
    let d = library(&ls, "ddot, ddot");
    assert_eq!(d.len(), 1, "{ls:#?}");
    assert_eq!(d[0].trip, e("2*N"));
    let outer = ls.iter().find(|l| l.var.as_deref() == Some("k")).unwrap();
    assert_eq!(outer.work, Some(e("3*N")));
    assert!(matches!(library(&ls, "daxpy")[0].trip, Attr::Expr(_)));
}

/// A procedure of the program named like a library routine is called, not timed as one
#[test]
fn a_user_routine_named_like_blas_is_a_call() {
    let apt = apt_of(
        "u.c",
        "#include <mpi.h>\nvoid daxpy(int n) { int i; double s = 0; for (i = 0; i < n; i++) s += i; }\nint main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n  daxpy(10);\n  MPI_Finalize();\n  return 0;\n}\n",
    );
    let ls = loops(&apt);
    assert!(ls.iter().all(|l| l.library.is_none()), "{ls:#?}");
}

/// `c = matmul(a, b)` does size(a) * columns(b) multiply-adds, not size(c) element writes
#[test]
fn matmul_work_is_the_product_of_its_operands_extents() {
    let apt = apt_of(
        "mm.f90",
        r#"
program mm
  use mpi
  implicit none
  integer, parameter :: n = 50
  integer :: ierr
  double precision :: a(n, 40), b(40, 30), c(n, 30), v(40), w(n), s
  call MPI_Init(ierr)
  c = matmul(a, b)
  w = matmul(a, v)
  c(1:10, :) = matmul(a(1:10, 1:20), b(1:20, :))
  s = sum(c)
  call MPI_Allreduce(s, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program mm
"#,
    );
    let trips: Vec<&Attr> = loops(&apt)
        .into_iter()
        .filter(|l| l.array.is_some())
        .map(|l| &l.trip)
        .collect();
    assert_eq!(
        trips,
        [
            // the named constant n stays a symbol, N
            &e("1200*N"),
            &e("40*N"),
            &e("6000"),
            // the reduction still counts the elements it visits
            &e("30*N")
        ]
    );
}

/// Trial 13's sample sort sorts P(P - 1) samples: none at P = 1, where its n log n work is 0,
/// not 0 * log2(0) (T was undefined at P = 1).
#[test]
fn sorting_nothing_at_one_rank_costs_nothing() {
    let src = r#"#include <mpi.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const long *)a < *(const long *)b ? -1 : 1; }
int main(int argc, char **argv)
{
    int size;
    long *all;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    all = calloc((size_t)size * size, sizeof(long));
    qsort(all, (size_t)size * (size - 1), sizeof(long), cmp);
    free(all);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("samples.c", src);
    let ls = loops(&apt);
    let sort = library(&ls, "qsort");
    let Attr::Expr(w) = sort[0].work.clone().unwrap() else {
        panic!("{:?}", sort[0].work);
    };
    let at = |p: f64| eval(&Attr::Expr(w.clone()), &[("P", p)]);
    assert_eq!(at(1.0), 0.0, "{w}");
    assert!((at(4.0) - 12.0 * 12f64.log2()).abs() < 1e-9, "{w}");
}
