//! Benchmark command: front-end MB/s (read → normalise → include → parse → lower) beside bare
//! tree-sitter parse MB/s on the same text, and their ratio (target ≥ 0.5).
//!
//! `cargo run --release -p frontend --example throughput [FILES...]`; without files it uses
//! generated C, free-form and fixed-form Fortran (about 2 MB each) and every testdata program.
//! Writes the raw numbers as CSV to `target/throughput.csv` next to the table.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use frontend::{form_for_path, load_str, Form, Options};

struct Case {
    name: String,
    path: PathBuf,
    text: String,
}

fn gen_c(target: usize) -> String {
    let mut s = String::from("#include <mpi.h>\n#define NB 64\n");
    let mut k = 0;
    while s.len() < target {
        let _ = write!(
            s,
            "static void kernel{k}(double *a, const double *b, int n, int rank, int size)\n{{\n    int i, j;\n    \
             MPI_Status st;\n    for (i = 0; i < n; i++) {{\n        for (j = 1; j < n - 1; j++) {{\n            \
             a[i * n + j] = 0.25 * (b[i * n + j - 1] + b[i * n + j + 1]) + {k}.0;\n        }}\n    }}\n    \
             if (rank > 0)\n        MPI_Sendrecv(a, n, MPI_DOUBLE, rank - 1, {k}, a + n, n, MPI_DOUBLE, rank - 1, {k}, MPI_COMM_WORLD, &st);\n}}\n"
        );
        k += 1;
    }
    s.push_str(
        "int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }\n",
    );
    s
}

fn gen_free(target: usize) -> String {
    let mut s = String::from("program main\n  use mpi\n  integer :: ierr\n  call mpi_init(ierr)\n  call mpi_finalize(ierr)\nend program main\n");
    let mut k = 0;
    while s.len() < target {
        let _ = write!(
            s,
            "subroutine kernel{k}(a, b, n, rank)\n  use mpi\n  implicit none\n  integer, intent(in) :: n, rank\n  \
             double precision :: a(n, n), b(n, n)\n  integer :: i, j, ierr, st(MPI_STATUS_SIZE)\n  do j = 1, n\n    \
             do i = 2, n - 1\n      a(i, j) = 0.25d0 * (b(i - 1, j) + b(i + 1, j)) + {k}.0d0\n    end do\n  end do\n  \
             if (rank > 0) then\n    call mpi_send(a, n, MPI_DOUBLE_PRECISION, rank - 1, {k}, MPI_COMM_WORLD, ierr)\n  \
             end if\nend subroutine kernel{k}\n"
        );
        k += 1;
    }
    s
}

fn gen_fixed(target: usize) -> String {
    let mut s = String::from("      PROGRAM MAIN\n      INCLUDE 'mpif.h'\n      CALL MPI_INIT(IERR)\n      CALL MPI_FINALIZE(IERR)\n      END\n");
    let mut k = 0;
    while s.len() < target {
        let _ = write!(
            s,
            "C     kernel {k}\n      SUBROUTINE K{k}(A, B, N, IRANK)\n      INCLUDE 'mpif.h'\n      \
             DOUBLE PRECISION A(N, N), B(N, N)\n      DO 20 J = 1, N\n      DO 20 I = 2, N - 1\n         \
             A(I, J) = 0.25D0 * (B(I - 1, J) + B(I + 1, J))\n     &           + {k}.0D0\n   20 CONTINUE\n      \
             IF (IRANK .GT. 0) CALL MPI_SEND(A, N, MPI_DOUBLE_PRECISION,\n     &    IRANK - 1, {k}, MPI_COMM_WORLD, IERR)\n      \
             END\n"
        );
        k += 1;
    }
    s
}

