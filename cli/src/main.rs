//! The `augur` binary: parse arguments, dispatch to one subcommand, map the result to an exit code.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cmd;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`augur ... | head`) is success, not an error.
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", cmd::error_chain(&err));
            ExitCode::from(2)
        }
    }
}
