//! Launching one configuration: the launcher's argument vector (Open MPI `mpirun` or SimGrid
//! `smpirun`), the MPI implementation's name, and running a child in its own process group with
//! output captured to files and the whole group killed at the timeout. Arguments go to
//! `std::process::Command` one by one; nothing passes through a shell.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Process group of the run in progress (0: none). Runs live in their own group so a timeout can
/// kill the launcher and what it forked; the same isolation keeps a terminal's Ctrl-C from
/// reaching them, so the interrupt handler kills the group (and its process tree) itself.
static CURRENT_GROUP: AtomicI32 = AtomicI32::new(0);
/// Set by the interrupt handler before it kills the run: that run must not be recorded.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// On SIGINT/SIGTERM/SIGHUP: kill the running configuration's processes and exit 130. The
/// manifest only ever holds finished runs (atomic writes), so re-running `profile` resumes.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        let raw = CURRENT_GROUP.load(Ordering::SeqCst);
        if raw > 0 {
            let tree = process_tree(raw);
            signal_all(raw, &tree, rustix::process::Signal::TERM);
            std::thread::sleep(Duration::from_millis(1500));
            signal_all(raw, &tree, rustix::process::Signal::KILL);
        }
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "\ninterrupted: finished runs are recorded; run the same command again to resume"
            );
        }
        std::process::exit(130);
    });
}

/// Which launcher (and compiler wrapper family) a profile uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Launcher {
    /// Open MPI (or any `mpirun`): mpicc / mpif90 / mpirun
    Mpirun,
    /// SimGrid SMPI: smpicc / smpiff / smpif90 / smpirun on a platform XML
    Smpirun,
}

impl Launcher {
    pub fn program(self) -> &'static str {
        match self {
            Launcher::Mpirun => "mpirun",
            Launcher::Smpirun => "smpirun",
        }
    }

    /// Whose `MPI_Dims_create` the launched library is (the grids its runs have).
    pub fn dims_rule(self) -> symbolic::DimsRule {
        match self {
            Launcher::Mpirun => symbolic::DimsRule::OpenMpi,
            Launcher::Smpirun => symbolic::DimsRule::SimGrid,
        }
    }
}

/// Everything needed to turn (np, program argv) into a launcher command line.
#[derive(Debug, Clone)]
pub struct LaunchSpec {
    pub launcher: Launcher,
    /// SMPI only: platform XML and the generated hostfile.
    pub platform: Option<PathBuf>,
    pub hostfile: Option<PathBuf>,
    /// Running as root (Open MPI refuses to without `--allow-run-as-root`).
    pub root: bool,
}

impl LaunchSpec {
    /// The full argv: launcher, its options, the executable and the program's arguments.
    pub fn argv(&self, np: u32, exe: &Path, args: &[String]) -> Vec<String> {
        let mut v = vec![self.launcher.program().to_string()];
        match self.launcher {
            Launcher::Mpirun => {
                if self.root {
                    v.push("--allow-run-as-root".into());
                }
                // More ranks than cores on small machines; Open MPI then yields when idle.
                v.push("--oversubscribe".into());
                v.extend(["-np".into(), np.to_string()]);
            }
            Launcher::Smpirun => {
                v.extend(["-np".into(), np.to_string()]);
                if let Some(p) = &self.platform {
                    v.extend(["-platform".into(), p.display().to_string()]);
                }
                if let Some(h) = &self.hostfile {
                    v.extend(["-hostfile".into(), h.display().to_string()]);
                }
                // Compute between MPI calls is charged to simulated time at this speed; the
                // default (20000 flop/s) would scale measured compute wrongly.
                v.push("--cfg=smpi/host-speed:1Gf".into());
                v.push("--log=root.thres:warning".into());
            }
        }
        v.push(exe.display().to_string());
        v.extend(args.iter().cloned());
        v
    }
}

/// Whether this process runs as root (Open MPI needs `--allow-run-as-root` then).
pub fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The host name for the manifest.
pub fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `Open MPI 4.1.4`, `SimGrid SMPI 3.32`, or the launcher's first version line. `None` when the
/// launcher cannot be run at all (not installed).
pub fn mpi_implementation(launcher: Launcher) -> Option<String> {
    let (prog, flag) = match launcher {
        Launcher::Mpirun => ("mpirun", "--version"),
        Launcher::Smpirun => ("smpirun", "-version"),
    };
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
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?
        .to_string();
    Some(name_from_version_line(&first))
}

