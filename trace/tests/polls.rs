//! End to end: requests completed by MPI_Testall, MPI_Testany, MPI_Testsome and MPI_Waitsome
//! (tests/data/polls.c, polls.f90) traced under Open MPI and SMPI. Trial 26: a program polling
//! its halo with MPI_Testall was traced with none of its requests completed (an anomaly per
//! request, the exchange lost from the phases). Each call that completes requests is a record
//! with a Part per request, every request is completed once, the sends and receives pair up
//! across the ring, and nothing is an anomaly. Under SMPI the Testany rounds are left out: SimGrid
//! 3.32's MPI_Testany reports no active request while two sends are left, and a program polling
//! it until all are done never ends. Fails loudly if MPI is missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use trace::*;

mod common;

const NSTEPS: usize = 3;

/// `smpi`: traced under SMPI, where the rounds completed by MPI_Testany are left out and an
/// MPI_Testall may complete some of its requests while returning flag = 0 (see late_pair).
fn check(ranks: &[RankTrace], smpi: bool) {
    let testany = !smpi;
    let rounds = if testany { 4 } else { 3 };
    let p = ranks.len() as u32;
    for t in ranks {
        let me = t.header.rank as u32;
        let (left, right) = ((me + p - 1) % p, (me + 1) % p);
        assert_eq!(t.trailer.anomalies, 0, "rank {me} of {p} anomalies");
        let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
        let mut issued: BTreeMap<u64, &MpiCall> = BTreeMap::new();
        for (c, _) in &calls {
            if (10..=13).contains(&c.site) {
                assert_ne!(c.req_id, 0, "{c:?}");
                issued.insert(c.req_id, c);
                let peer = if matches!(c.site, 10 | 13) {
                    left
                } else {
                    right
                };
                assert_eq!(c.peer, Peer::Rank(peer), "rank {me} of {p}: {c:?}");
            }
        }
        assert_eq!(issued.len(), rounds * 4 * NSTEPS, "rank {me} of {p}");
        // by completion site: (op, Parts over the run)
        let mut parts_at: BTreeMap<u32, (Op, usize)> = BTreeMap::new();
        let mut completed: BTreeMap<u64, u32> = BTreeMap::new();
        for (c, parts) in &calls {
            if !c.op.is_completion() {
                continue;
            }
            assert_eq!(c.nparts as usize, parts.len(), "{c:?}");
            assert!(
                !parts.is_empty(),
                "a completion record completes something: {c:?}"
            );
            assert_eq!(c.bytes, 4, "the request count: {c:?}");
            let e = parts_at.entry(c.site).or_insert((c.op, 0));
            assert_eq!(e.0, c.op, "{c:?}");
            e.1 += parts.len();
            for q in *parts {
                let s = issued.get(&q.req_id).unwrap_or_else(|| panic!("{q:?}"));
                assert_eq!((q.op, q.site), (s.op, s.site), "rank {me} of {p}");
                *completed.entry(q.req_id).or_default() += 1;
            }
        }
        let mut want = BTreeMap::from([
            (14, (Op::Testall, 4 * NSTEPS)),
            (15, (Op::Testany, 4 * NSTEPS)),
            (16, (Op::Testsome, 4 * NSTEPS)),
            (17, (Op::Waitsome, 4 * NSTEPS)),
        ]);
        if !testany {
            want.remove(&15);
        }
        assert_eq!(parts_at, want, "rank {me} of {p}");
        assert_eq!(completed.len(), issued.len(), "rank {me} of {p}");
        assert!(completed.values().all(|&n| n == 1), "{completed:?}");
        // a Testall completes the four at once, where MPI is kept
        if !smpi {
            for (c, parts) in calls.iter().filter(|(c, _)| c.site == 14) {
                assert_eq!(parts.len(), 4, "{c:?}");
            }
        }
    }
}

#[test]
fn c_tests_and_waitsome_complete_their_requests_under_open_mpi() {
    for np in [1, 3] {
        check(
            &common::traced("polls", false, false, np, &[NSTEPS.to_string()]),
            false,
        );
    }
}

#[test]
fn fortran_tests_and_waitsome_complete_their_requests_under_open_mpi() {
    check(&common::traced("polls", false, true, 3, &[]), false);
}

#[test]
fn tests_and_waitsome_complete_their_requests_under_smpi() {
    let args = [NSTEPS.to_string(), "1".into()];
    check(&common::traced("polls", true, false, 3, &args), true);
    check(&common::traced("polls", true, true, 2, &["1".into()]), true);
}

/// late_pair (tests/data/late_pair.c, .f90): rank 0 polls its receives of A (site 10) and B
/// (site 11) with MPI_Testall (site 14) while B cannot yet be sent. Each receive is completed
/// once by a Part of a site-14 record, with A's status, and nothing is an anomaly; under SMPI,
/// where SimGrid 3.32's MPI_Testall frees A's request in a call that returns flag = 0, as well
/// as natively.
fn check_late_pair(ranks: &[RankTrace], smpi: bool) {
    assert_eq!(ranks.len(), 2);
    for t in ranks {
        assert_eq!(t.trailer.anomalies, 0, "rank {}", t.header.rank);
    }
    let calls: Vec<(&MpiCall, &[Part])> = ranks[0].mpi_calls().collect();
    let posted: BTreeMap<u32, u64> = calls
        .iter()
        .filter(|(c, _)| c.op == Op::Irecv)
        .map(|(c, _)| (c.site, c.req_id))
        .collect();
    assert_eq!(posted.len(), 2, "{calls:?}");
    let parts: Vec<&Part> = calls
        .iter()
        .filter(|(c, _)| c.op.is_completion())
        .inspect(|(c, _)| assert_eq!((c.op, c.site), (Op::Testall, 14), "{c:?}"))
        .flat_map(|(_, p)| p.iter())
        .collect();
    let mut by_site: Vec<(u32, u64)> = parts.iter().map(|q| (q.site, q.req_id)).collect();
    by_site.sort();
    assert_eq!(
        by_site,
        vec![(10, posted[&10]), (11, posted[&11])],
        "{parts:?}"
    );
    // the case itself: under SMPI A's receive is completed in a Testall of its own, before the
    // one that sets the flag with B's; natively one Testall completes both
    let records: Vec<usize> = calls
        .iter()
        .filter(|(c, p)| c.op.is_completion() && !p.is_empty())
        .map(|(_, p)| p.len())
        .collect();
    assert_eq!(
        records,
        if smpi { vec![1, 1] } else { vec![2] },
        "{calls:?}"
    );
    for q in parts {
        let tag = if q.site == 10 { 1 } else { 2 };
        assert_eq!((q.peer, q.tag, q.bytes), (Peer::Rank(1), tag, 8), "{q:?}");
    }
}

#[test]
fn a_testall_that_frees_requests_without_flag_still_completes_them() {
    for (smpi, fortran) in [(false, false), (false, true), (true, false), (true, true)] {
        check_late_pair(&common::traced("late_pair", smpi, fortran, 2, &[]), smpi);
    }
}
