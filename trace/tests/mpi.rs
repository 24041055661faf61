//! End to end: compile the embedded runtime and the C / fixed-form / free-form test programs in
//! tests/data with the real MPI wrappers (Open MPI and SimGrid SMPI), run them, and check the
//! traces: send/receive counts and bytes agree between peers, wildcard receives carry their
//! actual source, every request is completed exactly once, phases have CPU time, world-rank
//! translation through a sub-communicator, aggregates. Fails loudly if MPI is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use trace::*;

mod common;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mpi {
    OpenMpi,
    Smpi { privatize: bool },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    C,
    Fixed,
    Free,
}

fn need(tool: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success());
    assert!(
        ok.unwrap_or(false),
        "`{tool}` not found: these tests need Open MPI (openmpi-bin libopenmpi-dev gfortran) and SimGrid \
         (libsimgrid-dev) installed; see ../shared/REFERENCE.md"
    );
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Builds `tests/data/ring.<ext>` with the runtime for `mpi`; returns the executable.
fn build(dir: &Path, mpi: Mpi, lang: Lang) -> PathBuf {
    let smpi = matches!(mpi, Mpi::Smpi { .. });
    let cc = if smpi { "smpicc" } else { "mpicc" };
    let (fc, src) = match (lang, smpi) {
        (Lang::C, _) => (cc, "ring.c"),
        (Lang::Fixed, false) => ("mpif77", "ring.f"),
        (Lang::Fixed, true) => ("smpiff", "ring.f"),
        (Lang::Free, false) => ("mpif90", "ring.f90"),
        (Lang::Free, true) => ("smpif90", "ring.f90"),
    };
    need(cc);
    need(fc);
    augur_runtime::write_to(dir).unwrap();
    let mut objs = Vec::new();
    for f in augur_runtime::sources(lang != Lang::C) {
        let obj = dir.join(f.name.replace(".c", ".o"));
        run(Command::new(cc)
            .args(["-O2", "-Wall", "-c"])
            .arg(dir.join(f.name))
            .arg("-o")
            .arg(&obj));
        objs.push(obj);
    }
    let exe = dir.join("ring");
    let mut link = Command::new(fc);
    link.arg("-O2").arg(format!("-I{}", dir.display()));
    if lang != Lang::C {
        link.args(augur_runtime::FORTRAN_FLAGS);
    }
    run(link.arg(data(src)).args(&objs).arg("-o").arg(&exe));
    exe
}

/// Runs `exe` on `np` ranks with traces going to `dir/out`; returns stdout and the traces.
fn launch(dir: &Path, mpi: Mpi, exe: &Path, np: u32) -> (String, Vec<RankTrace>) {
    let out = dir.join(format!("out-{np}"));
    let mut cmd = match mpi {
        Mpi::OpenMpi => {
            need("mpirun");
            common::launcher(dir, false, np, true)
        }
        Mpi::Smpi { privatize } => {
            need("smpirun");
            common::launcher(dir, true, np, privatize)
        }
    };
    cmd.env("AUGUR_TRACE_DIR", &out).arg(exe).arg("1000");
    // call timing is opt-in: on for the 4-rank runs, off (the default) otherwise
    if np == 4 {
        cmd.env("AUGUR_CALL_TIMES", "1");
    } else {
        cmd.env_remove("AUGUR_CALL_TIMES");
    }
    let stdout = run(&mut cmd);
    let traces = read_run(&out).unwrap_or_else(|e| panic!("{e}"));
    (stdout, traces)
}

