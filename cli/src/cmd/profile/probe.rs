//! What augur's markers cost the program: after the grid, the program as written is built and
//! run for one configuration, the traced run that took longest, and timed on the clock the
//! traces use (SMPI's simulated time; natively the launcher's wall time, launching included in
//! both). The difference is the markers' part of the traced time.
//!
//! A routine with a loop called once per point is a computation phase entered once per point:
//! trial 19's k-means ran 16 times longer instrumented natively and 4 times under SMPI, every
//! prediction followed the instrumented program, and nothing said so. The runtime now times
//! such entries cheaply and takes the markers' part off SMPI's pieces, but what is left depends
//! on the program; this check measures it, `profile` and `analyze` say it when it is large.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use trace::{Manifest, ProbeCheck, RunRecord};

use super::build::{self, BuildInput};
use super::launch::{self, LaunchSpec, Launcher};

/// Under this share of the traced time the markers' part is not worth a word: the ratio of
/// least-of-3 SMPI runs of one binary moves by up to ~15% on this shared host (smpi_overhead).
const SHARE: f64 = 0.15;

/// Natively the two are the launcher's wall times, polled every 20 ms and each carrying the
/// launch: a difference under this says nothing (a 2-rank program of 6 ms traced read
/// "markers add 4882%" from launches 58 ms apart on this busy host; 50 ms was the bound).
const WALL_RESOLUTION: f64 = 0.1;

/// Under SMPI the program as written is timed from the simulation's start to its end, the
/// traced run from MPI_Init to its last event: tens of microseconds apart in a tiny run (a
/// two-rank test program: 31 µs traced, 50 µs whole). A difference under this says nothing.
const SIMULATED_RESOLUTION: f64 = 1e-4;

