//! Computing library calls ([`frontend::library`]) are implicit loops: the instrumented C
//! wraps a call statement in loop markers whose count is the routine's work, the Fortran
//! `call dgemm(...)` and `s = ddot(...)` get the array-syntax markers; both compile, the plan
//! from the IR agrees with the APT's, every site is marked once, and under Open MPI the sort's
//! site counts NLOC*log2(NLOC) per call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::*;
use trace::AggKind;

fn case() -> Case {
    Case {
        name: "library_calls".into(),
        lang: Lang::C,
        fixed: false,
        src: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/library_calls.c"),
        include_dirs: Vec::new(),
        // NLOC
        args: vec!["1000".into()],
    }
}

/// Instruments `text` (saved as `name` in `dir`), checks the plan and the re-parse, and
/// returns the instrumented text and its path.
fn instrument(dir: &Path, name: &str, text: &str) -> (String, PathBuf, apt::Apt) {
    let src = dir.join(name);
    std::fs::write(&src, text).unwrap();
    let lowered = frontend::load(&src, &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let plan = codegen::Plan::from_apt(&tree, &lowered.program);
    assert_eq!(
        plan,
        codegen::Plan::from_program(&lowered.program),
        "{name}"
    );
    assert_every_site_marked_once(&tree, &plan, name);
    let out = codegen::instrument(&lowered.program, &lowered.sources, &plan).unwrap();
    let inst = dir.join("inst").join(&out.files[0].relative);
    std::fs::create_dir_all(inst.parent().unwrap()).unwrap();
    std::fs::write(&inst, &out.files[0].text).unwrap();
    let again =
        frontend::load_str(name, &out.files[0].text, &frontend::Options::default()).unwrap();
    assert!(!again.has_errors(), "{:?}", again.diagnostics);
    (out.files[0].text.clone(), inst, tree)
}

/// The site of the implicit loop calling `routine`.
fn site_of(tree: &apt::Apt, routine: &str) -> u32 {
    tree.nodes()
        .into_iter()
        .find_map(|n| match &n.data {
            apt::NodeData::Loop(l) if l.library.as_deref() == Some(routine) => Some(n.site.0),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no site for {routine}"))
}

/// `tool -c` the instrumented file (the BLAS is not linked: no BLAS on these machines).
fn compiles(tool: &str, inst: &Path, rt: &Runtime, fortran: bool) {
    need(tool);
    let mut cmd = Command::new(tool);
    cmd.current_dir(inst.parent().unwrap())
        .arg("-O2")
        .arg(format!("-I{}", rt.dir.display()));
    if fortran {
        cmd.args(augur_runtime::FORTRAN_FLAGS);
    }
    cmd.arg("-c")
        .arg(inst)
        .arg("-o")
        .arg(inst.with_extension("o"));
    run(&mut cmd, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
}

const BLAS_C: &str = r#"#include <mpi.h>
#include <stdlib.h>
void dgemm_(const char *, const char *, int *, int *, int *, double *, double *, int *, double *, int *, double *, double *, int *);
void cblas_daxpy(int, double, const double *, int, double *, int);
int main(int argc, char **argv) {
    int n = atoi(argv[1]), i;
    double one = 1.0, *a = malloc(n * n * sizeof(double));
    MPI_Init(&argc, &argv);
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, a, &n, &one, a, &n);
    for (i = 0; i < 4; i++)
        cblas_daxpy(n * n, 2.0, a, 1, a, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

const BLAS_F: &str = r#"program b
  use mpi
  implicit none
  integer :: ierr, n, k
  character(len=16) :: arg
  double precision :: a(100, 100), s, ddot, c(100, 100), v(100)
  call MPI_Init(ierr)
  c = matmul(a, a)
  v = matmul(a, v)
  call get_command_argument(1, arg)
  read (arg, *) n
  call dgemm('N', 'N', n, n, n, 1.0d0, a, 100, a, 100, 0.0d0, a, 100)
  s = ddot(n, a, 1, a, 1)
  do k = 1, 3
    call daxpy(n, 2.0d0, a, 1, a, 1)
  end do
  call MPI_Allreduce(s, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program b
"#;

#[test]
fn blas_calls_are_marked_as_loops_and_compile() {
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let (c, inst, tree) = instrument(tmp.path(), "blas.c", BLAS_C);
    let g = site_of(&tree, "dgemm_");
    assert!(
        c.contains(&format!(
            "{{ long long augur_n_{g} = (long long)(n) * (long long)(n) * (long long)(n); augur_phase_begin({g}); augur_loop_enter({g}); dgemm_("
        )),
        "{c}"
    );
    // inside the loop's phase: counted, not a phase of its own
    let x = site_of(&tree, "cblas_daxpy");
    assert!(
        c.contains(&format!(
            "{{ long long augur_n_{x} = (long long)(n * n); cblas_daxpy(n * n, 2.0, a, 1, a, 1); augur_loop_exit({x}, augur_n_{x}); }}"
        )),
        "{c}"
    );
    compiles("mpicc", &inst, &rt, false);

    let (f, inst, tree) = instrument(tmp.path(), "blas.f90", BLAS_F);
    let g = site_of(&tree, "dgemm");
    let d = site_of(&tree, "ddot");
    for (site, count) in [(g, "int(n, 8) * int(n, 8) * int(n, 8)"), (d, "int(n, 8)")] {
        assert!(
            f.contains(&format!("augur_n_{site} = {count}\n")),
            "{site}: {f}"
        );
    }
    // matmul: size(a) multiply-adds per column of the right operand, counted after the
    // assignment (the target is a whole array)
    for count in ["size(a) * size(a, 2)", "size(a)"] {
        assert!(f.contains(&format!(" = {count}\n")), "{count}: {f}");
    }
    compiles("mpif90", &inst, &rt, true);
}

#[test]
fn a_sort_counts_its_work_under_open_mpi() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let (lowered, plan, ranks) = case().run_open_mpi(tmp.path(), &rt).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    assert_every_site_marked_once(&tree, &plan, "library_calls.c");
    let sites: Vec<(&str, u32)> = ["qsort", "memcpy", "bsearch", "memset"]
        .into_iter()
        .map(|r| (r, site_of(&tree, r)))
        .collect();
    // NLOC = 1000: 1000*log2(1000) = 9965.8 comparisons, 4000 bytes, log2(1001) = 9.97 probes
    let want = [
        ("qsort", 1, 9966),
        ("memcpy", 1, 4000),
        ("bsearch", 1, 10),
        ("memset", 3, 12000),
    ];
    for r in &ranks {
        for ((name, site), (_, count, sum)) in sites.iter().zip(want) {
            let agg = r
                .aggregates
                .iter()
                .find(|a| a.kind == AggKind::Loop && a.site == *site)
                .unwrap_or_else(|| panic!("{name}: no loop record"));
            assert_eq!((agg.count, agg.sum), (count, sum), "{name}");
        }
        // the sort and the copy are computation phases at procedure level: timed
        for site in [sites[0].1, sites[1].1] {
            assert!(
                r.events
                    .iter()
                    .any(|e| matches!(e, trace::Event::Phase(p) if p.site == site)),
                "no phase record for site {site}"
            );
        }
    }
}
