//! End to end: nonblocking collectives, Exscan and Reduce_scatter_block (tests/data/icoll.c and
//! icoll.f90) traced under Open MPI and SMPI. Each start is a collective record with its bytes,
//! communicator size and a request id; the Wait/Waitall/Waitany/Test that completes it carries
//! a Part with the same op, site, peer and bytes; nothing is an anomaly, also on one rank, where
//! Open MPI hands every such request its one shared empty handle. Fails loudly if MPI is missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use trace::*;

mod common;

const NSTEPS: usize = 3;

/// (op, peer, bytes, communicator size) every rank records at a site, once per step.
type Want = (Op, Peer, i64, i32);

fn run(smpi: bool, fortran: bool, np: u32) -> Vec<RankTrace> {
    let args = if fortran {
        Vec::new()
    } else {
        vec![NSTEPS.to_string()]
    };
    let ranks = common::traced("icoll", smpi, fortran, np, &args);
    assert_eq!(ranks.len(), np as usize);
    ranks
}

/// What rank `me` of `p` records at each site (see icoll.c / icoll.f90).
fn expected(me: u32, p: u32, fortran: bool) -> BTreeMap<u32, Want> {
    let n = p as i32;
    let last = Peer::Rank(p - 1);
    let root = Peer::Rank(0);
    let mut w = BTreeMap::from([
        (10, (Op::Iallreduce, Peer::None, 64, n)),
        (12, (Op::Ibcast, last, 12, n)),
        (20, (Op::Ibarrier, Peer::None, 0, n)),
        (21, (Op::Ireduce, root, 16, n)),
        (
            27,
            (Op::ReduceScatterBlock, Peer::None, 16 * i64::from(n), n),
        ),
    ]);
    if fortran {
        w.insert(14, (Op::Exscan, Peer::None, 8, n));
        return w;
    }
    // the half communicator holds the ranks of my parity
    let half = (p - me % 2).div_ceil(2) as i32;
    w.extend([
        (14, (Op::Exscan, Peer::None, 16, n)),
        (15, (Op::Iallreduce, Peer::None, 8, half)),
        (22, (Op::Iallgather, Peer::None, 8, n)),
        (23, (Op::Ialltoall, Peer::None, 8, n)),
        (24, (Op::Igather, root, 12, n)),
        (25, (Op::Iscatter, root, 5, n)),
        (30, (Op::Iallreduce, Peer::None, 64, n)),
        (31, (Op::Ibcast, root, 12, n)),
    ]);
    w
}

/// Completion sites and the start sites each completion call's Parts name, in order.
fn completions(fortran: bool) -> Vec<(u32, Op, Vec<u32>)> {
    let mut c = vec![(11, Op::Wait, vec![10]), (13, Op::Wait, vec![12])];
    if fortran {
        c.push((26, Op::Waitall, vec![20, 21]));
    } else {
        c.push((16, Op::Test, vec![15]));
        c.push((26, Op::Waitall, (20..26).collect()));
    }
    c
}

fn check(ranks: &[RankTrace], fortran: bool) {
    let p = ranks.len() as u32;
    for t in ranks {
        let me = t.header.rank as u32;
        assert_eq!(t.trailer.anomalies, 0, "rank {me} of {p} anomalies");
        let calls: Vec<(&MpiCall, &[Part])> = t.mpi_calls().collect();
        let at = |site: u32| -> Vec<(&MpiCall, &[Part])> {
            calls
                .iter()
                .filter(|(c, _)| c.site == site)
                .copied()
                .collect()
        };
        for (site, want) in expected(me, p, fortran) {
            let got: Vec<Want> = at(site)
                .iter()
                .map(|(c, _)| (c.op, c.peer, c.bytes, c.comm_size))
                .collect();
            assert_eq!(got, vec![want; NSTEPS], "rank {me} of {p} site {site}");
            assert!(want.0.is_collective(), "{want:?}");
            let flags = at(site)[0].0.flags;
            assert_eq!(flags & format::FLAG_FORTRAN != 0, fortran, "site {site}");
        }
        // every nonblocking start has its own request id, completed once by a Part that
        // repeats it
        let mut issued: BTreeMap<u64, &MpiCall> = BTreeMap::new();
        let mut completed: BTreeMap<u64, u32> = BTreeMap::new();
        for (c, parts) in &calls {
            if c.op.is_nonblocking_collective() {
                assert_ne!(c.req_id, 0, "{c:?}");
                assert!(issued.insert(c.req_id, c).is_none(), "id reused: {c:?}");
            }
            if c.op.is_completion() {
                assert_eq!(c.nparts as usize, parts.len(), "{c:?}");
                for q in *parts {
                    let s = issued.get(&q.req_id).unwrap_or_else(|| panic!("{q:?}"));
                    assert_eq!(
                        (q.op, q.site, q.peer, q.tag, q.bytes),
                        (s.op, s.site, s.peer, 0, s.bytes),
                        "rank {me} of {p}"
                    );
                    *completed.entry(q.req_id).or_default() += 1;
                }
            }
        }
        assert_eq!(issued.len(), completed.len(), "rank {me} of {p}");
        assert!(completed.values().all(|&n| n == 1), "{completed:?}");
        for (site, op, starts) in completions(fortran) {
            let done = at(site);
            assert_eq!(done.len(), NSTEPS, "rank {me} of {p} site {site}");
            for (c, parts) in done {
                assert_eq!(c.op, op);
                let sites: Vec<u32> = parts.iter().map(|q| q.site).collect();
                assert_eq!(sites, starts, "rank {me} of {p} site {site}");
            }
        }
        if !fortran {
            // two Waitanys per step complete the Iallreduce and the Ibcast, one each
            let any = at(32);
            assert_eq!(any.len(), 2 * NSTEPS);
            for pair in any.chunks(2) {
                let mut sites: Vec<u32> = pair
                    .iter()
                    .flat_map(|(_, q)| q.iter().map(|q| q.site))
                    .collect();
                sites.sort_unstable();
                assert_eq!(sites, [30, 31], "rank {me} of {p}");
            }
        }
    }
}

#[test]
fn c_under_open_mpi() {
    check(&run(false, false, 4), false);
}

#[test]
fn c_on_one_rank_shares_the_empty_handle() {
    check(&run(false, false, 1), false);
}

#[test]
fn c_under_smpi() {
    check(&run(true, false, 3), false);
}

#[test]
fn fortran_under_open_mpi() {
    check(&run(false, true, 4), true);
}

#[test]
fn fortran_under_smpi() {
    check(&run(true, true, 3), true);
}
