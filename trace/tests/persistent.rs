//! End to end: persistent requests (Send_init/Ssend_init/Recv_init, Start, Startall,
//! Request_free) and probes traced by the runtime under Open MPI and SMPI
//! (tests/data/persist.c, persist.f90). Each start is recorded as the Isend/Issend/Irecv it
//! makes, completed by the usual waits, and nothing in the run is an anomaly. Persistent sends
//! restarted while their previous message is still in flight arrive under SMPI, which loses
//! them without the runtime's remaking (tests/data/relay.c, relay.f90). Fails loudly if MPI is
//! missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use trace::*;

mod common;

const NSTEPS: usize = 6;

/// persist.c (persist.f90 when `fortran`) on `np` ranks.
fn traced(smpi: bool, fortran: bool, np: u32) -> Vec<RankTrace> {
    common::traced("persist", smpi, fortran, np, &[NSTEPS.to_string()])
}

fn check(traces: &[RankTrace]) {
    let p = traces.len() as u32;
    let started = |c: &MpiCall| c.flags & format::FLAG_STARTED != 0;
    for t in traces {
        let me = t.header.rank as u32;
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        assert_eq!(t.trailer.anomalies, 0, "rank {me} anomalies");
        let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
        let at = |site: u32| -> Vec<(&MpiCall, &[Part])> {
            calls
                .iter()
                .filter(|(c, _)| c.site == site)
                .copied()
                .collect()
        };
        // the inits: the request's message, no request id, no data moved
        let inits: Vec<_> = (10..16)
            .map(|s| {
                let v = at(s);
                assert_eq!(v.len(), 1, "site {s}");
                let c = v[0].0;
                assert_eq!(c.req_id, 0);
                (c.op, c.peer, c.tag, c.bytes)
            })
            .collect();
        assert_eq!(
            inits,
            [
                (Op::RecvInit, Peer::Rank(left), 1, 32),
                (Op::RecvInit, Peer::Rank(right), 2, 32),
                (Op::SendInit, Peer::Rank(right), 1, 32),
                (Op::SsendInit, Peer::Rank(left), 2, 32),
                (Op::RecvInit, Peer::Any, 3, 4),
                (Op::SendInit, Peer::Rank(right), 3, 4),
            ]
        );
        // Startall: per step the four messages it starts, in array order, at its site
        let s20 = at(20);
        assert_eq!(s20.len(), 4 * NSTEPS, "one record per started request");
        for step in s20.chunks(4) {
            let ops: Vec<_> = step.iter().map(|(c, _)| (c.op, c.peer, c.bytes)).collect();
            assert_eq!(
                ops,
                [
                    (Op::Irecv, Peer::Rank(left), 32),
                    (Op::Irecv, Peer::Rank(right), 32),
                    (Op::Isend, Peer::Rank(right), 32),
                    (Op::Issend, Peer::Rank(left), 32),
                ]
            );
            assert!(step.iter().all(|(c, _)| started(c) && c.req_id != 0));
        }
        // each start is completed once by the following wait, whose parts name the Start's site
        let mut issued = BTreeMap::new();
        let mut completed: BTreeMap<u64, u32> = BTreeMap::new();
        for (c, parts) in &calls {
            if matches!(c.op, Op::Isend | Op::Issend | Op::Irecv) {
                assert!(issued.insert(c.req_id, c.site).is_none(), "id reused");
            }
            if c.op.is_completion() {
                for part in *parts {
                    assert_eq!(issued.get(&part.req_id), Some(&part.site), "{part:?}");
                    *completed.entry(part.req_id).or_default() += 1;
                }
            }
            assert!(
                !matches!(c.op, Op::Start | Op::Startall),
                "every start was of a known request: {c:?}"
            );
        }
        assert!(completed.values().all(|&n| n == 1));
        assert!(at(21)
            .iter()
            .all(|(c, parts)| parts.len() == 4 && c.nparts == 4));
        assert!(
            at(22).iter().all(|(_, parts)| parts.is_empty()),
            "inactive persistent requests complete nothing"
        );
        for (site, op, peer) in [
            (23, Op::Irecv, Peer::Any),
            (24, Op::Isend, Peer::Rank(right)),
        ] {
            let v = at(site);
            assert_eq!(v.len(), NSTEPS);
            assert!(v
                .iter()
                .all(|(c, _)| c.op == op && c.peer == peer && started(c)));
        }
        // the wildcard receive's completion carries the actual source
        for (_, parts) in at(26) {
            assert_eq!(parts[0].peer, Peer::Rank(left));
        }
        // probes: the message found, with its actual source and size
        let probe = at(31)[0].0;
        assert_eq!(
            (probe.op, probe.peer, probe.tag, probe.bytes),
            (Op::Probe, Peer::Rank(left), 5, 8 * (i64::from(left) + 1))
        );
        assert_ne!(probe.flags & format::FLAG_ACTUAL, 0);
        let found: Vec<_> = at(36)
            .iter()
            .map(|(c, _)| (c.op, c.peer, c.tag, c.bytes))
            .collect();
        assert_eq!(found, [(Op::Iprobe, Peer::Rank(right), 6, 4)]);
        // a start freed while pending is abandoned: the free names it, nothing completes it
        let (pending, _) = at(40)[0];
        assert!(started(pending) && pending.op == Op::Irecv);
        assert_eq!(at(41)[0].0.req_id, pending.req_id);
        assert!(!completed.contains_key(&pending.req_id));
        assert_eq!(issued.len(), completed.len() + 1);
        let frees = at(45).len() + at(46).len();
        assert_eq!(frees, 5);
        assert!(at(45)
            .iter()
            .chain(at(46).iter())
            .all(|(c, _)| c.op == Op::RequestFree && c.req_id == 0));
        // Scatterv/Gatherv: the root records the mean block it moves, the others their own
        let block = if me == 0 {
            8 * i64::from(p) * (i64::from(p) + 1) / 2 / i64::from(p)
        } else {
            8 * (i64::from(me) + 1)
        };
        for (site, op) in [(47, Op::Scatterv), (48, Op::Gatherv)] {
            let c = at(site)[0].0;
            assert_eq!(
                (c.op, c.peer, c.bytes),
                (op, Peer::Rank(0), block),
                "site {site}"
            );
        }
    }
    // every started send is received by its peer (the abandoned receive's message aside)
    let mut sent: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    let mut recvd: BTreeMap<(u32, u32), Vec<(i32, i64)>> = BTreeMap::new();
    for t in traces {
        let me = t.header.rank as u32;
        for m in t.sent().into_iter().filter(|m| m.site != 43) {
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
    assert_eq!(sent, recvd);
}

/// The Fortran program makes the same calls as the C one, less the wildcard pair, the freed
/// start and the v-collectives.
fn check_fortran(traces: &[RankTrace]) {
    let p = traces.len() as u32;
    for t in traces {
        let me = t.header.rank as u32;
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        assert_eq!(t.trailer.anomalies, 0, "rank {me} anomalies");
        let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
        let at = |site: u32| -> Vec<(&MpiCall, &[Part])> {
            calls
                .iter()
                .filter(|(c, _)| c.site == site)
                .copied()
                .collect()
        };
        assert!(calls
            .iter()
            .all(|(c, _)| c.flags & format::FLAG_FORTRAN != 0));
        let inits: Vec<_> = (10..14)
            .map(|s| at(s)[0].0)
            .map(|c| (c.op, c.peer, c.tag, c.bytes, c.req_id))
            .collect();
        assert_eq!(
            inits,
            [
                (Op::RecvInit, Peer::Rank(left), 1, 32, 0),
                (Op::RecvInit, Peer::Rank(right), 2, 32, 0),
                (Op::SendInit, Peer::Rank(right), 1, 32, 0),
                (Op::SsendInit, Peer::Rank(left), 2, 32, 0),
            ]
        );
        let s20 = at(20);
        assert_eq!(s20.len(), 4 * NSTEPS);
        let ops: Vec<_> = s20[..4].iter().map(|(c, _)| c.op).collect();
        assert_eq!(ops, [Op::Irecv, Op::Irecv, Op::Isend, Op::Issend]);
        assert!(s20.iter().all(|(c, _)| c.flags & format::FLAG_STARTED != 0));
        let mut issued = BTreeMap::new();
        let mut completed = 0;
        for (c, parts) in &calls {
            if matches!(c.op, Op::Isend | Op::Issend | Op::Irecv) {
                assert!(issued.insert(c.req_id, c.site).is_none());
            }
            for part in parts.iter().filter(|_| c.op.is_completion()) {
                assert_eq!(issued.get(&part.req_id), Some(&part.site), "{part:?}");
                completed += 1;
            }
        }
        assert_eq!(issued.len(), completed, "every start completed once");
        assert_eq!(at(23).len(), NSTEPS);
        assert_eq!(at(24).len(), NSTEPS);
        for (_, parts) in at(26) {
            assert_eq!((parts[0].op, parts[0].peer), (Op::Irecv, Peer::Rank(left)));
        }
        let probe = at(31)[0].0;
        assert_eq!(
            (probe.op, probe.peer, probe.tag, probe.bytes),
            (Op::Probe, Peer::Rank(left), 5, 8 * (i64::from(left) + 1))
        );
        let iprobe = at(36)[0].0;
        assert_eq!(
            (iprobe.op, iprobe.peer, iprobe.tag, iprobe.bytes),
            (Op::Iprobe, Peer::Rank(right), 6, 8)
        );
        assert_eq!(at(45).len(), 4);
    }
}

#[test]
fn persistent_requests_open_mpi() {
    for np in [2, 3] {
        check(&traced(false, false, np));
    }
}

#[test]
fn persistent_requests_smpi() {
    check(&traced(true, false, 3));
}

#[test]
fn persistent_requests_fortran_open_mpi_and_smpi() {
    check_fortran(&traced(false, true, 3));
    check_fortran(&traced(true, true, 3));
}

/// Messages each rank of relay.c / relay.f90 sends before receiving any.
const RELAY: usize = 3;

/// relay.c (relay.f90 when `fortran`) on 3 ranks: the program itself aborts unless every
/// message arrives in order; the trace shows each start as its own Isend, completed once by the
/// wait after it.
fn check_relay(smpi: bool, fortran: bool) {
    let traces = common::traced("relay", smpi, fortran, 3, &[RELAY.to_string()]);
    let p = traces.len() as u32;
    for t in &traces {
        let me = t.header.rank as u32;
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        assert_eq!(t.trailer.anomalies, 0, "rank {me} anomalies");
        let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
        let starts: Vec<&MpiCall> = calls
            .iter()
            .filter(|(c, _)| c.site == 11 || c.site == 12)
            .map(|(c, _)| *c)
            .collect();
        let sites: Vec<u32> = starts.iter().map(|c| c.site).collect();
        assert_eq!(sites, [11, 12, 11], "rank {me}: Start, Startall, Start");
        for c in &starts {
            assert_eq!(
                (c.op, c.peer, c.tag, c.bytes),
                (Op::Isend, Peer::Rank(right), 7, 16)
            );
            assert_ne!(c.flags & format::FLAG_STARTED, 0);
        }
        let waited: Vec<u64> = calls
            .iter()
            .filter(|(c, _)| c.site == 13)
            .map(|(_, parts)| {
                assert_eq!(parts.len(), 1, "rank {me}: each wait completes its start");
                parts[0].req_id
            })
            .collect();
        let ids: Vec<u64> = starts.iter().map(|c| c.req_id).collect();
        assert_eq!(waited, ids, "rank {me}");
        let recvs: Vec<Peer> = calls
            .iter()
            .filter(|(c, _)| c.site == 14)
            .map(|(c, _)| c.peer)
            .collect();
        assert_eq!(recvs, vec![Peer::Rank(left); RELAY]);
        let free: Vec<u64> = calls
            .iter()
            .filter(|(c, _)| c.site == 16)
            .map(|(c, _)| c.req_id)
            .collect();
        assert_eq!(free, [0], "rank {me}: the freed request was inactive");
    }
}

#[test]
fn restarted_persistent_sends_arrive_c() {
    check_relay(false, false);
    check_relay(true, false);
}

#[test]
fn restarted_persistent_sends_arrive_fortran() {
    check_relay(false, true);
    check_relay(true, true);
}
