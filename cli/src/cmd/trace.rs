//! `augur trace`: look at recorded runs — export a run's timeline for Perfetto/Chrome, or dump a
//! rank's records as text or JSON lines.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trace::{export_perfetto, read_run, Clock, ExportOptions, Record, RunDir, TraceReader};

#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Write a run's timeline as Chrome/Perfetto trace JSON (open it in ui.perfetto.dev)
    Export {
        /// A run directory (`prog.augur/runs/N=64,P=4`) or a `prog.augur` root with --config
        run: PathBuf,
        /// Output JSON file
        #[arg(long, value_name = "OUT.json")]
        perfetto: PathBuf,
        /// Configuration to export when RUN is a `prog.augur` root holding several runs
        #[arg(long)]
        config: Option<String>,
        /// Timeline clock: host monotonic, MPI_Wtime, or auto (MPI_Wtime under SMPI)
        #[arg(long, value_enum, default_value_t = ClockArg::Auto)]
        clock: ClockArg,
        /// Leave out send→receive arrows
        #[arg(long)]
        no_flows: bool,
    },
    /// Print every record of one rank's trace file
    Dump {
        /// A `rank-<r>.augt` file
        file: PathBuf,
        /// One JSON object per line instead of text
        #[arg(long)]
        json: bool,
        /// Clock of the text timestamps: host monotonic, MPI_Wtime, or auto (MPI_Wtime under
        /// SMPI, as `export`); both since MPI_Init
        #[arg(long, value_enum, default_value_t = ClockArg::Auto)]
        clock: ClockArg,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    Auto,
    Mono,
    Wtime,
}

pub fn run(args: TraceArgs) -> Result<ExitCode> {
    match args.command {
        TraceCommand::Export {
            run,
            perfetto,
            config,
            clock,
            no_flows,
        } => export(&run, &perfetto, config.as_deref(), clock, !no_flows),
        TraceCommand::Dump { file, json, clock } => dump(&file, json, clock),
    }
}

/// Finds the directory holding the rank files: RUN itself, or RUN/runs/<config>.
fn resolve_run(run: &Path, config: Option<&str>) -> Result<PathBuf> {
    if !run.is_dir() {
        bail!(
            "{}: not a directory (expected a run directory or a `.augur` root)",
            run.display()
        );
    }
    let has_ranks = !trace::rank_files(run)?.is_empty();
    if has_ranks && config.is_none() {
        return Ok(run.to_path_buf());
    }
    let root = RunDir::at(run);
    let runs = root.root().join(trace::run_dir::RUNS);
    let mut configs: Vec<String> = match std::fs::read_dir(&runs) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) if config.is_some() => Vec::new(),
        Err(_) => bail!(
            "{}: no rank-<r>.augt files and no runs/ directory",
            run.display()
        ),
    };
    configs.sort();
    if let Some(c) = config {
        let p = root.run_path(c);
        if p.is_dir() {
            return Ok(p);
        }
        // the same values in another order (`NPART=…,NG=…` for `NG=…,NPART=…`: trial 21)
        let wanted = super::analyze::parse_at(c).ok();
        if let Some(same) = configs
            .iter()
            .find(|k| wanted.is_some() && super::analyze::parse_at(k).ok() == wanted)
        {
            return Ok(root.run_path(same));
        }
        bail!(
            "{}: no run `{c}` (looked in {}; the runs: {})",
            run.display(),
            p.display(),
            if configs.is_empty() {
                "none".to_string()
            } else {
                configs.join("  ")
            }
        );
    }
    match configs.as_slice() {
        [one] => Ok(root.run_path(one)),
        [] => bail!("{}: runs/ is empty", run.display()),
        many => bail!(
            "{}: several runs, choose one with --config: {}",
            run.display(),
            many.join("  ")
        ),
    }
}

