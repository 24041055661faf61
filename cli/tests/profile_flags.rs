//! End to end under SMPI (trial 8): what `profile` records of how it read and built the program
//! (`-D`, `--cflags`, OMP_NUM_THREADS) and what `analyze` does with it (reads the sources the
//! same way; refuses mismatched site ids), a `--param` that never reaches the program, and MPI
//! calls the tracer does not wrap named by `analyze`. Fails loudly if SMPI is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{host_lock, manifest, need, run as augur};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn platform() -> String {
    format!(
        "{}/../testdata/platform/cluster.xml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `augur profile SRC --launcher smpirun … EXTRA…` into `out`, with `env` set; the output.
fn profile(src: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    need("smpicc");
    need("smpirun");
    let platform = platform();
    let mut args = vec![
        "profile",
        s(src),
        "--launcher",
        "smpirun",
        "--platform",
        &platform,
        "--out",
        s(out),
    ];
    args.extend(extra);
    let _one = host_lock();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_augur"));
    cmd.args(&args).env_remove("OMP_NUM_THREADS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    eprintln!(
        "augur {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    o
}

/// A sum over N/P terms and an Allreduce; `-D EXTRA` adds a loop in front of it, so the
/// program it makes numbers its sites differently.
const SUM: &str = "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n\
int main(int argc, char **argv) {\n    int rank, size, i, n;\n    double s = 0.0, t = 0.0;\n\
\x20   MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n\
\x20   MPI_Comm_size(MPI_COMM_WORLD, &size);\n    n = atoi(argv[1]);\n\
#ifdef EXTRA\n    for (i = 0; i < 3; i++) {\n        s += i;\n    }\n#endif\n\
\x20   for (i = 0; i < n / size; i++) {\n        s += 1.0 / (i + 1.0);\n    }\n\
\x20   MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n\
\x20   if (rank == 0) {\n        printf(\"%f\\n\", t);\n    }\n    MPI_Finalize();\n    return 0;\n}\n";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Trial 8 item 7: `profile -D USE_NONBLOCKING` was not recorded; `analyze` without it read
/// another program, warned about the site ids and printed a nonsense model (exit 0).
#[test]
fn defines_are_recorded_and_analyze_reads_the_sources_with_them() {
    let tmp = tempfile::tempdir().unwrap();
    let src = write(tmp.path(), "sum.c", SUM);
    let runs = tmp.path().join("sum.augur");
    let o = profile(
        &src,
        &runs,
        &[
            "-D",
            "EXTRA",
            "--np",
            "1,2",
            "--param",
            "N=20000,40000",
            "--",
            "{N}",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m = manifest(&runs);
    let opts = m.options.clone().expect("options recorded");
    assert_eq!(opts.defines, ["EXTRA"]);
    assert_eq!(m.args.as_deref(), Some(&["{N}".to_string()][..]));
    assert!(m.runs.iter().all(|r| r.omp_num_threads.is_none()), "unset");

    // without -D: read as profiled, said so
    let o = augur(&["analyze", s(&src), "--runs", s(&runs), "--json"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("note: reading the sources with -D EXTRA, as"),
        "{err}"
    );
    assert!(!err.contains("site ids"), "{err}");

    // another -D: the command line wins, with a warning, and the mismatch is an error
    let o = augur(&["analyze", s(&src), "-D", "OTHER", "--runs", s(&runs)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("warning: -D: the runs were profiled with -D EXTRA, and the sources are read here with -D OTHER"),
        "{err}"
    );
    assert!(
        err.contains("do not match the traces'")
            && err.contains("no model is built")
            && err.contains("the runs were profiled with -D EXTRA, and the options given here (-D OTHER) make another program of the sources"),
        "{err}"
    );

    // profiling the same directory with other options is another program: refused
    let o = profile(
        &src,
        &runs,
        &["--np", "1", "--param", "N=20000", "--", "{N}"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("its runs were recorded from other options (-D, -I, --form, --cflags: -D EXTRA there, none now); use --force"),
        "{err}"
    );

    // a manifest from before the options were recorded: the error says what to pass
    let path = runs.join("manifest.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("options");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = augur(&["analyze", s(&src), "--runs", s(&runs)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the manifest does not record the profile's -D, -I or --form (it predates their recording): pass the ones the profile was given (here: none)"),
        "{err}"
    );
    let o = augur(&["analyze", s(&src), "-D", "EXTRA", "--runs", s(&runs)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Trial 8 item 2: an OpenMP program could not be built (no way to pass -fopenmp; the link
/// error blamed missing source files), and OMP_NUM_THREADS was not recorded.
#[test]
fn cflags_build_an_openmp_program_and_thread_counts_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let text = SUM
        .replace(
            "#include <stdio.h>\n",
            "#include <stdio.h>\n#include <omp.h>\n",
        )
        .replace(
            "printf(\"%f\\n\", t);",
            "printf(\"%f %d\\n\", t, omp_get_max_threads());",
        );
    let src = write(tmp.path(), "omp.c", &text);
    let runs = tmp.path().join("omp.augur");
    let grid = ["--np", "1,2", "--param", "N=20000", "--", "{N}"];
    let o = profile(&src, &runs, &grid, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("undefined reference to `omp_get_max_threads`: it is the OpenMP runtime's, linked only when compiling with OpenMP: add --cflags \"-fopenmp\""),
        "{err}"
    );
    assert!(!err.contains("give the source files"), "{err}");

    let mut with = vec!["--cflags", "-fopenmp"];
    with.extend(grid);
    let o = profile(&src, &runs, &with, &[("OMP_NUM_THREADS", "2")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m = manifest(&runs);
    assert_eq!(m.options.unwrap().cflags, ["-fopenmp"]);
    assert!(
        m.runs
            .iter()
            .all(|r| r.omp_num_threads.as_deref() == Some("2")),
        "{:?}",
        m.runs
    );
    let out = std::fs::read_to_string(runs.join("runs/N=20000,P=2/stdout.txt")).unwrap();
    assert!(out.trim_end().ends_with(" 2"), "two threads: {out}");
    let log = std::fs::read_to_string(runs.join("build/build.log")).unwrap();
    assert!(log.contains("-fopenmp"), "{log}");
}

/// Trial 8 item 1: `--param N` passed as an argument the program never reads (it reads N
/// from a file) left every run with the same N, and neither profile nor analyze said so.
#[test]
fn a_param_that_never_reaches_the_program_is_warned() {
    let tmp = tempfile::tempdir().unwrap();
    // reads K from argv 1; N only from a file of its own
    let text = SUM.replace(
        "n = atoi(argv[1]);",
        "n = atoi(argv[1]);\n    {\n        FILE *f = fopen(\"n.txt\", \"r\");\n        if (f) {\n            if (fscanf(f, \"%d\", &n) != 1) n = 1000;\n            fclose(f);\n        }\n    }",
    );
    let src = write(tmp.path(), "file.c", &text);
    let runs = tmp.path().join("file.augur");
    let o = profile(
        &src,
        &runs,
        &[
            "--np",
            "1,2",
            "--param",
            "K=1000",
            "--param",
            "N=2000,4000",
            "--",
            "{K}",
        ],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let nothing = "warning: --param N varies across the runs (2000, 4000), but no {N} in the program's arguments carries it, so every run got the same input";
    assert!(err.contains(nothing), "{err}");
    let o = augur(&["analyze", s(&src), "--runs", s(&runs), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let warnings = common::warnings(&model);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(&nothing["warning: ".len()..])),
        "{warnings:#?}"
    );

    // N passed as argument 2, which the program never reads
    let runs = tmp.path().join("file2.augur");
    let o = profile(
        &src,
        &runs,
        &[
            "--np",
            "1",
            "--param",
            "K=1000",
            "--param",
            "N=2000,4000",
            "--",
            "{K}",
            "{N}",
        ],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: --param N varies across the runs (2000, 4000) and is passed as argument 2 (augur finds no read of it in the program)"),
        "{err}"
    );
    assert!(!err.contains("--param K"), "K is read as argv 1: {err}");
}

/// Trial 8 item 4: `profile` named an MPI call without a runtime wrapper, `analyze` (text and
/// `--json` warnings) said nothing, though README says it names them with their lines.
#[test]
fn analyze_names_mpi_calls_the_tracer_does_not_wrap() {
    // an MPI operation the runtime does not wrap today (the list moves as wrappers are added)
    let wrapped = codegen::Wrapped::from_runtime();
    let candidates = [
        (
            "MPI_Ibarrier",
            "{\n        MPI_Request req;\n        MPI_Ibarrier(MPI_COMM_WORLD, &req);\n        MPI_Wait(&req, MPI_STATUS_IGNORE);\n    }",
        ),
        (
            "MPI_Exscan",
            "{\n        int one = 1, before = 0;\n        MPI_Exscan(&one, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n    }",
        ),
        (
            "MPI_Iallreduce",
            "{\n        MPI_Request req;\n        double a = 1.0, b = 0.0;\n        MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);\n        MPI_Wait(&req, MPI_STATUS_IGNORE);\n    }",
        ),
        (
            "MPI_Testall",
            "{\n        MPI_Request req = MPI_REQUEST_NULL;\n        int flag = 0;\n        MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE);\n    }",
        ),
        // a ready send to itself, its receive posted first
        (
            "MPI_Irsend",
            "{\n        MPI_Request r[2];\n        double a = 1.0, b = 0.0;\n        int me;\n        MPI_Comm_rank(MPI_COMM_WORLD, &me);\n        MPI_Irecv(&b, 1, MPI_DOUBLE, me, 7, MPI_COMM_WORLD, &r[0]);\n        MPI_Irsend(&a, 1, MPI_DOUBLE, me, 7, MPI_COMM_WORLD, &r[1]);\n        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n    }",
        ),
    ];
    let Some((name, call)) = candidates.iter().find(|(n, _)| !wrapped.c(n)) else {
        panic!("every candidate has a runtime wrapper now: add an unwrapped MPI call to this test");
    };
    let tmp = tempfile::tempdir().unwrap();
    let text = SUM.replace(
        "    MPI_Allreduce(",
        &format!("    {call}\n    MPI_Allreduce("),
    );
    let line = text
        .lines()
        .position(|l| l.contains(&format!("{name}(")))
        .unwrap()
        + 1;
    let src = write(tmp.path(), "untraced.c", &text);
    let runs = tmp.path().join("untraced.augur");
    let o = profile(
        &src,
        &runs,
        &["--np", "1,2", "--param", "N=20000,40000", "--", "{N}"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "untraced.c:{line}:9: `{name}` has no runtime wrapper"
        )),
        "{err}"
    );
    let expected = format!(
        "MPI calls augur's tracer does not wrap, so the traces do not record them: {name} at {}:{line}:9; their time lands in whatever computation phase or residual (overhead) term surrounds them",
        src.display()
    );
    let o = augur(&["analyze", s(&src), "--runs", s(&runs), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found = model["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .any(|w| w.starts_with(&expected));
    assert!(found, "{:#?}", model["warnings"]);
    let o = augur(&["analyze", s(&src), "--runs", s(&runs)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("  - {expected}")), "{out}");
}

/// Trial 8 item 11: `apt -D "=5"` and `-D 1X=5` were accepted silently (exit 0).
#[test]
fn a_define_that_names_no_macro_is_a_usage_error() {
    let src = common::root().join("testdata/shift/shift.c");
    for (d, says) in [
        ("=5", "`=5` names no macro"),
        ("1X=5", "`1X` is not a macro name"),
    ] {
        let o = augur(&["apt", s(&src), "-D", d]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
    }
    let o = augur(&["apt", s(&src), "-D", "X_1=5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
