//! `augur characterize`: measure this machine's MPI data sheet — write the embedded
//! microbenchmark (`runtime/c/augur_bench.c`), compile it with mpicc or smpicc, run it once at
//! the largest rank count (smaller groups are sub-communicators), fit the forms
//! (`model::machine`), and write the machine JSON atomically. Progress goes to stderr; no
//! argument ever passes through a shell.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use model::machine::{fit_machine, Machine, Provenance, Source};
use model::machine_bench::parse_bench;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchLauncher {
    /// Native MPI: mpicc + mpirun
    Mpirun,
    /// SimGrid SMPI: smpicc + smpirun on --platform
    Smpirun,
}

#[derive(Debug, Args)]
pub struct CharacterizeArgs {
    /// Group sizes: a range `2..8` or a list `2,4,8`; one launch at the largest
    #[arg(long, default_value = "2..8")]
    np: String,
    #[arg(long, value_enum, default_value_t = BenchLauncher::Mpirun)]
    launcher: BenchLauncher,
    /// SMPI platform XML (required with --launcher smpirun)
    #[arg(long, value_name = "XML")]
    platform: Option<PathBuf>,
    /// Point-to-point message sizes in bytes, comma-separated [default: 1,4,16,…,4194304]
    #[arg(long, value_name = "LIST")]
    sizes: Option<String>,
    /// Collective message sizes in bytes, comma-separated [default: 8,64,512,4096,32768,262144]
    #[arg(long, value_name = "LIST")]
    coll_sizes: Option<String>,
    /// Timed repetitions per point (fewer above 64 KiB)
    #[arg(long, default_value_t = 20)]
    reps: u32,
    /// Seconds one collective data point may take before repetitions stop (at least 3 kept)
    #[arg(long, default_value_t = 1.0)]
    point_seconds: f64,
    /// Data sheet name [default: the output file's stem]
    #[arg(long)]
    name: Option<String>,
    /// Extra sentence for the description (e.g. what the machine is)
    #[arg(long)]
    note: Option<String>,
    /// Also keep the raw benchmark CSV here
    #[arg(long, value_name = "CSV")]
    raw: Option<PathBuf>,
    /// Fit an existing benchmark CSV instead of running (no MPI needed)
    #[arg(long, value_name = "CSV", conflicts_with_all = ["raw"])]
    from_csv: Option<PathBuf>,
    /// Output machine JSON
    #[arg(short = 'o', long = "output", value_name = "machine.json")]
    output: PathBuf,
    /// Print a JSON summary on stdout instead of text
    #[arg(long)]
    json: bool,
}

const DEFAULT_P2P: &str = "1,4,16,64,256,1024,4096,16384,65536,262144,1048576,4194304";
const DEFAULT_COLL: &str = "8,64,512,4096,32768,262144";

/// `2..8` → 2,3,…,8; `2,4,8` → those. Every size at least 2.
fn parse_groups(s: &str) -> Result<Vec<u32>> {
    let bad =
        || anyhow!("--np `{s}`: expected a range like 2..8 or a list like 2,4,8 (each at least 2)");
    let mut v: Vec<u32> = if let Some((a, b)) = s.split_once("..") {
        let (a, b): (u32, u32) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if a > b {
            return Err(bad());
        }
        (a..=b).collect()
    } else {
        s.split(',')
            .map(|x| x.trim().parse::<u32>().map_err(|_| bad()))
            .collect::<Result<_>>()?
    };
    v.sort_unstable();
    v.dedup();
    if v.is_empty() || v[0] < 2 || v.len() > 64 {
        return Err(bad());
    }
    Ok(v)
}

fn parse_sizes(s: &str, what: &str) -> Result<Vec<u64>> {
    let v: Vec<u64> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=1 << 30).contains(n))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| {
            anyhow!("{what} `{s}`: expected comma-separated byte counts between 1 and 2^30")
        })?;
    if v.is_empty() || v.len() > 64 {
        bail!("{what}: between 1 and 64 sizes");
    }
    // increasing order: the benchmark bisects for the eager limit between neighbouring sizes
    let mut v = v;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

