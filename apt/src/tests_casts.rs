//! Conversions to an integer (trial 7 item 1): C casts to integer types, Fortran `int`/`nint`,
//! the rounding idiom `(int)(sqrt(P) + 0.5)`, asserted on the printed trip counts, through
//! the real front end; a cast of an integer (apt's exact integer division too) is unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, eval, loops};
use crate::Attr;

/// How apt prints a quantity: the expression, or `unresolved: <reason>`.
fn text(a: &Attr) -> String {
    match a {
        Attr::Expr(x) => x.to_string(),
        Attr::Unresolved(r) => format!("unresolved: {r}"),
        other => format!("{other:?}"),
    }
}

/// Trip counts of a C program's loops `for (i = 0; i < vK; i++)`, `K` = 1..=`n`, after
/// `decl` sets `v1`…`v12` from `n`, `m` (argv), `size` (P), `rank`.
fn c_trips(decl: &str, n: usize) -> Vec<Attr> {
    let body: String = (1..=n)
        .map(|k| format!("    for (i = 0; i < v{k}; i++) a[i] = 0;\n"))
        .collect();
    let src = format!(
        r#"
#include <mpi.h>
#include <math.h>
#include <stdlib.h>
double a[100000];
int main(int argc, char **argv) {{
    int size, rank, n, m, q, q2, i, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12;
    double t;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    m = atoi(argv[2]);
    {decl}
{body}    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}}
"#
    );
    let apt = apt_of("cast.c", &src);
    let trips: Vec<Attr> = loops(&apt).iter().map(|l| l.trip.clone()).collect();
    assert_eq!(trips.len(), n);
    trips
}

/// The same for Fortran: `do i = 1, vK` after `decl` sets `v1`…`v8` from `n` (argv) and
/// `nprocs` (P).
fn f_trips(decl: &str, n: usize) -> Vec<Attr> {
    let body: String = (1..=n)
        .map(|k| format!("  do i = 1, v{k}\n    a(i) = 0\n  end do\n"))
        .collect();
    let src = format!(
        r#"
program casts
  use mpi
  implicit none
  integer :: nprocs, rank, ierr, n, q, i, v1, v2, v3, v4, v5, v6, v7, v8
  double precision :: a(100000), t
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read(arg, *) n
{decl}
{body}  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program casts
"#
    );
    let apt = apt_of("casts.f90", &src);
    let trips: Vec<Attr> = loops(&apt).iter().map(|l| l.trip.clone()).collect();
    assert_eq!(trips.len(), n);
    trips
}

/// trial 7's mini/cast.c: the rounding idiom, a truncated square root, a truncated product.
#[test]
fn c_casts_of_the_trial_truncate() {
    let t = c_trips(
        "q = (int)(sqrt((double)size) + 0.5);
    q2 = (int)sqrt((double)size);
    v1 = n / q;
    v2 = n / q2;
    v3 = (int)(n * 0.7);",
        3,
    );
    assert_eq!(text(&t[0]), "N/floor(sqrt(P) + 0.5)");
    assert_eq!(text(&t[1]), "N/floor(sqrt(P))");
    assert_eq!(text(&t[2]), "floor(0.7*N)");
}

/// `floor(sqrt(P))` and the rounding idiom are exactly sqrt(P) on square P: 4, 9, 16.
#[test]
fn rounded_square_roots_are_exact_on_square_counts() {
    let t = c_trips(
        "q = (int)(sqrt((double)size) + 0.5);
    q2 = (int)sqrt((double)size);
    v1 = n / q;
    v2 = n / q2;",
        2,
    );
    for (p, root) in [(4.0, 2.0), (9.0, 3.0), (16.0, 4.0)] {
        let at = [("N", 144.0), ("P", p)];
        assert_eq!(eval(&t[0], &at), 144.0 / root, "P = {p}");
        assert_eq!(eval(&t[1], &at), 144.0 / root, "P = {p}");
    }
    // the compiled evaluator the fits use agrees
    for trip in &t {
        let x = trip.expr().unwrap();
        let c = symbolic::Compiled::new(x, &["N", "P"]).unwrap();
        for (p, root) in [(4.0, 2.0), (9.0, 3.0), (16.0, 4.0)] {
            assert_eq!(c.eval(&[144.0, p]), 144.0 / root, "{x} at P = {p}");
        }
    }
    // between squares the two differ: round(sqrt(8)) = 3, floor(sqrt(8)) = 2
    let at = [("N", 144.0), ("P", 8.0)];
    assert_eq!(eval(&t[0], &at), 48.0);
    assert_eq!(eval(&t[1], &at), 72.0);
}

