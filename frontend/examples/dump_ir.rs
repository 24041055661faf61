//! Developer aid: lowers the given files as ONE program (`-DNAME=VALUE`, `-IDIR` as for the
//! compiler) and prints the IR dump and the rendered diagnostics. Exit code 1 on errors.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut opts = frontend::Options::default();
    for a in std::env::args().skip(1) {
        if let Some(d) = a.strip_prefix("-D") {
            let (k, v) = d
                .split_once('=')
                .map_or((d, None), |(k, v)| (k, Some(v.to_string())));
            opts.defines.push((k.to_string(), v));
        } else if let Some(i) = a.strip_prefix("-I") {
            opts.include_dirs.push(PathBuf::from(i));
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    if paths.is_empty() {
        eprintln!("usage: dump_ir [-DNAME[=VALUE]] [-IDIR] FILE...");
        return ExitCode::from(2);
    }
    match frontend::load_files(&paths, &opts) {
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
