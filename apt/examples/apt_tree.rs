//! Developer aid: prints the APT of one source file (`--json` for JSON, `--args N,K` to name
//! argv, `--time` for the front-end and APT times on stderr).
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let arg_names = args
        .iter()
        .position(|a| a == "--args")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let includes = args
        .iter()
        .position(|a| a == "-I")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    let Some(path) = args.iter().find(|a| a.contains('.') && !a.starts_with('-')) else {
        eprintln!("usage: apt_tree FILE [--json] [--args N,K] [-I DIR] [--time]");
        return ExitCode::from(2);
    };
    let fopts = frontend::Options {
        include_dirs: includes.into_iter().collect(),
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let loaded = frontend::load(path.as_ref(), &fopts);
    let t1 = std::time::Instant::now();
    let result = loaded.map(|l| {
        let tree = apt::build(
            &l,
            &apt::AptOptions {
                arg_names,
                ..Default::default()
            },
        );
        (l, tree)
    });
    if args.iter().any(|a| a == "--time") {
        eprintln!(
            "front end {:.3} s, apt {:.3} s",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64()
        );
    }
    match result {
        Ok((lowered, tree)) => {
            for d in &lowered.diagnostics {
                eprint!(
                    "{}",
                    frontend::diagnostic::render_human(d, &lowered.sources)
                );
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&apt::render::to_json(&tree)).unwrap_or_default()
                );
            } else {
                print!("{}", apt::render::to_text(&tree));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