/// A cast of an integer is the integer: no floor around apt's exact integer division, nor
/// around a product of integer-typed casts; a real operand does truncate.
#[test]
fn casts_of_integers_are_the_value() {
    let t = c_trips(
        "v1 = (int)(n / size);
    v2 = (size_t)n * (size_t)m;
    v3 = (long)((double)n * 2);
    v4 = (int)((double)n / size);
    v5 = (unsigned)(n * 0.5) + (int)m;",
        5,
    );
    assert_eq!(text(&t[0]), "N/P");
    assert_eq!(text(&t[1]), "M*N");
    assert_eq!(text(&t[2]), "2*N");
    assert_eq!(text(&t[3]), "floor(N/P)");
    assert_eq!(text(&t[4]), "M + floor(0.5*N)");
}

/// Casts to a real type are the value; C `round`/`lround` round; `log2` of P is ≥ 0.
#[test]
fn real_casts_and_c_rounding_functions() {
    let t = c_trips(
        "t = (double)n / 2;
    v1 = t;
    v2 = (int)(log((double)size) / log(2.0));
    v3 = lround(n * 0.3);
    v4 = (int)round((double)n / size);
    v5 = (int)floor(n * 0.25);
    v6 = (int)ceil((double)n / size);",
        6,
    );
    // the double `t` is the value; stored in the int `v1` it is truncated
    assert_eq!(text(&t[0]), "floor(0.5*N)");
    // and so when the int is declared with it
    let d = c_trips(
        "t = (double)n / 2;
    int w = t;
    v1 = w;",
        1,
    );
    assert_eq!(text(&d[0]), "floor(0.5*N)");
    assert_eq!(text(&t[1]), "floor(log2(P))");
    assert_eq!(text(&t[2]), "floor(0.3*N + 0.5)");
    assert_eq!(text(&t[3]), "floor(N/P + 0.5)");
    assert_eq!(text(&t[4]), "floor(0.25*N)");
    assert_eq!(text(&t[5]), "ceil(N/P)");
    for (p, steps) in [(2.0, 1.0), (8.0, 3.0), (12.0, 3.0), (16.0, 4.0)] {
        assert_eq!(eval(&t[1], &[("P", p)]), steps, "P = {p}");
    }
}

/// C truncates toward zero: `ceil` for a value that is ≤ 0, and no guess when the sign of
/// the value is not known (`rank - 2` is negative on ranks 0 and 1).
#[test]
fn truncation_follows_the_sign_or_says_it_is_unknown() {
    let t = c_trips(
        "v1 = n + (int)(-0.5 * n);
    v2 = (int)(0.5 * rank - 2) + n;
    v3 = (int)(0.5 * (size - 1));",
        3,
    );
    assert_eq!(text(&t[0]), "N + ceil(-0.5*N)");
    let why = t[1].unresolved().unwrap();
    assert!(
        why.contains("a cast to `int` of `0.5*rank - 2`") && why.contains("truncates toward zero"),
        "{why}"
    );
    // P is at least 1, so P - 1 is not negative
    assert_eq!(text(&t[2]), "floor(0.5*P - 0.5)");
}