/// The configuration to time: the ok run of `ids` whose traced time is the longest (the
/// markers' part is largest there and launching weighs least; under SMPI among those at the
/// most ranks), with its least launcher wall
/// time and least traced time over its repetitions. Natively, among the runs whose ranks had a
/// core each where there are any: time-shared ranks' wall times move by more than the markers
/// cost (trial 21: 8 ranks on 2 cores, "41% faster" instrumented).
fn longest<'a>(
    manifest: &'a Manifest,
    ids: &[String],
    simulated: bool,
) -> Option<(&'a RunRecord, f64, f64)> {
    let ok = |r: &&RunRecord| r.status.is_ok() && ids.contains(&r.config);
    let shared = |r: &&RunRecord| !simulated && r.cores.is_some_and(|c| r.np > c);
    let alone = manifest.runs.iter().filter(ok).any(|r| !shared(&r));
    // under SMPI at the most ranks: what SimGrid charges the program as written and not the
    // instrumented one grows with them (trial 28: checked at P = 2, silent, where P = 16 ran
    // 13-16 ms as written against 11 ms traced)
    let most = if simulated {
        manifest.runs.iter().filter(ok).map(|r| r.np).max()
    } else {
        None
    };
    manifest
        .runs
        .iter()
        .filter(ok)
        .filter(|r| !alone || !shared(r))
        .filter(|r| most.is_none_or(|m| r.np == m))
        .filter_map(|r| {
            let least = |f: &dyn Fn(&trace::Repetition) -> Option<f64>| {
                r.repetitions
                    .iter()
                    .filter_map(f)
                    .fold(f64::INFINITY, f64::min)
            };
            let traced = least(&|x| x.trace_seconds);
            let wall = least(&|x| x.trace_seconds.map(|_| x.wall_seconds)).min(r.wall_seconds);
            traced.is_finite().then_some((r, wall, traced))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
}

/// Everything [`check`] needs from the profile.
pub struct Check<'a> {
    pub plain: &'a BuildInput,
    pub spec: &'a LaunchSpec,
    pub build_dir: &'a Path,
    pub cwd: &'a Path,
    pub timeout: Duration,
    pub repeat: u32,
    /// The grid's configurations: id, ranks, program arguments, and the file the ranks read as
    /// standard input (`--stdin`).
    pub configs: &'a [(String, u32, Vec<String>, Option<PathBuf>)],
}

/// Builds the program as written and times one configuration; `Ok(Err(why))` when the check
/// cannot be made (no run ended ok, the program as written does not build or run).
pub fn check(
    c: &Check<'_>,
    manifest: &Manifest,
) -> Result<std::result::Result<ProbeCheck, String>> {
    let ids: Vec<String> = c.configs.iter().map(|(id, ..)| id.clone()).collect();
    let simulated = c.spec.launcher == Launcher::Smpirun;
    let Some((run, wall, traced)) = longest(manifest, &ids, simulated) else {
        return Ok(Err("no configuration ran to its end".into()));
    };
    let Some((_, np, args, stdin)) = c.configs.iter().find(|(id, ..)| *id == run.config) else {
        return Ok(Err(format!("{} is not in this grid", run.config)));
    };
    // natively mpirun hands standard input to rank 0 only, augur's runtime the file to every
    // rank: a program whose other ranks read it cannot run as written, one that reads on rank 0
    // and broadcasts can (trial 21: the check was skipped for such a program)
    let stdin_note = if stdin.is_some() && !simulated {
        " (mpirun hands --stdin to rank 0 only: the program's other ranks may wait for input augur's runtime gave them)"
    } else {
        ""
    };
    // a run as written that waits for input it will not get must not hold the profile for the
    // whole per-run timeout
    let timeout = c
        .timeout
        .min(Duration::from_secs_f64((5.0 * wall).max(10.0)));
    let dir = c.build_dir.join("plain");
    let exe = match build::build(c.plain, c.spec.launcher, &dir) {
        Ok(exe) => exe,
        Err(e) => return Ok(Err(format!("the program as written does not build: {e:#}"))),
    };
    let mut argv = c.spec.argv(*np, &exe, args);
    if simulated {
        // SimGrid's own report of the simulated time, at the end of the run
        let at = argv
            .iter()
            .position(|a| *a == exe.display().to_string())
            .unwrap_or(argv.len());
        argv.splice(
            at..at,
            [
                "--cfg=smpi/display-timing:yes".to_string(),
                "--log=smpi_utils.thres:info".to_string(),
            ],
        );
    }
    let (stdout, stderr) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut least = f64::INFINITY;
    for _ in 0..c.repeat.max(1) {
        let (outcome, took) = launch::run_captured(
            &argv,
            &[],
            c.cwd,
            stdin.as_deref(),
            &stdout,
            &stderr,
            timeout,
        )
        .with_context(|| format!("cannot start `{}`", argv[0]))?;
        match outcome {
            launch::Outcome::Exited(st) if st.success() => {}
            launch::Outcome::Exited(st) => {
                return Ok(Err(format!(
                    "the program as written failed at {}: {}{stdin_note}",
                    run.config,
                    launch::failure_reason(&st, &stderr)
                )))
            }
            launch::Outcome::TimedOut => {
                return Ok(Err(format!(
                    "the program as written timed out at {} after {:.0} s{stdin_note}",
                    run.config,
                    timeout.as_secs_f64()
                )))
            }
        }
        let t = if simulated {
            let text = std::fs::read_to_string(&stderr).unwrap_or_default()
                + &std::fs::read_to_string(&stdout).unwrap_or_default();
            match simulated_time(&text) {
                Some(t) => t,
                None => return Ok(Err("SimGrid reported no simulated time".into())),
            }
        } else {
            took.as_secs_f64()
        };
        least = least.min(t);
    }
    Ok(Ok(ProbeCheck {
        config: run.config.clone(),
        clock: if simulated { "simulated" } else { "wall" }.into(),
        uninstrumented: least,
        instrumented: if simulated { traced } else { wall },
        traced,
    }))
}

/// SimGrid's end-of-run report: `… Simulated time: 0.00123 seconds.`
fn simulated_time(text: &str) -> Option<f64> {
    let key = "Simulated time: ";
    let at = text.rfind(key)?;
    text[at + key.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// What the check says, when it says something: the markers' part of the traced time, where it
/// is large enough to matter and to be told from the clocks' noise.
/// The warnings of [`warnings`] that hold wherever T is evaluated: the markers' part is large,
/// so T models a program slower than the one as written (`predict` repeats them).
/// `fitted`: T at the probe's configuration of the model fitted to every run, where there is
/// one ([`warnings`]).
pub fn cautions(manifest: &Manifest, fitted: Option<f64>) -> Vec<String> {
    match manifest.probe.as_ref().map(|p| against_fit(p, fitted)) {
        Some(p) if p.share() > SHARE => warnings(manifest, fitted),
        _ => Vec::new(),
    }
}

/// The probe with the traced run's excess over the model fitted to every run (`fitted`) taken
/// off its instrumented and traced times: markers cost every run, so a traced run above the
/// model's T at its configuration was slow by the host's noise, which the markers' part must
/// not take in (trial 26: one slow SMPI run of 4.11e-2 s where the model put 3.39e-2 s and the
/// program as written took 3.47e-2 s read "augur's markers add 15%").
fn against_fit(p: &ProbeCheck, fitted: Option<f64>) -> ProbeCheck {
    let excess = fitted
        .filter(|f| f.is_finite() && *f > 0.0)
        .map_or(0.0, |f| (p.traced - f).max(0.0));
    ProbeCheck {
        instrumented: p.instrumented - excess,
        traced: p.traced - excess,
        ..p.clone()
    }
}

/// What the check says, read against `fitted`: T at its configuration of the model fitted to
/// every run, given where that run is an outlier of the fit (`analyze`'s `outlier_fit`);
/// `None` otherwise, and before there is a model, as in `profile`.
pub fn warnings(manifest: &Manifest, fitted: Option<f64>) -> Vec<String> {
    let Some(raw) = &manifest.probe else {
        return Vec::new();
    };
    let p = &against_fit(raw, fitted);
    let share = p.share();
    if raw.share() > SHARE && share <= SHARE {
        // the two times compared are on one clock: natively the launcher's wall times, whose
        // difference is the share of the traced time (trial 27 read "took 1.3055e-1 s (traced),
        // 32% more than the program as written (5.3047e-1 s, launcher wall time)")
        let traced = if raw.clock == "simulated" {
            String::new()
        } else {
            format!(", its traced time {:.4e} s", raw.traced)
        };
        return vec![format!(
            "the instrumented run at {} took {:.4e} s against {:.4e} s for the program as written ({}), {:.0}% more{traced}, but the model fitted to every run puts T there at {:.4e} s: that run was slow (the host's noise), not the markers; profile with --repeat 3 to keep the fastest of several",
            raw.config,
            raw.instrumented,
            raw.uninstrumented,
            if raw.clock == "simulated" { "simulated time" } else { "launcher wall time" },
            100.0 * raw.share(),
            p.traced,
        )];
    }
    let resolution = if p.clock == "simulated" {
        SIMULATED_RESOLUTION
    } else {
        WALL_RESOLUTION
    };
    // natively the launcher's wall times include the launch: a traced time below their
    // resolution cannot be told from its noise (trial 29: "markers add 10292%" of a traced
    // 1.77 ms, for 0.18 s between two launches)
    let resolved = (p.instrumented - p.uninstrumented).abs() > resolution
        && (p.clock == "simulated" || p.traced >= resolution);
    if !share.is_finite() || !resolved {
        return Vec::new();
    }
    let clock = if p.clock == "simulated" {
        "simulated time"
    } else {
        "launcher wall time, launching included"
    };
    // the share is of the traced time, which natively is not the wall time printed beside it
    // (trial 21: "41% faster" beside 0.91 s against 1.03 s)
    // read against the model where the traced run was slow: its T there, not the run's time
    // (trial 27: "of the traced 1.5316e-1 s" was the model's, the run took 1.249 s)
    let of_traced = if p.clock == "simulated" {
        String::new()
    } else if p.traced < raw.traced {
        format!(
            " of the {:.4e} s the model fitted to every run puts there (the traced run, slowed by the host, took {:.4e} s)",
            p.traced, raw.traced
        )
    } else {
        format!(" of the traced {:.4e} s", p.traced)
    };
    // as a factor where it is one (trial 21: "add 96%" read as twice, for 13x)
    let ratio = p.instrumented / p.uninstrumented;
    let times = if ratio >= 1.5 {
        format!(" (the instrumented program ran {ratio:.1}x as long)")
    } else {
        String::new()
    };
    if share > SHARE {
        vec![format!(
            "augur's markers add {:.0}% to the traced time{times} at {}: the program as written took {:.4e} s there, instrumented {:.4e} s ({clock}), {:.4e} s more{of_traced}. T models the instrumented program; a computation phase entered very often (a routine with a loop, called once per point) pays its markers at every entry",
            100.0 * share,
            p.config,
            p.uninstrumented,
            p.instrumented,
            p.instrumented - p.uninstrumented,
        )]
    } else if share < -SHARE {
        // SimGrid 3.32 charges the first computation after a communicator's creation with the
        // host time of the ranks that ran before it (trial 22: a fixed loop after
        // MPI_Cart_create or MPI_Comm_dup, 3.1 ms alone, 22 ms at P = 8); the markers' own
        // timing of each piece does not see it
        // the charge only where the program creates a communicator or window (trial 28:
        // named for a program that calls neither)
        let creates = creations(manifest);
        let why = match (p.clock == "simulated", creates.is_empty()) {
            (true, false) => format!(
                "the markers' part taken off the simulated time was too large, or the program as written met SimGrid's charge after a communicator's creation (after {}, a rank's next computation is charged the host time of the ranks that ran before it: a fixed loop of 3.1 ms took 22 ms at P = 8), which the instrumented program's timing of each piece avoids",
                creates.join(", ")
            ),
            (true, true) => "the markers' part taken off the simulated time was too large, or SimGrid charged the program as written more host time (it charges each computation the host time it took, which a busy host lengthens)".into(),
            (false, _) => "the host disturbed the uninstrumented runs".into(),
        };
        // where the traced run was slow, the instrumented time compared is the model's T
        let instrumented = if p.instrumented < raw.instrumented {
            format!(
                "{:.4e} s, the model's T there (the traced run, slowed by the host, took {:.4e} s)",
                p.instrumented, raw.instrumented
            )
        } else {
            format!("{:.4e} s", p.instrumented)
        };
        vec![format!(
            "the instrumented program ran faster than the program as written at {} ({instrumented} against {:.4e} s, {clock}), by {:.4e} s: {:.0}%{of_traced}; {why}",
            p.config,
            p.uninstrumented,
            p.uninstrumented - p.instrumented,
            -100.0 * share,
        )]
    } else {
        Vec::new()
    }
}

/// The calls creating a communicator or window that the program's sources make
/// (`MPI_Cart_create`, …), as written there; empty where there are none or the sources are
/// gone.
fn creations(manifest: &Manifest) -> Vec<String> {
    const CREATE: [&str; 8] = [
        "mpi_cart_create",
        "mpi_comm_dup",
        "mpi_comm_split",
        "mpi_comm_create",
        "mpi_graph_create",
        "mpi_dist_graph_create",
        "mpi_cart_sub",
        "mpi_win_create",
    ];
    let paths: Vec<&str> = if manifest.sources.is_empty() {
        vec![manifest.source.as_str()]
    } else {
        manifest.sources.iter().map(|s| s.path.as_str()).collect()
    };
    let text: String = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect::<Vec<_>>()
        .join("\n")
        .to_ascii_lowercase();
    CREATE
        .iter()
        .filter(|c| {
            text.match_indices(*c).any(|(at, _)| {
                // a whole name: `mpi_comm_create` is not `mpi_comm_create_group`'s start only
                !text[at + c.len()..].starts_with(|x: char| x.is_ascii_alphanumeric() || x == '_')
            })
        })
        // as the standard spells them: `mpi_cart_create` is `MPI_Cart_create`
        .map(|c| format!("MPI_{}{}", c[4..5].to_ascii_uppercase(), &c[5..]))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn manifest(probe: ProbeCheck) -> Manifest {
        let mut m = Manifest::new(Path::new("p.c"), b"");
        m.probe = Some(probe);
        m
    }

    fn record(config: &str, np: u32, traced: f64) -> RunRecord {
        RunRecord {
            config: config.into(),
            mpi: "Open MPI".into(),
            host: "h".into(),
            wall_seconds: traced + 0.2,
            repetitions: vec![trace::Repetition {
                wall_seconds: traced + 0.2,
                trace_seconds: Some(traced),
                load_average: None,
                busy_cores: None,
            }],
            kept: Some(0),
            cores: Some(2),
            ..RunRecord::new(Default::default(), np)
        }
    }

    /// Natively the longest run whose ranks had a core each is timed; time-shared runs only
    /// where there is no other, and under SMPI cores do not matter.
    #[test]
    fn the_check_times_a_run_whose_ranks_had_a_core_each() {
        let mut m = Manifest::new(Path::new("p.c"), b"");
        m.upsert(record("P=8", 8, 3.0));
        m.upsert(record("P=2", 2, 1.0));
        m.upsert(record("P=1", 1, 1.5));
        let ids: Vec<String> = ["P=8", "P=2", "P=1"].map(String::from).to_vec();
        let pick = |m: &Manifest, ids: &[String], sim| {
            longest(m, ids, sim).map(|(r, ..)| r.config.clone())
        };
        assert_eq!(pick(&m, &ids, false).as_deref(), Some("P=1"));
        assert_eq!(pick(&m, &ids, true).as_deref(), Some("P=8"));
        assert_eq!(pick(&m, &ids[..1], false).as_deref(), Some("P=8"));
        // under SMPI the most ranks, even where a run of fewer took longer (trial 28)
        m.upsert(record("N=2,P=2", 2, 9.0));
        let ids: Vec<String> = ["P=8", "P=2", "N=2,P=2"].map(String::from).to_vec();
        assert_eq!(pick(&m, &ids, true).as_deref(), Some("P=8"));
        assert_eq!(pick(&m, &ids, false).as_deref(), Some("N=2,P=2"));
    }

    #[test]
    fn simgrids_report_gives_the_simulated_time() {
        let text = "[0.001234] [smpi_utils/INFO] Simulated time: 0.00123456 seconds. \n\nThe simulation took 0.5 seconds";
        assert_eq!(simulated_time(text), Some(0.00123456));
        assert_eq!(simulated_time("no report"), None);
    }

    /// Trial 19's k-means natively: 2.63 s traced, 0.168 s as written.
    #[test]
    fn a_large_part_of_markers_is_said_and_a_small_one_is_not() {
        let mut p = ProbeCheck {
            config: "N=80000,P=1".into(),
            clock: "wall".into(),
            uninstrumented: 0.45,
            instrumented: 2.9,
            traced: 2.63,
        };
        let w = warnings(&manifest(p.clone()), None);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("augur's markers add 93% to the traced time (the instrumented program ran 6.4x as long) at N=80000,P=1"),
            "{}",
            w[0]
        );
        // the share's denominator is named where it is not a time printed beside it
        assert!(
            w[0].contains("2.4500e0 s more of the traced 2.6300e0 s."),
            "{}",
            w[0]
        );
        // trial 21's numbers: 0.1234 s less of a traced 0.301 s
        let faster = ProbeCheck {
            config: "P=8".into(),
            clock: "wall".into(),
            uninstrumented: 1.0334,
            instrumented: 0.91,
            traced: 0.301,
        };
        let w = warnings(&manifest(faster.clone()), None);
        assert!(
            w[0].starts_with("the instrumented program ran faster than the program as written at P=8 (9.1000e-1 s against 1.0334e0 s, launcher wall time, launching included), by 1.2340e-1 s: 41% of the traced 3.0100e-1 s;"),
            "{}",
            w[0]
        );
        assert!(
            w[0].ends_with("the host disturbed the uninstrumented runs"),
            "{}",
            w[0]
        );
        // trial 29: 0.18 s between two launches of a program traced for 1.77 ms is the
        // launches' noise, not 10292% of markers
        let launches = ProbeCheck {
            uninstrumented: 0.38284,
            instrumented: 0.565,
            traced: 1.77e-3,
            ..faster.clone()
        };
        assert!(warnings(&manifest(launches), None).is_empty());
        // simulated: trial 22's Jacobi, 2.55e-2 s against 7.86e-2 s after an MPI_Cart_create
        let sim = ProbeCheck {
            clock: "simulated".into(),
            uninstrumented: 7.86e-2,
            instrumented: 2.55e-2,
            traced: 2.55e-2,
            ..faster
        };
        // the charge is named where the program creates a communicator (trial 28: named for
        // one that calls none)
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("jacobi.c");
        std::fs::write(&src, "MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);\nMPI_Comm_create_group(a, b, 0, &c);\n").unwrap();
        let mut m = manifest(sim.clone());
        m.source = src.display().to_string();
        let w = warnings(&m, None);
        assert!(
            w[0].contains(
                "SimGrid's charge after a communicator's creation (after MPI_Cart_create, a rank's"
            ),
            "{}",
            w[0]
        );
        let w = warnings(&manifest(sim.clone()), None);
        assert!(
            !w[0].contains("communicator") && w[0].contains("a busy host lengthens"),
            "{}",
            w[0]
        );
        // read against a model below a slow traced run: the time compared is the model's T
        let w = warnings(
            &manifest(ProbeCheck {
                instrumented: 3.0e-2,
                traced: 3.0e-2,
                ..sim
            }),
            Some(2.55e-2),
        );
        assert!(
            w[0].contains("(2.5500e-2 s, the model's T there (the traced run, slowed by the host, took 3.0000e-2 s) against 7.8600e-2 s"),
            "{}",
            w[0]
        );
        // 3% natively: nothing
        p.instrumented = 0.46;
        p.traced = 0.3;
        assert!(warnings(&manifest(p.clone()), None).is_empty());
        // 30% of a traced 0.1 s is within the launcher's clock: nothing
        p.instrumented = 0.48;
        p.traced = 0.1;
        assert!(warnings(&manifest(p.clone()), None).is_empty());
        // simulated: exact clocks, the share alone decides
        p.clock = "simulated".into();
        p.uninstrumented = 0.007;
        p.instrumented = 0.028;
        p.traced = 0.028;
        assert!(warnings(&manifest(p.clone()), None)[0].contains("(simulated time)"));
        p.instrumented = 0.0075;
        p.traced = 0.0075;
        assert!(warnings(&manifest(p.clone()), None).is_empty());
        // a tiny run: 31 µs traced against 50 µs from the simulation's start to its end
        p.uninstrumented = 5.0e-5;
        p.instrumented = 3.1e-5;
        p.traced = 3.1e-5;
        assert!(warnings(&manifest(p), None).is_empty());
    }

    /// Trial 26: one slow SMPI run (4.11e-2 s traced where the model fitted to every run put
    /// 3.39e-2 s and the program as written took 3.47e-2 s) is told as the host's noise, not
    /// as the markers' 15%; a model that runs as slow as the traced run leaves the markers'
    /// reading as it was.
    #[test]
    fn a_traced_run_slower_than_the_model_is_noise_not_markers() {
        let p = ProbeCheck {
            config: "N=2048,STEPS=4,P=2".into(),
            clock: "simulated".into(),
            uninstrumented: 3.4739e-2,
            instrumented: 4.1089e-2,
            traced: 4.1089e-2,
        };
        let raw = warnings(&manifest(p.clone()), None);
        assert!(raw[0].starts_with("augur's markers add 15%"), "{raw:?}");
        let m = manifest(p.clone());
        let fit = warnings(&m, Some(3.3862e-2));
        assert_eq!(fit.len(), 1);
        assert!(
            fit[0].starts_with("the instrumented run at N=2048,STEPS=4,P=2 took 4.1089e-2 s against 3.4739e-2 s for the program as written (simulated time), 15% more, but the model fitted to every run puts T there at 3.3862e-2 s: that run was slow"),
            "{}",
            fit[0]
        );
        assert!(cautions(&m, Some(3.3862e-2)).is_empty());
        assert_eq!(cautions(&m, None).len(), 1);
        // the model as slow as the run: the markers cost every run
        let slow = warnings(&m, Some(4.1e-2));
        assert!(slow[0].starts_with("augur's markers add 15%"), "{slow:?}");
    }

    /// Trial 27: natively the times compared are the launcher's wall times, each named so, and
    /// a traced time read against the model says it is the model's.
    #[test]
    fn native_readings_name_their_clocks() {
        let mut p = ProbeCheck {
            config: "N=50000,P=2".into(),
            clock: "wall".into(),
            uninstrumented: 0.53,
            instrumented: 0.70,
            traced: 0.5,
        };
        let w = warnings(&manifest(p.clone()), Some(0.3));
        assert!(
            w[0].starts_with("the instrumented run at N=50000,P=2 took 7.0000e-1 s against 5.3000e-1 s for the program as written (launcher wall time), 34% more, its traced time 5.0000e-1 s, but the model fitted to every run puts T there at 3.0000e-1 s"),
            "{w:?}"
        );
        // still large against the model: the markers, of the model's T there
        p.uninstrumented = 0.5;
        p.instrumented = 1.7;
        p.traced = 1.25;
        let w = warnings(&manifest(p), Some(0.153));
        assert!(w[0].starts_with("augur's markers add 67%"), "{w:?}");
        assert!(
            w[0].contains("1.0300e-1 s more of the 1.5300e-1 s the model fitted to every run puts there (the traced run, slowed by the host, took 1.2500e0 s)"),
            "{w:?}"
        );
    }
}
