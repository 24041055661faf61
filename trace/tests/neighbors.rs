//! End to end: MPI_Neighbor_alltoall, MPI_Neighbor_allgather and their v forms (tests/data/neighbors.c,
//! neighbors.f90) traced under Open MPI: each call a collective record with the block sent to
//! each neighbour and the ring's size, nothing an anomaly. Trial 26: a ring exchanging halos
//! with MPI_Neighbor_alltoall had it "outside augur's table", its loop taken for a computation
//! phase. SimGrid 3.32 does not implement them (`Not yet implemented: PMPI_Neighbor_alltoall`),
//! so there is no SMPI case. Fails loudly if MPI is missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use trace::*;

mod common;

const NSTEPS: usize = 3;

fn check(ranks: &[RankTrace], fortran: bool) {
    let p = ranks.len() as i32;
    for t in ranks {
        let me = t.header.rank;
        assert_eq!(t.trailer.anomalies, 0, "rank {me} of {p} anomalies");
        // the tag: the messages posted each way, 2 on a 1-D Cartesian ring
        let at = |site: u32| -> Vec<(Op, i64, i32, i32)> {
            t.mpi_calls()
                .filter(|(c, _)| c.site == site)
                .map(|(c, _)| (c.op, c.bytes, c.comm_size, c.tag))
                .collect()
        };
        assert_eq!(
            at(10),
            vec![(Op::NeighborAlltoall, 16, p, 2); NSTEPS],
            "rank {me}"
        );
        assert_eq!(
            at(11),
            vec![(Op::NeighborAllgather, 12, p, 2); NSTEPS],
            "rank {me}"
        );
        // the v forms: the mean block over the neighbours, (1 + 3) / 2 doubles
        assert_eq!(
            at(12),
            vec![(Op::NeighborAlltoallv, 16, p, 2); NSTEPS],
            "rank {me}"
        );
        assert_eq!(
            at(13),
            vec![(Op::NeighborAllgatherv, 12, p, 2); NSTEPS],
            "rank {me}"
        );
        assert!(Op::NeighborAlltoall.is_collective());
        let fortran_flag = t
            .mpi_calls()
            .find(|(c, _)| c.site == 10)
            .is_some_and(|(c, _)| c.flags & format::FLAG_FORTRAN != 0);
        assert_eq!(fortran_flag, fortran);
    }
}

#[test]
fn neighbourhood_collectives_are_traced_in_c() {
    for np in [1, 3] {
        check(
            &common::traced("neighbors", false, false, np, &[NSTEPS.to_string()]),
            false,
        );
    }
}

#[test]
fn neighbourhood_collectives_are_traced_in_fortran() {
    check(&common::traced("neighbors", false, true, 3, &[]), true);
}