/// Fortran: `int` truncates, `nint` rounds (the same idiom as `int(x + 0.5)`), `floor` and
/// `ceiling` keep their meaning, `real`/`dble` are the value, `int` of an integer is it.
#[test]
fn fortran_int_nint_floor_ceiling_real() {
    let t = f_trips(
        "  q = int(sqrt(real(nprocs)) + 0.5)
  v1 = n / q
  q = nint(sqrt(dble(nprocs)))
  v2 = n / q
  v3 = int(n * 0.7)
  v4 = int(n / nprocs)
  v5 = floor(real(n) / 2)
  v6 = nint(n * 0.25d0)
  v7 = ceiling(dble(n) / nprocs)
  t = dble(n) / nprocs
  v8 = int(t)",
        8,
    );
    assert_eq!(text(&t[0]), "N/floor(sqrt(P) + 0.5)");
    assert_eq!(text(&t[1]), "N/floor(sqrt(P) + 0.5)");
    assert_eq!(text(&t[2]), "floor(0.7*N)");
    assert_eq!(text(&t[3]), "N/P");
    assert_eq!(text(&t[4]), "floor(0.5*N)");
    assert_eq!(text(&t[5]), "floor(0.25*N + 0.5)");
    assert_eq!(text(&t[6]), "ceil(N/P)");
    assert_eq!(text(&t[7]), "floor(N/P)");
    for (p, root) in [(4.0, 2.0), (9.0, 3.0), (16.0, 4.0)] {
        assert_eq!(eval(&t[1], &[("N", 144.0), ("P", p)]), 144.0 / root);
    }
}

/// An F77 program: `INT`, `NINT`, `DBLE` as intrinsics in upper case, fixed form.
#[test]
fn fixed_form_fortran_nint_of_a_square_root() {
    let src = "      PROGRAM GRID
      INCLUDE 'mpif.h'
      INTEGER NPROCS, IERR, N, NQ, I
      DOUBLE PRECISION A(100000)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      READ(5,*) N
      NQ = NINT(DSQRT(DBLE(NPROCS)))
      DO 10 I = 1, N / NQ
         A(I) = 0.0D0
   10 CONTINUE
      DO 20 I = 1, INT(0.75D0 * N)
         A(I) = 1.0D0
   20 CONTINUE
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
";
    let apt = apt_of("grid.f", src);
    let trips: Vec<String> = loops(&apt).iter().map(|l| text(&l.trip)).collect();
    assert_eq!(trips, ["N/floor(sqrt(P) + 0.5)", "floor(0.75*N)"]);
}

/// Integer typedefs of the C library truncate like `int` (tree-sitter reads `(MPI_Aint)(x)`
/// as a call, which stays "not analysed").
#[test]
fn integer_typedefs_of_the_c_library_truncate() {
    let t = c_trips(
        "v1 = (intptr_t)(n * 0.5);
    v2 = (ssize_t)(n * 0.5) + (uint16_t)(m * 0.25);
    v3 = (int64_t)(sqrt((double)size) + 0.5);
    v4 = (unsigned long)(n / size);",
        4,
    );
    assert_eq!(text(&t[0]), "floor(0.5*N)");
    assert_eq!(text(&t[1]), "floor(0.25*M) + floor(0.5*N)");
    assert_eq!(text(&t[2]), "floor(sqrt(P) + 0.5)");
    assert_eq!(text(&t[3]), "N/P");
}

/// The pointer depth of a cast's type is kept: `(int *)` is a pointer, `(double)` a real.
#[test]
fn cast_types_keep_their_pointer_depth() {
    let src = r#"
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n, *ip;
    double x;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    ip = (int *)malloc(sizeof(int) * n);
    x = (double)n;
    MPI_Finalize();
    return 0;
}
"#;
    let lowered = frontend::load_str("ptr.c", src, &frontend::Options::default()).unwrap();
    let mut casts = Vec::new();
    for st in &lowered.program.stmts {
        let frontend::StmtKind::Assign(a) = &st.kind else {
            continue;
        };
        for x in a.value.walk() {
            if let frontend::SrcExprKind::Cast { ty, .. } = &x.kind {
                casts.push((ty.text.clone(), ty.pointer, ty.base));
            }
        }
    }
    assert_eq!(
        casts,
        [
            ("int *".to_string(), 1, frontend::BaseType::Integer),
            ("double".to_string(), 0, frontend::BaseType::Real)
        ]
    );
}