fn name_from_version_line(line: &str) -> String {
    // `mpirun (Open MPI) 4.1.4` / `SimGrid version 3.32` / `HYDRA build details:` ...
    if let Some(rest) = line.strip_prefix("mpirun (") {
        if let Some((name, ver)) = rest.split_once(')') {
            return format!("{} {}", name.trim(), ver.trim());
        }
    }
    if let Some(ver) = line.strip_prefix("SimGrid version ") {
        return format!("SimGrid SMPI {}", ver.trim());
    }
    line.to_string()
}

/// Host names a platform XML declares: `<host id=...>` elements and `<cluster prefix radical
/// suffix>` expansions, in document order. A scanner, not a validating parser: SimGrid itself
/// reports malformed platforms when the run starts.
pub fn platform_hosts(xml: &str) -> Vec<String> {
    let mut hosts = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        match name {
            "host" => {
                if let Some(id) = attr(tag, "id") {
                    hosts.push(id.to_string());
                }
            }
            "cluster" => {
                let prefix = attr(tag, "prefix").unwrap_or("");
                let suffix = attr(tag, "suffix").unwrap_or("");
                for part in attr(tag, "radical").unwrap_or("").split(',') {
                    let (a, b) = part.split_once('-').unwrap_or((part, part));
                    if let (Ok(a), Ok(b)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                        // bounded: a radical like 0-999999999 must not exhaust memory
                        hosts.extend(
                            (a..=b.min(a.saturating_add(1 << 20)))
                                .map(|k| format!("{prefix}{k}{suffix}")),
                        );
                    }
                }
            }
            _ => {}
        }
        rest = &rest[end..];
    }
    hosts
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(i) = rest.find(name) {
        let before_ok = i == 0 || rest[..i].ends_with(char::is_whitespace);
        let after = rest[i + name.len()..].trim_start();
        if before_ok {
            if let Some(v) = after.strip_prefix('=') {
                let v = v.trim_start();
                let q = v.chars().next()?;
                if q == '"' || q == '\'' {
                    let body = &v[1..];
                    return body.find(q).map(|j| &body[..j]);
                }
            }
        }
        rest = &rest[i + name.len()..];
    }
    None
}

/// The default SMPI platform when `--platform` is not given: a flat cluster (REFERENCE.md).
pub const DEFAULT_PLATFORM: &str = "<?xml version='1.0'?>\n\
<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
<platform version=\"4.1\">\n\
  <cluster id=\"c0\" prefix=\"node-\" suffix=\".sim\" radical=\"0-4095\" core=\"1\" speed=\"1Gf\" bw=\"10GBps\" lat=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n\
</platform>\n";

/// How a launched child ended.
#[derive(Debug)]
pub enum Outcome {
    Exited(ExitStatus),
    /// Still running at the timeout; its process group was killed.
    TimedOut,
}

/// Runs `argv` in a new process group with stdin from `stdin` (else /dev/null), stdout and
/// stderr to the given files and `env` added; kills the whole group (launcher and every rank it
/// forked) at `timeout`.
#[allow(clippy::too_many_arguments)]
pub fn run_captured(
    argv: &[String],
    env: &[(&str, &Path)],
    cwd: &Path,
    stdin: Option<&Path>,
    stdout: &Path,
    stderr: &Path,
    timeout: Duration,
) -> std::io::Result<(Outcome, Duration)> {
    use std::os::unix::process::CommandExt;
    let (prog, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("empty command line"))?;
    let mut cmd = Command::new(prog);
    cmd.args(args).current_dir(cwd);
    match stdin {
        Some(p) => cmd.stdin(File::open(p)?),
        None => cmd.stdin(Stdio::null()),
    };
    cmd.stdout(File::create(stdout)?)
        .stderr(File::create(stderr)?);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pgid = rustix::process::Pid::from_child(&child);
    CURRENT_GROUP.store(pgid.as_raw_nonzero().get(), Ordering::SeqCst);
    let result = wait_or_kill(&mut child, pgid, start, timeout);
    while INTERRUPTED.load(Ordering::SeqCst) {
        // the run ended because of the interrupt: the handler is killing the rest and exits the
        // process; returning would record the killed run as failed
        std::thread::sleep(Duration::from_millis(50));
    }
    CURRENT_GROUP.store(0, Ordering::SeqCst);
    result
}

