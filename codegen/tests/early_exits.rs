//! IFs that may leave early from a nested IF (`if (a) { if (b) return; x(); } y();`, an arm
//! `{ work(); if (done) break; }`, Fortran RETURN/CYCLE/EXIT): the APT puts what follows them
//! on every path that falls out of them, its copies sharing one site id, and the
//! instrumentation plan built from the IR alone gives the same statements the same ids.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use apt::{Node, NodeData};
use codegen::Plan;
use common::assert_every_site_marked_once;

fn load(name: &str) -> (frontend::Lowered, apt::Apt) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let lowered = frontend::load(&src, &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    (lowered, tree)
}

/// Every node's site, with how many times it sits in the tree.
fn occurrences(nodes: &[Node], out: &mut BTreeMap<u32, usize>) {
    for n in nodes {
        *out.entry(n.site.0).or_default() += 1;
        occurrences(&n.children, out);
        occurrences(&n.else_children, out);
    }
}

fn routine<'a>(tree: &'a apt::Apt, name: &str) -> &'a Node {
    tree.routines
        .iter()
        .find(|r| matches!(&r.data, NodeData::Routine { name: n, .. } if n.eq_ignore_ascii_case(name)))
        .unwrap()
}

/// Sites of the CALL nodes of `callee` below `nodes`.
fn calls_of(nodes: &[Node], callee: &str, out: &mut Vec<u32>) {
    for n in nodes {
        if matches!(&n.data, NodeData::Call { callee: c, .. } if c.eq_ignore_ascii_case(callee)) {
            out.push(n.site.0);
        }
        calls_of(&n.children, callee, out);
        calls_of(&n.else_children, callee, out);
    }
}

fn check(name: &str) {
    let (lowered, tree) = load(name);
    let from_apt = Plan::from_apt(&tree, &lowered.program);
    let from_program = Plan::from_program(&lowered.program);
    assert_eq!(
        from_apt, from_program,
        "{name}: same statements, roles and site ids"
    );
    assert_every_site_marked_once(&tree, &from_apt, name);
    // the table is in id order
    for (k, s) in tree.sites.iter().enumerate() {
        assert_eq!(s.id.0 as usize, k, "{name}");
    }
    // every node's site is in the table, and every site is in the tree
    let mut seen = BTreeMap::new();
    occurrences(&tree.routines, &mut seen);
    assert_eq!(
        seen.keys().copied().collect::<Vec<_>>(),
        (0..tree.sites.len() as u32).collect::<Vec<_>>(),
        "{name}"
    );

    // step: `y(l)` after `if (a > 0) { if (b > 0) return; x(l); }` sits after x (a taken, b
    // not) and in a's else, under one site
    let step = routine(&tree, "step");
    assert_eq!(step.children.len(), 1, "{name}: {:#?}", step.children);
    let a = &step.children[0];
    let mut ys = Vec::new();
    calls_of(std::slice::from_ref(a), "y", &mut ys);
    assert_eq!(ys.len(), 2, "{name}: {a:#?}");
    assert_eq!(ys[0], ys[1], "{name}");
    let b = &a.children[0];
    assert!(matches!(b.data, NodeData::If(_)), "{name}: {a:#?}");
    assert!(b.children.is_empty(), "{name}: {b:#?}");
    let mut after_b = Vec::new();
    calls_of(&b.else_children, "x", &mut after_b);
    calls_of(&b.else_children, "y", &mut after_b);
    assert_eq!(after_b.len(), 2, "{name}: {b:#?}");
    let mut in_else = Vec::new();
    calls_of(&a.else_children, "y", &mut in_else);
    assert_eq!(in_else, [ys[0]], "{name}");

    // the loop: the Allreduce after an arm `{ work(i); if (i > 50) break; }` and an else-if
    // arm `{ if (i > 70) continue; }` sits on the three paths that reach it, under one site
    let comms: Vec<u32> = tree
        .nodes()
        .iter()
        .filter(|n| matches!(&n.data, NodeData::Comm(c) if c.op == frontend::MpiOp::Allreduce))
        .map(|n| n.site.0)
        .collect();
    assert_eq!(comms.len(), 3, "{name}");
    assert!(comms.iter().all(|c| *c == comms[0]), "{name}: {comms:?}");
}

#[test]
fn plan_and_apt_agree_on_nested_early_exits_in_c() {
    check("early_exits.c");
    // after `if (rank == 0) { x(1); } else { if (n > 1000) { …; return 0; } work(3); }` the
    // barrier sits after x(1) and after work(3): one site
    let (_, tree) = load("early_exits.c");
    let barriers: Vec<u32> = tree
        .nodes()
        .iter()
        .filter(|n| matches!(&n.data, NodeData::Comm(c) if c.op == frontend::MpiOp::Barrier))
        .map(|n| n.site.0)
        .collect();
    assert_eq!(barriers.len(), 2, "{barriers:?}");
    assert_eq!(barriers[0], barriers[1]);
}

#[test]
fn plan_and_apt_agree_on_nested_early_exits_in_fortran() {
    check("early_exits.f90");
}

/// Thirty IFs in a row, each able to return from a nested IF, would put 2^30 copies of what
/// follows the last on its paths: past the budget ([`frontend::nested_exits_fit`]) both the
/// APT and the plan take the direct rule (an arm ending in a leave), and still agree.
#[test]
fn many_nested_exits_in_a_row_fall_back_to_the_direct_rule_in_both() {
    let mut body = String::new();
    for k in 0..30 {
        body.push_str(&format!(
            "  if (a > {k}) {{ if (b > {k}) return; x({k}); }}\n"
        ));
    }
    let src = format!(
        "static void x(int k) {{ (void)k; }}\nstatic void f(int a, int b) {{\n{body}  x(99);\n}}\n\
         int main(void) {{ f(1, 2); return 0; }}\n"
    );
    let lowered = frontend::load_str("many.c", &src, &frontend::Options::default()).unwrap();
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    assert!(!frontend::nested_exits_fit(&lowered.program));
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    let from_apt = Plan::from_apt(&tree, &lowered.program);
    assert_eq!(from_apt, Plan::from_program(&lowered.program));
    let mut xs = Vec::new();
    calls_of(&tree.routines, "x", &mut xs);
    assert_eq!(xs.len(), 31, "{xs:?}");
    // a few in a row stay within it
    let few = src.replace(&body, &body[..body.find("  if (a > 3)").unwrap()]);
    let lowered = frontend::load_str("few.c", &few, &frontend::Options::default()).unwrap();
    assert!(frontend::nested_exits_fit(&lowered.program));
    let tree = apt::build(&lowered, &apt::AptOptions::default());
    assert_eq!(
        Plan::from_apt(&tree, &lowered.program),
        Plan::from_program(&lowered.program)
    );
    let mut xs = Vec::new();
    calls_of(&tree.routines, "x", &mut xs);
    // x(99) after three such IFs sits on 2^3 paths, x(k) inside IF k on 2^k
    assert_eq!(xs.len(), 1 + 2 + 4 + 8, "{xs:?}");
}
