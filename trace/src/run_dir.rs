//! The run directory `<prog>.augur/`: `manifest.json` listing every run of the parameter grid,
//! and `runs/<config>/` holding each run's per-rank traces and captured output. Files are written
//! whole or not at all (temp file + rename), so an interrupted `augur profile` leaves a manifest
//! that still parses and a resume that redoes only unfinished runs.

use crate::error::TraceError;
use crate::format::EXTENSION;
use crate::rank::RankTrace;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Manifest schema version.
pub const MANIFEST_VERSION: u32 = 1;
/// File name of the manifest in the run directory root.
pub const MANIFEST: &str = "manifest.json";
/// Sub-directory holding one directory per configuration.
pub const RUNS: &str = "runs";
/// Captured standard output of a run (inside its config directory).
pub const STDOUT: &str = "stdout.txt";
/// Captured standard error of a run (inside its config directory).
pub const STDERR: &str = "stderr.txt";

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum RunStatus {
    Ok,
    Failed { reason: String },
    Timeout { reason: String },
}

impl RunStatus {
    pub fn is_ok(&self) -> bool {
        matches!(self, RunStatus::Ok)
    }
}

/// One configuration of the parameter grid, run once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Stable id from the parameters, e.g. `N=64,P=4`; also the directory name under `runs/`.
    pub config: String,
    /// Problem parameters (without P), by name.
    pub params: BTreeMap<String, f64>,
    /// Number of MPI ranks.
    pub np: u32,
    /// MPI implementation, e.g. `Open MPI 4.1.4` or `SimGrid SMPI 3.32`.
    pub mpi: String,
    /// Launcher command line actually executed (program and arguments, no shell).
    pub launcher: Vec<String>,
    pub host: String,
    /// Start time, RFC 3339 UTC.
    pub date: String,
    #[serde(flatten)]
    pub status: RunStatus,
    pub wall_seconds: f64,
    /// Exit code of the launcher, if it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Every repetition of the configuration in run order (`augur profile --repeat R`); empty in
    /// manifests written before repetitions were recorded. A failed repetition ends the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repetitions: Vec<Repetition>,
    /// Index in `repetitions` of the one whose traces are in `runs/<config>/`: for an ok run the
    /// fastest by `trace_seconds`, for a failed one the repetition that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<usize>,
    /// The file every rank read as standard input (`augur profile --stdin FILE`): FILE itself,
    /// or its copy with this configuration's `{NAME}` placeholders substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// The host's online cores when the run started; absent in manifests written before it
    /// was recorded. With `np` it says whether native ranks shared cores (oversubscription).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// The host's 1-minute load average (`/proc/loadavg`) at the start of the kept repetition;
    /// absent where the host does not report one (never 0 for unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<f64>,
    /// The cores' worth of CPU time the host's other processes used in the moment before the
    /// kept repetition started (`/proc/stat` over 0.15 s; native runs): unlike the load
    /// average, it does not carry the profile's own previous runs. Absent where unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_cores: Option<f64>,
    /// `OMP_NUM_THREADS` as the ranks saw it (the environment `augur profile` ran in); absent
    /// when it was unset, and in manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omp_num_threads: Option<String>,
}

impl RunRecord {
    /// A run of `params` on `np` ranks that ended well, with nothing else known: no launcher,
    /// host, MPI library, time or repetition (what a test or a tool filling those in starts
    /// from, `RunRecord { host: …, ..RunRecord::new(params, np) }`).
    pub fn new(params: BTreeMap<String, f64>, np: u32) -> RunRecord {
        RunRecord {
            config: config_id(&params, np),
            params,
            np,
            mpi: String::new(),
            launcher: Vec::new(),
            host: String::new(),
            date: String::new(),
            status: RunStatus::Ok,
            wall_seconds: 0.0,
            exit_code: Some(0),
            repetitions: Vec::new(),
            kept: None,
            stdin: None,
            cores: None,
            load_average: None,
            busy_cores: None,
            omp_num_threads: None,
        }
    }
}

