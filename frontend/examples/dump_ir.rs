//! Developer aid: lowers the given files as ONE program and prints the IR dump and the
//! rendered diagnostics. Exit code 1 when there are errors.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: dump_ir FILE...");
        return ExitCode::from(2);
    }
    match frontend::load_files(&paths, &frontend::Options::default()) {
        Ok(l) => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", frontend::dump::dump(&l.program, &l.sources));
            for d in &l.diagnostics {
                let _ = writeln!(out, "{}", frontend::diagnostic::render_human(d, &l.sources));
            }
            if l.has_errors() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
