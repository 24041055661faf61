//! Calls through a C function pointer (trial3 #1): a pointer set from `kind == 0 ? smooth :
//! scale` or from a table of functions is an IF chain over CALL nodes, and the instrumented
//! program records which target each call took: branch arm counts and call counts per target,
//! checked against the program's own arithmetic under Open MPI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::*;
use trace::AggKind;

fn case() -> Case {
    Case {
        name: "pointer_calls".into(),
        lang: Lang::C,
        fixed: false,
        src: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pointer_calls.c"),
        include_dirs: Vec::new(),
        // N NSTEPS KIND
        args: vec!["32".into(), "5".into(), "1".into()],
    }
}

#[test]
fn pointer_calls_are_branches_over_their_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let (lowered, plan, main) = case().instrument(&tmp.path().join("inst")).unwrap();
    let text = std::fs::read_to_string(&main).unwrap();
    assert!(
        text.contains("if (kernel == smooth) {"),
        "the pointer is compared with its targets:\n{text}"
    );
    assert!(text.contains("if (per_rank == scale)"), "{text}");
    let again =
        frontend::load_str("pointer_calls.c", &text, &frontend::Options::default()).unwrap();
    assert!(!again.has_errors(), "{:?}", again.diagnostics);
    // the ternary's condition is the branch's; the table's choice is measured
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let ifs: Vec<(String, bool)> = tree
        .nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            apt::NodeData::If(i) => Some((i.cond.clone(), i.unresolved.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(
        ifs,
        vec![
            ("KIND == 0".to_string(), false),
            ("per_rank == smooth".to_string(), true),
            ("per_rank == scale".to_string(), true),
        ]
    );
    assert!(
        tree.notes.iter().any(|(_, n)| n
            == "call through pointer k at pointer_calls.c:30 not resolved: its work is not in the model"),
        "{:?}",
        tree.notes
    );
    assert!(plan.marks().len() > 10);
}

#[test]
fn pointer_call_counts_under_open_mpi() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let (lowered, plan, ranks) = case().run_open_mpi(tmp.path(), &rt).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let site = |callee: &str, line: u32| {
        tree.nodes()
            .into_iter()
            .find(|n| {
                n.line == line
                    && matches!(&n.data, apt::NodeData::Call { callee: c, .. } if c == callee)
            })
            .map(|n| n.site.0)
            .unwrap()
    };
    let branch = |line: u32, arm: u32| {
        tree.nodes()
            .into_iter()
            .find(|n| n.line == line && n.arm == Some(arm) && n.kind() == apt::NodeKind::If)
            .map(|n| n.site.0)
            .unwrap()
    };
    let _ = plan;
    for r in &ranks {
        let count = |kind: AggKind, s: u32, arm: i32| {
            r.aggregates
                .iter()
                .filter(|a| {
                    a.kind == kind && a.site == s && (kind != AggKind::Branch || a.arm == arm)
                })
                .map(|a| a.count)
                .sum::<u64>()
        };
        let rank = r.header.rank;
        // KIND = 1: `kernel` is scale in every one of the 5 steps
        assert_eq!(count(AggKind::Branch, branch(50, 0), 1), 5, "rank {rank}");
        assert_eq!(count(AggKind::Branch, branch(50, 0), 0), 0, "rank {rank}");
        assert_eq!(count(AggKind::Call, site("scale", 50), 0), 5, "rank {rank}");
        assert_eq!(
            count(AggKind::Call, site("smooth", 50), 0),
            0,
            "rank {rank}"
        );
        // `per_rank` is table[rank % 3]: smooth on rank 0, scale on rank 1
        let (want_smooth, want_scale) = if rank == 0 { (5, 0) } else { (0, 5) };
        assert_eq!(
            count(AggKind::Call, site("smooth", 51), 0),
            want_smooth,
            "rank {rank}"
        );
        assert_eq!(
            count(AggKind::Call, site("scale", 51), 0),
            want_scale,
            "rank {rank}"
        );
        assert_eq!(count(AggKind::Call, site("shift", 51), 0), 0, "rank {rank}");
        assert_eq!(
            count(AggKind::Branch, branch(51, 0), 0),
            want_smooth,
            "rank {rank}"
        );
        assert_eq!(
            count(AggKind::Branch, branch(51, 1), 0),
            want_scale,
            "rank {rank}"
        );
    }
}
