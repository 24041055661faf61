//! End to end `augur profile` with real Open MPI (and SMPI): a testdata program over a small grid,
//! a run that deadlocks (recorded `timeout`, the others kept), a rank that aborts (recorded
//! `failed` with a reason), resume after the fact, refusal to mix runs of a changed source, and
//! usage errors. Fails loudly if MPI is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use trace::{Manifest, RunDir, RunStatus};

mod common;
use common::{manifest, need};

fn augur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_augur"))
}

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(rel)
}

fn profile(args: &[&str]) -> Output {
    common::run(&[&["profile"], args].concat())
}

fn status<'a>(m: &'a Manifest, config: &str) -> &'a RunStatus {
    &m.run(config)
        .unwrap_or_else(|| panic!("no run {config} in {:?}", m.runs))
        .status
}

/// A tiny C MPI program that misbehaves when its argument is 2: `deadlock` makes rank 0 wait for
/// a message nobody sends, `abort` makes rank 1 abort, `mpi_abort` makes rank 1 call MPI_Abort
/// after rank 0 has gone on to wait for it.
fn misbehaving(dir: &Path, how: &str) -> PathBuf {
    let bad = match how {
        "deadlock" => "if (n == 2 && rank == 0) {\n        MPI_Recv(&x, 1, MPI_DOUBLE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n    }",
        "abort" => "if (n == 2 && rank == 1) {\n        fprintf(stderr, \"rank 1 gives up\\n\");\n        abort();\n    }",
        // rank 1 works on first, so rank 0 is already waiting in MPI_Allreduce: SimGrid then
        // also reports a deadlock once the abort has killed rank 1 (CI, stop 25)
        "mpi_abort" => "if (n == 2 && rank == 1) {\n        for (i = 0; i < 2000000; i++) {\n            x += i * 0.5;\n        }\n        fprintf(stderr, \"rank 1 gives up\\n\");\n        MPI_Abort(MPI_COMM_WORLD, 3);\n    }",
        _ => unreachable!(),
    };
    let src = format!(
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n\
         int main(int argc, char **argv) {{\n    int rank, size, n, i;\n    double x = 0.0;\n\
         \x20   MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n\
         \x20   n = atoi(argv[1]);\n    for (i = 0; i < 1000 * n; i++) {{\n        x += i * 0.5;\n    }}\n\
         \x20   {bad}\n\
         \x20   MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n\
         \x20   if (rank == 0) {{\n        printf(\"n=%d x=%.1f\\n\", n, x);\n    }}\n\
         \x20   MPI_Finalize();\n    return 0;\n}}\n"
    );
    let path = dir.join(format!("{how}.c"));
    std::fs::write(&path, src).unwrap();
    path
}

#[test]
fn profiles_a_testdata_program_and_resumes() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pge1.augur");
    let src = testdata("pge1/pge1.c");
    let base = [
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--param",
        "N=64,128",
        "--param",
        "K=8",
    ];
    let args = |np: &'static str| -> Vec<&str> {
        let mut v = base.to_vec();
        v.extend(["--np", np, "--json", "--", "{N}", "{K}"]);
        v
    };
    let o = profile(&args("1,2"));
    assert_eq!(o.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["ok"], 4);
    // each run's line says its traced T beside the launcher's wall time
    let rows = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        rows.lines()
            .filter(|l| l.trim_start().starts_with("ok ")
                && l.contains(" s wall, T ")
                && l.ends_with(" s traced"))
            .count(),
        4,
        "{rows}"
    );
    for r in summary["runs"].as_array().unwrap() {
        assert!(
            r["trace_seconds"]
                .as_f64()
                .is_some_and(|t| t > 0.0 && t < r["wall_seconds"].as_f64().unwrap()),
            "{r}"
        );
    }
    let m = manifest(&out);
    assert_eq!(m.program, "pge1");
    assert_eq!(m.runs.len(), 4);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{r:?}");
        assert!(r.mpi.starts_with("Open MPI"), "{}", r.mpi);
        assert_eq!(r.launcher[0], "mpirun");
        assert_eq!(r.launcher.last().unwrap(), "8");
        let traces = RunDir::at(&out).read_run(&r.config).unwrap();
        assert_eq!(traces.len(), r.np as usize);
        assert!(
            traces.iter().all(|t| t.mpi_calls().count() > 0),
            "MPI events in every rank"
        );
        let stdout =
            std::fs::read_to_string(RunDir::at(&out).run_path(&r.config).join("stdout.txt"))
                .unwrap();
        let n = r.params["N"];
        assert!(
            stdout.contains(&format!("{n}")),
            "program output captured: {stdout}"
        );
    }
    // The traces' site ids are the APT's: every communication event names a COMM node of apt.json.
    let apt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("apt.json")).unwrap()).unwrap();
    let mut comm_sites = std::collections::BTreeSet::new();
    let mut stack: Vec<&serde_json::Value> = apt["routines"].as_array().unwrap().iter().collect();
    while let Some(n) = stack.pop() {
        if n["kind"] == "comm" {
            comm_sites.insert(n["site"].as_u64().unwrap() as u32);
        }
        for key in ["children", "else"] {
            stack.extend(n[key].as_array().into_iter().flatten());
        }
    }
    assert!(comm_sites.len() >= 2, "{apt}");
    let params: Vec<&str> = apt["params"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        params.contains(&"N") && params.contains(&"K"),
        "argv parameters named after the placeholders: {params:?}"
    );
    for t in RunDir::at(&out).read_run("K=8,N=128,P=2").unwrap() {
        for (c, _) in t.mpi_calls() {
            if !matches!(c.op, trace::Op::Init | trace::Op::Finalize) {
                assert!(
                    comm_sites.contains(&c.site),
                    "{c:?} is not at a COMM site of apt.json {comm_sites:?}"
                );
            }
        }
    }

    // Resume: nothing reruns (records and trace files untouched), then only the new P=4 runs.
    let trace_file = RunDir::at(&out).rank_path("K=8,N=64,P=2", 1);
    let mtime = std::fs::metadata(&trace_file).unwrap().modified().unwrap();
    let o = profile(&args("1,2"));
    assert_eq!(o.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["skipped"], 4);
    assert_eq!(summary["ok"], 0);
    assert_eq!(
        manifest(&out),
        m,
        "a resume with nothing to do changes nothing"
    );
    let o = profile(&args("1,2,4"));
    assert_eq!(o.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (summary["skipped"].as_u64(), summary["ok"].as_u64()),
        (Some(4), Some(2))
    );
    let m2 = manifest(&out);
    assert_eq!(m2.runs.len(), 6);
    for r in &m.runs {
        assert_eq!(
            m2.run(&r.config),
            Some(r),
            "earlier run record kept as it was"
        );
    }
    assert_eq!(
        std::fs::metadata(&trace_file).unwrap().modified().unwrap(),
        mtime
    );

    // A changed source must not mix with the old runs, unless --force starts over.
    let copy = tmp.path().join("pge1.c");
    let mut text = std::fs::read_to_string(&src).unwrap();
    text.push_str("/* changed */\n");
    std::fs::write(&copy, text).unwrap();
    let mut changed = args("1");
    changed[0] = copy.to_str().unwrap();
    let o = profile(&changed);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("manifest.json")
            && err.contains("different version")
            && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        manifest(&out),
        m2,
        "a refused profile leaves the manifest alone"
    );
    changed.push("--force");
    // `--force` goes among the options, before `--`
    let pos = changed.iter().position(|a| *a == "--").unwrap();
    changed.pop();
    changed.insert(pos, "--force");
    let o = profile(&changed);
    assert_eq!(o.status.code(), Some(0));
    let m3 = manifest(&out);
    assert_eq!(m3.runs.len(), 2, "old runs discarded: {:?}", m3.runs);
    assert_ne!(m3.source_hash, m.source_hash);
    assert!(
        !RunDir::at(&out).run_path("K=8,N=64,P=4").exists(),
        "old run directories removed"
    );
}

