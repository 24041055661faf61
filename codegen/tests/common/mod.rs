//! Harness of the end-to-end tests: testdata manifest, building with MPI wrappers, running,
//! and the trace checks (sites that executed appear; sends match receives).
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codegen::{Plan, Role};
use frontend::{Program, StmtId, StmtKind};
use trace::{AggKind, RankTrace};

pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

pub fn need(tool: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success());
    assert!(
        ok.unwrap_or(false),
        "`{tool}` not found: the end-to-end tests need Open MPI (apt-get install openmpi-bin libopenmpi-dev \
         gfortran) and SimGrid SMPI (libsimgrid-dev); see ../shared/REFERENCE.md"
    );
}

#[derive(Debug, Clone)]
pub struct TestProgram {
    pub name: String,
    pub c: String,
    pub fortran: String,
    pub fixed: bool,
    pub include_dirs: Vec<String>,
    pub args: Vec<String>,
}

/// testdata/programs.json, filtered by `AUGUR_E2E_ONLY`.
pub fn programs() -> Vec<TestProgram> {
    let text = std::fs::read_to_string(testdata().join("programs.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let only: Option<Vec<String>> = std::env::var("AUGUR_E2E_ONLY")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let mut out = Vec::new();
    for p in v["programs"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let args = p["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                p["small"][k.as_str().unwrap()]
                    .as_i64()
                    .unwrap()
                    .to_string()
            })
            .collect();
        out.push(TestProgram {
            name,
            c: p["c"].as_str().unwrap().into(),
            fortran: p["fortran"].as_str().unwrap().into(),
            fixed: p["fortran_form"].as_str() == Some("fixed"),
            include_dirs: p["include_dirs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().into())
                .collect(),
            args,
        });
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mpi {
    OpenMpi,
    Smpi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Fortran,
}

/// Runs a command to completion (with a time limit); Err with its output on failure.
pub fn run(cmd: &mut Command, limit: Duration) -> Result<String, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let t0 = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if t0.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{cmd:?} timed out after {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("{cmd:?}: {e}")),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The runtime objects compiled once per MPI flavour.
pub struct Runtime {
    pub mpi: Mpi,
    pub dir: PathBuf,
    pub objs_c: Vec<PathBuf>,
    pub objs_f: Vec<PathBuf>,
}

impl Runtime {
    pub fn build(tmp: &Path, mpi: Mpi) -> Runtime {
        let dir = tmp.join(match mpi {
            Mpi::OpenMpi => "rt-ompi",
            Mpi::Smpi => "rt-smpi",
        });
        std::fs::create_dir_all(&dir).unwrap();
        augur_runtime::write_to(&dir).unwrap();
        let cc = match mpi {
            Mpi::OpenMpi => "mpicc",
            Mpi::Smpi => "smpicc",
        };
        let mut objs = BTreeMap::new();
        for f in augur_runtime::sources(true) {
            let obj = dir.join(f.name.replace(".c", ".o"));
            run(
                Command::new(cc)
                    .args(["-O2", "-c"])
                    .arg(dir.join(f.name))
                    .arg("-o")
                    .arg(&obj),
                Duration::from_secs(120),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            objs.insert(f.name, obj);
        }
        let objs_c = augur_runtime::sources(false)
            .map(|f| objs[f.name].clone())
            .collect();
        let objs_f = augur_runtime::sources(true)
            .map(|f| objs[f.name].clone())
            .collect();
        Runtime {
            mpi,
            dir,
            objs_c,
            objs_f,
        }
    }
}

/// One program in one language.
pub struct Case {
    pub name: String,
    pub lang: Lang,
    pub fixed: bool,
    pub src: PathBuf,
    pub include_dirs: Vec<PathBuf>,
    pub args: Vec<String>,
}

impl Case {
    pub fn new(p: &TestProgram, lang: Lang) -> Case {
        let td = testdata();
        let src = td.join(match lang {
            Lang::C => &p.c,
            Lang::Fortran => &p.fortran,
        });
        Case {
            name: p.name.clone(),
            lang,
            fixed: p.fixed && lang == Lang::Fortran,
            src,
            include_dirs: p.include_dirs.iter().map(|d| td.join(d)).collect(),
            args: p.args.clone(),
        }
    }

    fn tag(&self) -> String {
        format!(
            "{}-{}",
            self.name,
            if self.lang == Lang::C { "c" } else { "f" }
        )
    }

    /// Lowers, builds the APT, plans from it and instruments; writes the output files into `dir`.
    pub fn instrument(&self, dir: &Path) -> Result<(frontend::Lowered, Plan, PathBuf), String> {
        let opts = frontend::Options {
            include_dirs: self.include_dirs.clone(),
            ..Default::default()
        };
        let lowered = frontend::load(&self.src, &opts).map_err(|e| e.to_string())?;
        let tree = apt::build(&lowered, &apt::AptOptions::default());
        let plan = Plan::from_apt(&tree, &lowered.program);
        let out = codegen::instrument(&lowered.program, &lowered.sources, &plan)
            .map_err(|e| e.to_string())?;
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        for f in &out.files {
            let dest = dir.join(&f.relative);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&dest, &f.text).map_err(|e| e.to_string())?;
        }
        let main = dir.join(&out.files[0].relative);
        Ok((lowered, plan, main))
    }

    /// Compiles `src` (original or instrumented) with the wrapper of `mpi`; returns the exe.
    pub fn compile(
        &self,
        src: &Path,
        exe: &Path,
        mpi: Mpi,
        rt: Option<&Runtime>,
    ) -> Result<(), String> {
        let (tool, fortran) = match (self.lang, mpi, self.fixed) {
            (Lang::C, Mpi::OpenMpi, _) => ("mpicc", false),
            (Lang::C, Mpi::Smpi, _) => ("smpicc", false),
            (Lang::Fortran, Mpi::OpenMpi, true) => ("mpif77", true),
            (Lang::Fortran, Mpi::OpenMpi, false) => ("mpif90", true),
            (Lang::Fortran, Mpi::Smpi, true) => ("smpiff", true),
            (Lang::Fortran, Mpi::Smpi, false) => ("smpif90", true),
        };
        let mut cmd = Command::new(tool);
        // Fortran module files land in the working directory: keep them out of the source tree
        if let Some(dir) = exe.parent() {
            cmd.current_dir(dir);
        }
        cmd.arg("-O2");
        if let Some(parent) = src.parent() {
            cmd.arg(format!("-I{}", parent.display()));
        }
        for d in &self.include_dirs {
            cmd.arg(format!("-I{}", d.display()));
        }
        if let Some(rt) = rt {
            cmd.arg(format!("-I{}", rt.dir.display()));
            if fortran {
                cmd.args(augur_runtime::FORTRAN_FLAGS);
            }
        }
        cmd.arg(src);
        if let Some(rt) = rt {
            cmd.args(if fortran { &rt.objs_f } else { &rt.objs_c });
        }
        cmd.arg("-o").arg(exe);
        if !fortran {
            cmd.arg("-lm");
        }
        run(&mut cmd, Duration::from_secs(180)).map(|_| ())
    }

    pub fn check_open_mpi(&self, tmp: &Path, rt: &Runtime) -> Result<(), String> {
        self.run_open_mpi(tmp, rt).map(|_| ())
    }

    /// [`Case::check_open_mpi`], returning what it checked.
    pub fn run_open_mpi(
        &self,
        tmp: &Path,
        rt: &Runtime,
    ) -> Result<(frontend::Lowered, Plan, Vec<RankTrace>), String> {
        eprintln!("{} (open mpi)", self.tag());
        let dir = tmp.join(self.tag());
        let (lowered, plan, main) = self.instrument(&dir.join("inst"))?;
        let orig = dir.join("orig.exe");
        let inst = dir.join("inst.exe");
        self.compile(&self.src, &orig, Mpi::OpenMpi, None)?;
        self.compile(&main, &inst, Mpi::OpenMpi, Some(rt))?;
        let traces = dir.join("traces");
        let mpirun = |exe: &Path, traces: Option<&Path>| {
            let mut c = Command::new("mpirun");
            c.args(["--allow-run-as-root", "--oversubscribe", "-np", "2"]);
            if let Some(t) = traces {
                c.env("AUGUR_TRACE_DIR", t);
            }
            c.arg(exe).args(&self.args);
            run(&mut c, Duration::from_secs(60))
        };
        let want = mpirun(&orig, None)?;
        let got = mpirun(&inst, Some(&traces))?;
        if want != got {
            return Err(format!(
                "stdout differs:\noriginal:\n{want}\ninstrumented:\n{got}"
            ));
        }
        if want.trim().is_empty() {
            return Err("the program printed nothing".into());
        }
        let ranks = trace::read_run(&traces).map_err(|e| e.to_string())?;
        if ranks.len() != 2 {
            return Err(format!("{} rank traces, expected 2", ranks.len()));
        }
        check_traces(&lowered.program, &plan, &ranks)?;
        Ok((lowered, plan, ranks))
    }

    pub fn check_smpi(&self, tmp: &Path, rt: &Runtime, np: u32) -> Result<(), String> {
        eprintln!("{} (smpi, {np} ranks)", self.tag());
        let dir = tmp.join(format!("{}-smpi", self.tag()));
        let (lowered, plan, main) = self.instrument(&dir.join("inst"))?;
        let inst = dir.join("inst.exe");
        self.compile(&main, &inst, Mpi::Smpi, Some(rt))?;
        let hosts = dir.join("hosts.txt");
        std::fs::write(
            &hosts,
            (0..np)
                .map(|i| format!("node-{i}.sim\n"))
                .collect::<String>(),
        )
        .map_err(|e| e.to_string())?;
        let traces = dir.join("traces");
        let mut c = Command::new("smpirun");
        c.args(["-np", &np.to_string(), "-platform"])
            .arg(testdata().join("platform/cluster.xml"))
            .arg("-hostfile")
            .arg(&hosts)
            .args(["--cfg=smpi/host-speed:1Gf", "--log=root.thres:critical"])
            .env("AUGUR_TRACE_DIR", &traces)
            .arg(&inst)
            .args(&self.args);
        let got = run(&mut c, Duration::from_secs(120))?;
        let expected = std::fs::read_to_string(testdata().join(&self.name).join("expected.txt"))
            .map_err(|e| e.to_string())?;
        let want = expected
            .lines()
            .find_map(|l| l.strip_prefix(&format!("np={np} ")))
            .unwrap_or("<missing>");
        if got.lines().last().map(str::trim) != Some(want.trim()) {
            return Err(format!(
                "stdout under SMPI: {got:?}, expected.txt says {want:?}"
            ));
        }
        let ranks = trace::read_run(&traces).map_err(|e| e.to_string())?;
        if ranks.len() != np as usize {
            return Err(format!("{} rank traces, expected {np}", ranks.len()));
        }
        for r in &ranks {
            if !r.header.smpi() {
                return Err(format!("rank {} trace not flagged as SMPI", r.header.rank));
            }
            if r.mpi_calls().count() < 3 {
                return Err(format!(
                    "rank {}: only {} MPI events",
                    r.header.rank,
                    r.mpi_calls().count()
                ));
            }
        }
        check_traces(&lowered.program, &plan, &ranks)
    }
}

/// What one rank recorded, by site.
struct Seen {
    loops: BTreeMap<u32, (u64, u64)>,
    branches: BTreeMap<(u32, i32), u64>,
    calls: BTreeMap<u32, u64>,
    mpi: BTreeSet<u32>,
    phases: BTreeSet<u32>,
}

impl Seen {
    fn of(t: &RankTrace) -> Seen {
        let mut s = Seen {
            loops: BTreeMap::new(),
            branches: BTreeMap::new(),
            calls: BTreeMap::new(),
            mpi: t.mpi_calls().map(|(c, _)| c.site).collect(),
            phases: t.phases().map(|p| p.site).collect(),
        };
        for a in &t.aggregates {
            match a.kind {
                AggKind::Loop => {
                    s.loops.insert(a.site, (a.count, a.sum));
                }
                AggKind::Branch => {
                    s.branches.insert((a.site, a.arm), a.count);
                }
                AggKind::Call => {
                    s.calls.insert(a.site, a.count);
                }
                AggKind::TestPending => {}
            }
        }
        s
    }
}

/// Walks the program from `main` deciding from the trace's own counters which blocks ran on
/// this rank, and lists every marked site that ran but left no record.
struct Walk<'a> {
    prog: &'a Program,
    plan: &'a Plan,
    seen: Seen,
    wrapped: codegen::Wrapped,
    missing: Vec<String>,
    procs: BTreeSet<String>,
}

impl Walk<'_> {
    fn block(&mut self, block: &[StmtId], ran: bool) {
        for &id in block {
            self.stmt(id, ran);
        }
    }

    fn stmt(&mut self, id: StmtId, ran: bool) {
        let Some(s) = self.prog.stmt(id) else { return };
        let mut body_ran = ran;
        for m in self.plan.of_stmt(id) {
            let site = m.site;
            match &m.role {
                Role::Loop { compute_phase } => {
                    let rec = self.seen.loops.get(&site).copied();
                    if ran && rec.is_none() {
                        self.missing
                            .push(format!("loop site {site} (stmt {})", id.0));
                    }
                    if ran && *compute_phase && !self.seen.phases.contains(&site) {
                        self.missing.push(format!("phase site {site}"));
                    }
                    body_ran = rec.is_some_and(|(_, sum)| sum > 0);
                }
                Role::Comm | Role::MpiInit | Role::MpiFinalize | Role::MpiAbort | Role::Request => {
                    let StmtKind::Mpi(call) = &s.kind else {
                        continue;
                    };
                    let wrapped = match self.prog.language {
                        frontend::Language::C => self.wrapped.c(&call.name),
                        frontend::Language::Fortran => self.wrapped.fortran(&call.name),
                    };
                    if ran
                        && wrapped
                        && !self.seen.mpi.contains(&site)
                        && call.op != frontend::MpiOp::Abort
                    {
                        self.missing
                            .push(format!("mpi site {site} ({})", call.name));
                    }
                }
                Role::Call { callee } => {
                    let n = self.seen.calls.get(&site).copied();
                    // a call through a pointer (branch marks on the call) runs one target
                    let through_pointer = !self.plan.branches_of(id).is_empty();
                    if ran && n.is_none() && !through_pointer {
                        self.missing.push(format!("call site {site} ({callee})"));
                    }
                    if n.unwrap_or(0) > 0 {
                        self.procs.insert(callee.clone());
                    }
                }
                Role::Branch { .. } | Role::CommSizeRank => {}
            }
        }
        match &s.kind {
            // nothing inside a DO CONCURRENT is instrumented (its time is the construct's)
            StmtKind::Loop(l) => self.block(&l.body, body_ran && l.concurrent.is_none()),
            StmtKind::While(w) => {
                self.block(&w.init, ran);
                self.block(&w.body, body_ran);
                self.block(&w.update, body_ran);
            }
            StmtKind::If(i) if is_c_switch(i) => {
                // no branch markers in switch bodies: which case ran is unknown, nothing below
                // is checked
            }
            StmtKind::If(i) => {
                let marks = self.plan.branches_of(id);
                if ran {
                    if let Some((_, first)) = marks.iter().next() {
                        let any = self.seen.branches.keys().any(|(s, _)| s == first);
                        if !any {
                            self.missing.push(format!("branch site {first}"));
                        }
                    }
                }
                for (j, arm) in i.arms.iter().enumerate() {
                    let taken = marks.get(&(j as u32)).is_some_and(|site| {
                        self.seen.branches.get(&(*site, 0)).copied().unwrap_or(0) > 0
                    });
                    self.block(&arm.body, ran && taken);
                }
                if let Some(e) = &i.else_body {
                    let taken = marks.values().last().is_some_and(|site| {
                        self.seen.branches.get(&(*site, 1)).copied().unwrap_or(0) > 0
                    });
                    self.block(e, ran && taken);
                }
            }
            _ => {}
        }
    }
}

fn is_c_switch(i: &frontend::If) -> bool {
    i.arms.iter().any(|a| matches!(&a.cond.kind, frontend::SrcExprKind::Opaque { text, .. } if text.starts_with("switch")))
}

/// Every marked site that executed on a rank appears in its trace; messages match per pair.
pub fn check_traces(prog: &Program, plan: &Plan, ranks: &[RankTrace]) -> Result<(), String> {
    let mut errors = Vec::new();
    let events: Vec<String> = ranks
        .iter()
        .map(|t| {
            format!(
                "{}/{}/{}",
                t.mpi_calls().count(),
                t.phases().count(),
                t.aggregates.len()
            )
        })
        .collect();
    eprintln!(
        "  {} marks; per rank mpi/phase/aggregate records: {}",
        plan.marks().len(),
        events.join(" ")
    );
    for t in ranks {
        let rank = t.header.rank;
        if t.trailer.anomalies != 0 {
            errors.push(format!(
                "rank {rank}: {} runtime anomalies (unbalanced markers?)",
                t.trailer.anomalies
            ));
        }
        let mut w = Walk {
            prog,
            plan,
            seen: Seen::of(t),
            wrapped: codegen::Wrapped::from_runtime(),
            missing: Vec::new(),
            procs: BTreeSet::new(),
        };
        let Some(main) = prog.main_proc() else {
            return Err("no main procedure".into());
        };
        w.block(&main.body.clone(), true);
        // procedures reached through counted calls, until no new one is found
        let mut done: BTreeSet<String> = BTreeSet::new();
        loop {
            let todo: Vec<String> = w.procs.difference(&done).cloned().collect();
            if todo.is_empty() {
                break;
            }
            for name in todo {
                if let Some(p) = prog.proc_by_name(&name) {
                    w.block(&p.body.clone(), true);
                }
                done.insert(name);
            }
        }
        if !w.missing.is_empty() {
            errors.push(format!(
                "rank {rank}: sites that ran but left no record: {}",
                w.missing.join(", ")
            ));
        }
        if t.mpi_calls().count() == 0 {
            errors.push(format!("rank {rank}: no MPI events"));
        }
    }
    // sends i->j equal receives at j from i, as multisets of (tag, bytes)
    let mut sent: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    let mut recvd: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    for t in ranks {
        let me = u32::try_from(t.header.rank).unwrap_or(u32::MAX);
        for m in t.sent() {
            sent.entry((me, m.peer)).or_default().push((m.tag, m.bytes));
        }
        for m in t.received() {
            recvd
                .entry((m.peer, me))
                .or_default()
                .push((m.tag, m.bytes));
        }
    }
    for v in sent.values_mut().chain(recvd.values_mut()) {
        v.sort_unstable();
    }
    if sent != recvd {
        let counts = |m: &BTreeMap<(u32, u32), Vec<(i32, i64)>>| -> Vec<String> {
            m.iter()
                .map(|(k, v)| format!("{}->{}: {}", k.0, k.1, v.len()))
                .collect()
        };
        errors.push(format!(
            "sends {:?} != receives {:?}",
            counts(&sent),
            counts(&recvd)
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// Every APT site but the routines is marked by `plan`, each under its own id once, and no
/// mark has an id twice (`what` names the program in messages).
pub fn assert_every_site_marked_once(tree: &apt::Apt, plan: &Plan, what: &str) {
    let sites: BTreeSet<u32> = tree
        .sites
        .iter()
        .filter(|s| s.kind != apt::NodeKind::Routine)
        .map(|s| s.id.0)
        .collect();
    let marked: BTreeSet<u32> = plan
        .marks()
        .iter()
        .map(|m| m.site)
        .filter(|s| (*s as usize) < tree.sites.len())
        .collect();
    assert_eq!(sites, marked, "{what}");
    let ids: Vec<u32> = plan.marks().iter().map(|m| m.site).collect();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<BTreeSet<_>>().len(),
        "{what}: site ids unique"
    );
}

/// Runs tests/data/`file` (instrumented, under Open MPI at P=2) and checks rank 0's loop records: (line, executions, iterations).
pub fn check_loop_records(file: &str, fixed: bool, want: &[(u32, u64, u64)]) {
    let got = loop_records(file, fixed, &want.iter().map(|w| w.0).collect::<Vec<_>>());
    for (&(line, count, sum), agg) in want.iter().zip(&got) {
        assert_eq!(
            (agg.count, agg.sum),
            (count, sum),
            "{file} line {line}: (executions, iterations)"
        );
    }
}

/// Rank 0's loop record of the loop on each line of `lines` in tests/data/`file`, run
/// instrumented under Open MPI at P=2 (beside the original: same stdout, balanced traces).
fn loop_records(file: &str, fixed: bool, lines: &[u32]) -> Vec<trace::Aggregate> {
    let (tree, aggs) = rank0_records(file, fixed);
    let mut out = Vec::new();
    for &line in lines {
        let site = tree
            .nodes()
            .into_iter()
            .find(|n| n.line == line && matches!(&n.data, apt::NodeData::Loop(_)))
            .unwrap_or_else(|| panic!("{file}: no loop at line {line}"))
            .site
            .0;
        let agg = aggs
            .iter()
            .find(|a| a.kind == trace::AggKind::Loop && a.site == site)
            .unwrap_or_else(|| panic!("{file}: no loop record for line {line} (site {site})"));
        out.push(*agg);
    }
    out
}

/// Runs tests/data/`file` (instrumented, under Open MPI at P=2) and checks rank 0's records of
/// the loops (line, [executions, iterations, least, most]), of the IF arms (line of the IF
/// node, [times taken, times not taken]) and of the calls (line, callee, the call counts of
/// that callee's CALL nodes on the line in source order; untimed: sum, min and max 0). An arm
/// or a call counted 0 times must have no record at all.
pub fn check_aggregates(
    file: &str,
    fixed: bool,
    loops: &[(u32, [u64; 4])],
    branches: &[(u32, [u64; 2])],
    calls: &[(u32, &str, &[u64])],
) {
    let (tree, aggs) = rank0_records(file, fixed);
    for &(line, stats) in loops {
        let site = site_at(&tree, file, line, true);
        let agg = aggs
            .iter()
            .find(|a| a.kind == trace::AggKind::Loop && a.site == site)
            .unwrap_or_else(|| panic!("{file}: no loop record for line {line} (site {site})"));
        assert_eq!(
            [agg.count, agg.sum, agg.min, agg.max],
            stats,
            "{file} line {line}: [executions, iterations, min, max]"
        );
    }
    for &(line, counts) in branches {
        let site = site_at(&tree, file, line, false);
        for (arm, &want) in counts.iter().enumerate() {
            let arm = i32::try_from(arm).unwrap();
            let agg = aggs
                .iter()
                .find(|a| a.kind == trace::AggKind::Branch && a.site == site && a.arm == arm);
            match agg {
                None => assert_eq!(want, 0, "{file} line {line} arm {arm}: no record"),
                Some(a) => assert_eq!(
                    [a.count, a.sum, a.min, a.max],
                    [want, want, 1, 1],
                    "{file} line {line} arm {arm} (site {site}): [count, sum, min, max]"
                ),
            }
        }
    }
    for &(line, callee, counts) in calls {
        let mut sites: Vec<u32> = tree
            .nodes()
            .into_iter()
            .filter(|n| {
                n.line == line
                    && matches!(&n.data, apt::NodeData::Call { callee: c, .. } if c.eq_ignore_ascii_case(callee))
            })
            .map(|n| n.site.0)
            .collect();
        sites.sort_unstable();
        assert_eq!(
            sites.len(),
            counts.len(),
            "{file}: calls of `{callee}` at line {line}: sites {sites:?}"
        );
        for (&site, &want) in sites.iter().zip(counts) {
            let agg = aggs
                .iter()
                .find(|a| a.kind == trace::AggKind::Call && a.site == site);
            match agg {
                None => assert_eq!(
                    want, 0,
                    "{file} line {line} `{callee}` (site {site}): no record"
                ),
                Some(a) => assert_eq!(
                    [a.count, a.sum, a.min, a.max],
                    [want, 0, 0, 0],
                    "{file} line {line} `{callee}` (site {site}): [count, sum, min, max]"
                ),
            }
        }
    }
}

/// The site of the APT loop (or IF node) on `line`.
fn site_at(tree: &apt::Apt, file: &str, line: u32, is_loop: bool) -> u32 {
    tree.nodes()
        .into_iter()
        .find(|n| {
            n.line == line
                && if is_loop {
                    matches!(&n.data, apt::NodeData::Loop(_))
                } else {
                    matches!(&n.data, apt::NodeData::If(_))
                }
        })
        .unwrap_or_else(|| {
            let ifs: Vec<u32> = tree
                .nodes()
                .into_iter()
                .filter(|n| matches!(&n.data, apt::NodeData::If(_)))
                .map(|n| n.line)
                .collect();
            panic!("{file}: no node at line {line} (IF nodes at {ifs:?})")
        })
        .site
        .0
}

/// `text` instrumented as file `name`.
pub fn instrument_str(name: &str, text: &str) -> String {
    let l = frontend::load_str(name, text, &frontend::Options::default()).unwrap();
    let plan = codegen::Plan::from_program(&l.program);
    let out = codegen::instrument(&l.program, &l.sources, &plan).unwrap();
    out.main().unwrap().text.clone()
}

/// tests/data/`file` run instrumented under Open MPI at P=2 beside the original (same stdout,
/// balanced traces): the program, its plan and every rank's trace.
pub fn run_data_file(file: &str, fixed: bool) -> (frontend::Lowered, Plan, Vec<RankTrace>) {
    let c = file.ends_with(".c");
    let tool = match (c, fixed) {
        (true, _) => "mpicc",
        (false, true) => "mpif77",
        (false, false) => "mpif90",
    };
    for t in [tool, "mpirun"] {
        need(t);
    }
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let case = Case {
        name: file.replace('.', "_"),
        lang: if c { Lang::C } else { Lang::Fortran },
        fixed,
        src: data.join(file),
        include_dirs: Vec::new(),
        args: Vec::new(),
    };
    case.run_open_mpi(tmp.path(), &rt)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The APT of tests/data/`file` and rank 0's aggregates, run instrumented under Open MPI at
/// P=2 (beside the original: same stdout, balanced traces).
fn rank0_records(file: &str, fixed: bool) -> (apt::Apt, Vec<trace::Aggregate>) {
    let (lowered, _plan, ranks) = run_data_file(file, fixed);
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let r0 = ranks.into_iter().find(|r| r.header.rank == 0).unwrap();
    (tree, r0.aggregates)
}