fn wait_or_kill(
    child: &mut std::process::Child,
    pgid: rustix::process::Pid,
    start: Instant,
    timeout: Duration,
) -> std::io::Result<(Outcome, Duration)> {
    loop {
        if let Some(status) = child.try_wait()? {
            // Ranks that outlived a crashed launcher must not linger into the next run.
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
            return Ok((Outcome::Exited(status), start.elapsed()));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            kill_group(pgid, child);
            return Ok((Outcome::TimedOut, elapsed));
        }
        std::thread::sleep(Duration::from_millis(20).min(timeout - elapsed));
    }
}

/// SIGTERM to the launcher's process group and every descendant (Open MPI puts each rank in a
/// process group of its own), a grace period for mpirun to clean up, then SIGKILL to all of them,
/// including descendants that appeared meanwhile.
fn kill_group(pgid: rustix::process::Pid, child: &mut std::process::Child) {
    use rustix::process::Signal;
    let root = pgid.as_raw_nonzero().get();
    let mut tree = process_tree(root);
    signal_all(root, &tree, Signal::TERM);
    let grace = Instant::now();
    while grace.elapsed() < Duration::from_secs(2) {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        tree.extend(process_tree(root));
        std::thread::sleep(Duration::from_millis(20));
    }
    tree.sort_unstable();
    tree.dedup();
    signal_all(root, &tree, Signal::KILL);
    let _ = child.wait();
}

fn signal_all(group: i32, pids: &[i32], sig: rustix::process::Signal) {
    if let Some(g) = rustix::process::Pid::from_raw(group) {
        let _ = rustix::process::kill_process_group(g, sig);
    }
    for p in pids
        .iter()
        .filter_map(|&p| rustix::process::Pid::from_raw(p))
    {
        let _ = rustix::process::kill_process(p, sig);
    }
}

/// `root` and all its descendants, from the parent links in `/proc/<pid>/stat`.
fn process_tree(root: i32) -> Vec<i32> {
    let mut parent_of: Vec<(i32, i32)> = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid ...`; comm may contain spaces and parentheses
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok());
            if let Some(ppid) = ppid {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree
}

/// The status text of a run that did not succeed: exit code or signal, and the last meaningful
/// line of its standard error (launchers print separator lines of dashes; those are skipped).
pub fn failure_reason(status: &ExitStatus, stderr_path: &Path) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!(
            "killed by signal {s}{}",
            signal_name(s)
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ),
        _ => "ended abnormally".to_string(),
    };
    let tail = stderr_tail(stderr_path);
    match (tail.aborted, tail.last) {
        (true, Some(l)) => format!("{how}, MPI_Abort was called: {l}"),
        (true, None) => format!("{how}, MPI_Abort was called"),
        (false, Some(l)) => format!("{how}: {l}"),
        (false, None) => how,
    }
}

/// The line of a run's standard error saying the program read past the end of its standard
/// input (gfortran: `At line 13 of file rd.f90 (unit = 5, file = 'stdin')` then `Fortran
/// runtime error: End of file`), if it says so.
pub fn read_past_input(stderr_path: &Path) -> Option<String> {
    let bytes = std::fs::read(stderr_path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let lower = text.to_ascii_lowercase();
    if !(lower.contains("unit = 5") || lower.contains("stdin")) {
        return None;
    }
    text.lines()
        .map(str::trim)
        .find(|l| l.to_ascii_lowercase().contains("end of file"))
        .map(|l| l.chars().take(200).collect())
}

/// What a run's standard error says about how it ended.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StderrTail {
    /// The MPI library reported a call to MPI_Abort (SMPI: `MPI_Abort was called`, Open MPI:
    /// `MPI_ABORT was invoked`).
    pub aborted: bool,
    /// SimGrid found every rank left blocked (`Oops! Deadlock detected`); smpirun then exits 0.
    pub deadlocked: bool,
    /// The program's own last line: the last line with letters or digits that is neither a
    /// SimGrid log line (`[host:rank:(pid) t] file:line: [category/LEVEL] …`) nor inside a
    /// launcher's notice boxed by lines of dashes; trimmed and cut to 300 characters.
    pub last: Option<String>,
}

pub fn stderr_tail(path: &Path) -> StderrTail {
    let Ok(bytes) = std::fs::read(path) else {
        return StderrTail::default();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let dashes: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].len() >= 3 && lines[i].chars().all(|c| c == '-'))
        .collect();
    // paired from the end: the launcher's notices come after everything the program printed,
    // which may hold dash lines of its own (an odd one out is the program's)
    let in_box = |i: usize| {
        dashes
            .rchunks_exact(2)
            .any(|pair| pair[0] < i && i < pair[1])
    };
    let aborted = lines.iter().any(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("mpi_abort was called") || l.contains("mpi_abort was invoked")
    });
    let deadlocked = lines
        .iter()
        .any(|l| is_simgrid_log(l) && l.contains("Deadlock detected"));
    // a Fortran run-time error is what the program said last, whatever the shell or the
    // launcher added after it (`Aborted`); an end of file has its own explanation
    let runtime = lines
        .iter()
        .rev()
        .find(|l| is_runtime_error(l) && !l.to_ascii_lowercase().contains("end of file"))
        .copied();
    // SimGrid's own critical error is why a simulation stopped (`[root/CRITICAL] Not yet
    // implemented: PMPI_Neighbor_alltoall`, then `Aborted`; trial 26), a deadlock aside (told
    // apart above, the program's last words kept)
    let critical = lines
        .iter()
        .rev()
        .find(|l| is_simgrid_log(l) && l.contains("/CRITICAL]") && !l.contains("Deadlock detected"))
        .map(|l| l.split_once("/CRITICAL]").map_or(*l, |(_, m)| m.trim()));
    let last = runtime
        .or(critical)
        .or_else(|| {
            (0..lines.len())
                .rev()
                .filter(|&i| !in_box(i) && !is_simgrid_log(lines[i]))
                .map(|i| lines[i])
                .find(|l| l.chars().any(char::is_alphanumeric))
        })
        .map(|l| l.chars().take(300).collect());
    StderrTail {
        aborted,
        deadlocked,
        last,
    }
}