/// Sorted "rank N checksum X" lines (rank output order is not deterministic).
fn checksums(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> = stdout
        .lines()
        .filter(|l| l.contains("checksum"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    v.sort();
    v
}

/// The checks every traced run must pass.
fn check(traces: &[RankTrace], mpi: Mpi, lang: Lang) {
    let p = traces.len() as u32;
    // every rank's header says who wrote it
    for t in traces {
        assert_eq!(
            t.header.smpi(),
            matches!(mpi, Mpi::Smpi { .. }),
            "smpi flag"
        );
        assert_eq!(t.header.fortran(), lang != Lang::C, "fortran flag");
        assert_eq!(t.trailer.anomalies, 0, "rank {} anomalies", t.header.rank);
    }
    // sends i->j equal receives at j from i, as multisets of (tag, bytes)
    let mut sent: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    let mut recvd: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    for t in traces {
        let me = t.header.rank as u32;
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
        v.sort();
    }
    assert_eq!(sent, recvd, "sends and receives disagree");
    assert!(
        sent.values().map(Vec::len).sum::<usize>() >= 4 * p as usize,
        "too few messages traced"
    );

    for t in traces {
        let me = t.header.rank as u32;
        let left = (me + p - 1) % p;
        // requests: every id from Isend/Irecv completed exactly once, by a later call
        let mut issued = BTreeMap::new();
        let mut completed = BTreeMap::new();
        for (c, parts) in t.mpi_calls() {
            if matches!(c.op, Op::Isend | Op::Irecv | Op::Issend) {
                assert_ne!(c.req_id, 0, "{c:?}");
                assert!(
                    issued.insert(c.req_id, c.site).is_none(),
                    "request id reused"
                );
            }
            if c.op.is_completion() {
                for part in parts {
                    assert!(
                        issued.contains_key(&part.req_id),
                        "completion of unknown request {part:?}"
                    );
                    assert_eq!(
                        issued[&part.req_id], part.site,
                        "completion names the posting site"
                    );
                    *completed.entry(part.req_id).or_insert(0) += 1;
                }
                if matches!(c.op, Op::Wait | Op::Test | Op::Waitany) {
                    assert_eq!(c.req_id, parts.first().map(|p| p.req_id).unwrap_or(0));
                }
            }
            // wildcard receives were resolved to the actual (world) source
            if c.op == Op::Recv {
                assert_eq!(c.flags & format::FLAG_ACTUAL, format::FLAG_ACTUAL);
                assert!(matches!(c.peer, Peer::Rank(_)), "{c:?}");
                if c.site == 31 {
                    assert_eq!(c.peer, Peer::Rank(left), "wildcard recv source");
                }
            }
            for part in parts.iter().filter(|p| p.op == Op::Irecv) {
                assert!(
                    matches!(part.peer, Peer::Rank(_)),
                    "unresolved irecv source {part:?}"
                );
            }
            assert!(c.end.mono_ns >= c.start.mono_ns);
            if c.op != Op::Init {
                assert!(
                    c.start.wtime.is_finite() && c.end.wtime >= c.start.wtime,
                    "{c:?}"
                );
            }
            if !c.op.is_completion() && c.op != Op::Init && c.op != Op::Finalize {
                // every communicator in ring.* (world and the reversed split) has all P ranks
                assert_eq!(c.comm_size as u32, p, "{c:?}");
            }
        }
        assert_eq!(
            issued.len(),
            completed.len(),
            "rank {me}: some requests never completed"
        );
        assert!(completed.values().all(|&n| n == 1));
        // sub-communicator peers come out as world ranks: rev rank 0 is world p-1, rank 1 is p-2
        for (c, _) in t.mpi_calls().filter(|(c, _)| c.site == 40 || c.site == 41) {
            let expect = if c.site == 40 { p - 2 } else { p - 1 };
            assert_eq!(c.peer, Peer::Rank(expect), "sub-communicator peer {c:?}");
        }
        // the non-periodic shift at site 38 (C and fixed form): ends see MPI_PROC_NULL
        if lang != Lang::Free {
            let (c, parts) = t
                .mpi_calls()
                .find(|(c, _)| c.site == 38)
                .expect("sendrecv 38");
            let up = if me + 1 < p {
                Peer::Rank(me + 1)
            } else {
                Peer::ProcNull
            };
            let down = if me > 0 {
                Peer::Rank(me - 1)
            } else {
                Peer::ProcNull
            };
            assert_eq!(
                (c.op, c.peer, c.bytes),
                (Op::Sendrecv, up, 4 * if lang == Lang::C { 4 } else { 8 })
            );
            assert_eq!(parts.len(), 1);
            assert_eq!(parts[0].peer, down);
            if me == 0 {
                assert_eq!(parts[0].bytes, 0, "receive from MPI_PROC_NULL is empty");
            }
        }
        // vector collectives, scan, Sendrecv_replace, Rsend: ops and byte conventions
        let by_site = |site: u32| {
            t.mpi_calls()
                .find(|(c, _)| c.site == site)
                .map(|(c, p)| (*c, p.to_vec()))
        };
        let int = 4i64;
        let r1 = i64::from(me) + 1;
        let all = i64::from(p) * (i64::from(p) + 1) / 2 * int;
        let mut expect = vec![
            (60, Op::Alltoallv, Peer::None, i64::from(p) * r1 * int),
            (64, Op::ReduceScatter, Peer::None, 2 * i64::from(p) * int),
            (65, Op::Scan, Peer::None, 8),
            (66, Op::SendrecvReplace, Peer::Rank((me + 1) % p), int),
        ];
        if lang == Lang::C {
            expect.extend([
                (61, Op::Allgatherv, Peer::None, r1 * int),
                // the root records the mean block it receives / sends: sum of (k + 1) ints
                // over k < p, over p
                (
                    62,
                    Op::Gatherv,
                    Peer::Rank(0),
                    if me == 0 {
                        all / i64::from(p)
                    } else {
                        r1 * int
                    },
                ),
                (
                    63,
                    Op::Scatterv,
                    Peer::Rank(0),
                    if me == 0 {
                        all / i64::from(p)
                    } else {
                        r1 * int
                    },
                ),
                (69, Op::Rsend, Peer::Rank((me + 1) % p), int),
            ]);
        }
        if lang != Lang::Fixed {
            for (site, op, peer, bytes) in expect {
                let (c, parts) = by_site(site).unwrap_or_else(|| panic!("site {site} missing"));
                assert_eq!((c.op, c.peer, c.bytes), (op, peer, bytes), "site {site}");
                if op == Op::SendrecvReplace {
                    assert_eq!(
                        (parts.len(), parts[0].peer, parts[0].bytes),
                        (1, Peer::Rank(left), int)
                    );
                }
            }
        }
        // phases: 3 entries with CPU time
        let phases: Vec<_> = t.phases().collect();
        assert_eq!(phases.len(), 3);
        for ph in &phases {
            assert_eq!(ph.site, 21);
            assert!(ph.cpu_ns > 0 && ph.end.mono_ns > ph.start.mono_ns, "{ph:?}");
        }
        // aggregates
        let agg = |k: AggKind, site: u32| {
            t.aggregates
                .iter()
                .find(|a| a.kind == k && a.site == site)
                .copied()
        };
        let outer = agg(AggKind::Loop, 20).expect("loop 20");
        assert_eq!((outer.count, outer.sum, outer.min, outer.max), (1, 3, 3, 3));
        if lang != Lang::Free {
            let inner = agg(AggKind::Loop, 10).expect("loop 10");
            assert_eq!(inner.count, 3);
            assert_eq!(inner.sum, 3 * inner.max);
        }
        if lang != Lang::Fixed {
            let call = agg(AggKind::Call, 22).expect("call 22");
            assert_eq!(call.count, 3);
            assert_eq!(
                call.sum > 0,
                p == 4,
                "call times only with AUGUR_CALL_TIMES=1"
            );
        }
        if lang != Lang::Free {
            let b0 = agg(AggKind::Branch, 23).map(|a| a.count);
            assert!(b0.is_some());
        }
        let first = t.mpi_calls().next().map(|(c, _)| c.op);
        let last = t.mpi_calls().last().map(|(c, _)| c.op);
        assert_eq!((first, last), (Some(Op::Init), Some(Op::Finalize)));
    }
}

fn clock_summary(label: &str, traces: &[RankTrace]) {
    // Measured, not asserted: how the clocks relate inside a phase (docs/trace-format.md).
    let ph: Vec<_> = traces.iter().flat_map(|t| t.phases().copied()).collect();
    let n = ph.len() as f64;
    let wall = ph
        .iter()
        .map(|p| (p.end.mono_ns - p.start.mono_ns) as f64)
        .sum::<f64>()
        / n
        / 1e6;
    let cpu = ph.iter().map(|p| p.cpu_ns as f64).sum::<f64>() / n / 1e6;
    let wt = ph.iter().map(|p| p.end.wtime - p.start.wtime).sum::<f64>() / n * 1e3;
    eprintln!(
        "{label}: mean phase: host wall {wall:.3} ms, thread cpu {cpu:.3} ms, MPI_Wtime {wt:.3} ms"
    );
}

fn case(mpi: Mpi, lang: Lang, nps: &[u32]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), mpi, lang);
    let mut sums = Vec::new();
    for &np in nps {
        let (stdout, traces) = launch(dir.path(), mpi, &exe, np);
        assert_eq!(traces.len(), np as usize);
        check(&traces, mpi, lang);
        clock_summary(&format!("{mpi:?} {lang:?} np={np}"), &traces);
        sums.push(checksums(&stdout).join("\n"));
    }
    sums
}