fn export(
    run: &Path,
    out: &Path,
    config: Option<&str>,
    clock: ClockArg,
    flows: bool,
) -> Result<ExitCode> {
    let dir = resolve_run(run, config)?;
    let ranks = read_run(&dir)?;
    let clock = match clock {
        ClockArg::Auto => Clock::Auto,
        ClockArg::Mono => Clock::Mono,
        ClockArg::Wtime => Clock::Wtime,
    };
    let mut buf = Vec::new();
    let stats = export_perfetto(&ranks, ExportOptions { clock, flows }, &mut buf)
        .with_context(|| format!("writing {}", out.display()))?;
    trace::write_atomic(out, &buf)?;
    println!(
        "wrote {}: {} ranks, {} slices, {} message arrows (from {})",
        out.display(),
        ranks.len(),
        stats.slices,
        stats.flows,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Where a dump's text timestamps come from: both count from MPI_Init.
#[derive(Debug, Clone, Copy)]
enum DumpClock {
    /// Host CLOCK_MONOTONIC, ns at MPI_Init.
    Mono(u64),
    /// MPI_Wtime (simulated under SMPI), seconds at MPI_Init.
    Wtime(f64),
}

impl DumpClock {
    fn us(self, s: &trace::Stamp) -> f64 {
        match self {
            DumpClock::Mono(t0) => s.mono_ns.saturating_sub(t0) as f64 / 1e3,
            DumpClock::Wtime(t0) => (s.wtime - t0) * 1e6,
        }
    }
    fn span_us(self, a: &trace::Stamp, b: &trace::Stamp) -> f64 {
        self.us(b) - self.us(a)
    }
}

fn dump(file: &Path, json: bool, clock: ClockArg) -> Result<ExitCode> {
    let mut r = TraceReader::open(file)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let h = *r.header();
    let wtime = match clock {
        ClockArg::Auto => h.smpi(),
        ClockArg::Mono => false,
        ClockArg::Wtime => true,
    };
    let clk = if wtime {
        DumpClock::Wtime(h.init_wtime)
    } else {
        DumpClock::Mono(h.init_mono_ns)
    };
    if json {
        writeln!(w, "{}", serde_json::json!({ "header": h }))?;
    } else {
        writeln!(
            w,
            "# {}: rank {} of {}, pid {}, {}{}; times in us since MPI_Init, {}",
            file.display(),
            h.rank,
            h.world_size,
            h.pid,
            if h.smpi() { "SMPI" } else { "native MPI" },
            if h.fortran() { ", Fortran" } else { "" },
            match (wtime, h.smpi()) {
                (true, true) => "MPI_Wtime (simulated)",
                (true, false) => "MPI_Wtime",
                (false, _) => "host monotonic clock",
            }
        )?;
    }
    let mut i = 0u64;
    while let Some(rec) = r.next_record()? {
        if json {
            writeln!(w, "{}", serde_json::to_string(&rec)?)?;
        } else {
            writeln!(w, "{i:>6} {}", text(&rec, clk))?;
        }
        i += 1;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A time in µs; `-` where the clock has no value (MPI_Wtime before MPI_Init returned).
fn at(us: f64) -> String {
    if us.is_finite() {
        format!("{us:.1}us")
    } else {
        "-".into()
    }
}

fn text(rec: &Record, clk: DumpClock) -> String {
    match rec {
        Record::Mpi(c) => format!(
            "{:>14} {:<14} site {:<5} peer {:?} tag {} bytes {} comm {} req {} parts {} ({})",
            at(clk.us(&c.start)),
            c.op.mpi_name(),
            c.site,
            c.peer,
            c.tag,
            c.bytes,
            c.comm_size,
            c.req_id,
            c.nparts,
            at(clk.span_us(&c.start, &c.end))
        ),
        Record::Part(p) => format!(
            "{:>14} `- {:<11} site {:<5} peer {:?} tag {} bytes {} req {}",
            "",
            p.op.mpi_name(),
            p.site,
            p.peer,
            p.tag,
            p.bytes,
            p.req_id
        ),
        Record::Phase(p) => format!(
            "{:>14} phase          site {:<5} wall {} cpu {:.1}us depth {}{}",
            at(clk.us(&p.start)),
            p.site,
            at(clk.span_us(&p.start, &p.end)),
            p.cpu_ns as f64 / 1e3,
            p.depth,
            // a run of brief entries back to back, recorded as one
            if p.entries > 1 {
                format!(" entries {}", p.entries)
            } else {
                String::new()
            }
        ),
        Record::Aggregate(a) => format!(
            "{:>14} {:<14} site {:<5} arm {} count {} sum {} min {} max {}",
            "",
            format!("{:?}", a.kind),
            a.site,
            a.arm,
            a.count,
            a.sum,
            a.min,
            a.max
        ),
        Record::Trailer(t) => format!(
            "{:>14} end            {} events, {} aggregates, {} anomalies",
            "", t.events, t.aggregates, t.anomalies
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use trace::{format, Header, MpiCall, Op, Peer, Stamp, TraceWriter};

    fn write_rank(dir: &Path, rank: i32, p: i32) {
        let h = Header {
            version: format::VERSION,
            flags: 0,
            rank,
            world_size: p,
            pid: 1,
            init_mono_ns: 0,
            init_wtime: 0.0,
            init_unix_ns: 0,
        };
        let s = |t| Stamp {
            mono_ns: t,
            wtime: t as f64 / 1e9,
        };
        let send = MpiCall {
            op: if rank == 0 { Op::Send } else { Op::Recv },
            flags: 0,
            site: 3,
            peer: Peer::Rank(1 - rank as u32),
            tag: 5,
            bytes: 64,
            comm_size: p,
            nparts: 0,
            req_id: 0,
            start: s(100),
            end: s(200),
        };
        let mut w = TraceWriter::new(&h);
        w.record(&Record::Mpi(send));
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(format!("rank-{rank}.augt")), w.finish(300, 0)).unwrap();
    }

    #[test]
    fn export_resolves_root_and_config() {
        let tmp = tempfile::tempdir().unwrap();
        let root = RunDir::at(tmp.path().join("ring.augur"));
        for c in ["N=8,P=2", "N=16,P=2"] {
            for r in 0..2 {
                write_rank(&root.run_path(c), r, 2);
            }
        }
        let e = resolve_run(root.root(), None).unwrap_err().to_string();
        assert!(
            e.contains("several runs, choose one with --config: N=16,P=2  N=8,P=2"),
            "{e}"
        );
        let dir = resolve_run(root.root(), Some("N=8,P=2")).unwrap();
        assert_eq!(dir, root.run_path("N=8,P=2"));
        // the values in another order name the same run (trial 21); unknown values list the runs
        assert_eq!(resolve_run(root.root(), Some("P=2,N=8")).unwrap(), dir);
        let e = resolve_run(root.root(), Some("P=2,N=9"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("the runs: N=16,P=2  N=8,P=2"), "{e}");
        assert_eq!(resolve_run(&dir, None).unwrap(), dir);
        let out = tmp.path().join("t.json");
        export(&dir, &out, None, ClockArg::Mono, true).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let evs = v["traceEvents"].as_array().unwrap();
        let slices = evs.iter().filter(|e| e["ph"] == "X").count();
        let arrows: Vec<_> = evs
            .iter()
            .filter(|e| e["ph"] == "s" || e["ph"] == "f")
            .collect();
        assert_eq!(slices, 2);
        assert_eq!(arrows.len(), 2);
        assert_eq!(arrows[0]["id"], arrows[1]["id"]);
    }

    /// The dump's text times follow the chosen clock and say which one they are.
    #[test]
    fn dump_text_follows_the_clock() {
        let stamp = |mono_ns, wtime| Stamp { mono_ns, wtime };
        let call = Record::Mpi(MpiCall {
            op: Op::Send,
            flags: 0,
            site: 3,
            peer: Peer::Rank(1),
            tag: 5,
            bytes: 64,
            comm_size: 2,
            nparts: 0,
            req_id: 0,
            start: stamp(5_000, 2.0 + 40e-6),
            end: stamp(7_000, 2.0 + 50e-6),
        });
        let mono = text(&call, DumpClock::Mono(1_000));
        assert!(
            mono.contains("4.0us MPI_Send") && mono.ends_with("(2.0us)"),
            "{mono}"
        );
        let wt = text(&call, DumpClock::Wtime(2.0));
        assert!(
            wt.contains("40.0us MPI_Send") && wt.ends_with("(10.0us)"),
            "{wt}"
        );
        let before_init = Record::Mpi(MpiCall {
            start: stamp(0, f64::NAN),
            end: stamp(0, f64::NAN),
            ..match call {
                Record::Mpi(c) => c,
                _ => unreachable!(),
            }
        });
        let t = text(&before_init, DumpClock::Wtime(2.0));
        assert!(
            t.trim_start().starts_with("- MPI_Send") && t.ends_with("(-)"),
            "{t}"
        );
    }
}
