//! `augur apt`: print the Augmented Parse Tree of C/Fortran MPI sources (text or JSON),
//! with the front end's diagnostics on stderr.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::source_opts::SourceOpts;
use super::{EXIT_FINDINGS, EXIT_INPUT};

#[derive(Debug, Args)]
pub struct AptArgs {
    /// C (.c) or Fortran (.f/.F/.for fixed form, .f90/.F90/… free form) source files
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub src: SourceOpts,
    /// Names of the command-line arguments in order (`N,K` names argv[1] `N`, argv[2] `K`)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub args: Vec<String>,
    /// Print JSON (an array when several files are given)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AptArgs) -> Result<ExitCode> {
    let fopts = args.src.frontend_options();
    let opts = apt::AptOptions {
        arg_names: args.args.clone(),
    };
    let mut json_out = Vec::new();
    let mut text_out = String::new();
    let mut had_errors = false;
    let mut io_error = false;
    let stderr = std::io::stderr();
    for path in &args.files {
        let (lowered, tree) = match apt::load(path, &fopts, &opts) {
            Ok(x) => x,
            Err(e) => {
                let _ = writeln!(stderr.lock(), "error: {}: {e}", path.display());
                io_error = true;
                continue;
            }
        };
        {
            let mut err = stderr.lock();
            for d in &lowered.diagnostics {
                let text = frontend::diagnostic::render_human(d, &lowered.sources);
                let _ = writeln!(err, "{}", text.trim_end());
            }
            if tree.routines.is_empty() {
                let _ = writeln!(
                    err,
                    "error: {}: no procedure found, nothing to analyse",
                    path.display()
                );
            }
        }
        // a tree was printed, but the source is broken or empty
        had_errors |= lowered.has_errors() || tree.routines.is_empty();
        if args.json {
            json_out.push(apt::render::to_json(&tree));
        } else {
            text_out.push_str(&apt::render::to_text(&tree));
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = if args.files.len() == 1 {
            json_out.pop().unwrap_or(serde_json::Value::Null)
        } else {
            serde_json::Value::Array(json_out)
        };
        if !value.is_null() {
            // serialise first: a closed pipe must surface as the io::Error main treats as success
            let text = serde_json::to_string_pretty(&value).context("serialising the APT")?;
            out.write_all(text.as_bytes())?;
            writeln!(out)?;
        }
    } else {
        out.write_all(text_out.as_bytes())?;
    }
    out.flush()?;
    Ok(if io_error {
        ExitCode::from(EXIT_INPUT)
    } else if had_errors {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}
