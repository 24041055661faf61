//! The committed recorded runs (`testdata/<prog>/runs/<variant>`, made by scripts/record-runs.sh)
//! are usable with no MPI installed: each manifest matches the current source (else re-record),
//! every run is ok with one readable trace per rank, sends and receives agree between every pair
//! of ranks, every communication event sits at a COMM site of the saved apt.json, and the
//! recorded output of the README's small sizes equals `expected.txt`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use trace::{Op, RunDir, RunStatus};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn run_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for prog in std::fs::read_dir(testdata()).unwrap() {
        let runs = prog.unwrap().path().join("runs");
        if let Ok(rd) = std::fs::read_dir(&runs) {
            out.extend(
                rd.map(|e| e.unwrap().path())
                    .filter(|p| p.join("manifest.json").is_file()),
            );
        }
    }
    out.sort();
    out
}

fn comm_sites(apt: &serde_json::Value) -> BTreeSet<u32> {
    let mut sites = BTreeSet::new();
    let mut stack: Vec<&serde_json::Value> = apt["routines"].as_array().unwrap().iter().collect();
    while let Some(n) = stack.pop() {
        if n["kind"] == "comm" {
            sites.insert(n["site"].as_u64().unwrap() as u32);
        }
        for key in ["children", "else"] {
            stack.extend(n[key].as_array().into_iter().flatten());
        }
    }
    sites
}

#[test]
fn every_program_has_native_and_smpi_runs_in_c_and_fortran() {
    let dirs = run_dirs();
    let programs = [
        "shift", "pipeline", "pge1", "pge2", "atm2d", "sweep", "stencil",
    ];
    for p in programs {
        for v in ["mpi-c", "mpi-f", "smpi-c", "smpi-f"] {
            let d = testdata().join(p).join("runs").join(v);
            assert!(
                dirs.contains(&d),
                "missing recorded runs {}: run scripts/record-runs.sh --only {p}",
                d.display()
            );
            let m = RunDir::at(&d).load_manifest().unwrap().unwrap();
            let nps: BTreeSet<u32> = m.runs.iter().map(|r| r.np).collect();
            let want: BTreeSet<u32> = if v.starts_with("smpi") {
                [2, 4, 8, 16].into()
            } else {
                // this machine has 2 cores: native runs stop at P = 2 (testdata/README.md)
                [1, 2].into()
            };
            assert_eq!(nps, want, "{}", d.display());
            let sizes: BTreeSet<String> =
                m.runs.iter().map(|r| format!("{:?}", r.params)).collect();
            if v.ends_with('c') {
                assert!(
                    sizes.len() >= 3,
                    "{}: several problem sizes, got {sizes:?}",
                    d.display()
                );
            }
        }
    }
}

#[test]
fn recorded_runs_are_current_complete_and_consistent() {
    for dir in run_dirs() {
        let rd = RunDir::at(&dir);
        let m = rd.load_manifest().unwrap().unwrap();
        let repo = testdata().join("..");
        let src = std::fs::read(repo.join(&m.source))
            .unwrap_or_else(|e| panic!("{}: {}: {e}", dir.display(), m.source));
        assert_eq!(
            m.source_hash,
            trace::source_hash(&src),
            "{}: recorded from another version of {}; re-record with scripts/record-runs.sh --fresh",
            dir.display(),
            m.source
        );
        let apt: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("apt.json")).unwrap()).unwrap();
        let comm = comm_sites(&apt);
        let smpi = dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("smpi");
        for r in &m.runs {
            assert_eq!(r.status, RunStatus::Ok, "{} {}", dir.display(), r.config);
            let traces = rd.read_run(&r.config).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(traces.len(), r.np as usize);
            let mut sent: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
            let mut recvd: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
            for t in &traces {
                assert_eq!(t.header.smpi(), smpi, "{} {}", dir.display(), r.config);
                let me = t.header.rank as u32;
                for msg in t.sent() {
                    sent.entry((me, msg.peer))
                        .or_default()
                        .push((msg.tag, msg.bytes));
                }
                for msg in t.received() {
                    recvd
                        .entry((msg.peer, me))
                        .or_default()
                        .push((msg.tag, msg.bytes));
                }
                for (c, _) in t.mpi_calls() {
                    if !matches!(c.op, Op::Init | Op::Finalize) {
                        assert!(
                            comm.contains(&c.site),
                            "{} {}: {c:?} not at a COMM site",
                            dir.display(),
                            r.config
                        );
                    }
                }
            }
            for v in sent.values_mut().chain(recvd.values_mut()) {
                v.sort();
            }
            assert_eq!(
                sent,
                recvd,
                "{} {}: sends and receives disagree",
                dir.display(),
                r.config
            );
            if r.np > 1 {
                assert!(
                    !sent.is_empty(),
                    "{} {}: no messages",
                    dir.display(),
                    r.config
                );
            }
        }
    }
}