/// One execution of a configuration. `RunRecord::wall_seconds` is the kept repetition's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repetition {
    /// Launcher wall time, start to exit (includes launching the ranks).
    pub wall_seconds: f64,
    /// The time analysis measures from the traces: the slowest rank's MPI_Init to end of trace
    /// (host wall natively, simulated under SMPI); absent when the repetition did not end ok.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_seconds: Option<f64>,
    /// The host's 1-minute load average when this repetition started (absent where unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<f64>,
    /// The cores' worth of CPU the host's other processes used just before it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_cores: Option<f64>,
}

/// The whole manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    /// Program name (source file stem).
    pub program: String,
    /// Source path as given to `augur profile`.
    pub source: String,
    /// `sha256:<hex>` of the source bytes.
    pub source_hash: String,
    /// Every source of a program of several files, the main one (`source`) first, each with
    /// its hash; empty for a one-file program, whose `source` and `source_hash` say it all (and
    /// in manifests written before programs could have several files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceRecord>,
    /// `augur profile --stdin FILE`: the input template as given, and its hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<SourceRecord>,
    /// How the sources were read and compiled (`-D`, `-I`, `--form`, `--cflags`): the site ids in
    /// the traces are those of the program these give, so analysis reads the sources the same
    /// way. Written by every profile (`{}` for none); absent (unknown) in manifests written
    /// before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<SourceOptions>,
    /// The program's arguments of the latest `augur profile`, with their `{NAME}` placeholders
    /// (without ARGS, one `{NAME}` per `--param` in the order given): which argument carries
    /// which parameter. Absent in manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Runs in insertion order; at most one per config id.
    pub runs: Vec<RunRecord>,
    /// The latest profile's check of what augur's markers cost: one configuration run
    /// uninstrumented beside its traced runs. Absent when no check ran (a profile that ran no
    /// configuration, a manifest written before the check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeCheck>,
}

/// One configuration run uninstrumented and instrumented: what augur's markers add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeCheck {
    /// The configuration (a run's `config`).
    pub config: String,
    /// How both were timed: `simulated` (SMPI's simulated time of the whole run, the
    /// instrumented one from its traces) or `wall` (the launcher's wall time, start to exit,
    /// launching included).
    pub clock: String,
    /// The uninstrumented program, least of its repetitions, seconds.
    pub uninstrumented: f64,
    /// The instrumented program on the same clock, least of its repetitions, seconds.
    pub instrumented: f64,
    /// The instrumented run's traced time (MPI_Init to end, slowest rank), seconds: what the
    /// markers' part is a share of.
    pub traced: f64,
}

impl ProbeCheck {
    /// The markers' part of the traced time: (instrumented − uninstrumented) / traced.
    pub fn share(&self) -> f64 {
        (self.instrumented - self.uninstrumented) / self.traced
    }
}

/// The options of `augur profile` that change which program its sources are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceOptions {
    /// `-D NAME[=VALUE]`, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    /// `-I DIR`, as given (relative to the directory `augur profile` ran in).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include_dirs: Vec<String>,
    /// `--form` (`c`, `fixed`, `free`); absent when the file extensions decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// Extra compiler flags (`--cflags`), split at whitespace, passed to every compile and link.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cflags: Vec<String>,
}

impl SourceOptions {
    pub fn is_empty(&self) -> bool {
        *self == SourceOptions::default()
    }
}

/// A file the runs depend on, by path (as given to `augur profile`) and content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    pub path: String,
    /// `sha256:<hex>` of the file's bytes.
    pub hash: String,
}

impl SourceRecord {
    pub fn new(path: &Path, bytes: &[u8]) -> SourceRecord {
        SourceRecord {
            path: path.display().to_string(),
            hash: source_hash(bytes),
        }
    }
}

impl Manifest {
    /// A manifest with no runs yet for `source` whose text is `source_bytes`.
    pub fn new(source: &Path, source_bytes: &[u8]) -> Manifest {
        Manifest {
            version: MANIFEST_VERSION,
            program: program_name(source),
            source: source.display().to_string(),
            source_hash: source_hash(source_bytes),
            sources: Vec::new(),
            stdin: None,
            options: None,
            args: None,
            runs: Vec::new(),
            probe: None,
        }
    }