fn testdata_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("c" | "f" | "f90")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Best time of repeated runs of `f` (at least 3 runs and 0.3 s in total).
fn best_time(mut f: impl FnMut() -> bool) -> (Duration, bool) {
    let mut best = Duration::MAX;
    let mut ok = true;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 3 || start.elapsed() < Duration::from_millis(300) {
        let t = Instant::now();
        ok &= f();
        best = best.min(t.elapsed());
        runs += 1;
    }
    (best, ok)
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64().max(1e-9)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cases = Vec::new();
    if args.is_empty() {
        let dir = std::env::temp_dir();
        cases.push(Case {
            name: "generated C".into(),
            path: dir.join("gen.c"),
            text: gen_c(2_000_000),
        });
        cases.push(Case {
            name: "generated F90".into(),
            path: dir.join("gen.f90"),
            text: gen_free(2_000_000),
        });
        cases.push(Case {
            name: "generated F77".into(),
            path: dir.join("gen.f"),
            text: gen_fixed(2_000_000),
        });
        for p in testdata_files() {
            if let Ok(text) = std::fs::read_to_string(&p) {
                let name = p
                    .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
                    .unwrap_or(&p)
                    .display()
                    .to_string();
                cases.push(Case {
                    name,
                    path: p,
                    text,
                });
            }
        }
    } else {
        for a in &args {
            match std::fs::read(a) {
                Ok(b) => cases.push(Case {
                    name: a.clone(),
                    path: a.into(),
                    text: String::from_utf8_lossy(&b).into_owned(),
                }),
                Err(e) => {
                    eprintln!("cannot read {a}: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let opts = Options::default();
    // a closed pipe (`| head`) ends the output quietly
    let mut stdout = std::io::stdout().lock();
    let mut csv = String::from("case,bytes,tree_sitter_mb_s,frontend_mb_s,ratio,frontend_errors\n");
    let _ = writeln!(
        stdout,
        "{:<32} {:>10} {:>14} {:>13} {:>7}  check",
        "case", "bytes", "tree-sitter", "frontend", "ratio"
    );
    let (mut total_bytes, mut total_ts, mut total_fe) = (0usize, Duration::ZERO, Duration::ZERO);
    for case in &cases {
        let fortran = form_for_path(&case.path).is_some_and(|f| f != Form::C);
        let lang: tree_sitter::Language = if fortran {
            tree_sitter_fortran::LANGUAGE.into()
        } else {
            tree_sitter_c::LANGUAGE.into()
        };
        let mut parser = tree_sitter::Parser::new();
        if parser.set_language(&lang).is_err() {
            eprintln!("grammar ABI mismatch");
            return ExitCode::from(2);
        }
        let (ts, _) = best_time(|| parser.parse(&case.text, None).is_some());
        let mut errors = 0;
        let mut stmts = 0;
        let (fe, ok) = best_time(|| match load_str(&case.path, &case.text, &opts) {
            Ok(l) => {
                errors = l
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == frontend::Severity::Error)
                    .count();
                stmts = l.program.stmts.len();
                true
            }
            Err(_) => false,
        });
        let bytes = case.text.len();
        let (a, b) = (mbps(bytes, ts), mbps(bytes, fe));
        let check = if ok && errors == 0 {
            format!("ok, {stmts} stmts")
        } else {
            format!("{errors} errors")
        };
        let _ = writeln!(
            stdout,
            "{:<32} {:>10} {:>9.2} MB/s {:>8.2} MB/s {:>7.2}  {check}",
            case.name,
            bytes,
            a,
            b,
            b / a
        );
        let _ = writeln!(
            csv,
            "{},{bytes},{a:.3},{b:.3},{:.3},{errors}",
            case.name,
            b / a
        );
        total_bytes += bytes;
        total_ts += ts;
        total_fe += fe;
    }
    let (a, b) = (mbps(total_bytes, total_ts), mbps(total_bytes, total_fe));
    let _ = writeln!(
        stdout,
        "{:<32} {:>10} {:>9.2} MB/s {:>8.2} MB/s {:>7.2}",
        "TOTAL",
        total_bytes,
        a,
        b,
        b / a
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/throughput.csv");
    if let Some(dir) = out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if std::fs::write(&out, csv).is_ok() {
        let _ = writeln!(stdout, "raw numbers: {}", out.display());
    }
    ExitCode::SUCCESS
}
