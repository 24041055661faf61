//! Developer aid: lowers files and prints the IR dump and rendered diagnostics.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        match frontend::load(std::path::Path::new(&path), &frontend::Options::default()) {
            Ok(l) => {
                println!("{}", frontend::dump::dump(&l.program, &l.sources));
                for d in &l.diagnostics {
                    println!("{}", frontend::diagnostic::render_human(d, &l.sources));
                }
                if l.has_errors() {
                    code = ExitCode::from(1);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                code = ExitCode::from(2);
            }
        }
    }
    code
}