fn join<T: ToString>(v: &[T]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Host names a platform XML declares (`<host id>`, `<cluster prefix radical suffix>`).
fn platform_hosts(xml: &str) -> Vec<String> {
    fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let i = tag.find(&format!("{name}="))? + name.len() + 1;
        let q = tag[i..].chars().next()?;
        let rest = &tag[i + 1..];
        Some(&rest[..rest.find(q)?])
    }
    let mut hosts = Vec::new();
    for tag in xml.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        let (name, body) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let body = format!(" {body}");
        if name == "host" {
            if let Some(id) = attr(&body, " id") {
                hosts.push(id.to_string());
            }
        } else if name == "cluster" {
            let (pre, suf) = (
                attr(&body, "prefix").unwrap_or(""),
                attr(&body, "suffix").unwrap_or(""),
            );
            for part in attr(&body, "radical").unwrap_or("").split(',') {
                let (a, b) = part.split_once('-').unwrap_or((part, part));
                if let (Ok(a), Ok(b)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                    hosts.extend((a..=b.min(a + 1_000_000)).map(|i| format!("{pre}{i}{suf}")));
                }
            }
        }
    }
    hosts
}

fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn version_line(prog: &str, flag: &str) -> Option<String> {
    let out = Command::new(prog)
        .arg(flag)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

fn run_checked(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .stdin(Stdio::null())
        .status()
        .with_context(|| format!("cannot start {what} (is it installed and on PATH?)"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

struct Plan {
    groups: Vec<u32>,
    p2p: Vec<u64>,
    coll: Vec<u64>,
}

/// Compiles and runs the benchmark in `work`; returns the CSV text and the MPI/launcher facts.
fn measure(args: &CharacterizeArgs, plan: &Plan, work: &Path) -> Result<(String, String, bool)> {
    let src = augur_runtime::FILES
        .iter()
        .find(|f| f.name == "augur_bench.c")
        .ok_or_else(|| anyhow!("augur_bench.c is missing from the embedded runtime"))?;
    let src_path = work.join(src.name);
    std::fs::write(&src_path, src.text)
        .with_context(|| format!("cannot write {}", src_path.display()))?;
    let exe = work.join("augur_bench");
    let np = *plan.groups.last().unwrap_or(&2);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let (cc, launch, oversub): (&str, Box<dyn Fn(u32) -> Command>, bool) = match args.launcher {
        BenchLauncher::Mpirun => {
            let root = running_as_root();
            let open_mpi =
                version_line("mpirun", "--version").is_some_and(|l| l.contains("Open MPI"));
            let launch = move |n: u32| {
                let mut c = Command::new("mpirun");
                if root {
                    c.arg("--allow-run-as-root");
                }
                if open_mpi {
                    c.arg("--oversubscribe");
                }
                c.args(["-np", &n.to_string()]);
                c
            };
            ("mpicc", Box::new(launch), np > cores)
        }
        BenchLauncher::Smpirun => {
            let platform = args
                .platform
                .as_ref()
                .ok_or_else(|| anyhow!("--launcher smpirun needs --platform XML"))?;
            let xml = std::fs::read_to_string(platform)
                .with_context(|| format!("cannot read platform {}", platform.display()))?;
            let hosts = platform_hosts(&xml);
            if hosts.is_empty() {
                bail!(
                    "{}: no <host> or <cluster> in the platform",
                    platform.display()
                );
            }
            let hostfile = work.join("hosts.txt");
            let text: String = hosts
                .iter()
                .take(np as usize)
                .map(|h| format!("{h}\n"))
                .collect();
            std::fs::write(&hostfile, text)?;
            let platform = platform.clone();
            let launch = move |n: u32| {
                let mut c = Command::new("smpirun");
                c.args(["-np", &n.to_string()])
                    .arg("-platform")
                    .arg(&platform)
                    .arg("-hostfile")
                    .arg(&hostfile);
                // The benchmark has no computation to simulate: without this, host CPU time
                // between MPI calls (which depends on the host's load) would be charged to
                // simulated time.
                c.args([
                    "--cfg=smpi/host-speed:1Gf",
                    "--cfg=smpi/simulate-computation:no",
                    "--log=root.thres:warning",
                ]);
                c
            };
            ("smpicc", Box::new(launch), false)
        }
    };
    eprintln!("characterize: compiling {} with {cc}", src.name);
    run_checked(
        Command::new(cc)
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(&src_path)
            .arg("-lm"),
        cc,
    )?;
    // Natively the point-to-point part runs in its own launch of 2 ranks (one per core): in a
    // larger, oversubscribed launch the idle ranks disturb the pair that measures (the fresh
    // data stream varied by ±30% between repeated 8-rank launches, ±3% at 2 ranks).
    // It runs PT2PT_LAUNCHES times, and each benchmark keeps its fastest launch: the two ranks'
    // placement on the host's cores changes between launches (the sender's rewrite of a
    // 256 KiB buffer its receiver read took 26.5, 33.3 and 35.7 µs in three launches), and
    // interference only adds time.
    let split = args.launcher == BenchLauncher::Mpirun && np > 2;
    let parts: Vec<(u32, &str)> = if split {
        std::iter::once((np, "coll"))
            .chain(std::iter::repeat_n((2, "pt2pt"), PT2PT_LAUNCHES))
            .collect()
    } else {
        vec![(np, "all")]
    };
    let mut fastest = Fastest::default();
    let mut text = String::new();
    for (i, (n, part)) in parts.iter().enumerate() {
        let csv = work.join(format!("bench-{part}.csv"));
        let mut run = launch(*n);
        run.arg(&exe).arg("-o").arg(&csv).args(["-m", part]);
        // a point-to-point launch has 2 ranks: no other group size fits in it
        let groups = if *part == "pt2pt" {
            "2".to_string()
        } else {
            join(&plan.groups)
        };
        run.args([
            "-s",
            &join(&plan.p2p),
            "-c",
            &join(&plan.coll),
            "-g",
            &groups,
        ]);
        run.args([
            "-r",
            &args.reps.to_string(),
            "-t",
            &args.point_seconds.to_string(),
        ]);
        eprintln!(
            "characterize: running the {} microbenchmarks on {n} ranks ({} groups, {} + {} sizes)",
            match *part {
                "coll" => "collective",
                "pt2pt" => "point-to-point",
                _ => "point-to-point and collective",
            },
            if *part == "pt2pt" {
                1
            } else {
                plan.groups.len()
            },
            plan.p2p.len(),
            plan.coll.len()
        );
        let t0 = Instant::now();
        run_checked(&mut run, args.launcher_name())?;
        eprintln!(
            "characterize: measured in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        let part_text = std::fs::read_to_string(&csv)
            .with_context(|| format!("the benchmark wrote no results to {}", csv.display()))?;
        if i == 0 {
            text = part_text;
        } else {
            // data rows only: the metadata (np = the largest launch) and header come from the first
            let rows: Vec<&str> = part_text
                .lines()
                .filter(|l| !l.starts_with('#') && *l != model::machine_bench::HEADER)
                .collect();
            fastest.launch(&rows.join("\n"));
        }
    }
    text.push_str(&fastest.rows());
    let launcher_version = match args.launcher {
        BenchLauncher::Mpirun => version_line("mpirun", "--version"),
        BenchLauncher::Smpirun => version_line("smpirun", "-version"),
    };
    Ok((text, launcher_version.unwrap_or_default(), oversub))
}

/// One benchmark row: its point (`p,bytes`), median and text.
type Row = (String, f64, String);

/// Native point-to-point launches; each benchmark keeps its fastest (see `measure`).
const PT2PT_LAUNCHES: usize = 3;

/// Benchmark rows of repeated launches: each benchmark (kind, op) as one launch measured it,
/// the launch whose medians over the sizes every launch measured have the least geometric
/// mean. Whole series, not the fastest row per size: a series mixed from several launches
/// (the eager limit's bisection among them) is one no launch produced. Rows in the order the
/// chosen launches give them, benchmarks in the order first seen; rows that do not parse are
/// kept once, for the fit to judge. The host's detours (`noise` rows) are kept from every
/// launch: the fit adds their loops up, and the quietest launch alone would understate them.
#[derive(Default)]
struct Fastest {
    /// Per launch, per benchmark: its rows.
    launches: Vec<BTreeMap<String, Vec<Row>>>,
    order: Vec<String>,
    other: Vec<String>,
    noise: Vec<String>,
}

impl Fastest {
    fn launch(&mut self, text: &str) {
        let mut series: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for line in text.lines() {
            if line.starts_with("noise,") {
                self.noise.push(line.to_string());
                continue;
            }
            let fields: Vec<&str> = line.split(',').collect();
            match (
                fields.get(..2).map(|k| k.join(",")),
                fields.get(2..4).map(|k| k.join(",")),
                fields.get(6).and_then(|m| m.trim().parse::<f64>().ok()),
            ) {
                (Some(op), Some(point), Some(median)) if median.is_finite() => {
                    if !self.order.contains(&op) {
                        self.order.push(op.clone());
                    }
                    series
                        .entry(op)
                        .or_default()
                        .push((point, median, line.to_string()));
                }
                _ => {
                    if !self.other.iter().any(|o| o == line) {
                        self.other.push(line.to_string());
                    }
                }
            }
        }
        self.launches.push(series);
    }

    fn rows(&self) -> String {
        let mut out = String::new();
        for op in &self.order {
            let runs: Vec<&Vec<Row>> = self.launches.iter().filter_map(|l| l.get(op)).collect();
            // the sizes every launch measured
            let common: Vec<&String> = runs
                .first()
                .map(|r| {
                    r.iter()
                        .map(|(k, _, _)| k)
                        .filter(|k| runs.iter().all(|o| o.iter().any(|(q, _, _)| q == *k)))
                        .collect()
                })
                .unwrap_or_default();
            let score = |r: &&Vec<Row>| -> f64 {
                r.iter()
                    .filter(|(k, _, _)| common.contains(&k))
                    .map(|(_, m, _)| m.max(f64::MIN_POSITIVE).ln())
                    .sum()
            };
            if let Some(best) = runs.iter().min_by(|a, b| score(a).total_cmp(&score(b))) {
                for (_, _, line) in best.iter() {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        for line in self.noise.iter().chain(&self.other) {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

impl CharacterizeArgs {
    fn launcher_name(&self) -> &'static str {
        match self.launcher {
            BenchLauncher::Mpirun => "mpirun",
            BenchLauncher::Smpirun => "smpirun",
        }
    }
}

pub fn run(args: CharacterizeArgs) -> Result<ExitCode> {
    let groups = parse_groups(&args.np)?;
    let plan = Plan {
        p2p: parse_sizes(args.sizes.as_deref().unwrap_or(DEFAULT_P2P), "--sizes")?,
        coll: parse_sizes(
            args.coll_sizes.as_deref().unwrap_or(DEFAULT_COLL),
            "--coll-sizes",
        )?,
        groups,
    };
    if args.reps == 0 || !args.point_seconds.is_finite() || args.point_seconds <= 0.0 {
        bail!("--reps and --point-seconds must be positive");
    }
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (csv, launcher_version, oversubscribed) = match &args.from_csv {
        Some(p) => (
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
            String::new(),
            false,
        ),
        None => {
            let work = std::env::temp_dir().join(format!(
                "augur-characterize-{}-{started}",
                std::process::id()
            ));
            std::fs::create_dir_all(&work)
                .with_context(|| format!("cannot create {}", work.display()))?;
            let r = measure(&args, &plan, &work);
            let _ = std::fs::remove_dir_all(&work);
            r?
        }
    };
    if let Some(raw) = &args.raw {
        let tmp = raw.with_extension("csv.tmp");
        std::fs::write(&tmp, &csv)
            .and_then(|()| std::fs::rename(&tmp, raw))
            .with_context(|| format!("cannot write {}", raw.display()))?;
    }
    let data = parse_bench(&csv).map_err(|e| anyhow!("benchmark output: {e}"))?;
    let meta = |k: &str| data.meta.get(k).cloned().unwrap_or_default();
    let launch_np: u32 = meta("np").parse().unwrap_or(0);
    // the listed sizes (every op has them; the eager-limit probes are send_unposted only)
    let sizes = |kind| {
        let mut v: Vec<u64> = data
            .rows
            .iter()
            .filter(|r| {
                r.kind == kind && (kind == model::machine_bench::Kind::Coll || r.op == "pingpong")
            })
            .map(|r| r.bytes)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let p2p_sizes = sizes(model::machine_bench::Kind::Pt2pt);
    let coll_sizes: Vec<u64> = sizes(model::machine_bench::Kind::Coll)
        .into_iter()
        .filter(|b| *b > 0)
        .collect();
    let mut group_sizes: Vec<u32> = data
        .rows
        .iter()
        .filter(|r| r.kind == model::machine_bench::Kind::Coll)
        .map(|r| r.p)
        .collect();
    group_sizes.sort_unstable();
    group_sizes.dedup();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let launcher = if args.from_csv.is_some() {
        String::new()
    } else {
        args.launcher_name().to_string()
    };
    let prov = Provenance {
        source: Source::Measured,
        mpi: meta("mpi"),
        launcher: if launcher_version.is_empty() || launcher_version.starts_with(&launcher) {
            // `mpirun (Open MPI) 4.1.4` already names the program.
            if launcher_version.is_empty() {
                launcher.clone()
            } else {
                launcher_version.clone()
            }
        } else {
            format!("{launcher}: {launcher_version}")
        },
        host: meta("host"),
        date: trace::rfc3339(started),
        launch_np,
        group_sizes,
        p2p_sizes,
        coll_sizes,
        reps: meta("reps").parse().unwrap_or(args.reps),
        platform: if args.launcher == BenchLauncher::Smpirun {
            args.platform.as_ref().map(|p| p.display().to_string())
        } else {
            None
        },
        oversubscribed,
        command: std::env::args().collect(),
    };
    let name = args.name.clone().unwrap_or_else(|| {
        args.output
            .file_stem()
            .map_or("machine".into(), |s| s.to_string_lossy().into_owned())
    });
    let mut description = match (args.launcher, args.from_csv.is_some()) {
        (_, true) => "Fitted by augur characterize from an existing benchmark CSV.".to_string(),
        (BenchLauncher::Mpirun, false) if launch_np > 2 => format!(
            "Measured by augur characterize with {} on host {} ({cores} cores): point-to-point in {PT2PT_LAUNCHES} launches of 2 ranks, each benchmark from its fastest launch, collectives in one launch of {launch_np} ranks.",
            prov.mpi, prov.host
        ),
        (BenchLauncher::Mpirun, false) => format!(
            "Measured by augur characterize with {} on host {} ({cores} cores), one launch of {launch_np} ranks.",
            prov.mpi, prov.host
        ),
        (BenchLauncher::Smpirun, false) => format!(
            "Simulated by augur characterize under SimGrid SMPI ({}) on platform {}, one launch of {launch_np} ranks; times are simulated.",
            launcher_version,
            prov.platform.as_deref().unwrap_or("?")
        ),
    };
    if oversubscribed {
        description += &format!(
            " {launch_np} ranks on {cores} cores is oversubscribed: collectives over more than {cores} ranks include time-slicing delays \
             (idle ranks yield), so their fitted costs are noisy and pessimistic for a machine with a core per rank."
        );
    }
    // two group sizes fit log2(p), p and p^2 alike: which law a collective gets is chance, and
    // beyond the largest they part by orders of magnitude (trial 21: `--np 2,4`, a bcast at
    // p = 64 read 37 us in one run, 2 ms in the next)
    if let Some(few) = undetermined_in_p(&prov.group_sizes) {
        eprintln!("warning: {few}");
        description += &format!(" {few}.");
    }
    description += " Medians of barrier-synchronised repetitions after 2 warm-up calls; buffers are reused (cached data), except in the fresh-data stream (stream_fresh) that sets τ where it exceeds the ping-pong.";
    if args.from_csv.is_none() {
        description += if args.launcher == BenchLauncher::Smpirun {
            " The host's detours (noise) come from a selfish-detour loop of 2 s on rank 0 reading the host's clock: the host running the simulation, whose detours inside a rank's computation SMPI charges to simulated time."
        } else {
            " The host's detours (noise) come from a selfish-detour loop of 2 s on rank 0 in each point-to-point launch, added up."
        };
    }
    if let Some(n) = &args.note {
        description = format!("{n} {description}");
    }
    eprintln!("characterize: fitting {} data points", data.rows.len());
    let mut machine = fit_machine(&data, &name, &description, prov).map_err(|e| anyhow!("{e}"))?;
    for miss in model::machine::one_way_misses(&data, &machine) {
        let said = missed_one_way(&miss);
        eprintln!("warning: {said}");
        machine.description += &format!(" {said}.");
    }
    machine.save(&args.output)?;
    print_summary(&machine, &args.output, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// What to say of a size whose one-way cost the sheet misses.
fn missed_one_way(m: &model::machine::OneWayMiss) -> String {
    let us = |s: f64| format!("{:.3} us", s * 1e6);
    format!(
        "the sheet's one-way message cost (tau + s + r) misses the measured one at {} B by more than {:.0}%: {} against {} (spread {}); a protocol step between the sizes measured, or a slow spell over that size's repetitions: measure more sizes around it (--sizes) or again",
        m.bytes,
        model::machine::ONE_WAY_TOLERANCE * 100.0,
        us(m.fitted),
        us(m.measured),
        us(m.spread)
    )
}

/// What to say of collectives measured at fewer than three group sizes: their laws in p are not
/// determined by the data.
fn undetermined_in_p(group_sizes: &[u32]) -> Option<String> {
    let (n, most) = (group_sizes.len(), group_sizes.iter().copied().max()?);
    (n < 3).then(|| {
        let sizes: Vec<String> = group_sizes.iter().map(u32::to_string).collect();
        format!(
            "the collectives were measured at {n} group size{} ({}): their laws in p are chosen among forms that all fit {} and part beyond p = {most}; measure at three or more (--np 2..8) before predicting at more ranks",
            if n == 1 { "" } else { "s" },
            sizes.join(", "),
            if n == 1 { "one size" } else { "two sizes" }
        )
    })
}

/// `2.17e-7 + 3.1e-11*d`: every coefficient to 4 significant digits (seconds).
fn show(f: &model::machine::Form) -> String {
    let parts: Vec<String> = f
        .terms
        .iter()
        .map(|c| {
            if c.term == "1" {
                format!("{:.3e}", c.value)
            } else {
                format!("{:.3e}*{}", c.value, c.term)
            }
        })
        .collect();
    parts.join(" + ").replace("+ -", "- ")
}

fn print_summary(m: &Machine, out: &Path, json: bool) -> Result<()> {
    use std::io::Write;
    let pp = &m.point_to_point;
    let mut stdout = std::io::stdout().lock();
    if json {
        let coll: serde_json::Map<String, serde_json::Value> = m
            .collectives
            .iter()
            .map(|(op, c)| {
                let regs: Vec<_> = c
                    .regimes()
                    .iter()
                    .map(|r| serde_json::json!({"up_to_bytes": r.up_to_bytes, "form": r.cost.form, "expr": r.cost.expr().to_text_exact()}))
                    .collect();
                (op.to_string(), serde_json::Value::Array(regs))
            })
            .collect();
        let v = serde_json::json!({
            "output": out.display().to_string(),
            "name": m.name,
            "latency_s": pp.latency,
            "bandwidth_bytes_per_s": pp.bandwidth,
            "o_s": pp.o,
            "eager_limit_bytes": pp.eager_limit,
            "tau_regimes": pp.tau.regimes().len(),
            "nonblocking": pp.nonblocking.is_some(),
            "noise": m.noise.as_ref().map(|n| serde_json::json!({
                "seconds": n.seconds,
                "detours_per_s": n.rate(),
            })),
            "collectives": coll,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(stdout, "wrote {}", out.display())?;
    writeln!(
        stdout,
        "latency    {:.3} us   (half round trip, {} B)",
        pp.latency * 1e6,
        m.measured.p2p_sizes.first().copied().unwrap_or(0)
    )?;
    writeln!(stdout, "bandwidth  {:.1} MB/s", pp.bandwidth / 1e6)?;
    match pp.eager_limit {
        Some(e) => writeln!(
            stdout,
            "eager      <= {e} B   (larger blocking sends wait for the receive)"
        )?,
        None => writeln!(stdout, "eager      no send waited for a late receive")?,
    }
    let mut parts = vec![
        ("tau(m)", &pp.tau),
        ("s(m)", &pp.send_overhead),
        ("r(m)", &pp.recv_overhead),
    ];
    // the nonblocking exchange of k messages each way: max(wire, W) + k·post + wait, each of
    // wire and wait `first + (k − 1)·each`
    if let Some(nb) = &pp.nonblocking {
        parts.extend([
            ("nb post", &nb.post),
            ("nb wait", &nb.wait_first),
            ("  +each", &nb.wait_each),
            ("nb wire", &nb.wire_first),
            ("  +each", &nb.wire_each),
        ]);
    }
    for (label, f) in parts {
        for r in f.regimes() {
            let range = r
                .up_to_bytes
                .map_or("all larger".to_string(), |b| format!("<= {b} B"));
            writeln!(stdout, "{label:<10} {:<12} {}", range, show(&r.cost))?;
        }
    }
    writeln!(stdout, "o          {:.3} us", pp.o * 1e6)?;
    if let Some(n) = &m.noise {
        let law = n.law();
        let d = law.map(|l| n.summary(&l));
        writeln!(
            stdout,
            "noise      {:.0} detours/s over {:.1} s{}",
            n.rate(),
            n.seconds,
            d.map_or(String::new(), |d| format!(
                ", {:.1} us on average, the longest up to {:.0} us",
                d.mean * 1e6,
                d.longest_up_to * 1e6
            ))
        )?;
    }
    for (op, c) in &m.collectives {
        for r in c.regimes() {
            let range = r
                .up_to_bytes
                .map_or("all larger".to_string(), |b| format!("<= {b} B"));
            let q = r.cost.fit.as_ref().map_or(String::new(), |q| {
                format!(
                    "  (R² {:.3}, max err {:.0}%)",
                    q.r2,
                    q.max_rel_error * 100.0
                )
            });
            writeln!(
                stdout,
                "{:<10} {:<12} {}  [{}]{q}",
                op.name(),
                range,
                show(&r.cost),
                r.cost.form
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Two group sizes cannot tell the laws in p apart: said; three can.
    #[test]
    fn fewer_than_three_group_sizes_leave_the_laws_in_p_open() {
        let w = undetermined_in_p(&[2, 4]).unwrap();
        assert!(
            w.starts_with("the collectives were measured at 2 group sizes (2, 4)")
                && w.contains("part beyond p = 4"),
            "{w}"
        );
        assert!(undetermined_in_p(&[2])
            .unwrap()
            .contains("1 group size (2)"));
        assert_eq!(undetermined_in_p(&[2, 4, 8]), None);
        assert_eq!(undetermined_in_p(&[]), None);
    }

    #[test]
    fn repeated_launches_keep_each_benchmarks_fastest_launch() {
        let mut f = Fastest::default();
        // the second launch is faster on the whole; its bisection rows come with it, and a
        // launch that skipped a size does not lose the comparison for it; the detours of
        // every launch are kept
        for launch in [
            "noise,span,1,2000,1,2,2,2,0\nnoise,detour,1,4000,5,2e-6,3e-6,3e-6,0\npt2pt,pingpong,2,8,60,1e-6,2e-6,2e-6,0\npt2pt,send_unposted,2,256,10,1,1e-6,1,0\npt2pt,send_unposted,2,1024,10,1,3e-5,1,0\npt2pt,send_unposted,2,640,10,1,3e-5,1,0",
            "pt2pt,pingpong,2,8,60,1e-6,1.5e-6,2e-6,0\npt2pt,send_unposted,2,256,10,1,0.9e-6,1,0\npt2pt,send_unposted,2,1024,10,1,2.9e-5,1,0\npt2pt,send_unposted,2,448,10,1,0.9e-6,1,0\nnot a row",
            "noise,span,1,2000,1,2,2,2,0\npt2pt,pingpong,2,8,60,1e-6,1.8e-6,2e-6,0\nnot a row",
        ] {
            f.launch(launch);
        }
        assert_eq!(
            f.rows(),
            "pt2pt,pingpong,2,8,60,1e-6,1.5e-6,2e-6,0\n\
             pt2pt,send_unposted,2,256,10,1,0.9e-6,1,0\n\
             pt2pt,send_unposted,2,1024,10,1,2.9e-5,1,0\n\
             pt2pt,send_unposted,2,448,10,1,0.9e-6,1,0\n\
             noise,span,1,2000,1,2,2,2,0\n\
             noise,detour,1,4000,5,2e-6,3e-6,3e-6,0\n\
             noise,span,1,2000,1,2,2,2,0\n\
             not a row\n"
        );
    }

    #[test]
    fn group_lists() {
        assert_eq!(parse_groups("2..5").ok(), Some(vec![2, 3, 4, 5]));
        assert_eq!(parse_groups("8,2,4").ok(), Some(vec![2, 4, 8]));
        assert!(parse_groups("1..4").is_err());
        assert!(parse_groups("4..2").is_err());
        assert!(parse_groups("a").is_err());
        assert!(parse_sizes("1,0", "--sizes").is_err());
        assert_eq!(parse_sizes("8, 64", "--sizes").ok(), Some(vec![8, 64]));
        assert_eq!(parse_sizes("64,8,64", "--sizes").ok(), Some(vec![8, 64]));
    }

    #[test]
    fn hosts_from_platform() {
        let x = "<platform><cluster id=\"c\" prefix=\"node-\" suffix=\".sim\" radical=\"0-2\"/><host id='h1' speed='1Gf'/></platform>";
        assert_eq!(
            platform_hosts(x),
            ["node-0.sim", "node-1.sim", "node-2.sim", "h1"]
        );
    }
}