#[test]
fn a_deadlocked_run_times_out_and_the_others_are_kept() {
    need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let src = misbehaving(tmp.path(), "deadlock");
    let out = tmp.path().join("d.augur");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--np",
        "2",
        "--param",
        "N=1,2,3",
        "--timeout",
        "3s",
        "--",
        "{N}",
    ]);
    assert_eq!(o.status.code(), Some(1), "some run failed");
    let m = manifest(&out);
    assert_eq!(m.runs.len(), 3);
    assert_eq!(*status(&m, "N=1,P=2"), RunStatus::Ok);
    assert_eq!(
        *status(&m, "N=3,P=2"),
        RunStatus::Ok,
        "the grid goes on after a timeout"
    );
    let r = m.run("N=2,P=2").unwrap();
    match &r.status {
        RunStatus::Timeout { reason } => assert!(reason.contains("3 s timeout"), "{reason}"),
        s => panic!("expected a timeout, got {s:?}"),
    }
    assert!(
        r.wall_seconds >= 3.0 && r.wall_seconds < 10.0,
        "{}",
        r.wall_seconds
    );
    // no rank of the killed run survives
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let exe = out.join("build/deadlock");
    assert!(
        !String::from_utf8_lossy(&ps.stdout).contains(exe.to_str().unwrap()),
        "ranks left running"
    );
    let stdout =
        std::fs::read_to_string(RunDir::at(&out).run_path("N=3,P=2").join("stdout.txt")).unwrap();
    assert!(stdout.contains("n=3 x="), "{stdout}");
}

