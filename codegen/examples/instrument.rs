//! Developer aid: prints the instrumented text of each file given (plan from the IR).
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let l = match frontend::load(std::path::Path::new(&path), &frontend::Options::default()) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        let plan = codegen::Plan::from_program(&l.program);
        match codegen::instrument(&l.program, &l.sources, &plan) {
            Ok(out) => {
                for f in &out.files {
                    println!("==== {}", f.relative.display());
                    print!("{}", f.text);
                }
                for n in &out.notes {
                    println!(
                        "note: {} at {:?}",
                        n.message,
                        n.span.map(|s| l.sources.start(s))
                    );
                }
            }
            Err(e) => {
                eprintln!("{e}");
                code = ExitCode::from(1);
            }
        }
    }
    code
}
