//! augur front end: C and Fortran source lowered to one language-neutral IR.
//!
//! Only this crate sees tree-sitter. Entry point: [`load`]; the IR contract is [`ir`].
pub mod diagnostic;
pub mod ir;
pub mod mpi_table;
pub mod types;

pub use diagnostic::{Diagnostic, Severity};
pub use ir::*;
pub use mpi_table::{MpiOp, Role};

use std::path::PathBuf;

/// Source form; `Auto` picks by extension (.c/.h → C; .f/.F/.for/.f77 → fixed Fortran;
/// .f90/.F90/.f95/.f03/.f08 → free Fortran).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Form {
    #[default]
    Auto,
    Fixed,
    Free,
    C,
}

/// Loading options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub form: Form,
    /// `-I DIR`: searched after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]` (C only); `None` value means defined as `1`.
    pub defines: Vec<(String, Option<String>)>,
}

/// Result of loading one program: never absent, even for broken input.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub program: Program,
    pub sources: Sources,
    pub diagnostics: Vec<Diagnostic>,
}
