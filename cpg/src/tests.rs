//! Unit tests of the CPG construction on synthetic traces: seed 004 Fig. 1, matching edge
//! cases (wildcards, waitall, sendrecv, PROC_NULL, sub-communicators), wavefronts, collectives.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use trace::Op;

use crate::synth::world;
use crate::{Cpg, CpgOptions, PhaseKind, SiteTree};

/// main(0) > loop it(1) > [if(2) > send(3), loop compute(4), if(5) > recv(6)], allreduce(7).
fn tree() -> SiteTree {
    SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "it", "site": 1, "line": 2, "children": [
            {"kind": "if", "cond": "a", "site": 2, "line": 3, "children": [
              {"kind": "comm", "op": "send", "site": 3, "line": 4, "children": []}]},
            {"kind": "loop", "var": "i", "compute": true, "site": 4, "line": 5, "children": []},
            {"kind": "if", "cond": "b", "site": 5, "line": 6, "children": [
              {"kind": "comm", "op": "recv", "site": 6, "line": 7, "children": []}]},
            {"kind": "comm", "op": "allreduce", "site": 7, "line": 8, "children": []}
          ]}]}]}"#,
    )
    .unwrap()
}

fn build(ranks: &[trace::RankTrace]) -> Cpg {
    Cpg::build(ranks, &tree(), &CpgOptions::default()).unwrap()
}

const ITERS: usize = 5;

fn shift(p: i32) -> Vec<trace::RankTrace> {
    world(p, |r, s| {
        for _ in 0..ITERS {
            if r < i64::from(p) - 1 {
                s.send(3, r + 1, 7, 64);
            }
            s.compute(4, 1000);
            if r > 0 {
                s.recv(6, r - 1, 7, 64);
            }
        }
    })
}

fn pipeline(p: i32) -> Vec<trace::RankTrace> {
    world(p, |r, s| {
        for _ in 0..ITERS {
            if r > 0 {
                s.recv(6, r - 1, 7, 64);
            }
            s.compute(4, 1000);
            if r < i64::from(p) - 1 {
                s.send(3, r + 1, 7, 64);
            }
        }
    })
}

#[test]
fn shift_vs_pipeline_fig1() {
    let sh = build(&shift(4));
    let pi = build(&pipeline(4));
    let (a, b) = (&sh.phases()[0], &pi.phases()[0]);
    assert_eq!(sh.phases().len(), 1);
    assert_eq!(a.sites, vec![3, 6]);
    assert_eq!(a.sites, b.sites);
    assert_eq!(
        (a.senders.clone(), a.receivers.clone()),
        (vec![0, 1, 2], vec![1, 2, 3])
    );
    assert_eq!((&a.senders, &a.receivers), (&b.senders, &b.receivers));
    assert_eq!(a.kind, PhaseKind::Synchronous);
    assert_eq!(b.kind, PhaseKind::Pipeline);
    assert_eq!(b.async_processors, vec![1, 2]);
    assert_eq!(b.depth, Some(3));
    assert_eq!(a.depth, None);
    assert_eq!(a.ancestor, Some(1));
    assert_eq!(
        (a.messages, a.instances.mean, a.bytes.mean),
        (15, ITERS as f64, 64.0)
    );
    // shift: compute between send and recv on ranks 1, 2 (rank 0 never receives, 3 never sends)
    assert_eq!(a.compute.len(), 1);
    assert_eq!(
        (
            a.compute[0].site,
            a.compute[0].occurrences,
            a.compute[0].processors
        ),
        (4, 10, 2)
    );
    assert!((a.compute[0].cpu_mean - 1e-6).abs() < 1e-12);
    // pipeline: compute between recv and send on ranks 1, 2
    assert_eq!((b.compute[0].occurrences, b.compute[0].processors), (10, 2));
}

