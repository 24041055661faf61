//! Typed errors of the trace crate; every variant names the file, and decoding errors the byte
//! offset and record index, so a user can find the bad spot.

use std::path::PathBuf;

/// Reading or writing traces and run directories.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not an augur trace file (bad magic at byte 0)", path.display())]
    BadMagic { path: PathBuf },
    #[error("{}: trace format version {found}, this augur reads version {expected}; re-run `augur profile` to record it again", path.display())]
    Version {
        path: PathBuf,
        found: u16,
        expected: u16,
    },
    #[error("{}: byte {offset} (record {index}): truncated {what}", path.display())]
    Truncated {
        path: PathBuf,
        offset: u64,
        index: u64,
        what: &'static str,
    },
    #[error("{}: byte {offset} (record {index}): {reason}", path.display())]
    Corrupt {
        path: PathBuf,
        offset: u64,
        index: u64,
        reason: String,
    },
    #[error("{}: {reason}", path.display())]
    Manifest { path: PathBuf, reason: String },
    #[error("{}: no rank-<r>.{} files in this run directory", path.display(), crate::format::EXTENSION)]
    NoRanks { path: PathBuf },
    #[error("{}: ranks disagree or are missing: {reason}", path.display())]
    Ranks { path: PathBuf, reason: String },
}

impl TraceError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> TraceError {
        TraceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