/// gfortran's `Fortran runtime error: …` (and `Error termination`'s companion lines).
fn is_runtime_error(line: &str) -> bool {
    line.starts_with("Fortran runtime error:")
}

/// The file and line gfortran names before a run-time error (`At line 22 of file
/// /x/build/rbsor.f (unit = 5, file = 'stdin')`), the last such line of a run's stderr.
pub fn runtime_error_at(stderr_path: &Path) -> Option<(String, u32)> {
    let bytes = std::fs::read(stderr_path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().find_map(|l| {
        let rest = l.trim().strip_prefix("At line ")?;
        let (line, rest) = rest.split_once(" of file ")?;
        let file = rest.split(" (").next()?.trim();
        Some((file.to_string(), line.trim().parse().ok()?))
    })
}

/// `[node-0.sim:0:(1) 0.000067] ./src/smpi/…:138: [smpi_pmpi/WARNING] …`: a line that starts
/// with `[` and holds a `[category/LEVEL]` tag.
fn is_simgrid_log(line: &str) -> bool {
    line.starts_with('[')
        && line.match_indices('[').any(|(i, _)| {
            let rest = &line[i + 1..];
            let Some(end) = rest.find(']') else {
                return false;
            };
            let Some((cat, level)) = rest[..end].split_once('/') else {
                return false;
            };
            !cat.is_empty()
                && cat
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                && !level.is_empty()
                && level.chars().all(|c| c.is_ascii_uppercase())
        })
}

/// The last line of a file with letters or digits in it, trimmed and cut to 300 characters.
pub fn last_line(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.chars().any(char::is_alphanumeric))?;
    Some(line.chars().take(300).collect())
}