#[test]
fn pipeline_on_two_ranks_is_indeterminate_with_depth_one() {
    let c = build(&pipeline(2));
    let g = &c.phases()[0];
    assert!(!g.determinate);
    assert_eq!(g.kind, PhaseKind::Synchronous);
    assert_eq!(g.depth, Some(1));
    for p in [3, 8] {
        let c = build(&pipeline(p));
        let g = &c.phases()[0];
        assert!(g.determinate);
        assert_eq!(g.depth, Some(u32::try_from(p).unwrap() - 1));
    }
}

#[test]
fn wildcard_irecv_waitall_is_one_exchange() {
    // 1-D exchange: irecv from left (site 6, any source), isend left (site 3),
    // irecv from right (site 16, any tag), isend right (site 13); one waitall (site 20)
    let p = 4;
    let ranks = world(p, |r, s| {
        for _ in 0..3 {
            let mut parts = Vec::new();
            if r > 0 {
                let a = s.irecv(6, -3, 1, 64);
                let b = s.isend(3, r - 1, 2, 64);
                parts.push((a, Op::Irecv, 6, r - 1, 1, 64));
                parts.push((b, Op::Isend, 3, r - 1, 2, 64));
            }
            if r < 3 {
                let a = s.irecv(16, r + 1, -1, 64);
                let b = s.isend(13, r + 1, 1, 64);
                parts.push((a, Op::Irecv, 16, r + 1, 2, 64));
                parts.push((b, Op::Isend, 13, r + 1, 1, 64));
            }
            s.waitall(20, &parts);
            s.compute(4, 10);
        }
    });
    let c = Cpg::build(&ranks, &wave_tree(), &CpgOptions::default()).unwrap();
    assert_eq!(c.phases().len(), 1, "{:#?}", c.phases());
    let g = &c.phases()[0];
    assert_eq!(g.sites, vec![3, 6, 13, 16]);
    assert_eq!(g.kind, PhaseKind::Synchronous);
    assert_eq!(g.messages, 18);
    assert!(
        c.summary().warnings.is_empty(),
        "{:?}",
        c.summary().warnings
    );
    // the Irecvs were posted before the Isends but complete after them: not a pipeline
    assert!(g.async_processors.is_empty());
    let split = Cpg::build(
        &ranks,
        &wave_tree(),
        &CpgOptions {
            join_completions: false,
            ..CpgOptions::default()
        },
    )
    .unwrap();
    let ids: Vec<&str> = split.phases().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, vec!["g6_13", "g3_16"]); // program order of the first site
}

#[test]
fn persistent_ring_is_one_loosely_synchronous_phase() {
    // MPI_Recv_init/Send_init once (sites 30-33, no data), then per step MPI_Startall (site
    // 20: two receives and two sends started) and MPI_Waitall (21); a probe and the frees are
    // no messages
    let p = 4;
    let ranks = world(p, |r, s| {
        let (left, right) = ((r + 3) % 4, (r + 1) % 4);
        s.note(Op::RecvInit, 30, left, 1, 32)
            .note(Op::RecvInit, 31, right, 2, 32)
            .note(Op::SendInit, 32, right, 1, 32)
            .note(Op::SendInit, 33, left, 2, 32);
        for _ in 0..ITERS {
            let a = s.start(20, Op::Irecv, left, 1, 32);
            let b = s.start(20, Op::Irecv, right, 2, 32);
            let c = s.start(20, Op::Isend, right, 1, 32);
            let d = s.start(20, Op::Isend, left, 2, 32);
            s.waitall(
                21,
                &[
                    (a, Op::Irecv, 20, left, 1, 32),
                    (b, Op::Irecv, 20, right, 2, 32),
                    (c, Op::Isend, 20, right, 1, 32),
                    (d, Op::Isend, 20, left, 2, 32),
                ],
            );
            s.compute(4, 1000);
            s.note(Op::Probe, 6, left, 3, 8);
        }
        for _ in 0..4 {
            s.coll(34, Op::RequestFree, 0);
        }
    });
    let tree = SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "it", "site": 1, "line": 2, "children": [
            {"kind": "comm", "op": "startall", "site": 20, "line": 3, "children": []},
            {"kind": "comm", "op": "waitall", "site": 21, "line": 4, "children": []},
            {"kind": "loop", "var": "i", "compute": true, "site": 4, "line": 5, "children": []},
            {"kind": "comm", "op": "probe", "site": 6, "line": 6, "children": []}
          ]}]}]}"#,
    )
    .unwrap();
    let c = Cpg::build(&ranks, &tree, &CpgOptions::default()).unwrap();
    assert_eq!(c.phases().len(), 1, "{:#?}", c.phases());
    let g = &c.phases()[0];
    assert_eq!(g.sites, vec![20]);
    assert_eq!(g.kind, PhaseKind::Synchronous);
    assert_eq!(g.messages, 2 * 4 * ITERS as u64);
    assert!(g.async_processors.is_empty());
    let sum = c.summary();
    assert!(sum.unmatched_sends.is_empty() && sum.unmatched_recvs.is_empty());
    assert!(sum.warnings.is_empty(), "{:?}", sum.warnings);
}