#[test]
fn c_open_mpi_and_smpi() {
    let native = case(Mpi::OpenMpi, Lang::C, &[2, 4]);
    let smpi = case(Mpi::Smpi { privatize: true }, Lang::C, &[2, 4]);
    assert_eq!(native, smpi, "same program output natively and under SMPI");
    let shared_globals = case(Mpi::Smpi { privatize: false }, Lang::C, &[4]);
    assert_eq!(native[1], shared_globals[0]);
}

#[test]
fn fixed_form_fortran_open_mpi_and_smpi() {
    let native = case(Mpi::OpenMpi, Lang::Fixed, &[2, 4]);
    let smpi = case(Mpi::Smpi { privatize: true }, Lang::Fixed, &[2, 4]);
    assert_eq!(native, smpi);
}

#[test]
fn free_form_fortran_open_mpi_and_smpi() {
    let native = case(Mpi::OpenMpi, Lang::Free, &[2, 4]);
    let smpi = case(Mpi::Smpi { privatize: false }, Lang::Free, &[4]);
    assert_eq!(native[1], smpi[0]);
}

#[test]
fn killed_rank_leaves_truncated_trace() {
    // A rank that dies before MPI_Finalize must not look like a complete trace.
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), Mpi::OpenMpi, Lang::C);
    let out = dir.path().join("crash");
    let st = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
        .env("AUGUR_TRACE_DIR", &out)
        .arg(&exe)
        .arg("-1") // negative count: MPI_Irecv fails and MPI aborts the job before finalize
        .output()
        .unwrap();
    assert!(!st.status.success());
    // the header is written at MPI_Init, so each rank left a file, but no trailer
    let files = rank_files(&out).unwrap();
    assert_eq!(files.len(), 2);
    for (_, f) in files {
        let e = RankTrace::read(&f).expect_err("crashed rank trace must not read as complete");
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}