#[test]
fn an_interrupted_profile_kills_its_ranks_and_resumes() {
    need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let src = misbehaving(tmp.path(), "deadlock");
    let out = tmp.path().join("i.augur");
    let args = |timeout: &str| -> Vec<String> {
        [
            src.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--np",
            "2",
            "--param",
            "N=1,2",
            "--timeout",
            timeout,
            "--",
            "{N}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut child = augur().arg("profile").args(args("120s")).spawn().unwrap();
    // wait until N=1 is recorded and N=2 (which hangs) has started
    let t0 = std::time::Instant::now();
    while RunDir::at(&out)
        .load_manifest()
        .ok()
        .flatten()
        .is_none_or(|m| m.runs.len() != 1)
    {
        assert!(t0.elapsed().as_secs() < 60, "first run never recorded");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let exit = child.wait().unwrap();
    assert_eq!(exit.code(), Some(130));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let exe = out.join("build/deadlock");
    assert!(
        !String::from_utf8_lossy(&ps.stdout).contains(exe.to_str().unwrap()),
        "ranks outlived the interrupt"
    );
    let m = manifest(&out);
    assert_eq!(m.runs.len(), 1, "only finished runs recorded: {:?}", m.runs);
    // resume: N=1 is kept, N=2 runs again (and times out this time)
    let a = args("3s");
    let o = profile(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1));
    let m2 = manifest(&out);
    assert_eq!(m2.run("N=1,P=2"), m.run("N=1,P=2"));
    assert!(matches!(status(&m2, "N=2,P=2"), RunStatus::Timeout { .. }));
}

#[test]
fn repeat_keeps_the_fastest_repetition() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("shift.augur");
    let src = testdata("shift/shift.c");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--np",
        "1,2",
        "--param",
        "N=1024",
        "--param",
        "ITERS=20",
        "--repeat",
        "3",
        "--json",
        "--",
        "{N}",
        "{ITERS}",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["ok"], 2);
    assert_eq!(
        summary["runs"][0]["repetitions"].as_array().unwrap().len(),
        3
    );
    let m = manifest(&out);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok, "{r:?}");
        assert_eq!(r.repetitions.len(), 3, "{r:?}");
        let k = r.kept.expect("kept repetition recorded");
        let times: Vec<f64> = r
            .repetitions
            .iter()
            .map(|x| x.trace_seconds.expect("ok repetition has a trace time"))
            .collect();
        assert!(
            times.iter().all(|t| *t >= times[k]),
            "kept {k} is the fastest of {times:?}"
        );
        assert_eq!(r.wall_seconds, r.repetitions[k].wall_seconds);
        for x in &r.repetitions {
            let t = x.trace_seconds.unwrap_or(f64::NAN);
            assert!(
                t > 0.0 && t < x.wall_seconds,
                "traced time inside the launch: {x:?}"
            );
        }
        // The traces in runs/<config>/ are the kept repetition's: their measured T is its time.
        let traces = RunDir::at(&out).read_run(&r.config).unwrap();
        assert_eq!(traces.len(), r.np as usize);
        let t = traces
            .iter()
            .map(|t| model::observe::rank_obs(t).elapsed)
            .fold(0.0, f64::max);
        assert!(
            (t - times[k]).abs() < 2e-6,
            "traces measure {t}, kept {times:?}[{k}]"
        );
    }
    assert!(
        !out.join("build/reps").join(&m.runs[0].config).exists(),
        "other repetitions removed"
    );

    // A repetition that fails ends the configuration: recorded failed, its stderr kept.
    let bad = misbehaving(tmp.path(), "abort");
    let out = tmp.path().join("a.augur");
    let o = profile(&[
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--np",
        "2",
        "--param",
        "N=1,2",
        "--repeat",
        "2",
        "--",
        "{N}",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let m = manifest(&out);
    assert_eq!(m.run("N=1,P=2").unwrap().repetitions.len(), 2);
    let r = m.run("N=2,P=2").unwrap();
    assert_eq!((r.repetitions.len(), r.kept), (1, Some(0)));
    assert!(r.repetitions[0].trace_seconds.is_none());
    match &r.status {
        RunStatus::Failed { reason } => {
            assert!(reason.starts_with("repetition 1 of 2: "), "{reason}")
        }
        s => panic!("expected failed, got {s:?}"),
    }
    let stderr =
        std::fs::read_to_string(RunDir::at(&out).run_path("N=2,P=2").join("stderr.txt")).unwrap();
    assert!(stderr.contains("rank 1 gives up"), "{stderr}");
}

#[test]
fn a_crashing_rank_is_recorded_failed_with_a_reason() {
    need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let src = misbehaving(tmp.path(), "abort");
    let out = tmp.path().join("a.augur");
    let run = |ns: &str| {
        profile(&[
            src.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--np",
            "1,2",
            "--param",
            ns,
            "--",
            "{N}",
        ])
    };
    let o = run("N=1,2");
    assert_eq!(o.status.code(), Some(1));
    let m = manifest(&out);
    assert_eq!(m.runs.len(), 4);
    assert_eq!(*status(&m, "N=1,P=1"), RunStatus::Ok);
    assert_eq!(*status(&m, "N=1,P=2"), RunStatus::Ok);
    assert_eq!(*status(&m, "N=2,P=1"), RunStatus::Ok, "only rank 1 aborts");
    let r = m.run("N=2,P=2").unwrap();
    match &r.status {
        RunStatus::Failed { reason } => {
            assert!(
                reason.starts_with("exit code") || reason.starts_with("killed by signal"),
                "{reason}"
            );
            assert!(
                reason.len() > "exit code 1".len(),
                "reason names what happened: {reason}"
            );
        }
        s => panic!("expected failed, got {s:?}"),
    }
    assert!(r.exit_code.is_some_and(|c| c != 0));
    let stderr =
        std::fs::read_to_string(RunDir::at(&out).run_path("N=2,P=2").join("stderr.txt")).unwrap();
    assert!(stderr.contains("rank 1 gives up"), "{stderr}");
    // A resume retries the failed configuration only (it fails again) and keeps the rest.
    let o = run("N=1,2");
    assert_eq!(o.status.code(), Some(1));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("3 skipped, 1 failed"), "{summary}");
}

