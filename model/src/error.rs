//! Typed errors of the model crate: every variant names what a user can fix (a run directory,
//! a configuration, a parameter) rather than an internal step.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    #[error(transparent)]
    Machine(#[from] crate::machine::MachineError),
    #[error("{}: no completed runs in the manifest; record some with `augur profile`", path.display())]
    NoRuns { path: PathBuf },
    #[error("{}: no manifest.json here; record runs with `augur profile` first", path.display())]
    NoManifest { path: PathBuf },
    #[error("{}: {message}", path.display())]
    Apt { path: PathBuf, message: String },
    #[error("the APT has no main routine (no ROUTINE node with runs attributed to it)")]
    NoMain,
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a model file: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: model schema {found}, this augur reads schema {expected}; run `augur analyze` again", path.display())]
    Schema {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("expression `{text}` in the model does not parse: {message}")]
    Expr { text: String, message: String },
    #[error("parameter `{name}` has no value; give it with --at {name}=…")]
    MissingParam { name: String },
    #[error("cannot evaluate the model: {0}")]
    Eval(String),
}