#[test]
fn unwrapped_mpi_init_still_traced() {
    for (mpi, cc) in [
        (Mpi::OpenMpi, "mpicc"),
        (Mpi::Smpi { privatize: false }, "smpicc"),
    ] {
        need(cc);
        let dir = tempfile::tempdir().unwrap();
        augur_runtime::write_to(dir.path()).unwrap();
        let obj = dir.path().join("augur_trace.o");
        run(Command::new(cc)
            .args(["-O2", "-c"])
            .arg(dir.path().join("augur_trace.c"))
            .arg("-o")
            .arg(&obj));
        let exe = dir.path().join("late");
        run(Command::new(cc)
            .arg(format!("-I{}", dir.path().display()))
            .arg(data("late.c"))
            .arg(&obj)
            .arg("-o")
            .arg(&exe));
        check_late(dir.path(), mpi, &exe);
    }
}

fn check_late(dir: &Path, mpi: Mpi, exe: &Path) {
    // `launch` passes "1000": no abort
    let (_, traces) = launch(dir, mpi, exe, 3);
    for t in &traces {
        // the pre-init phase is kept, with no MPI_Wtime
        let ph: Vec<_> = t.phases().collect();
        let turns: Vec<_> = ph.iter().filter(|p| p.site == 6 || p.site == 11).collect();
        assert_eq!(turns.len(), 30000, "30000 across buffer flushes");
        assert!(turns
            .iter()
            .all(|p| p.entries == 1 && p.start.wtime.is_finite()));
        // a site's brief entries back to back: its first 8 apart, then runs of the rest (one,
        // unless the host stretched an entry past the brief bound and it stood alone), each
        // from its first entry's start to its last's end
        let run: Vec<_> = ph.iter().filter(|p| p.site == 12).collect();
        assert_eq!(run.iter().map(|p| u64::from(p.entries)).sum::<u64>(), 50);
        assert!(run[..8].iter().all(|p| p.entries == 1), "{run:?}");
        assert!(
            run.len() <= 12 && run.iter().any(|p| p.entries > 1),
            "{run:?}"
        );
        assert!(run
            .windows(2)
            .all(|w| w[1].start.mono_ns >= w[0].end.mono_ns
                && w[1].end.mono_ns >= w[1].start.mono_ns));
        assert_eq!(ph.len(), 1 + turns.len() + run.len());
        assert!(ph[0].start.wtime.is_nan() && ph[0].cpu_ns > 0);
        let ops: Vec<Op> = t.mpi_calls().map(|(c, _)| c.op).collect();
        let expect = if t.header.rank == 0 {
            vec![Op::Recv, Op::Recv, Op::Finalize]
        } else {
            vec![Op::Send, Op::Finalize]
        };
        assert_eq!(ops, expect);
    }
    let mut from: Vec<u32> = traces[0].received().iter().map(|m| m.peer).collect();
    from.sort();
    assert_eq!(from, vec![1, 2]);
}