/// Regression: smpirun exits 0 after MPI_Abort, and the run was reported as "exited 0 but the
/// traces are unreadable … truncated trace" with the program's own message left in stderr.txt.
/// Also: each run's line is printed once (it was printed live and again in the summary).
#[test]
fn mpi_abort_under_smpi_is_reported_with_the_programs_message() {
    need("smpicc");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = misbehaving(tmp.path(), "mpi_abort");
    let out = tmp.path().join("a.augur");
    let platform = testdata("platform/cluster.xml");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--launcher",
        "smpirun",
        "--platform",
        platform.to_str().unwrap(),
        "--np",
        "2",
        "--param",
        "N=1,2",
        "--",
        "{N}",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let m = manifest(&out);
    assert_eq!(*status(&m, "N=1,P=2"), RunStatus::Ok);
    match status(&m, "N=2,P=2") {
        RunStatus::Failed { reason } => assert!(
            reason.contains("MPI_Abort was called") && reason.contains("rank 1 gives up"),
            "{reason}"
        ),
        s => panic!("expected failed, got {s:?}"),
    }
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // one row per configuration (a warning may name one too)
    for config in ["N=1,P=2", "N=2,P=2"] {
        let rows = all
            .lines()
            .filter(|l| l.starts_with("  ") && l.contains(config))
            .count();
        assert_eq!(rows, 1, "{config} once: {all}");
    }
    assert!(all.contains("1 ok, 0 skipped, 1 failed"), "{all}");
}