#[test]
fn wait_on_receive_before_send_is_a_pipeline() {
    let p = 4;
    let ranks = world(p, |r, s| {
        if r > 0 {
            let a = s.irecv(6, r - 1, 0, 8);
            s.waitall(20, &[(a, Op::Irecv, 6, r - 1, 0, 8)]);
        }
        if r < 3 {
            s.send(3, r + 1, 0, 8);
        }
    });
    let c = build(&ranks);
    let g = &c.phases()[0];
    assert_eq!(g.kind, PhaseKind::Pipeline);
    assert_eq!(g.depth, Some(3));
}

#[test]
fn sendrecv_with_proc_null_boundaries() {
    // non-periodic shift right with sendrecv; the ends talk to MPI_PROC_NULL
    let p = 4;
    let ranks = world(p, |r, s| {
        let right = if r < 3 { r + 1 } else { -2 };
        let left = if r > 0 { r - 1 } else { -2 };
        s.sendrecv(3, right, 5, left, 5, 16);
    });
    let c = build(&ranks);
    assert_eq!(c.phases().len(), 1);
    let g = &c.phases()[0];
    assert_eq!(g.sites, vec![3]);
    assert_eq!(g.kind, PhaseKind::Synchronous);
    assert_eq!(g.messages, 3);
    assert_eq!(c.summary().proc_null.get(&3), Some(&2));
    assert!(c.summary().unmatched_sends.is_empty() && c.summary().unmatched_recvs.is_empty());
    // the graph has one node with a self-loop
    assert_eq!((c.graph().node_count(), c.graph().edge_count()), (1, 1));
}

#[test]
fn halo_exchange_of_two_sendrecvs_with_proc_null_ends_is_synchronous() {
    // a non-periodic halo exchange as codes write it: send up / receive from below, then send
    // down / receive from above, PROC_NULL beyond the ends. Rank 0's first Sendrecv only
    // receives (its send half goes to PROC_NULL) before its second one sends: that is not a
    // receive before a send, nothing chains, and the phase is loosely synchronous.
    let p = 4;
    let ranks = world(p, |r, s| {
        let up = if r > 0 { r - 1 } else { -2 };
        let down = if r < 3 { r + 1 } else { -2 };
        s.sendrecv(3, up, 1, down, 1, 64);
        s.sendrecv(4, down, 2, up, 2, 64);
    });
    // both calls in one routine, as codes write a halo exchange
    let tree = SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "it", "site": 1, "line": 2, "children": [
            {"kind": "call", "callee": "halo", "site": 2, "line": 3, "children": []}]}]},
          {"kind": "routine", "name": "halo", "site": 5, "line": 10, "children": [
            {"kind": "comm", "op": "sendrecv", "site": 3, "line": 11, "children": []},
            {"kind": "comm", "op": "sendrecv", "site": 4, "line": 12, "children": []}]}]}"#,
    )
    .unwrap();
    assert_eq!(tree.ancestor(&[3]), tree.ancestor(&[4]));
    let c = Cpg::build(&ranks, &tree, &CpgOptions::default()).unwrap();
    // two exchanges one after the other: not one wavefront (rank 0's receive in the first
    // comes after its send half to PROC_NULL there)
    assert_eq!(c.phases().len(), 2, "{:?}", c.phases());
    for (g, site) in c.phases().iter().zip([3, 4]) {
        assert_eq!(g.sites, vec![site]);
        assert_eq!(g.kind, PhaseKind::Synchronous);
        assert!(g.async_processors.is_empty(), "{:?}", g.async_processors);
        assert_eq!(g.messages, 3);
    }
    assert_eq!(c.summary().proc_null.get(&3), Some(&2));
}