#[test]
fn abort_writes_events_but_no_trailer() {
    need("mpicc");
    need("mpirun");
    let dir = tempfile::tempdir().unwrap();
    augur_runtime::write_to(dir.path()).unwrap();
    let obj = dir.path().join("augur_trace.o");
    run(Command::new("mpicc")
        .args(["-O2", "-c"])
        .arg(dir.path().join("augur_trace.c"))
        .arg("-o")
        .arg(&obj));
    let exe = dir.path().join("late");
    run(Command::new("mpicc")
        .arg(format!("-I{}", dir.path().display()))
        .arg(data("late.c"))
        .arg(&obj)
        .arg("-o")
        .arg(&exe));
    let out = dir.path().join("abort");
    let st = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "1"])
        .env("AUGUR_TRACE_DIR", &out)
        .arg(&exe)
        .arg("abort")
        .output()
        .unwrap();
    assert!(!st.status.success());
    let mut r = TraceReader::open(&out.join("rank-0.augt")).unwrap();
    let mut ops = Vec::new();
    let err = loop {
        match r.next_record() {
            Ok(Some(Record::Mpi(c))) => ops.push(c.op),
            Ok(Some(_)) => {}
            Ok(None) => panic!("an aborted rank must not have a trailer"),
            Err(e) => break e,
        }
    };
    assert_eq!(ops, vec![Op::Abort]);
    assert!(
        err.to_string().contains("did not reach MPI_Finalize"),
        "{err}"
    );
}
