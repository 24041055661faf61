//! Host facts recorded with each run (online cores, 1-minute load average at its start, the
//! CPU other processes used just before it) and what they say about native timings: ranks
//! time-shared cores (oversubscription), or the host was busy with other work; and, native or
//! simulated, repetitions of one configuration that disagree (the host's speed changed during
//! the runs). `profile` warns after its grid and `analyze` in its warnings.

use trace::RunRecord;

/// What the host said just before a run started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostFacts {
    /// Online cores (`None` when the host does not say).
    pub cores: Option<u32>,
    /// 1-minute load average from `/proc/loadavg` (`None` where there is no such file).
    pub load_average: Option<f64>,
    /// Cores' worth of CPU time used by the host's processes over [`BUSY_WINDOW`] (`None`
    /// where not measured or `/proc/stat` is missing).
    pub busy_cores: Option<f64>,
}

/// How long [`sample`] watches `/proc/stat` for the host's other work.
pub const BUSY_WINDOW: std::time::Duration = std::time::Duration::from_millis(150);

/// Reads the host's facts now; with `busy`, also watches for [`BUSY_WINDOW`] how much CPU the
/// host's processes use (this one sleeps meanwhile, and the profile's previous run has ended:
/// the load average, a minute's decaying mean, still carries it; trial 22 E8).
pub fn sample(busy: bool) -> HostFacts {
    let cores = online_cores();
    let busy_cores = if busy {
        let before = std::fs::read_to_string("/proc/stat").ok();
        std::thread::sleep(BUSY_WINDOW);
        let after = std::fs::read_to_string("/proc/stat").ok();
        match (
            before.as_deref().and_then(parse_stat),
            after.as_deref().and_then(parse_stat),
            cores,
        ) {
            (Some(a), Some(b), Some(c)) => busy_share(a, b).map(|f| f * f64::from(c)),
            _ => None,
        }
    } else {
        None
    };
    HostFacts {
        cores,
        load_average: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|t| parse_loadavg(&t)),
        busy_cores,
    }
}

/// (busy, total) jiffies of all CPUs from `/proc/stat`'s `cpu` line (`cpu  user nice system
/// idle iowait irq softirq steal …`): idle and iowait are not busy; guest time is already in
/// user time.
fn parse_stat(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if f.len() < 5 {
        return None;
    }
    let total: u64 = f.iter().sum();
    let idle = f[3] + f[4];
    Some((total - idle, total))
}

/// The share of CPU time busy between two [`parse_stat`] readings (None when no time passed).
fn busy_share(a: (u64, u64), b: (u64, u64)) -> Option<f64> {
    let total = b.1.checked_sub(a.1)?;
    let busy = b.0.checked_sub(a.0)?;
    (total > 0).then(|| (busy as f64 / total as f64).clamp(0.0, 1.0))
}

/// Online cores: Linux's `/sys/devices/system/cpu/online` (`0-1`, `0,2-5`), else what the
/// standard library sees as available.
fn online_cores() -> Option<u32> {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| parse_cpu_list(&t))
        .or_else(|| {
            std::thread::available_parallelism()
                .ok()
                .and_then(|n| u32::try_from(n.get()).ok())
        })
}

/// The number of CPUs in a kernel CPU list (`0-3,8,10-11` → 7).
fn parse_cpu_list(text: &str) -> Option<u32> {
    let mut n = 0u32;
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let c = part.trim().parse::<u32>().ok()?;
                (c, c)
            }
        };
        n = n.checked_add(hi.checked_sub(lo)?.checked_add(1)?)?;
    }
    (n > 0).then_some(n)
}