#[test]
fn pipeline_with_proc_null_ends_stays_a_pipeline() {
    // receive from the left, then send right; PROC_NULL beyond the ends: the middle ranks
    // receive before they send, and the last rank's send to PROC_NULL does not hide that
    let p = 4;
    let ranks = world(p, |r, s| {
        let left = if r > 0 { r - 1 } else { -2 };
        let right = if r < 3 { r + 1 } else { -2 };
        s.recv(3, left, 5, 8);
        s.send(4, right, 5, 8);
    });
    let c = build(&ranks);
    let g = &c.phases()[0];
    assert_eq!(g.kind, PhaseKind::Pipeline);
    assert_eq!(g.async_processors, vec![1, 2]);
    assert_eq!(g.depth, Some(3));
}

#[test]
fn sub_communicators_match_by_size() {
    // rank 0 -> 1 on a 2-rank communicator (site 3 -> 6) and on the world (site 13 -> 16),
    // same tag; rank 1 receives in the opposite order
    let ranks = world(4, |r, s| match r {
        0 => {
            s.comm = 2;
            s.send(3, 1, 9, 8);
            s.comm = 4;
            s.send(13, 1, 9, 800);
        }
        1 => {
            s.comm = 4;
            s.recv(16, 0, 9, 800);
            s.comm = 2;
            s.recv(6, 0, 9, 8);
        }
        _ => {}
    });
    let c = build(&ranks);
    let ids: Vec<&str> = c.phases().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, vec!["g3_6", "g13_16"]);
    assert_eq!(c.phase("g13_16").unwrap().bytes.mean, 800.0);
    assert_eq!(c.phase("g3_6").unwrap().comm_size, 2);
}

#[test]
fn wildcard_blocking_receives_use_actual_source() {
    // a master (rank 0) receives from anyone in whatever order the workers arrived
    let ranks = world(4, |r, s| {
        if r == 0 {
            for from in [2, 3, 1] {
                s.recv(6, from, 1, 8);
            }
        } else {
            s.send(3, 0, 1, 8);
        }
    });
    let c = build(&ranks);
    let g = &c.phases()[0];
    assert_eq!(
        (g.messages, g.senders.clone(), g.receivers.clone()),
        (3, vec![1, 2, 3], vec![0])
    );
    assert!(c.summary().warnings.is_empty());
}

#[test]
fn unmatched_messages_are_warned() {
    let ranks = world(2, |r, s| {
        if r == 0 {
            s.send(3, 1, 1, 8).send(3, 1, 1, 8);
        } else {
            s.recv(6, 0, 1, 8);
        }
    });
    let c = build(&ranks);
    assert_eq!(c.summary().unmatched_sends.get(&3), Some(&1));
    assert_eq!(c.summary().warnings.len(), 1);
}

#[test]
fn collectives_are_phases_and_dependences_follow_program_order() {
    let ranks = world(4, |r, s| {
        for _ in 0..2 {
            if r < 3 {
                s.send(3, r + 1, 7, 64);
            }
            if r > 0 {
                s.recv(6, r - 1, 7, 64);
            }
            s.coll(7, Op::Allreduce, 8);
        }
    });
    let c = build(&ranks);
    let ids: Vec<&str> = c.phases().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, vec!["g3_6", "g7"]);
    let g7 = c.phase("g7").unwrap();
    assert_eq!(
        g7.kind,
        PhaseKind::Collective {
            op: "MPI_Allreduce".into()
        }
    );
    assert_eq!(
        (g7.processors.len(), g7.messages, g7.per_processor.mean),
        (4, 8, 2.0)
    );
    let d = &c.dependences()[0];
    assert_eq!(
        (d.first.as_str(), d.second.as_str(), d.dependent, d.shared),
        ("g3_6", "g7", true, 3)
    );
}

