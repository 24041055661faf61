//! Subcommands: one module each. Only this crate knows clap, colours and stdout.

use clap::{Parser, Subcommand};

mod analyze;
mod apt;
mod characterize;
mod expr;
mod predict;
mod profile;
mod source_opts;
mod sources;
mod trace;
use std::process::ExitCode;

/// Exit codes (ripgrep convention): 0 clean, 1 findings or failed runs, 2 usage or input error.
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_INPUT: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "augur",
    version,
    about = "Predict how an MPI program performs at scales you cannot afford to run"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the Augmented Parse Tree of C/Fortran MPI sources: loops, branches, calls, communication with symbolic attributes
    Apt(apt::AptArgs),
    /// Formula calculator: simplify, eval, diff, solve (dT/dK = 0), fit
    Expr(expr::ExprArgs),
    // Each subcommand's variant is added with its module.
    /// Inspect recorded runs: export a timeline for Perfetto, dump a rank's records
    Trace(trace::TraceArgs),
    /// Instrument, build and run a program over a grid of sizes and rank counts, recording traces
    Profile(profile::ProfileArgs),
    /// Measure this machine's MPI data sheet (latency, bandwidth, overheads, collective costs)
    Characterize(characterize::CharacterizeArgs),
    /// Closed-form T(N, P, …) from a program and its recorded runs; writes DIR/model.json
    Analyze(analyze::AnalyzeArgs),
    /// Evaluate a model.json at new parameter values, with its min/max band
    Predict(predict::PredictArgs),
}

/// An error and its causes on one line, `outer: cause: root`, each text once: library errors
/// often already end with their source's text (`cannot read x.c: No such file …`), which
/// anyhow's `{:#}` would then print again. Only a cause the message so far ends with is such a
/// repeat; one whose text merely occurs earlier (a file name, a word) is kept.
pub fn error_chain(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Apt(args) => apt::run(args),
        Command::Expr(args) => expr::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Characterize(args) => characterize::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Predict(args) => predict::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read {path}: {source}")]
    struct ReadError {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn each_cause_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let err = anyhow::Error::new(ReadError {
            path: "x.c".into(),
            source: io,
        })
        .context("cannot load x.c");
        assert_eq!(
            error_chain(&err),
            "cannot load x.c: cannot read x.c: No such file"
        );
        // causes that do not repeat themselves are all kept
        let err = anyhow::anyhow!("root cause").context("outer");
        assert_eq!(error_chain(&err), "outer: root cause");
    }

    #[test]
    fn cause_appearing_inside_the_message_is_kept() {
        let err = anyhow::anyhow!("timeout").context("run N=64 (timeout 60 s) failed");
        assert_eq!(error_chain(&err), "run N=64 (timeout 60 s) failed: timeout");
    }
}