/// The 1-minute load average: the first field of `/proc/loadavg` (`9.48 9.82 7.96 14/184 …`).
fn parse_loadavg(text: &str) -> Option<f64> {
    text.split_whitespace()
        .next()?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Whether a run was simulated (SMPI: every rank a context of one process, so no core sharing
/// between ranks and no host load in simulated time to speak of here).
pub fn simulated(r: &RunRecord) -> bool {
    r.mpi.starts_with("SimGrid")
        || r.launcher
            .first()
            .is_some_and(|l| std::path::Path::new(l).ends_with("smpirun"))
}

/// `4` for 4.0, `11.3` otherwise: load averages read like `uptime` prints them.
fn load_text(v: f64) -> String {
    if (v - v.round()).abs() < 0.05 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The warnings the host facts of the ok native runs call for: one for the rank counts that
/// exceeded the cores, one for the runs that started on a busy host: where the other work
/// measured just before a run left fewer idle cores than it had ranks (by half a core), or,
/// for records without that measure, where the load average exceeded the cores. Runs without
/// the facts (older manifests) say nothing.
pub fn warnings(runs: &[RunRecord]) -> Vec<String> {
    let native: Vec<&RunRecord> = runs
        .iter()
        .filter(|r| r.status.is_ok() && !simulated(r))
        .collect();
    let mut out = Vec::new();
    // (P, cores) pairs that time-shared, in order of P
    let mut over: Vec<(u32, u32)> = native
        .iter()
        .filter_map(|r| r.cores.filter(|&c| r.np > c).map(|c| (r.np, c)))
        .collect();
    over.sort_unstable();
    over.dedup();
    if !over.is_empty() {
        let ps: Vec<String> = over.iter().map(|(p, _)| format!("P = {p}")).collect();
        let mut cores: Vec<u32> = over.iter().map(|&(_, c)| c).collect();
        cores.sort_unstable();
        cores.dedup();
        let ranks: Vec<String> = over.iter().map(|(p, _)| p.to_string()).collect();
        let on = match cores.as_slice() {
            [c] => format!("{c} cores"),
            _ => "fewer cores".into(),
        };
        out.push(format!(
            "the {} runs ran {} ranks on {on}; their compute rates include time sharing, so costs fitted as laws in P from them are suspect (profile those rank counts under SMPI, or on a host with as many cores)",
            and_list(&ps),
            and_list(&ranks),
        ));
    }
    // runs whose other work left too few idle cores for their ranks: (run, cores' worth of
    // other work, cores). A run with more ranks than cores needs every core: more ranks than
    // that is the time sharing warned of above, not other work (a P = 4 run on 2 idle cores was
    // called busy with "other processes used 0 of its 2 cores").
    let crowded: Vec<(&RunRecord, f64, u32)> = native
        .iter()
        .filter_map(|r| match (r.busy_cores, r.cores) {
            (Some(b), Some(c)) if b + f64::from(r.np.min(c)) > f64::from(c) + 0.5 => {
                Some((*r, b, c))
            }
            _ => None,
        })
        .collect();
    let measured = native.iter().filter(|r| r.busy_cores.is_some()).count();
    if let Some(&(worst, other, cores)) = crowded.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        out.push(format!(
            "the host was busy: other processes used {} of its {cores} cores just before {} started with {} ranks (other work left fewer idle cores than ranks before {}){BUSY_ADVICE}",
            load_text(other),
            worst.config,
            worst.np,
            some_of(crowded.len(), measured),
        ));
    }
    let busy: Vec<(&RunRecord, f64, u32)> = native
        .iter()
        .filter(|r| r.busy_cores.is_none())
        .filter_map(|r| match (r.load_average, r.cores) {
            (Some(l), Some(c)) if l > f64::from(c) => Some((*r, l, c)),
            _ => None,
        })
        .collect();
    let unmeasured = native.len() - measured;
    if let Some(&(worst, load, cores)) = busy.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        out.push(format!(
            "the host was busy: load {} on {cores} cores at the start of {} (the 1-minute load average exceeded the cores at the start of {}){BUSY_ADVICE}",
            load_text(load),
            worst.config,
            some_of(busy.len(), unmeasured),
        ));
    }
    out.extend(unsteady(runs));
    out.extend(thread_counts(runs));
    out
}

/// How much slower than the kept (fastest) repetition the next fastest may be before the
/// host is called unsteady. The shipped native runs' repetitions agree within 19%; in CI three
/// SMPI repetitions of one configuration read 2.87e-2, 4.05e-2 and 4.45e-2 s (+41%).
const UNSTEADY: f64 = 1.25;

/// Runs whose repetitions disagreed by more than [`UNSTEADY`]: the host's speed changed while
/// they ran. Native or simulated alike, since SMPI charges each computation the host time it
/// took; the load average and the other processes' CPU, sampled before a run, miss a
/// disturbance that starts during it or comes from outside the guest.
fn unsteady(runs: &[RunRecord]) -> Option<String> {
    let mut judged = 0;
    let mut off: Vec<(&RunRecord, Vec<f64>, f64)> = Vec::new();
    for r in runs.iter().filter(|r| r.status.is_ok()) {
        let mut t: Vec<f64> = r
            .repetitions
            .iter()
            .filter_map(|x| x.trace_seconds)
            .filter(|t| *t > 0.0)
            .collect();
        if t.len() < 2 {
            continue;
        }
        judged += 1;
        let in_order = t.clone();
        t.sort_by(f64::total_cmp);
        let gap = t[1] / t[0];
        if gap > UNSTEADY {
            off.push((r, in_order, gap));
        }
    }
    let (worst, times, gap) = off.iter().max_by(|a, b| a.2.total_cmp(&b.2))?;
    let times: Vec<String> = times.iter().map(|t| format!("{t:.4e}")).collect();
    let why = if simulated(worst) {
        "SimGrid charges each computation the host time it took"
    } else {
        "native timings are the host's"
    };
    Some(format!(
        "the host's speed changed while the runs ran: the repetitions of {} took {} s, the next fastest {:.0}% slower than the kept one ({} of the {judged} repeated configurations' repetitions disagreed by more than {:.0}%); {why}, so the fastest may be disturbed too and misfits may be the host's, not the model's: re-run those configurations when the host is idle (--force)",
        worst.config,
        and_list(&times),
        100.0 * (gap - 1.0),
        off.len(),
        100.0 * (UNSTEADY - 1.0),
    ))
}

/// What the busy-host warnings advise.
const BUSY_ADVICE: &str = "; native timings then include other work, so misfits may be the host's, not the model's (even runs all predicted on one side, which would otherwise point at the model's structure): re-run those configurations when the host is idle (--force), or with --repeat to keep the least disturbed";

/// `the run`, `all 3 runs` or `2 of 3 runs`: `n` runs of the `of` judged.
fn some_of(n: usize, of: usize) -> String {
    match (n, of) {
        (1, 1) => "the run".into(),
        (n, of) if n == of => format!("all {n} runs"),
        (n, of) => format!("{n} of {of} runs"),
    }
}

/// Runs of one directory recorded with different `OMP_NUM_THREADS` (unset counts as one value
/// of its own): their compute rates are of different programs, and one model would mix them.
fn thread_counts(runs: &[RunRecord]) -> Option<String> {
    let mut by: std::collections::BTreeMap<Option<&str>, Vec<&str>> = Default::default();
    for r in runs.iter().filter(|r| r.status.is_ok()) {
        by.entry(r.omp_num_threads.as_deref())
            .or_default()
            .push(&r.config);
    }
    if by.len() < 2 {
        return None;
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(t, configs)| {
            let t = t.map_or("unset".to_string(), |t| format!("`{t}`"));
            format!("{t} in {} (e.g. {})", count(configs.len()), configs[0])
        })
        .collect();
    Some(format!(
        "the runs were recorded with different OMP_NUM_THREADS ({}): each thread count is another program's compute rate, so one model of them all mixes them; profile each thread count into its own directory (--out)",
        parts.join(", ")
    ))
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 run".into()
    } else {
        format!("{n} runs")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use trace::RunStatus;

    fn rec(np: u32, cores: Option<u32>, load: Option<f64>, mpi: &str) -> RunRecord {
        let params: BTreeMap<String, f64> = [("N".to_string(), 64.0)].into();
        RunRecord {
            mpi: mpi.into(),
            launcher: vec![if mpi.starts_with("SimGrid") {
                "smpirun".into()
            } else {
                "mpirun".into()
            }],
            host: "h".into(),
            date: "2026-11-21T05:17:23Z".into(),
            wall_seconds: 1.0,
            cores,
            load_average: load,
            ..RunRecord::new(params, np)
        }
    }
    const OMPI: &str = "Open MPI 4.1.4";

    #[test]
    fn parses_cpu_lists_and_loadavg() {
        assert_eq!(parse_cpu_list("0-1\n"), Some(2));
        assert_eq!(parse_cpu_list("0-3,8,10-11"), Some(7));
        assert_eq!(parse_cpu_list("0"), Some(1));
        assert_eq!(parse_cpu_list(""), None);
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_loadavg("9.48 9.82 7.96 14/184 10435\n"), Some(9.48));
        assert_eq!(parse_loadavg(""), None);
        assert_eq!(parse_loadavg("nan 1 1"), None);
    }

    #[test]
    fn oversubscribed_native_runs_are_named_by_rank_count() {
        let runs = vec![
            rec(1, Some(2), Some(0.2), OMPI),
            rec(2, Some(2), Some(0.3), OMPI),
            rec(4, Some(2), Some(0.4), OMPI),
            rec(4, Some(2), Some(0.5), OMPI),
        ];
        let w = warnings(&runs);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "the P = 4 runs ran 4 ranks on 2 cores; their compute rates include time sharing"
            ),
            "{w:?}"
        );
        let more = vec![rec(4, Some(2), None, OMPI), rec(8, Some(2), None, OMPI)];
        let w = warnings(&more);
        assert!(
            w[0].starts_with("the P = 4 and P = 8 runs ran 4 and 8 ranks on 2 cores;"),
            "{w:?}"
        );
    }

    #[test]
    fn a_busy_host_is_named_with_its_worst_load() {
        let runs = vec![
            rec(1, Some(2), Some(11.2), OMPI),
            rec(2, Some(2), Some(1.0), OMPI),
        ];
        let w = warnings(&runs);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the host was busy: load 11.2 on 2 cores at the start of N=64,P=1 (the 1-minute load average exceeded the cores at the start of 1 of 2 runs)"),
            "{w:?}"
        );
        let all = vec![rec(2, Some(2), Some(3.0), OMPI)];
        assert!(
            warnings(&all)[0].contains("load 3 on 2 cores"),
            "{:?}",
            warnings(&all)
        );
        assert!(warnings(&all)[0].contains("at the start of the run)"));
        // trial 8 item 11: the fit's "off structurally, not by noise" (runs all on one side)
        // must not read as contradicting it
        assert!(
            warnings(&all)[0].contains("misfits may be the host's, not the model's (even runs all predicted on one side, which would otherwise point at the model's structure)"),
            "{:?}",
            warnings(&all)
        );
    }

    #[test]
    fn smpi_runs_failed_runs_and_old_records_say_nothing() {
        let smpi = "SimGrid SMPI 3.32";
        let mut failed = rec(8, Some(2), Some(20.0), OMPI);
        failed.status = RunStatus::Failed { reason: "x".into() };
        let runs = vec![
            rec(64, Some(2), Some(20.0), smpi),
            rec(16, None, None, OMPI),
            failed,
        ];
        assert!(warnings(&runs).is_empty(), "{:?}", warnings(&runs));
    }

    #[test]
    fn runs_of_different_thread_counts_are_named() {
        let mut one = rec(2, Some(2), None, OMPI);
        one.omp_num_threads = Some("1".into());
        let mut two = rec(2, Some(2), None, OMPI);
        two.params.insert("N".into(), 128.0);
        two.config = trace::config_id(&two.params, 2);
        two.omp_num_threads = Some("2".into());
        let unset = rec(1, Some(2), None, OMPI);
        let w = warnings(&[one.clone(), two.clone(), unset]);
        assert_eq!(
            w,
            ["the runs were recorded with different OMP_NUM_THREADS (unset in 1 run (e.g. N=64,P=1), `1` in 1 run (e.g. N=64,P=2), `2` in 1 run (e.g. N=128,P=2)): each thread count is another program's compute rate, so one model of them all mixes them; profile each thread count into its own directory (--out)"]
        );
        let mut same = two.clone();
        same.omp_num_threads = one.omp_num_threads.clone();
        assert!(warnings(&[one, same]).is_empty());
    }

    #[test]
    fn this_host_reports_its_cores() {
        let f = sample(true);
        assert!(f.cores.is_some_and(|c| c >= 1), "{f:?}");
        if std::path::Path::new("/proc/loadavg").exists() {
            assert!(f.load_average.is_some(), "{f:?}");
        }
        if std::path::Path::new("/proc/stat").exists() {
            let b = f.busy_cores.unwrap_or(f64::NAN);
            assert!(
                (0.0..=f64::from(f.cores.unwrap_or(1))).contains(&b),
                "{f:?}"
            );
        }
        assert_eq!(sample(false).busy_cores, None);
    }

    #[test]
    fn cpu_time_is_read_from_proc_stat() {
        let a = parse_stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4 5\n").unwrap();
        assert_eq!(a, (150, 1000));
        let b = parse_stat("cpu  200 0 100 850 50 0 0 0 0 0\n").unwrap();
        // 150 busy of 200 jiffies
        assert_eq!(busy_share(a, b), Some(0.75));
        assert_eq!(busy_share(a, a), None);
        assert_eq!(parse_stat("intr 1 2 3\n"), None);
    }

    /// Trial 22 E8: the load average carries the profile's own previous runs (2 after a run of
    /// 2 ranks on 2 cores), so it warned of nothing at 1.9 and would warn of every run at P = 2
    /// with load + P; the other processes' CPU just before a run is what shares its cores.
    #[test]
    fn other_work_just_before_a_run_that_leaves_too_few_cores_is_named() {
        let mut a = rec(2, Some(2), Some(1.9), OMPI);
        a.busy_cores = Some(1.0);
        let mut b = rec(1, Some(2), Some(1.9), OMPI);
        b.busy_cores = Some(1.0);
        let w = warnings(&[a.clone(), b.clone()]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the host was busy: other processes used 1 of its 2 cores just before N=64,P=2 started with 2 ranks (other work left fewer idle cores than ranks before 1 of 2 runs)"),
            "{w:?}"
        );
        // its own previous runs in the load average, the host idle just before: nothing
        let mut quiet = rec(2, Some(2), Some(3.5), OMPI);
        quiet.busy_cores = Some(0.05);
        assert!(warnings(&[quiet]).is_empty());
        // more ranks than cores on an idle host: time sharing (its own warning), not other work
        let mut over = rec(4, Some(2), Some(0.1), OMPI);
        over.busy_cores = Some(0.0);
        let w = warnings(&[over.clone()]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the P = 4 runs ran 4 ranks on 2 cores"),
            "{w:?}"
        );
        // and with other work besides, both
        over.busy_cores = Some(1.0);
        assert_eq!(warnings(&[over]).len(), 2);
    }

    #[test]
    fn repetitions_that_disagree_name_an_unsteady_host() {
        let smpi = "SimGrid SMPI 3.32";
        let reps = |ts: &[f64]| -> Vec<trace::Repetition> {
            ts.iter()
                .map(|t| trace::Repetition {
                    wall_seconds: 0.2,
                    trace_seconds: Some(*t),
                    load_average: None,
                    busy_cores: None,
                })
                .collect()
        };
        // CI's switch runs: 2.87e-2 kept, the next fastest 41% slower
        let mut a = rec(2, Some(2), None, smpi);
        a.repetitions = reps(&[2.8692e-2, 4.0549e-2, 4.4482e-2]);
        let mut b = rec(4, Some(2), None, smpi);
        b.repetitions = reps(&[4.1721e-2, 3.9805e-2, 3.6604e-2]);
        let w = warnings(&[a.clone(), b.clone()]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the host's speed changed while the runs ran: the repetitions of N=64,P=2 took 2.8692e-2, 4.0549e-2 and 4.4482e-2 s, the next fastest 41% slower than the kept one (1 of the 2 repeated configurations' repetitions disagreed by more than 25%); SimGrid charges each computation the host time it took"),
            "{w:?}"
        );
        // within 25% (the shipped native runs reach 19%), a failed repetition's missing time,
        // or a single repetition: nothing
        a.repetitions = reps(&[2.87e-2, 3.4e-2]);
        let mut c = rec(2, Some(2), None, OMPI);
        c.repetitions = reps(&[1.0]);
        c.repetitions[0].trace_seconds = None;
        c.repetitions.extend(reps(&[2.0]));
        assert!(warnings(&[a, b, c]).is_empty());
    }
}