/// smpirun also exits 0 when SimGrid finds the ranks deadlocked: the run is failed, and says so.
#[test]
fn a_deadlock_under_smpi_is_reported_as_one() {
    need("smpicc");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = misbehaving(tmp.path(), "deadlock");
    let out = tmp.path().join("d.augur");
    let platform = testdata("platform/cluster.xml");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--launcher",
        "smpirun",
        "--platform",
        platform.to_str().unwrap(),
        "--np",
        "2",
        "--param",
        "N=2",
        "--",
        "{N}",
    ]);
    assert_eq!(o.status.code(), Some(1));
    match status(&manifest(&out), "N=2,P=2") {
        RunStatus::Failed { reason } => assert!(reason.contains("deadlocked"), "{reason}"),
        s => panic!("expected failed, got {s:?}"),
    }
}

#[test]
fn fortran_under_smpi() {
    need("smpiff");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep.augur");
    let src = testdata("sweep/sweep.f");
    let platform = testdata("platform/cluster.xml");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--launcher",
        "smpirun",
        "--platform",
        platform.to_str().unwrap(),
        "--np",
        "2,4",
        "--param",
        "N=32",
        "--param",
        "K=4",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let m = manifest(&out);
    for r in &m.runs {
        assert_eq!(r.status, RunStatus::Ok);
        assert!(r.mpi.starts_with("SimGrid SMPI"), "{}", r.mpi);
        let traces = RunDir::at(&out).read_run(&r.config).unwrap();
        assert!(traces.iter().all(|t| t.header.smpi() && t.header.fortran()));
        assert!(
            traces.iter().all(|t| t.mpi_calls().count() > 0),
            "MPI events from Fortran under SMPI"
        );
    }
    let stdout =
        std::fs::read_to_string(RunDir::at(&out).run_path("K=4,N=32,P=4").join("stdout.txt"))
            .unwrap();
    assert!(
        stdout.contains("E+") || stdout.contains("E-"),
        "checksum printed: {stdout}"
    );
}

#[test]
fn usage_and_input_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x.augur");
    let src = testdata("pge1/pge1.c");
    for (args, msg) in [
        (
            vec![
                src.to_str().unwrap(),
                "--np",
                "2",
                "--param",
                "N=64",
                "--",
                "{M}",
            ],
            "unknown placeholder `{M}`",
        ),
        (
            vec![src.to_str().unwrap(), "--np", "0"],
            "rank counts start at 1",
        ),
        (
            vec![src.to_str().unwrap(), "--np", "2", "--param", "N=big"],
            "`big` is not a number",
        ),
        (
            vec![src.to_str().unwrap(), "--np", "2", "--timeout", "soon"],
            "--timeout `soon`",
        ),
        (
            vec!["/nonexistent/prog.c", "--np", "2"],
            "/nonexistent/prog.c",
        ),
        (
            vec![src.to_str().unwrap(), "--np", "2", "--platform", "p.xml"],
            "--platform only applies",
        ),
    ] {
        let mut a = args.clone();
        a.splice(1..1, ["--out", out.to_str().unwrap()]);
        let o = profile(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one-line message: {err}");
        assert!(!out.exists(), "nothing written for a usage error");
    }
}

/// Trial 6 item 11: the front end's warnings (a wildcard receive) are printed once as rendered,
/// `warning[nondeterministic]: …` with their snippet, not behind a second `warning: ` prefix.
#[test]
fn front_end_warnings_are_printed_with_one_prefix() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("gather.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\n#include <stdlib.h>\n\n\
         int main(int argc, char **argv) {\n    int rank, size, n, i;\n    double x = 1.0;\n\
         \x20   MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n\
         \x20   n = atoi(argv[1]);\n\
         \x20   if (rank == 0) {\n        for (i = 1; i < size; i++) {\n\
         \x20           MPI_Recv(&x, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n\
         \x20       }\n    } else {\n        x = n;\n        MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);\n    }\n\
         \x20   MPI_Finalize();\n    return 0;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("gather.augur");
    let o = profile(&[
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--np",
        "2",
        "--param",
        "N=1",
        "--",
        "{N}",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning[nondeterministic]: ")),
        "{err}"
    );
    assert!(!err.contains("warning: warning["), "{err}");
}
