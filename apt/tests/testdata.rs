//! The APT of every testdata program in both languages: JSON snapshots, C/Fortran agreement,
//! and the `expect:` header lines that concern the APT (trip counts, bytes, compute, peers).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use apt::{Apt, AptOptions, Attr, Node, NodeData, ParamOrigin};
use serde_json::Value;
use symbolic::{parse, Expr};

const TESTDATA: &str = "../testdata";

struct Case {
    name: String,
    lang: &'static str,
    path: PathBuf,
    lowered: frontend::Lowered,
    apt: Apt,
}

fn cases() -> Vec<Case> {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(TESTDATA).join("programs.json")).unwrap(),
    )
    .unwrap();
    let mut out = Vec::new();
    for p in manifest["programs"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let params: Vec<String> = p["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().into())
            .collect();
        let includes: Vec<PathBuf> = p["include_dirs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Path::new(TESTDATA).join(v.as_str().unwrap()))
            .collect();
        for lang in ["c", "fortran"] {
            let path = Path::new(TESTDATA).join(p[lang].as_str().unwrap());
            let fopts = frontend::Options {
                include_dirs: includes.clone(),
                ..Default::default()
            };
            let (lowered, apt) = apt::load(
                &path,
                &fopts,
                &AptOptions {
                    arg_names: params.clone(),
                    ..Default::default()
                },
            )
            .unwrap();
            out.push(Case {
                name: name.clone(),
                lang,
                path,
                lowered,
                apt,
            });
        }
    }
    assert_eq!(out.len(), 14, "seven programs in two languages");
    out
}

#[test]
fn snapshots_per_program_and_language() {
    for c in cases() {
        assert!(
            !c.lowered.has_errors(),
            "{}: {:?}",
            c.path.display(),
            c.lowered
                .diagnostics
                .iter()
                .map(|d| &d.message)
                .collect::<Vec<_>>()
        );
        let json = serde_json::to_string_pretty(&apt::render::to_json(&c.apt)).unwrap();
        insta::assert_snapshot!(format!("{}_{}", c.name, c.lang), json);
    }
}

/// Values of the named constants, to compare tags whose constants are spelt differently.
fn constants(apt: &Apt) -> BTreeMap<String, f64> {
    apt.params
        .iter()
        .filter_map(|p| match p.origin {
            ParamOrigin::Constant { default } => Some((p.name.clone(), default)),
            _ => None,
        })
        .collect()
}

/// A comparable rendering of an attribute: constants substituted, unresolved reasons dropped
/// (they cite line numbers, which differ between the two files).
fn canon(a: &Option<Attr>, consts: &BTreeMap<String, f64>) -> String {
    match a {
        None => "-".into(),
        Some(Attr::Unresolved(_)) => "unresolved".into(),
        Some(Attr::Expr(e)) => {
            let mut e = e.clone();
            for (k, v) in consts {
                e = e.subs(k, &Expr::num(*v));
            }
            e.to_string()
        }
        Some(other) => other.text(),
    }
}

fn signature(n: &Node, consts: &BTreeMap<String, f64>) -> String {
    match &n.data {
        NodeData::Routine { .. } => "routine".into(),
        NodeData::Loop(l) => format!(
            "loop trip={} total={} compute={} work={} writes={:?}",
            canon(&Some(l.trip.clone()), consts),
            canon(&l.trip_total, consts),
            l.compute,
            canon(&l.work, consts),
            l.writes
        ),
        NodeData::If(i) => match &i.unresolved {
            None => format!("if {}", i.cond),
            // unresolved conditions are source text, spelt per language
            Some(_) => "if (unresolved)".into(),
        },
        NodeData::Call { callee, .. } => format!("call {callee}"),
        NodeData::Comm(c) => {
            format!(
                "comm {} peer={} tag={} bytes={} source={} recv_tag={} recv_bytes={} count={}",
                c.op.name(),
                canon(&c.peer, consts),
                canon(&c.tag, consts),
                canon(&c.bytes, consts),
                canon(&c.source, consts),
                canon(&c.recv_tag, consts),
                canon(&c.recv_bytes, consts),
                canon(&c.count, consts)
            ) + &format!(" buffer={:?}", c.buffer)
        }
    }
}

/// Routines keyed main-first then by name: C and Fortran may define them in another order
/// (atm2d.c defines `exchange` before `main`, atm2d.f90 after the program), and the main
/// routine is `main` in C but the PROGRAM's name in Fortran.
fn routines(c: &Case) -> Vec<(String, Vec<String>)> {
    let consts = constants(&c.apt);
    let main = c
        .lowered
        .program
        .main_proc()
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let mut out: Vec<(String, Vec<String>)> = c
        .apt
        .routines
        .iter()
        .map(|r| {
            let name = match &r.data {
                NodeData::Routine { name, .. } if *name == main => String::new(),
                NodeData::Routine { name, .. } => name.clone(),
                _ => unreachable!(),
            };
            (
                name,
                r.preorder().iter().map(|n| signature(n, &consts)).collect(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn c_and_fortran_give_the_same_tree() {
    let all = cases();
    for pair in all.chunks(2) {
        let (c, f) = (&pair[0], &pair[1]);
        let (rc, rf) = (routines(c), routines(f));
        assert_eq!(rc.len(), rf.len(), "{}: routine count", c.name);
        for ((nc, sc), (nf, sf)) in rc.iter().zip(&rf) {
            assert_eq!(nc, nf, "{}: routine names", c.name);
            assert_eq!(
                sc.len(),
                sf.len(),
                "{} {nc}: node count\nC: {sc:#?}\nFortran: {sf:#?}",
                c.name
            );
            for (k, (a, b)) in sc.iter().zip(sf).enumerate() {
                assert_eq!(a, b, "{} routine `{nc}` node {k}", c.name);
            }
        }
        // the parameters: same names for the run-time inputs (constants may be spelt
        // differently: pge2.h and sweep.h use 6-character F77 names such as TAGTF)
        let inputs = |a: &Apt| -> Vec<String> {
            a.params
                .iter()
                .filter(|p| !matches!(p.origin, ParamOrigin::Constant { .. }))
                .map(|p| p.name.clone())
                .collect()
        };
        let (mut ic, mut if_) = (inputs(&c.apt), inputs(&f.apt));
        ic.sort();
        if_.sort();
        assert_eq!(ic, if_, "{}: parameters", c.name);
    }
}

/// `expect:` lines of a source's header comment.
fn expectations(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once("expect:").map(|(_, r)| r.trim().to_string()))
        .collect()
}

fn exprs_of<'a>(apt: &'a Apt, pick: impl Fn(&'a Node) -> Vec<&'a Attr>) -> Vec<&'a Attr> {
    apt.nodes().into_iter().flat_map(pick).collect()
}

fn has_expr(attrs: &[&Attr], want: &Expr) -> bool {
    attrs.iter().any(|a| a.expr() == Some(want))
}

fn has_unresolved(attrs: &[&Attr], culprit: &str) -> bool {
    attrs.iter().any(|a| {
        a.unresolved()
            .is_some_and(|r| r.contains(&format!("`{culprit}`")))
    })
}

/// The array named in "(unresolved: bound held in array dims)" / "(held in array nbr)".
fn culprit(text: &str) -> Option<String> {
    let inner = text.split_once('(')?.1.trim_end_matches(')');
    inner.split_whitespace().last().map(str::to_string)
}

#[test]
fn expect_lines_hold() {
    let mut checked = 0;
    for c in cases() {
        let apt = &c.apt;
        let known: Vec<String> = apt.params.iter().map(|p| p.name.clone()).collect();
        let trips = exprs_of(apt, |n| match &n.data {
            NodeData::Loop(l) => vec![&l.trip],
            _ => vec![],
        });
        let bytes = exprs_of(apt, |n| match &n.data {
            NodeData::Comm(m) => [&m.bytes, &m.recv_bytes].into_iter().flatten().collect(),
            _ => vec![],
        });
        let work = exprs_of(apt, |n| match &n.data {
            NodeData::Loop(l) if l.compute => l.work.iter().collect(),
            _ => vec![],
        });
        let peers = exprs_of(apt, |n| match &n.data {
            NodeData::Comm(m) => [&m.peer, &m.source].into_iter().flatten().collect(),
            _ => vec![],
        });
        let allreduce = exprs_of(apt, |n| match &n.data {
            NodeData::Comm(m) if m.op == frontend::MpiOp::Allreduce => m.bytes.iter().collect(),
            _ => vec![],
        });
        for line in expectations(&c.path) {
            let where_ = format!("{}: expect: {line}", c.path.display());
            let (pool, rest) = if let Some(r) = line.strip_prefix("loop trip ") {
                (&trips, r)
            } else if let Some(r) = line.strip_prefix("message bytes ") {
                (&bytes, r)
            } else if let Some(r) = line.strip_prefix("compute ") {
                (&work, r.split(" per ").next().unwrap_or(r))
            } else if let Some(r) = line.strip_prefix("allreduce bytes ") {
                (&allreduce, r.split(" per ").next().unwrap_or(r))
            } else if let Some(r) = line.strip_prefix("peer ") {
                (&peers, r)
            } else {
                continue; // phases, pipeline depths, checksums: not the APT's business
            };
            checked += 1;
            let text = rest.split(" (").next().unwrap_or(rest).trim();
            if rest.contains("unresolved") || text == "unresolved" {
                let arr = culprit(rest).unwrap_or_else(|| panic!("{where_}: no culprit named"));
                assert!(
                    has_unresolved(pool, &arr),
                    "{where_}: nothing unresolved on `{arr}`: {pool:?}"
                );
                continue;
            }
            let want = parse(&text.replace('²', "^2")).unwrap_or_else(|e| panic!("{where_}: {e}"));
            if want.vars().iter().all(|v| known.contains(v)) {
                assert!(has_expr(pool, &want), "{where_}: not found among {pool:?}");
            } else {
                // Px/Py are not source quantities: the APT must say what holds them
                assert!(
                    pool.iter().any(|a| a.unresolved().is_some()),
                    "{where_}: expected unresolved"
                );
            }
        }
    }
    println!("checked {checked} expect lines");
    assert!(checked >= 40, "only {checked} expect lines checked");
}

/// The shift programs rewrite, right after sending it, the array they sent: the phase after
/// the send may rewrite its buffer, the initialisation and the final sum (of `local`) write
/// other names than the send's.
#[test]
fn shift_phase_after_the_send_may_rewrite_its_buffer() {
    for c in cases().iter().filter(|c| c.name == "shift") {
        let nodes = c.apt.nodes();
        let phases: Vec<&apt::LoopNode> = nodes
            .iter()
            .filter_map(|n| match &n.data {
                NodeData::Loop(l) if l.compute => Some(l),
                _ => None,
            })
            .collect();
        let send = nodes
            .iter()
            .find_map(|n| match &n.data {
                NodeData::Comm(f) if f.op == frontend::MpiOp::Send => Some(f),
                _ => None,
            })
            .unwrap();
        let may: Vec<bool> = phases.iter().map(|l| apt::may_rewrite(l, send)).collect();
        // init writes a and b, the shift loop a, the sum only `local`
        assert_eq!(may, [true, true, false], "{}", c.lang);
        let shift = phases[1].writes.as_ref().unwrap();
        assert!(shift.contains("a") && !shift.contains("b"), "{}", c.lang);
    }
}