fn signal_name(s: i32) -> Option<&'static str> {
    Some(match s {
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn end_of_input_is_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("stderr.txt");
        std::fs::write(
            &e,
            "At line 15 of file /b/rd.f90 (unit = 5, file = 'stdin')\nFortran runtime error: End of file\n",
        )
        .unwrap();
        assert_eq!(
            read_past_input(&e).as_deref(),
            Some("Fortran runtime error: End of file")
        );
        std::fs::write(
            &e,
            "Fortran runtime error: End of file (unit = 10, file = 'in.dat')\n",
        )
        .unwrap();
        assert_eq!(read_past_input(&e), None);
        assert_eq!(read_past_input(&dir.path().join("missing")), None);
    }

    #[test]
    fn version_lines() {
        assert_eq!(
            name_from_version_line("mpirun (Open MPI) 4.1.4"),
            "Open MPI 4.1.4"
        );
        assert_eq!(
            name_from_version_line("SimGrid version 3.32"),
            "SimGrid SMPI 3.32"
        );
        assert_eq!(
            name_from_version_line("HYDRA build details:"),
            "HYDRA build details:"
        );
    }

    #[test]
    fn hosts_from_platforms() {
        let h = platform_hosts(DEFAULT_PLATFORM);
        assert_eq!(h.len(), 4096);
        assert_eq!(h[0], "node-0.sim");
        assert_eq!(h[4095], "node-4095.sim");
        let x = "<platform><zone id='z'><host id=\"a\" speed='1Gf'/><host speed=\"1\" id='b'/>\
                 <cluster id='c' prefix='n' suffix='' radical='0-1,5'/></zone></platform>";
        assert_eq!(platform_hosts(x), ["a", "b", "n0", "n1", "n5"]);
        assert!(platform_hosts("not xml <<<").is_empty());
        assert!(platform_hosts("<cluster radical='0-99999999999999999999'/>").is_empty());
    }

    #[test]
    fn argv_has_no_shell_and_root_flag() {
        let spec = LaunchSpec {
            launcher: Launcher::Mpirun,
            platform: None,
            hostfile: None,
            root: true,
        };
        let v = spec.argv(4, Path::new("/b/prog"), &["a b".to_string()]);
        assert_eq!(
            v,
            [
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                "4",
                "/b/prog",
                "a b"
            ]
        );
        let spec = LaunchSpec {
            launcher: Launcher::Smpirun,
            platform: Some("p.xml".into()),
            hostfile: Some("h.txt".into()),
            root: true,
        };
        let v = spec.argv(2, Path::new("prog"), &[]);
        assert_eq!(
            v[..7],
            [
                "smpirun",
                "-np",
                "2",
                "-platform",
                "p.xml",
                "-hostfile",
                "h.txt"
            ]
        );
        assert_eq!(v.last().map(String::as_str), Some("prog"));
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-finished");
        // a child that forks a grandchild; both sleep past the timeout
        let script = format!("sleep 1.5 && touch {} & sleep 1.5", marker.display());
        let argv: Vec<String> = ["sh", "-c", &script]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (out, took) = run_captured(
            &argv,
            &[],
            dir.path(),
            None,
            &dir.path().join("o"),
            &dir.path().join("e"),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(matches!(out, Outcome::TimedOut));
        assert!(took < Duration::from_secs(3), "{took:?}");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "grandchild survived the group kill");
    }

    #[test]
    fn timeout_kills_descendants_in_other_sessions() {
        // Open MPI starts each rank in a process group of its own: the group kill misses them
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("escaped");
        let script = format!(
            "setsid sh -c 'sleep 1.5; touch {}' & sleep 1.5",
            marker.display()
        );
        let argv: Vec<String> = ["sh", "-c", &script]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (out, _) = run_captured(
            &argv,
            &[],
            dir.path(),
            None,
            &dir.path().join("o"),
            &dir.path().join("e"),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(matches!(out, Outcome::TimedOut));
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "a descendant in its own session survived");
    }

    #[test]
    fn failure_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("e");
        let argv: Vec<String> = ["sh", "-c", "echo boom >&2; echo '-----' >&2; exit 3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (out, _) = run_captured(
            &argv,
            &[],
            dir.path(),
            None,
            &dir.path().join("o"),
            &e,
            Duration::from_secs(10),
        )
        .unwrap();
        let Outcome::Exited(st) = out else {
            panic!("timed out")
        };
        assert_eq!(failure_reason(&st, &e), "exit code 3: boom");
        let argv: Vec<String> = ["sh", "-c", "kill -SEGV $$"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (out, _) = run_captured(
            &argv,
            &[],
            dir.path(),
            None,
            &dir.path().join("o"),
            &e,
            Duration::from_secs(10),
        )
        .unwrap();
        let Outcome::Exited(st) = out else {
            panic!("timed out")
        };
        assert_eq!(failure_reason(&st, &e), "killed by signal 11 (SIGSEGV)");
    }

    #[test]
    fn a_fortran_runtime_error_is_the_reason_and_its_line_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("stderr.txt");
        std::fs::write(
            &e,
            "At line 22 of file /r/build/rbsor.f_II2rFVRX40.f (unit = 5, file = 'stdin')\n\
             Fortran runtime error: Bad integer for item 2 in list input\n\
             [node-0.sim:0:(1) 0.000000] ./src/kernel/EngineImpl.cpp:284: [root/CRITICAL] Process exited without calling MPI_Finalize - Killing simulation\n\
             Aborted\n",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e).last.as_deref(),
            Some("Fortran runtime error: Bad integer for item 2 in list input")
        );
        assert_eq!(
            runtime_error_at(&e),
            Some(("/r/build/rbsor.f_II2rFVRX40.f".to_string(), 22))
        );
        // an end of file keeps its own explanation (read_past_input)
        std::fs::write(&e, "Fortran runtime error: End of file\nAborted\n").unwrap();
        assert_eq!(stderr_tail(&e).last.as_deref(), Some("Aborted"));
    }

    #[test]
    fn mpi_abort_under_smpi_shows_the_programs_last_line() {
        // stderr of a program that printed its usage and called MPI_Abort, as smpirun leaves it
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("stderr.txt");
        std::fs::write(
            &e,
            "usage: jacobi2d -n N -s STEPS [-k CHECK]\n\
             [node-0.sim:0:(1) 0.000067] ./src/smpi/bindings/smpi_pmpi.cpp:138: [smpi_pmpi/WARNING] MPI_Abort was called, something went probably wrong in this simulation ! Killing all processes sharing the same MPI_COMM_WORLD\n\
             [0.000000] ./src/kernel/EngineImpl.cpp:286: [ker_engine/WARNING] Process called exit when leaving - Skipping cleanups\n",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e),
            StderrTail {
                aborted: true,
                deadlocked: false,
                last: Some("usage: jacobi2d -n N -s STEPS [-k CHECK]".into())
            }
        );
        // an Open MPI notice box is the launcher's, not the program's
        std::fs::write(
            &e,
            "bad input\n-----\nMPI_ABORT was invoked on rank 0\nwith errorcode 1.\n-----\n",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e),
            StderrTail {
                aborted: true,
                deadlocked: false,
                last: Some("bad input".into())
            }
        );
        // a dash line of the program's own before the box does not shift the pairing
        std::fs::write(
            &e,
            "------\nerror: N must be even\n-----\nMPI_ABORT was invoked on rank 0\nwith errorcode 1.\n-----\n",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e).last.as_deref(),
            Some("error: N must be even")
        );
        // a program's own bracketed line is kept
        std::fs::write(&e, "[rank 1] residual [x/y] too large\n").unwrap();
        assert!(stderr_tail(&e).last.is_some());
        assert_eq!(stderr_tail(&dir.path().join("none")), StderrTail::default());
    }

    #[test]
    fn a_deadlock_simgrid_found_is_told() {
        // what smpirun (--log=root.thres:warning) leaves when the ranks block for good
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("stderr.txt");
        std::fs::write(
            &e,
            "step 1 done
             [0.001241] ./src/kernel/EngineImpl.cpp:718: [ker_engine/CRITICAL] Oops! Deadlock detected, some activities are still around but will never complete. This usually happens when the user code is not perfectly clean.
",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e),
            StderrTail {
                aborted: false,
                deadlocked: true,
                last: Some("step 1 done".into())
            }
        );
        // the program saying so is not SimGrid finding it
        std::fs::write(
            &e,
            "Deadlock detected in my solver
",
        )
        .unwrap();
        assert!(!stderr_tail(&e).deadlocked);
    }

    /// Trial 26: a program calling MPI_Neighbor_alltoall under SMPI 3.32 was recorded "exit
    /// code 134: Aborted"; SimGrid's critical line says why.
    #[test]
    fn simgrids_critical_error_is_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let e = dir.path().join("stderr.txt");
        std::fs::write(
            &e,
            "[node-0.sim:0:(1) 0.000000] ./src/smpi/bindings/smpi_mpi.cpp:473: [root/CRITICAL] Not yet implemented: PMPI_Neighbor_alltoall. Please contact the SimGrid team if support is needed
Aborted
",
        )
        .unwrap();
        assert_eq!(
            stderr_tail(&e).last.as_deref(),
            Some("Not yet implemented: PMPI_Neighbor_alltoall. Please contact the SimGrid team if support is needed")
        );
    }
}