#[test]
fn a_nonblocking_collective_is_a_collective_phase_and_its_wait_matches_nothing() {
    // Iallreduce (site 7) started, compute (site 4) overlapping it, Wait (site 9)
    let ranks = world(4, |_, s| {
        for _ in 0..3 {
            let req = s.icoll(7, Op::Iallreduce, 8);
            s.compute(4, 1000);
            s.wait_coll(9, req, Op::Iallreduce, 7, 8);
        }
    });
    let c = build(&ranks);
    let ids: Vec<&str> = c.phases().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, vec!["g7"]);
    let g7 = c.phase("g7").unwrap();
    assert_eq!(
        g7.kind,
        PhaseKind::Collective {
            op: "MPI_Iallreduce".into()
        }
    );
    assert_eq!(
        (
            g7.comm_size,
            g7.bytes.mean,
            g7.messages,
            g7.per_processor.mean
        ),
        (4, 8.0, 12, 3.0)
    );
    let s = c.summary();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert!(s.unmatched_sends.is_empty() && s.unmatched_recvs.is_empty());
}

/// A Px x Py wavefront: receive west (site 6) and north (site 16), compute, send east (3),
/// south (13), all under the loop (site 1).
fn wavefront(px: i64, py: i64) -> Vec<trace::RankTrace> {
    world(i32::try_from(px * py).unwrap(), |r, s| {
        let (x, y) = (r % px, r / px);
        for _ in 0..2 {
            if x > 0 {
                s.recv(6, r - 1, 1, 32);
            }
            if y > 0 {
                s.recv(16, r - px, 2, 32);
            }
            s.compute(4, 100);
            if x < px - 1 {
                s.send(3, r + 1, 1, 32);
            }
            if y < py - 1 {
                s.send(13, r + px, 2, 32);
            }
        }
    })
}

fn wave_tree() -> SiteTree {
    SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "blk", "site": 1, "line": 2, "children": [
            {"kind": "comm", "op": "recv", "site": 6, "line": 3, "children": []},
            {"kind": "comm", "op": "recv", "site": 16, "line": 4, "children": []},
            {"kind": "loop", "var": "k", "compute": true, "site": 4, "line": 5, "children": []},
            {"kind": "comm", "op": "send", "site": 3, "line": 6, "children": []},
            {"kind": "comm", "op": "send", "site": 13, "line": 7, "children": []}
          ]}]}]}"#,
    )
    .unwrap()
}

#[test]
fn wavefront_depth_is_px_plus_py_minus_2() {
    for (px, py) in [(2, 2), (3, 3), (2, 4), (4, 3)] {
        let c = Cpg::build(&wavefront(px, py), &wave_tree(), &CpgOptions::default()).unwrap();
        assert_eq!(c.phases().len(), 1, "{px}x{py}");
        let g = &c.phases()[0];
        assert_eq!(g.kind, PhaseKind::Pipeline);
        assert_eq!(g.components, 2);
        assert_eq!(
            g.depth,
            Some(u32::try_from(px + py - 2).unwrap()),
            "{px}x{py}"
        );
        assert_eq!(g.compute[0].site, 4);
    }
    let opts = CpgOptions {
        merge_wavefronts: false,
        ..CpgOptions::default()
    };
    let c = Cpg::build(&wavefront(3, 3), &wave_tree(), &opts).unwrap();
    assert_eq!(c.phases().len(), 2);
}

#[test]
fn bad_rank_sets_are_errors() {
    let t = tree();
    assert!(Cpg::build(&[], &t, &CpgOptions::default()).is_err());
    let mut ranks = shift(3);
    ranks.pop();
    assert!(Cpg::build(&ranks, &t, &CpgOptions::default()).is_err());
    let mut ranks = shift(3);
    ranks[1] = ranks[0].clone();
    assert!(Cpg::build(&ranks, &t, &CpgOptions::default()).is_err());
}

