//! The options every subcommand that reads a program shares (`-I`, `-D`, `--form`), and their
//! translation to the front end's options: one definition, flattened into each subcommand.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Default, Args)]
pub struct SourceOpts {
    /// Directory searched for `include` / `#include "…"` files (after the including file's own)
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// C macro `NAME` or `NAME=VALUE`
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Source form, overriding the file extension
    #[arg(long, value_enum)]
    pub form: Option<FormArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormArg {
    C,
    Fixed,
    Free,
}

impl SourceOpts {
    pub fn frontend_options(&self) -> frontend::Options {
        frontend::Options {
            form: match self.form {
                None => frontend::Form::Auto,
                Some(FormArg::C) => frontend::Form::C,
                Some(FormArg::Fixed) => frontend::Form::Fixed,
                Some(FormArg::Free) => frontend::Form::Free,
            },
            include_dirs: self.include.clone(),
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
        }
    }
}
