//! End to end: nonblocking and persistent requests to MPI_PROC_NULL (the ends of a 1-D
//! non-periodic halo, tests/data/null_halo.c) traced under Open MPI, which hands out one shared
//! handle for every such nonblocking request, and SMPI. Every request is completed exactly once
//! by the wait that completed it, a Waitall has one Part per request, and nothing is an anomaly;
//! waits on requests the wrappers never saw still are. Fails loudly if MPI is missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use trace::*;

mod common;

const NSTEPS: usize = 5;
/// Bytes of one halo message (4 doubles).
const HALO: i64 = 32;

/// null_halo.c (null_halo.f90 when `fortran`) on `np` ranks with `args` after NSTEPS.
fn traced(smpi: bool, fortran: bool, np: u32, args: &[&str]) -> Vec<RankTrace> {
    let mut all = vec![NSTEPS.to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    common::traced("null_halo", smpi, fortran, np, &all)
}

/// The Part a completed request to `peer` must carry: a receive from MPI_PROC_NULL got no
/// message (any tag, no bytes); a send's part repeats what was posted.
fn part(op: Op, site: u32, peer: Peer, tag: i32, bytes: i64) -> (Op, u32, Peer, i32, i64) {
    match (op, peer) {
        (Op::Irecv, Peer::ProcNull) => (op, site, peer, -1, 0),
        _ => (op, site, peer, tag, bytes),
    }
}

/// Checks one rank of a run of null_halo (`unknown`: with the two unknown waits).
fn check_rank(t: &RankTrace, p: u32, unknown: bool) {
    let me = t.header.rank as u32;
    let left = if me > 0 {
        Peer::Rank(me - 1)
    } else {
        Peer::ProcNull
    };
    let right = if me + 1 < p {
        Peer::Rank(me + 1)
    } else {
        Peer::ProcNull
    };
    let expected_anomalies = if unknown { 2 } else { 0 };
    assert_eq!(
        t.trailer.anomalies, expected_anomalies,
        "rank {me} of {p} anomalies"
    );
    let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
    let at = |site: u32| -> Vec<(&MpiCall, &[Part])> {
        calls
            .iter()
            .filter(|(c, _)| c.site == site)
            .copied()
            .collect()
    };
    // every request has its own id and is completed once, by a part naming its post's site
    let mut issued: BTreeMap<u64, u32> = BTreeMap::new();
    let mut completed: BTreeMap<u64, u32> = BTreeMap::new();
    for (c, parts) in &calls {
        if matches!(c.op, Op::Isend | Op::Issend | Op::Irecv) {
            assert_ne!(c.req_id, 0, "{c:?}");
            assert!(
                issued.insert(c.req_id, c.site).is_none(),
                "id reused: {c:?}"
            );
        }
        if c.op.is_completion() {
            assert_eq!(c.nparts as usize, parts.len());
            for q in *parts {
                assert_eq!(issued.get(&q.req_id), Some(&q.site), "{q:?}");
                *completed.entry(q.req_id).or_default() += 1;
            }
        }
    }
    assert!(completed.values().all(|&n| n == 1), "{completed:?}");
    // all but the Issend at 34, which Request_free at 35 abandoned (not run under SMPI, see
    // null_halo.c, nor by the Fortran program)
    let (smpi, fortran) = (t.header.smpi(), t.header.fortran());
    if smpi || fortran {
        assert!(at(34).is_empty() && at(35).is_empty() && at(38).is_empty());
        assert_eq!(issued.len(), completed.len());
    } else {
        let freed = at(34)[0].0.req_id;
        assert_eq!(at(35)[0].0.req_id, freed);
        assert!(!completed.contains_key(&freed));
        assert_eq!(issued.len(), completed.len() + 1);
    }

    // the halo: each Waitall completes the step's four requests, in array order
    let posts: Vec<Vec<&MpiCall>> = (10..14)
        .map(|s| at(s).iter().map(|(c, _)| *c).collect())
        .collect();
    let waits = at(14);
    assert_eq!(waits.len(), NSTEPS);
    for (step, (w, parts)) in waits.iter().enumerate() {
        assert_eq!(
            (w.op, w.nparts, w.bytes),
            (Op::Waitall, 4, 4),
            "rank {me} step {step}"
        );
        let got: Vec<_> = parts
            .iter()
            .map(|q| (q.op, q.site, q.peer, q.tag, q.bytes))
            .collect();
        let want = [
            part(Op::Irecv, 10, left, 1, HALO),
            part(Op::Irecv, 11, right, 2, HALO),
            part(Op::Isend, 12, right, 1, HALO),
            part(Op::Isend, 13, left, 2, HALO),
        ];
        assert_eq!(got, want, "rank {me} of {p} step {step}");
        let ids: Vec<u64> = parts.iter().map(|q| q.req_id).collect();
        let posted: Vec<u64> = posts.iter().map(|v| v[step].req_id).collect();
        assert_eq!(ids, posted, "rank {me} step {step}");
    }
    // the posts themselves name the peer, PROC_NULL included
    let peers: Vec<Peer> = posts.iter().map(|v| v[0].peer).collect();
    assert_eq!(peers, [left, right, right, left]);

    // the persistent twin: each start recorded as its message, each Waitall completes all four
    let starts = at(24);
    assert_eq!(starts.len(), 4 * NSTEPS);
    let started: Vec<_> = starts[..4].iter().map(|(c, _)| (c.op, c.peer)).collect();
    assert_eq!(
        started,
        [
            (Op::Irecv, left),
            (Op::Irecv, right),
            (Op::Isend, right),
            (Op::Isend, left)
        ]
    );
    for (w, parts) in at(25) {
        assert_eq!(w.nparts, 4, "rank {me} of {p}");
        let got: Vec<_> = parts
            .iter()
            .map(|q| (q.op, q.site, q.peer, q.tag, q.bytes))
            .collect();
        let want = [
            part(Op::Irecv, 24, left, 3, HALO),
            part(Op::Irecv, 24, right, 4, HALO),
            part(Op::Isend, 24, right, 3, HALO),
            part(Op::Isend, 24, left, 4, HALO),
        ];
        assert_eq!(got, want, "rank {me} of {p}");
    }
    if fortran {
        assert!(calls
            .iter()
            .all(|(c, _)| c.flags & format::FLAG_FORTRAN != 0));
        return; // null_halo.f90 ends here
    }

    // several small sends live at once (one shared handle under Open MPI): the Waitall has a
    // part per request, in array order, and the one-by-one waits complete each send once
    let burst: Vec<u64> = at(60)
        .iter()
        .chain(at(61).iter())
        .map(|(c, _)| c.req_id)
        .collect();
    let (w, parts) = at(62)[0];
    assert_eq!(w.nparts, 8, "rank {me} of {p}");
    assert_eq!(parts.iter().map(|q| q.req_id).collect::<Vec<_>>(), burst);
    let got: Vec<_> = parts
        .iter()
        .map(|q| (q.op, q.site, q.peer, q.tag, q.bytes))
        .collect();
    let want: Vec<_> = (0..4)
        .map(|i| part(Op::Irecv, 60, left, 10 + i, 4))
        .chain((0..4).map(|i| part(Op::Isend, 61, right, 10 + i, 4)))
        .collect();
    assert_eq!(got, want, "rank {me} of {p}");
    // (where the receives are from MPI_PROC_NULL too, they share the sends' handle and a
    // Wait may report any of them: all were complete when posted)
    let ids = |sites: &[u32]| -> Vec<u64> {
        let mut v: Vec<u64> = sites
            .iter()
            .flat_map(|&s| at(s))
            .map(|(c, _)| c.req_id)
            .collect();
        v.sort_unstable();
        v
    };
    let done = |site: u32| -> Vec<u64> {
        at(site)
            .iter()
            .flat_map(|(_, q)| q.iter().map(|q| q.req_id))
            .collect()
    };
    assert!(at(65).iter().all(|(w, _)| w.nparts == 1));
    assert_eq!(at(66)[0].0.nparts, 4);
    let mut all = done(65);
    all.extend(done(66));
    all.sort_unstable();
    assert_eq!(all, ids(&[63, 64]), "rank {me} of {p}");
    if left != Peer::ProcNull {
        let mut sends = done(65);
        sends.sort_unstable();
        assert_eq!(sends, ids(&[64]), "rank {me} of {p}");
    }

    // single requests: Wait, Test, Waitany each complete the one they were given
    let one = |site: u32| -> Vec<(Op, u32, Peer, i32, i64)> {
        at(site)
            .iter()
            .flat_map(|(_, parts)| parts.iter().map(|q| (q.op, q.site, q.peer, q.tag, q.bytes)))
            .collect()
    };
    assert_eq!(one(31), [(Op::Isend, 30, Peer::ProcNull, 5, 8)]);
    assert_eq!(one(33), [(Op::Irecv, 32, Peer::ProcNull, -1, 0)]);
    if !smpi {
        assert_eq!(
            one(38),
            [
                (Op::Irecv, 36, Peer::ProcNull, -1, 0),
                (Op::Isend, 37, Peer::ProcNull, 6, 8)
            ]
        );
    }
    // waits on requests no wrapper made complete nothing (and were counted above)
    for site in [41, 43] {
        let w = at(site);
        assert_eq!(w.len(), usize::from(unknown), "site {site}");
        assert!(w.iter().all(|(c, parts)| c.req_id == 0 && parts.is_empty()));
    }
}

fn check(traces: &[RankTrace], unknown: bool) {
    let p = traces.len() as u32;
    for t in traces {
        check_rank(t, p, unknown);
    }
    // every message sent to a rank is received by it (PROC_NULL moves none)
    let mut sent: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    let mut recvd: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    for t in traces {
        let me = t.header.rank as u32;
        for m in t.sent() {
            sent.entry((me, m.peer)).or_default().push((m.tag, m.bytes));
        }
        for m in t.received().into_iter().filter(|m| m.site != 42) {
            recvd
                .entry((m.peer, me))
                .or_default()
                .push((m.tag, m.bytes));
        }
    }
    for v in sent.values_mut().chain(recvd.values_mut()) {
        v.sort_unstable();
    }
    assert_eq!(sent, recvd);
    assert_eq!(
        sent.len(),
        2 * (p as usize - 1),
        "one channel each way between neighbours"
    );
}

#[test]
fn proc_null_requests_open_mpi() {
    for np in [1, 2, 3] {
        check(&traced(false, false, np, &[]), false);
    }
}

#[test]
fn proc_null_requests_smpi() {
    check(&traced(true, false, 3, &[]), false);
}

#[test]
fn proc_null_requests_fortran_open_mpi_and_smpi() {
    check(&traced(false, true, 3, &[]), false);
    check(&traced(true, true, 3, &[]), false);
}

/// Regression (trial 6 item 4): the shared handle must not hide a wait on a request no
/// wrapper made, to MPI_PROC_NULL or to a rank.
#[test]
fn unknown_requests_are_still_anomalies_open_mpi() {
    check(&traced(false, false, 2, &["unknown"]), true);
}