    /// A manifest with no runs yet for a program of several files (path, bytes), the main one
    /// first; with one file it is [`Manifest::new`]'s.
    pub fn for_sources(files: &[(PathBuf, Vec<u8>)]) -> Manifest {
        let Some((main, bytes)) = files.first() else {
            return Manifest::new(Path::new("program"), b"");
        };
        let mut m = Manifest::new(main, bytes);
        if files.len() > 1 {
            m.sources = files.iter().map(|(p, b)| SourceRecord::new(p, b)).collect();
        }
        m
    }

    /// Every source of the program, the main one first (one entry for a one-file program).
    pub fn all_sources(&self) -> Vec<SourceRecord> {
        if self.sources.is_empty() {
            vec![SourceRecord {
                path: self.source.clone(),
                hash: self.source_hash.clone(),
            }]
        } else {
            self.sources.clone()
        }
    }

    /// Whether `other` was recorded from the same sources (by content, in the same order), read
    /// and compiled with the same options, and the same `--stdin` input.
    pub fn same_inputs(&self, other: &Manifest) -> bool {
        let hashes =
            |m: &Manifest| -> Vec<String> { m.all_sources().into_iter().map(|s| s.hash).collect() };
        hashes(self) == hashes(other)
            && self.options.clone().unwrap_or_default() == other.options.clone().unwrap_or_default()
            && self.stdin.as_ref().map(|s| &s.hash) == other.stdin.as_ref().map(|s| &s.hash)
    }

    /// The run recorded for `config`, if any.
    pub fn run(&self, config: &str) -> Option<&RunRecord> {
        self.runs.iter().find(|r| r.config == config)
    }

    /// Adds a run, replacing an earlier record of the same configuration.
    pub fn upsert(&mut self, run: RunRecord) {
        match self.runs.iter_mut().find(|r| r.config == run.config) {
            Some(slot) => *slot = run,
            None => self.runs.push(run),
        }
    }

    /// Whether `config` already has a successful run (resume skips it).
    pub fn is_done(&self, config: &str) -> bool {
        self.run(config).is_some_and(|r| r.status.is_ok())
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn source_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The program name used for `<prog>.augur`: the source file stem.
pub fn program_name(source: &Path) -> String {
    source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into())
}

/// Stable configuration id: parameters sorted by name, then `P`, e.g. `N=64,P=4`. Characters
/// that are not safe in a directory name are replaced by `_`.
pub fn config_id(params: &BTreeMap<String, f64>, np: u32) -> String {
    let mut parts: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{}={}", sanitize(k), fmt_value(*v)))
        .collect();
    parts.push(format!("P={np}"));
    parts.join(",")
}

fn fmt_value(v: f64) -> String {
    // Integral values print without a fraction (64, not 64.0) so ids read like the command line.
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        sanitize(&format!("{v}"))
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes `bytes` to `path` whole or not at all: a temp file in the same directory, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TraceError> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        TraceError::io(path, e)
    })
}