/// `q = sqrt(size) + 0.5;` into an int, and Fortran `q = sqrt(real(nprocs))` into an integer:
/// the store truncates as the cast would.
#[test]
fn a_real_stored_in_an_integer_variable_is_truncated() {
    let t = c_trips(
        "q = sqrt((double)size) + 0.5;
    v1 = n / q;
    t = sqrt((double)size);
    v2 = (int)t;",
        2,
    );
    assert_eq!(text(&t[0]), "N/floor(sqrt(P) + 0.5)");
    assert_eq!(text(&t[1]), "floor(sqrt(P))");
    let t = f_trips(
        "  q = sqrt(real(nprocs))
  v1 = n / q",
        1,
    );
    assert_eq!(text(&t[0]), "N/floor(sqrt(P))");
}

/// Trial 17: a loop over a constant table's entries, `sizeof(deltas) / sizeof(deltas[0])`,
/// runs as many times as the table has entries (it was "size of a type not known").
#[test]
fn sizeof_a_table_over_sizeof_its_entry_is_its_length() {
    let src = r#"
#include <mpi.h>
static const int deltas[] = {1, 2, 5, 11, 23};
double grid[16][32];
int main(int argc, char **argv) {
    int k, i;
    double *p = 0;
    MPI_Init(&argc, &argv);
    for (k = 0; k < (int)(sizeof(deltas) / sizeof(deltas[0])); k++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < sizeof grid / sizeof grid[0][0]; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < sizeof(p); i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("table.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("5"), "{:?}", l[0].trip);
    assert_eq!(l[1].trip, e("512"), "{:?}", l[1].trip);
    assert_eq!(l[2].trip, e("8"), "{:?}", l[2].trip);
}

/// Trial 21's farm: `sizeof(result_t)` of a struct the unit defines is its size as the x86-64
/// ABI lays it out (members at multiples of their alignment, the whole rounded up), by typedef
/// name or `struct name`, a member pointing at its own struct included.
#[test]
fn sizeof_a_struct_of_the_unit_is_its_layout() {
    let src = r#"
#include <mpi.h>
typedef struct { int task; double value; } result_t;
struct pair { char tag; struct pair *next; short s[3]; };
typedef struct pair pair_t;
int main(int argc, char **argv) {
    int k;
    MPI_Init(&argc, &argv);
    for (k = 0; k < sizeof(result_t); k++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (k = 0; k < sizeof(struct pair); k++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (k = 0; k < sizeof(pair_t) + sizeof(int); k++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("structs.c", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("16"), "{:?}", l[0].trip);
    assert_eq!(l[1].trip, e("24"), "{:?}", l[1].trip);
    assert_eq!(l[2].trip, e("28"), "{:?}", l[2].trip);
}

/// Trial 27: a variable of such a struct has its size too: `sizeof(prm)` of a `struct
/// run_params prm` broadcast as MPI_BYTE, and through a pointer parameter `sizeof(*q)`.
#[test]
fn sizeof_a_variable_of_a_struct_of_the_unit_is_its_layout() {
    let src = r#"
#include <mpi.h>
struct run_params { int nloc; int nstep; double dt; double soft; };
typedef struct run_params params_t;
static void share(params_t *q) {
    MPI_Bcast(q, sizeof(*q), MPI_BYTE, 0, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
    struct run_params prm;
    const params_t fixed = {1, 2, 0.5, 0.25};
    MPI_Init(&argc, &argv);
    MPI_Bcast(&prm, sizeof(prm), MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast((void *)&fixed, sizeof fixed, MPI_BYTE, 0, MPI_COMM_WORLD);
    share(&prm);
    MPI_Finalize();
    return 0;
}
"#;
    let apt = apt_of("params.c", src);
    let bytes: Vec<String> = crate::tests::comms(&apt)
        .iter()
        .map(|c| format!("{:?}", c.bytes))
        .collect();
    let b24 = format!("{:?}", Some(e("24")));
    assert_eq!(bytes, [b24.clone(), b24.clone(), b24], "{bytes:?}");
}