#[test]
fn renderings_are_stable() {
    let c = build(&pipeline(4));
    let t = tree();
    let text = crate::render::to_text(c.summary(), &t);
    assert!(
        text.starts_with("world 4 phases 1\ng3_6 pipeline\n"),
        "{text}"
    );
    assert!(text.contains("depth 3"));
    assert!(crate::render::to_mermaid(&c, &t).contains("s3 -->|15 msg, 960 B| s6"));
    assert!(crate::render::to_dot(&c, &t).contains("s3 -> s6 [label=\"15 msg, 960 B\"];"));
    let json = serde_json::to_string(c.summary()).unwrap();
    let back: crate::RunSummary = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, c.summary());
}

/// An exchange ordered by rank parity (even ranks send right then receive from the right, odd
/// ranks receive from the left then reply: F77 codes without Sendrecv), then the step's work
/// (site 9, a compute loop after the exchange's IF) and the pack loop the odd ranks run between
/// their receive and their reply (site 5, inside the IF).
fn parity(p: i32) -> Vec<trace::RankTrace> {
    world(p, |r, s| {
        for _ in 0..ITERS {
            if r % 2 == 0 && r + 1 < i64::from(p) {
                s.send(3, r + 1, 1, 24);
                s.recv(4, r + 1, 2, 24);
            } else if r % 2 == 1 {
                s.recv(6, r - 1, 1, 24);
                s.compute(5, 50);
                s.send(7, r - 1, 2, 24);
            }
            s.compute(9, 100_000);
        }
    })
}

/// main(0) > loop step(1) > [if even(2) > [send(3), recv(4)] else [recv(6), pack(5), send(7)],
/// loop work(9)].
fn parity_tree() -> SiteTree {
    SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "step", "site": 1, "line": 2, "children": [
            {"kind": "if", "cond": "even", "site": 2, "line": 3, "children": [
              {"kind": "comm", "op": "send", "site": 3, "line": 4, "children": []},
              {"kind": "comm", "op": "recv", "site": 4, "line": 5, "children": []}],
             "else": [
              {"kind": "comm", "op": "recv", "site": 6, "line": 7, "children": []},
              {"kind": "loop", "var": "k", "compute": true, "site": 5, "line": 8, "children": []},
              {"kind": "comm", "op": "send", "site": 7, "line": 9, "children": []}]},
            {"kind": "loop", "var": "i", "compute": true, "site": 9, "line": 10, "children": []}
          ]}]}]}"#,
    )
    .unwrap()
}

#[test]
fn parity_exchange_counts_only_the_work_inside_its_if() {
    for p in [2, 4, 8] {
        let c = Cpg::build(&parity(p), &parity_tree(), &CpgOptions::default()).unwrap();
        assert_eq!(c.phases().len(), 1, "P = {p}");
        let g = &c.phases()[0];
        assert_eq!(g.ancestor, Some(2));
        // the odd rank waits for the even rank's message: a chain of two, at every P
        assert_eq!(g.kind, PhaseKind::Pipeline, "P = {p}");
        assert_eq!(g.depth, Some(2), "P = {p}");
        // the even ranks' receive → next step's send spans the step's work (site 9), which
        // runs between executions of the exchange's IF: only the pack loop is inside
        let sites: Vec<u32> = g.compute.iter().map(|o| o.site).collect();
        assert_eq!(sites, vec![5], "P = {p}");
    }
}