/// Current time as RFC 3339 UTC (`2026-11-21T06:17:23Z`), for `RunRecord::date`.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// A Unix time as RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SSZ`).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // civil-from-days (H. Hinnant): proleptic Gregorian date of a day count since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A run directory on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The default location for `source`: `<out or cwd>/<prog>.augur`.
    pub fn default_for(source: &Path, out: Option<&Path>) -> RunDir {
        let base = out.map(Path::to_path_buf).unwrap_or_default();
        RunDir {
            root: base.join(format!("{}.augur", program_name(source))),
        }
    }

    /// A run directory at `root` (nothing is read or created).
    pub fn at(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.root.join(MANIFEST)
    }

    /// Directory of one configuration's run: `runs/<config>`.
    pub fn run_path(&self, config: &str) -> PathBuf {
        self.root.join(RUNS).join(config)
    }

    /// Path of one rank's trace in a configuration's directory.
    pub fn rank_path(&self, config: &str, rank: u32) -> PathBuf {
        self.run_path(config)
            .join(format!("rank-{rank}.{EXTENSION}"))
    }

    /// Creates `root/runs/<config>` (and parents).
    pub fn create_run(&self, config: &str) -> Result<PathBuf, TraceError> {
        let p = self.run_path(config);
        std::fs::create_dir_all(&p).map_err(|e| TraceError::io(&p, e))?;
        Ok(p)
    }

    /// Reads the manifest; `Ok(None)` if there is none yet.
    pub fn load_manifest(&self) -> Result<Option<Manifest>, TraceError> {
        let path = self.manifest_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TraceError::io(&path, e)),
        };
        let m: Manifest = serde_json::from_str(&text).map_err(|e| TraceError::Manifest {
            path: path.clone(),
            reason: format!("line {} column {}: {e}", e.line(), e.column()),
        })?;
        if m.version != MANIFEST_VERSION {
            return Err(TraceError::Manifest {
                path,
                reason: format!(
                    "manifest version {}, this augur reads version {MANIFEST_VERSION}",
                    m.version
                ),
            });
        }
        Ok(Some(m))
    }

    /// Writes the manifest atomically (creating the root directory if needed).
    pub fn save_manifest(&self, m: &Manifest) -> Result<(), TraceError> {
        std::fs::create_dir_all(&self.root).map_err(|e| TraceError::io(&self.root, e))?;
        let mut text = serde_json::to_string_pretty(m).map_err(|e| TraceError::Manifest {
            path: self.manifest_path(),
            reason: e.to_string(),
        })?;
        text.push('\n');
        write_atomic(&self.manifest_path(), text.as_bytes())
    }

    /// Reads every rank of one configuration (see [`read_run`]).
    pub fn read_run(&self, config: &str) -> Result<Vec<RankTrace>, TraceError> {
        read_run(&self.run_path(config))
    }
}