/// A `name=value` line with values as numbers: Fortran's E format drops the `E` before a
/// three-digit exponent (`1.030438-117`).
fn normalize(line: &str) -> Vec<String> {
    line.split_whitespace()
        .map(|w| match w.split_once('=') {
            Some((k, v)) => {
                let fixed = match v.rfind(['-', '+']) {
                    Some(i) if i > 0 && !v[..i].ends_with(['E', 'e']) => {
                        format!("{}E{}", &v[..i], &v[i..])
                    }
                    _ => v.to_string(),
                };
                match fixed.parse::<f64>() {
                    Ok(x) => format!("{k}={x:.6e}"),
                    Err(_) => w.to_string(),
                }
            }
            None => w.to_string(),
        })
        .collect()
}

#[test]
fn recorded_output_is_the_expected_line_and_the_twins_agree() {
    let mut checked = 0;
    for dir in run_dirs() {
        let prog_dir = dir.parent().and_then(Path::parent).unwrap();
        let expected = std::fs::read_to_string(prog_dir.join("expected.txt")).unwrap();
        let m = RunDir::at(&dir).load_manifest().unwrap().unwrap();
        for line in expected.lines() {
            let Some((np, want)) = line.strip_prefix("np=").and_then(|l| l.split_once(' ')) else {
                continue;
            };
            let np: u32 = np.parse().unwrap();
            // the README's small sizes are the expected line's own parameters: find the run whose
            // parameters all appear in it (e.g. `N=256 K=8` in pge1's line)
            for r in m.runs.iter().filter(|r| r.np == np) {
                let words: BTreeSet<&str> = want.split_whitespace().collect();
                let all_in = r
                    .params
                    .iter()
                    .all(|(k, v)| words.contains(format!("{k}={v}").as_str()));
                if !all_in {
                    continue;
                }
                let out = std::fs::read_to_string(
                    RunDir::at(&dir).run_path(&r.config).join("stdout.txt"),
                )
                .unwrap();
                assert_eq!(
                    out.lines().last().map(str::trim),
                    Some(want.trim()),
                    "{} {}",
                    dir.display(),
                    r.config
                );
                checked += 1;
            }
        }
    }
    // C and Fortran twins print the same line at every configuration both recorded
    for dir in run_dirs().into_iter().filter(|d| d.ends_with("mpi-c")) {
        let twin = dir.with_file_name("mpi-f");
        let (Some(mc), Some(mf)) = (
            RunDir::at(&dir).load_manifest().unwrap(),
            RunDir::at(&twin).load_manifest().unwrap(),
        ) else {
            continue;
        };
        for r in &mc.runs {
            if !mf.runs.iter().any(|f| f.config == r.config) {
                continue;
            }
            let last = |d: &Path| {
                std::fs::read_to_string(RunDir::at(d).run_path(&r.config).join("stdout.txt"))
                    .unwrap()
                    .lines()
                    .last()
                    .map(|l| l.trim().to_string())
            };
            let (c, f) = (last(&dir).unwrap(), last(&twin).unwrap());
            assert_eq!(
                normalize(&c),
                normalize(&f),
                "{} {}",
                dir.display(),
                r.config
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 40,
        "only {checked} recorded runs matched an expected line or their twin's"
    );
}

/// Drops `file` keys: the recorded APT names paths relative to the repository root, this test
/// runs from `cli/`.
fn without_files(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("file");
            m.values_mut().for_each(without_files);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(without_files),
        _ => {}
    }
}

/// The manifest's source hash covers the main file only; an edit to an included file
/// (`pge2.h`, `sweep.h`) or to the APT's site numbering would leave stale traces whose site ids
/// no longer mean what `analyze` thinks. Re-deriving the APT from today's sources, includes and
/// all, and comparing it with each run's saved `apt.json` catches both.
#[test]
fn recorded_apt_matches_todays_sources_and_includes() {
    let repo = testdata().join("..");
    for dir in run_dirs() {
        let m = RunDir::at(&dir).load_manifest().unwrap().unwrap();
        let mut saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("apt.json")).unwrap()).unwrap();
        let mut argv: Vec<(u64, String)> = saved["params"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["origin"]["kind"] == "argv")
            .map(|p| {
                (
                    p["origin"]["index"].as_u64().unwrap(),
                    p["name"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        argv.sort();
        let src = repo.join(&m.source);
        let lowered = frontend::load(&src, &frontend::Options::default()).unwrap();
        let tree = apt::build(
            &lowered,
            &apt::AptOptions {
                arg_names: argv.into_iter().map(|(_, n)| n).collect(),
                ..Default::default()
            },
        );
        let mut fresh = apt::render::to_json(&tree);
        without_files(&mut saved);
        without_files(&mut fresh);
        // what the analysis adds beside the tree (the integer divisions it lists) does not
        // move a site: the tree, its sites and the parameters are compared
        for v in [&mut saved, &mut fresh] {
            if let Some(m) = v.as_object_mut() {
                m.remove("integer_divisions");
            }
        }
        assert!(
            saved == fresh,
            "{}: apt.json differs from the APT of today's {} (an include or the site numbering changed); \
             re-record with scripts/record-runs.sh --fresh",
            dir.display(),
            m.source
        );
    }
}
