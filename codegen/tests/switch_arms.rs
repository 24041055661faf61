//! C `switch` arms (trial3 fix 4): a switch whose cases end with `break` is an IF/ELSE IF
//! chain in the APT, and the instrumented program marks its arms as an `if` chain's (the
//! taken arm and the not-taken ones before it, `default:` or an added one for no match), so
//! rank- and data-dependent switches get measured probabilities; counts checked under Open
//! MPI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::*;
use trace::AggKind;

fn case() -> Case {
    Case {
        name: "switch_arms".into(),
        lang: Lang::C,
        fixed: false,
        src: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/switch_arms.c"),
        include_dirs: Vec::new(),
        // METHOD NSTEPS
        args: vec!["3".into(), "4".into()],
    }
}

#[test]
fn switch_cases_get_branch_markers() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, main) = case().instrument(&tmp.path().join("inst")).unwrap();
    let text = std::fs::read_to_string(&main).unwrap();
    let line = |head: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(head))
            .unwrap_or_else(|| panic!("no `{head}` in:\n{text}"))
            .trim()
            .to_string()
    };
    assert!(line("case 0:").ends_with("augur_branch(2, 0);"), "{text}");
    assert!(
        line("case 2:").ends_with("augur_branch(2, 1); augur_branch(4, 0);"),
        "{text}"
    );
    assert!(
        line("default:").ends_with("augur_branch(2, 1); augur_branch(4, 1);"),
        "{text}"
    );
    // the method switch has no default: one is added for no match
    assert!(
        text.contains("default: augur_branch(6, 1); augur_branch(8, 1); break; }"),
        "{text}"
    );
    assert!(!text.contains("which case runs is not recorded"), "{text}");
    let again = frontend::load_str("switch_arms.c", &text, &frontend::Options::default()).unwrap();
    assert!(!again.has_errors(), "{:?}", again.diagnostics);
}

#[test]
fn switch_arm_counts_under_open_mpi() {
    need("mpicc");
    need("mpirun");
    let tmp = tempfile::tempdir().unwrap();
    let rt = Runtime::build(tmp.path(), Mpi::OpenMpi);
    let (lowered, _, ranks) = case().run_open_mpi(tmp.path(), &rt).unwrap();
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let ifs: Vec<(u32, u32, String)> = tree
        .nodes()
        .into_iter()
        .filter_map(|n| match &n.data {
            apt::NodeData::If(i) => Some((n.site.0, n.line, i.cond.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        ifs,
        vec![
            (2, 15, "mod(rank, 3) == 0".to_string()),
            (4, 20, "mod(rank, 3) == 1 || mod(rank, 3) == 2".to_string()),
            (6, 29, "METHOD == 1".to_string()),
            (8, 33, "METHOD == 2".to_string()),
            (10, 38, "default".to_string()),
        ],
        "{ifs:?}"
    );
    for r in &ranks {
        let arm = |site: u32, arm: i32| {
            r.aggregates
                .iter()
                .filter(|a| a.kind == AggKind::Branch && a.site == site && a.arm == arm)
                .map(|a| a.count)
                .sum::<u64>()
        };
        let rank = r.header.rank;
        // rank 0 takes case 0 in each of the 4 steps, rank 1 the stacked case 1/case 2
        let (first, second) = if rank == 0 {
            ((4, 0), (0, 0))
        } else {
            ((0, 4), (4, 0))
        };
        assert_eq!((arm(2, 0), arm(2, 1)), first, "rank {rank}");
        assert_eq!((arm(4, 0), arm(4, 1)), second, "rank {rank}");
        // METHOD = 3 matches no case: both arms not taken, through the added default
        assert_eq!((arm(6, 0), arm(6, 1)), (0, 4), "rank {rank}");
        assert_eq!((arm(8, 0), arm(8, 1)), (0, 4), "rank {rank}");
        // a switch of a default alone always takes it
        assert_eq!((arm(10, 0), arm(10, 1)), (4, 0), "rank {rank}");
    }
}

/// review8 L1: `case 1: default:` stacked over one body: the group's markers go after the
/// last label's colon, so entering at `default:` records the arm too.
#[test]
fn stacked_case_and_default_mark_after_the_default() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("stacked.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n    int method = atoi(argv[1]);\n    MPI_Init(&argc, &argv);\n    switch (method) {\n    case 2:\n        MPI_Barrier(MPI_COMM_WORLD);\n        break;\n    case 1:\n    default:\n        MPI_Barrier(MPI_COMM_WORLD);\n        break;\n    }\n    MPI_Finalize();\n    return 0;\n}\n",
    )
    .unwrap();
    let c = Case {
        name: "stacked".into(),
        lang: Lang::C,
        fixed: false,
        src,
        include_dirs: Vec::new(),
        args: vec!["1".into()],
    };
    let (_, _, main) = c.instrument(&tmp.path().join("inst")).unwrap();
    let text = std::fs::read_to_string(&main).unwrap();
    let line = |head: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(head))
            .unwrap_or_else(|| panic!("no `{head}` in:\n{text}"))
            .trim()
            .to_string()
    };
    assert_eq!(line("case 1:"), "case 1:", "{text}");
    assert!(line("default:").contains("augur_branch("), "{text}");
}
