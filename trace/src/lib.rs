//! `trace`: the on-disk side of augur's instrumented runs. It owns the run-directory layout and
//! manifest, the per-rank binary event format written by `runtime/c` (docs/trace-format.md), a
//! streaming `nom` reader that never panics and names file, byte offset and record index on bad
//! input, and a Perfetto/Chrome JSON export. It interprets nothing: matching and phases are `cpg`'s.

pub mod error;
pub mod format;
pub mod perfetto;
pub mod rank;
pub mod reader;
pub mod run_dir;
pub mod writer;

pub use error::TraceError;
pub use format::{
    AggKind, Aggregate, Header, MpiCall, Op, Part, Peer, Phase, Record, Stamp, Trailer,
};
pub use perfetto::{export_perfetto, Clock, ExportOptions, ExportStats};
pub use rank::{Event, Message, RankTrace};
pub use reader::TraceReader;
pub use run_dir::{
    config_id, now_rfc3339, rank_files, read_run, rfc3339, source_hash, write_atomic, Manifest,
    ProbeCheck, Repetition, RunDir, RunRecord, RunStatus, SourceRecord,
};
pub use writer::TraceWriter;