#[test]
fn code_in_a_routine_of_several_callers_may_run_under_either() {
    // main(0) > [loop(1) > [call f(2), comm(3)], call f(4)]; routine f(10) > loop(11)
    let t = SiteTree::from_json_str(
        r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
          {"kind": "loop", "var": "it", "site": 1, "line": 2, "children": [
            {"kind": "call", "callee": "f", "site": 2, "line": 3, "children": []},
            {"kind": "comm", "op": "send", "site": 3, "line": 4, "children": []}]},
          {"kind": "call", "callee": "f", "site": 4, "line": 5, "children": []}]},
          {"kind": "routine", "name": "f", "site": 10, "line": 7, "children": [
            {"kind": "loop", "var": "i", "compute": true, "site": 11, "line": 8, "children": []}]},
          {"kind": "routine", "name": "g", "site": 20, "line": 9, "children": [
            {"kind": "loop", "var": "i", "compute": true, "site": 21, "line": 10, "children": []}]}
        ]}"#,
    )
    .unwrap();
    assert!(t.may_run_under(11, 1), "f is called from inside the loop");
    assert!(t.may_run_under(11, 2), "the call itself");
    assert!(!t.may_run_under(11, 3), "neither call is under the send");
    assert!(!t.may_run_under(4, 1));
    // g has no caller in the tree (a function pointer?): not ruled out
    assert!(t.may_run_under(21, 1));
}

/// A task farm on `p` ranks: rank 0 hands `tasks` tasks (4 bytes) round-robin to the workers,
/// each computes and answers (8 bytes); a worker asks again by answering. Sites of
/// [`wave_tree`]: tasks go out at 3 and in at 6, answers out at 13 and in at 16.
fn farm(p: i32, tasks: i64) -> Vec<trace::RankTrace> {
    let workers = i64::from(p) - 1;
    world(p, |r, s| {
        if r == 0 {
            for t in 0..tasks {
                let w = 1 + t % workers;
                if t >= workers {
                    s.recv(16, w, 2, 8);
                }
                s.send(3, w, 1, 4);
            }
            for t in tasks..tasks + workers {
                s.recv(16, 1 + t % workers, 2, 8);
            }
        } else {
            for _ in (0..tasks).filter(|t| 1 + t % workers == r) {
                s.recv(6, 0, 1, 4);
                s.compute(4, 1000);
                s.send(13, 0, 2, 8);
            }
        }
    })
}

#[test]
fn a_task_farm_is_a_star_not_a_pipeline() {
    let c = Cpg::build(&farm(4, 12), &wave_tree(), &CpgOptions::default()).unwrap();
    let g = &c.phases()[0];
    assert_eq!((g.kind.clone(), g.hub), (PhaseKind::Star, Some(0)));
    // the workers' computation between receiving a task and answering is inside the phase
    assert_eq!(g.compute.iter().map(|o| o.occurrences).sum::<u64>(), 12);
    // a task's size and an answer's are their sites' own
    let sizes: Vec<(u32, f64)> = g.site_bytes.iter().map(|(s, b)| (*s, b.mean)).collect();
    assert_eq!(sizes, vec![(3, 4.0), (13, 8.0)]);
    assert_eq!(g.bytes.mean, 6.0);
    // a chain of ranks is no star: its messages do not all touch one processor
    assert_eq!(build(&pipeline(4)).phases()[0].kind, PhaseKind::Pipeline);
    assert_eq!(build(&pipeline(4)).phases()[0].hub, None);
}

#[test]
fn a_star_on_two_processors_joins_its_series_as_a_star() {
    let runs: Vec<(String, BTreeMap<String, f64>, u32, crate::RunSummary)> = [2, 4, 8]
        .into_iter()
        .map(|p| {
            let c = Cpg::build(&farm(p, 16), &wave_tree(), &CpgOptions::default()).unwrap();
            (
                format!("P={p}"),
                BTreeMap::new(),
                p as u32,
                c.summary().clone(),
            )
        })
        .collect();
    let s = crate::Series::from_runs(&runs);
    assert_eq!(s.phases.len(), 1);
    assert_eq!(s.phases[0].kind, PhaseKind::Star);
    assert!(!s.phases[0].conflict);
    // with a pipeline seen on three or more processors the series is a pipeline
    let mut mixed = runs.clone();
    mixed.push((
        "chain".into(),
        BTreeMap::new(),
        4,
        build(&pipeline(4)).summary().clone(),
    ));
    let s = crate::Series::from_runs(&mixed);
    assert_eq!(s.phases[0].kind, PhaseKind::Pipeline);
    assert!(s.phases[0].conflict);
}
