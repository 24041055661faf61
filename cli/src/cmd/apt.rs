//! `augur apt`: print the Augmented Parse Tree of a C/Fortran MPI program (text or JSON), with
//! the front end's diagnostics on stderr. Several files are one program: calls resolve across
//! them and site ids are numbered once over all of them.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::profile::Launcher;
use super::source_opts::SourceOpts;
use super::{sources, EXIT_FINDINGS, EXIT_INPUT};

#[derive(Debug, Args)]
pub struct AptArgs {
    /// The program's C (.c) or Fortran (.f/.F/.for fixed form, .f90/.F90/… free form) source
    /// files, the one holding the main program first
    #[arg(required = true, value_name = "SOURCE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub src: SourceOpts,
    /// Names of the command-line arguments in order (`N,K` names argv[1] `N`, argv[2] `K`)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub args: Vec<String>,
    /// Whose library's MPI_Dims_create the grids follow: mpirun (Open MPI, `dims(P, d, k)`) or
    /// smpirun (SimGrid SMPI, `smpi_dims(P, d, k)`: 9 ranks make 9 x 1, not 3 x 3)
    #[arg(long, value_enum, default_value_t = Launcher::Mpirun)]
    pub launcher: Launcher,
    /// The standard input template the program is profiled with (`profile --stdin`): the k-th
    /// value it reads from standard input is named after the template's k-th `{NAME}`
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AptArgs) -> Result<ExitCode> {
    let fopts = args.src.frontend_options();
    // trial 16: without it, values read from stdin showed as `IBUF_1`, `IPAR_3`
    let stdin_names = match &args.stdin {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => super::profile::reach::stdin_names(&t),
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "error: --stdin {}: {e}",
                    p.display()
                );
                return Ok(ExitCode::from(EXIT_INPUT));
            }
        },
        None => Vec::new(),
    };
    let opts = apt::AptOptions {
        arg_names: args.args.clone(),
        stdin_names,
        dims_rule: args.launcher.dims_rule(),
    };
    let files = sources::canonical(&args.files);
    let (lowered, tree) = match frontend::load_files(&files, &fopts) {
        Ok(l) => {
            let tree = apt::build(&l, &opts);
            (l, tree)
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "error: {e}");
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };
    {
        let mut err = std::io::stderr().lock();
        for d in &lowered.diagnostics {
            let text = frontend::diagnostic::render_human(d, &lowered.sources);
            let _ = writeln!(err, "{}", text.trim_end());
        }
        if tree.routines.is_empty() {
            let _ = writeln!(
                err,
                "error: {}: no procedure found, nothing to analyse",
                sources::names(&files)
            );
        }
        for w in apt::externals::warnings(&lowered) {
            let _ = writeln!(err, "warning: {w}");
        }
    }
    // a tree was printed, but the source is broken or empty
    let had_errors = lowered.has_errors() || tree.routines.is_empty();
    let mut out = std::io::stdout().lock();
    if args.json {
        // serialise first: a closed pipe must surface as the io::Error main treats as success
        let text = serde_json::to_string_pretty(&apt::render::to_json_with_writes(&tree))
            .context("serialising the APT")?;
        out.write_all(text.as_bytes())?;
        writeln!(out)?;
    } else {
        out.write_all(apt::render::to_text(&tree).as_bytes())?;
    }
    out.flush()?;
    Ok(if had_errors {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}