/// The `rank-<r>.augt` files of a directory, sorted by rank.
pub fn rank_files(dir: &Path) -> Result<Vec<(u32, PathBuf)>, TraceError> {
    let rd = std::fs::read_dir(dir).map_err(|e| TraceError::io(dir, e))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| TraceError::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let rank = name
            .strip_prefix("rank-")
            .and_then(|s| s.strip_suffix(&format!(".{EXTENSION}")))
            .and_then(|s| s.parse::<u32>().ok());
        if let Some(r) = rank {
            out.push((r, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Reads every rank trace of one run directory and checks they form one run: ranks 0..P-1
/// all present, each file's header agreeing with its name and on the world size.
pub fn read_run(dir: &Path) -> Result<Vec<RankTrace>, TraceError> {
    let files = rank_files(dir)?;
    if files.is_empty() {
        return Err(TraceError::NoRanks {
            path: dir.to_path_buf(),
        });
    }
    let mut traces = Vec::with_capacity(files.len());
    for (i, (rank, path)) in files.iter().enumerate() {
        if *rank as usize != i {
            return Err(TraceError::Ranks {
                path: dir.to_path_buf(),
                reason: format!("rank {i} has no trace file"),
            });
        }
        let t = RankTrace::read(path)?;
        if t.header.rank != i as i32 {
            return Err(TraceError::Ranks {
                path: path.clone(),
                reason: format!(
                    "file is named for rank {i} but its header says rank {}",
                    t.header.rank
                ),
            });
        }
        traces.push(t);
    }
    let p = traces.len() as i32;
    if let Some(t) = traces.iter().find(|t| t.header.world_size != p) {
        return Err(TraceError::Ranks {
            path: dir.to_path_buf(),
            reason: format!(
                "{p} rank files but rank {} reports world size {}",
                t.header.rank, t.header.world_size
            ),
        });
    }
    Ok(traces)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn config_ids_are_sorted_and_integral() {
        let mut p = BTreeMap::new();
        p.insert("N".to_string(), 64.0);
        p.insert("K".to_string(), 0.5);
        assert_eq!(config_id(&p, 4), "K=0.5,N=64,P=4");
        assert_eq!(config_id(&BTreeMap::new(), 1), "P=1");
        let mut q = BTreeMap::new();
        q.insert("a/b c".to_string(), 1e20);
        assert_eq!(config_id(&q, 2), "a_b_c=100000000000000000000,P=2");
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_238_243), "2026-11-21T05:17:23Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn hash_is_sha256() {
        assert_eq!(
            source_hash(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn manifest_roundtrip_and_upsert() {
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::default_for(Path::new("src/heat.c"), Some(dir.path()));
        assert!(rd.root().ends_with("heat.augur"));
        assert!(rd.load_manifest().unwrap().is_none());
        let mut m = Manifest::new(Path::new("src/heat.c"), b"int main(){}");
        let mut params = BTreeMap::new();
        params.insert("N".into(), 64.0);
        let run = RunRecord {
            config: config_id(&params, 2),
            params,
            np: 2,
            mpi: "Open MPI 4.1.4".into(),
            launcher: vec!["mpirun".into(), "-np".into(), "2".into()],
            host: "h".into(),
            date: now_rfc3339(),
            status: RunStatus::Timeout {
                reason: "killed after 60 s".into(),
            },
            wall_seconds: 60.0,
            exit_code: None,
            repetitions: vec![Repetition {
                wall_seconds: 60.0,
                trace_seconds: None,
                load_average: Some(0.42),
                busy_cores: Some(0.1),
            }],
            kept: Some(0),
            stdin: None,
            cores: Some(2),
            load_average: Some(0.42),
            busy_cores: Some(0.1),
            omp_num_threads: Some("2".into()),
        };
        m.upsert(run.clone());
        assert!(!m.is_done("N=64,P=2"));
        m.upsert(RunRecord {
            status: RunStatus::Ok,
            ..run.clone()
        });
        assert_eq!(m.runs.len(), 1);
        assert!(m.is_done("N=64,P=2"));
        m.upsert(RunRecord {
            config: "N=64,P=4".into(),
            np: 4,
            status: RunStatus::Failed {
                reason: "rank 3 exited with code 1".into(),
            },
            exit_code: Some(1),
            ..run
        });
        assert!(!m.is_done("N=64,P=4"));
        rd.save_manifest(&m).unwrap();
        let text = std::fs::read_to_string(rd.manifest_path()).unwrap();
        assert!(text.contains("\"status\": \"ok\""), "{text}");
        assert!(
            text.contains(
                "\"status\": \"failed\",\n      \"reason\": \"rank 3 exited with code 1\""
            ),
            "{text}"
        );
        assert_eq!(rd.load_manifest().unwrap().unwrap(), m);
        // no temp files left behind
        let names: Vec<_> = std::fs::read_dir(rd.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(MANIFEST)]);
    }

    #[test]
    fn manifests_without_repetitions_still_read() {
        // A record as written before `--repeat` existed: no `repetitions`, no `kept`.
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::at(dir.path());
        let old = r#"{"version": 1, "program": "p", "source": "p.c", "source_hash": "sha256:00",
            "runs": [{"config": "N=8,P=1", "params": {"N": 8.0}, "np": 1, "mpi": "Open MPI 4.1.4",
            "launcher": ["mpirun"], "host": "h", "date": "2026-11-21T05:17:23Z",
            "status": "ok", "wall_seconds": 0.5, "exit_code": 0}]}"#;
        std::fs::write(rd.manifest_path(), old).unwrap();
        let m = rd.load_manifest().unwrap().unwrap();
        assert!(m.is_done("N=8,P=1"));
        assert!(m.runs[0].repetitions.is_empty());
        assert_eq!(m.runs[0].kept, None);
        // nor the host's cores and load: unknown, not 0; nor OMP_NUM_THREADS, nor -D/-I/--form
        assert_eq!((m.runs[0].cores, m.runs[0].load_average), (None, None));
        assert_eq!(m.runs[0].omp_num_threads, None);
        assert_eq!(m.options, None);
        // and a record without repetitions is written back without the new keys
        rd.save_manifest(&m).unwrap();
        let text = std::fs::read_to_string(rd.manifest_path()).unwrap();
        assert!(
            !text.contains("repetitions")
                && !text.contains("kept")
                && !text.contains("cores")
                && !text.contains("load_average")
                && !text.contains("omp_num_threads")
                && !text.contains("options")
                && !text.contains("args"),
            "{text}"
        );
    }

    #[test]
    fn several_sources_and_stdin_roundtrip() {
        let files = vec![
            (PathBuf::from("cg.c"), b"int main(){}".to_vec()),
            (PathBuf::from("ops.c"), b"double dot(){}".to_vec()),
        ];
        let mut m = Manifest::for_sources(&files);
        assert_eq!(m.program, "cg");
        assert_eq!(m.source, "cg.c");
        assert_eq!(m.source_hash, source_hash(b"int main(){}"));
        assert_eq!(m.all_sources().len(), 2);
        assert_eq!(m.all_sources()[1].path, "ops.c");
        let one = Manifest::for_sources(&files[..1]);
        assert!(one.sources.is_empty(), "one file: the old layout");
        assert_eq!(one.all_sources()[0].hash, m.source_hash);
        assert!(!one.same_inputs(&m));
        let mut edited = files.clone();
        edited[1].1.push(b' ');
        assert!(!Manifest::for_sources(&edited).same_inputs(&m));
        assert!(Manifest::for_sources(&files).same_inputs(&m));
        m.stdin = Some(SourceRecord::new(Path::new("in.txt"), b"{N}\n"));
        assert!(!Manifest::for_sources(&files).same_inputs(&m));
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::at(dir.path());
        rd.save_manifest(&m).unwrap();
        assert_eq!(rd.load_manifest().unwrap().unwrap(), m);
    }

    #[test]
    fn source_options_roundtrip_and_tell_programs_apart() {
        let files = vec![(PathBuf::from("h.c"), b"int main(){}".to_vec())];
        let mut m = Manifest::for_sources(&files);
        m.options = Some(SourceOptions {
            defines: vec!["USE_NONBLOCKING".into(), "NB=4".into()],
            include_dirs: vec!["inc".into()],
            form: Some("c".into()),
            cflags: vec!["-fopenmp".into()],
        });
        // the same file with another -D is another program: its runs do not mix
        assert!(!Manifest::for_sources(&files).same_inputs(&m));
        let mut same = Manifest::for_sources(&files);
        same.options = m.options.clone();
        assert!(same.same_inputs(&m));
        // none recorded (an older manifest) and none given are the same options
        let mut none = Manifest::for_sources(&files);
        none.options = Some(SourceOptions::default());
        assert!(none.same_inputs(&Manifest::for_sources(&files)));
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::at(dir.path());
        rd.save_manifest(&m).unwrap();
        let text = std::fs::read_to_string(rd.manifest_path()).unwrap();
        assert!(
            text.contains("\"defines\": [\n      \"USE_NONBLOCKING\""),
            "{text}"
        );
        assert_eq!(rd.load_manifest().unwrap().unwrap(), m);
    }

    #[test]
    fn one_source_manifests_keep_their_layout() {
        // written before programs could have several files: no `sources`, no `stdin`; read
        // back and written again unchanged
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::at(dir.path());
        let m = Manifest::new(Path::new("p.c"), b"x");
        rd.save_manifest(&m).unwrap();
        let text = std::fs::read_to_string(rd.manifest_path()).unwrap();
        assert!(
            !text.contains("sources") && !text.contains("stdin"),
            "{text}"
        );
    }

    #[test]
    fn bad_manifest_names_position() {
        let dir = tempfile::tempdir().unwrap();
        let rd = RunDir::at(dir.path());
        std::fs::write(rd.manifest_path(), "{\n  \"version\": 1,\n  oops }").unwrap();
        let e = rd.load_manifest().unwrap_err().to_string();
        assert!(e.contains("manifest.json: line 3"), "{e}");
    }
}
