//! The warnings of `limits` on small programs: each construct named once with its lines, and
//! what runs inside a computation phase told from what does not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

fn warnings_of(name: &str, text: &str) -> Vec<String> {
    let l = frontend::load_str(name, text, &frontend::Options::default()).unwrap();
    let tree = crate::build(&l, &crate::AptOptions::default());
    warnings(&l, &tree)
}

/// trial7 #3: a halo exchange whose z faces go by MPI_Put between two fences
const HEAT: &str = "#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, size, n = atoi(argv[1]), it, i;
  double *u = malloc(n * sizeof(double)), *face = malloc(n * sizeof(double));
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_create(face, n * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  for (it = 0; it < 10; it++) {
    MPI_Sendrecv(u, n, MPI_DOUBLE, (rank + 1) % size, 0, face, n, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_fence(0, win);
    MPI_Put(u, n, MPI_DOUBLE, (rank + 1) % size, 0, n, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (i = 0; i < n; i++)
      u[i] = 0.5 * (u[i] + face[i]);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
";

#[test]
fn one_sided_calls_are_one_warning_naming_each_line() {
    let w = warnings_of("heat3d.c", HEAT);
    let rma: Vec<&String> = w.iter().filter(|w| w.contains("one-sided")).collect();
    assert_eq!(rma.len(), 1, "{w:#?}");
    assert_eq!(
        rma[0],
        "one-sided communication MPI_Win_create at heat3d.c:10, MPI_Win_fence at heat3d.c lines 13 and 15, MPI_Put at heat3d.c:14, MPI_Win_free at heat3d.c:19 are not traced (augur models no RMA windows or epochs): their time is in the unexplained overhead (time outside computation phases), which is a fit, not a model of it; the data they move is in no phase, so T does not grow with their message sizes"
    );
    assert_eq!(w.len(), 1, "{w:#?}");
}

/// trial7 #2: sample sort; the local sorts outside every loop, one inside a computation phase.
/// The sorts, copies and the gemm are computation sites (implicit loops); a LAPACK routine
/// outside the table, a search inside an expression and a sort of a size read from a file are
/// named
const SORT: &str = "#include <mpi.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
void dgemm_(const char *, const char *, int *, int *, int *, double *, double *, int *, double *, int *, double *, double *, int *);
static void gemm(int n, double *a, double *b, double *c) {
  double one = 1.0;
  dgemm_(\"N\", \"N\", &n, &n, &n, &one, a, &n, b, &n, &one, c, &n);
}
int main(int argc, char **argv) {
  int rank, size, n = atoi(argv[1]), r, x, m, *f, piv[4], info;
  int *keys = malloc(n * sizeof(int)), *all = malloc(n * sizeof(int));
  double *a = malloc(n * n * sizeof(double));
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  qsort(keys, n, sizeof(int), cmp);
  memcpy(all, keys, n * sizeof(int));
  memcpy(&x, keys, sizeof(int));
  for (r = 0; r < 4; r++) {
    qsort(keys, n, sizeof(int), cmp);
    gemm(n, a, a, a);
  }
  MPI_Gather(keys, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  qsort(all, size, sizeof(int), cmp);
  fscanf(fopen(\"m\", \"r\"), \"%d\", &m);
  qsort(all, m, sizeof(int), cmp);
  f = bsearch(&x, keys, n, sizeof(int), cmp);
  dgesv_(&n, &n, a, &n, piv, a, &n, &info);
  MPI_Finalize();
  return 0;
}
";

#[test]
fn computing_library_calls_outside_phases_are_named() {
    let w = warnings_of("ssort.c", SORT);
    assert_eq!(
        w,
        vec![
            "library calls that compute, bsearch at ssort.c:28, dgesv_ at ssort.c:29: their time is not a computation site; they are in the overhead fit (time outside computation phases), which does not follow their sizes"
                .to_string(),
            "library calls timed as computation sites whose work the source does not give, qsort at ssort.c:27 (number of elements `m` of `qsort`: read from a file at line 26): it is timed and its work per call is counted in the runs, then fitted by regression (not the routine's law)"
                .to_string(),
        ]
    );
}

#[test]
fn a_routine_called_outside_phases_is_a_site_all_the_same() {
    // the same gemm called once more from main, outside the loop: its dgemm_ is a
    // computation site of its own, not named
    let text = SORT.replace("  MPI_Gather(", "  gemm(n, a, a, a);\n  MPI_Gather(");
    let w = warnings_of("ssort.c", &text);
    assert!(!w[0].contains("dgemm_"), "{w:#?}");
}

#[test]
fn gotos_and_fortran_blas_are_named() {
    let w = warnings_of(
        "g.c",
        "#include <mpi.h>\nint main(int argc, char **argv) {\n  int i = 0, j;\n  MPI_Init(&argc, &argv);\n  for (j = 0; j < 4; j++) {\n    if (j == 2) goto skip;\n    i++;\n  skip:\n    i--;\n  }\n  if (i > 3) goto out;\n  i = 7;\nout:\n  MPI_Finalize();\n  return 0;\n}\n",
    );
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].starts_with("`goto` is not analysed at g.c lines 6 and 11: control flow through these jumps is ignored"),
        "{w:#?}"
    );
    let f = warnings_of(
        "m.f90",
        "program m\n  use mpi\n  implicit none\n  integer :: ierr, n\n  double precision :: a(4,4), s, ddot\n  call MPI_Init(ierr)\n  n = 4\n  call DGEMM('N', 'N', n, n, n, 1.0d0, a, n, a, n, 0.0d0, a, n)\n  s = ddot(n, a, 1, a, 1)\n  call MPI_Finalize(ierr)\nend program m\n",
    );
    // the BLAS calls are computation sites: no warning; a LAPACK driver outside the table is
    assert!(f.is_empty(), "{f:#?}");
    let g = warnings_of(
        "m.f90",
        "program m\n  use mpi\n  implicit none\n  integer :: ierr, n, piv(4), info\n  double precision :: a(4,4)\n  call MPI_Init(ierr)\n  n = 4\n  call dgesv(n, n, a, n, piv, a, n, info)\n  call MPI_Finalize(ierr)\nend program m\n",
    );
    assert_eq!(
        g,
        vec![
            "library calls that compute, dgesv at m.f90:8: its time is not a computation site; it is in the overhead fit (time outside computation phases), which does not follow its sizes"
                .to_string()
        ],
    );
}

#[test]
fn unknown_mpi_functions_are_sorted_into_kinds() {
    assert_eq!(kind_of(codes::UNKNOWN_MPI, "MPI_Put"), Some(Kind::OneSided));
    assert_eq!(
        kind_of(codes::UNKNOWN_MPI, "MPI_WIN_FENCE"),
        Some(Kind::OneSided)
    );
    assert_eq!(
        kind_of(codes::UNKNOWN_MPI, "mpi_fetch_and_op"),
        Some(Kind::OneSided)
    );
    assert_eq!(
        kind_of(codes::UNKNOWN_MPI, "MPI_File_write_all"),
        Some(Kind::MpiIo)
    );
    assert_eq!(
        kind_of(codes::UNKNOWN_MPI, "MPI_Putter"),
        Some(Kind::UnknownMpi)
    );
    assert_eq!(kind_of(codes::NONDETERMINISTIC, "MPI_Waitany"), None);
    assert_eq!(subject("`MPI_Put` is not in augur's MPI table"), "MPI_Put");
    assert_eq!(subject("no quotes"), "no quotes");
}

#[test]
fn long_line_lists_are_cut() {
    let places: Vec<At> = (1..=11)
        .map(|line| At {
            file: "a.c".into(),
            line,
            phase: None,
        })
        .chain([At {
            file: "b.c".into(),
            line: 4,
            phase: Some(2),
        }])
        .collect();
    assert_eq!(
        places_text(&places).unwrap(),
        "a.c lines 1, 2, 3, 4, 5, 6, 7, 8 and 3 more and b.c:4"
    );
    let refs: Vec<&At> = places.iter().collect();
    assert_eq!(
        untimed(&refs[10..], "their"),
        "their time is in the unexplained overhead (time outside computation phases), which is a fit, not a model of it; b.c:4 is inside the computation phase at line 2, whose fitted cost per iteration includes it"
    );
}

/// MPI-IO and a function outside augur's table in Fortran, one warning each
#[test]
fn mpi_io_and_unknown_functions_in_fortran() {
    let w = warnings_of(
        "io.f90",
        "program io\n  use mpi\n  implicit none\n  integer :: ierr, fh, i\n  double precision :: a(100)\n  call MPI_Init(ierr)\n  call MPI_File_open(MPI_COMM_WORLD, 'x', MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)\n  do i = 1, 10\n    call MPI_Pcontrol(1)\n    a(i) = i\n  end do\n  call MPI_File_close(fh, ierr)\n  call MPI_Finalize(ierr)\nend program io\n",
    );
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(
        w[0].starts_with("MPI-IO MPI_File_open at io.f90:7, MPI_File_close at io.f90:12 are not traced (augur does not model parallel I/O): their time is in the unexplained overhead"),
        "{w:#?}"
    );
    assert_eq!(
        w[1],
        "an MPI function outside augur's table, MPI_Pcontrol at io.f90:9, is not traced: io.f90:9 is inside the computation phase at line 8, whose fitted cost per iteration includes it; if it communicates, that communication is in no phase"
    );
}
