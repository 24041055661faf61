//! Step 1 of seed 004 Fig. 2: every rank's point-to-point actions and collective calls, read
//! from its trace in its own event order, and each send matched to its receive.
//!
//! Rules (MPI non-overtaking, per-processor order only; clocks are never compared across ranks):
//! - A channel is (sender, receiver, communicator size, tag), with world ranks. The trace records
//!   a call's communicator only by its size, so two communicators of one size carrying the same
//!   (sender, receiver, tag) traffic could be confused; messages on communicators of different
//!   sizes never are.
//! - On a channel the k-th send in the sender's posting order matches the k-th receive in the
//!   receiver's posting order. A receive's channel uses the *actual* source and tag (from the
//!   status of a blocking receive or from the Part of the wait that completed an Irecv), so
//!   wildcard receives match like any other.
//! - A send takes effect where it is posted (Send or Isend); a receive where its data is known to
//!   have arrived (a blocking Recv, or the Wait/Waitall/Test that completed the Irecv). Sendrecv
//!   is a send (sub-position 0) followed by a receive (sub-position 1) at the same event.
//! - `MPI_PROC_NULL` peers make no action (counted per site; a send half's position is kept for
//!   the pipeline test of [`crate::phases`]). An Irecv never completed through a
//!   wrapper has no actual source and makes no action (counted).

use std::collections::BTreeMap;

use trace::{Event, Op, Peer, RankTrace};

/// Direction of a point-to-point action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dir {
    Send,
    Recv,
}

/// A position in one rank's event order: (event index, sub-position).
pub type Pos = (usize, u8);

/// One send or receive as one processor saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub site: u32,
    pub dir: Dir,
    /// The other processor (world rank).
    pub peer: u32,
    pub tag: i32,
    pub bytes: i64,
    /// Size of the communicator the call used.
    pub comm: i32,
    /// Where the action takes effect on this processor (see module docs).
    pub at: Pos,
    /// Where it was posted (the matching order).
    pub post: Pos,
    /// Event index of a multi-request completion (Waitall) that completed it with others.
    pub join: Option<usize>,
}

/// One collective call.
#[derive(Debug, Clone, PartialEq)]
pub struct CollCall {
    pub site: u32,
    pub op: Op,
    pub bytes: i64,
    pub comm: i32,
    pub at: usize,
    /// The call's duration on this rank, seconds (MPI_Wtime: simulated under SMPI).
    pub seconds: f64,
    /// Neighbourhood collectives: the messages the call posts each way (the record's tag); 0
    /// for the others.
    pub neighbours: u32,
}

/// Everything one rank did, in its event order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankActions {
    pub rank: u32,
    pub p2p: Vec<Action>,
    pub coll: Vec<CollCall>,
    /// Calls (or halves) whose peer was `MPI_PROC_NULL`, per site.
    pub proc_null: BTreeMap<u32, u64>,
    /// Where send halves addressed to `MPI_PROC_NULL` were posted: (site, position). They move
    /// no data, but the processor executed its send there (a boundary rank of an exchange),
    /// which the pipeline test needs.
    pub null_sends: Vec<(u32, Pos)>,
    /// Irecvs never completed through a wrapper, and peers that could not be translated.
    pub incomplete: u64,
    pub unknown_peer: u64,
}

/// A matched message: indexes into `ranks[r].p2p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched {
    pub from: u32,
    pub send: usize,
    pub to: u32,
    pub recv: usize,
    pub bytes: i64,
}

/// Result of matching a whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matching {
    pub ranks: Vec<RankActions>,
    pub messages: Vec<Matched>,
    /// Sends / receives left without a partner, per site.
    pub unmatched_sends: BTreeMap<u32, u64>,
    pub unmatched_recvs: BTreeMap<u32, u64>,
}

/// Reads one rank's actions.
pub fn actions(rank: u32, t: &RankTrace) -> RankActions {
    let mut out = RankActions {
        rank,
        ..RankActions::default()
    };
    // request id -> (site, comm, posted position) of Irecvs; -> action index of Isends
    let mut posted: BTreeMap<u64, (u32, i32, Pos)> = BTreeMap::new();
    let mut isends: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, e) in t.events.iter().enumerate() {
        let Event::Mpi { call, .. } = e else { continue };
        let parts = t.parts_of(e);
        let push =
            |out: &mut RankActions, site, dir, peer: Peer, tag, bytes, comm, at, post| match peer {
                Peer::Rank(r) => {
                    out.p2p.push(Action {
                        site,
                        dir,
                        peer: r,
                        tag,
                        bytes,
                        comm,
                        at,
                        post,
                        join: None,
                    });
                    Some(out.p2p.len() - 1)
                }
                Peer::ProcNull => {
                    *out.proc_null.entry(site).or_default() += 1;
                    if dir == Dir::Send {
                        out.null_sends.push((site, at));
                    }
                    None
                }
                _ => {
                    out.unknown_peer += 1;
                    None
                }
            };
        let c = call;
        if c.op.is_send() {
            let idx = push(
                &mut out,
                c.site,
                Dir::Send,
                c.peer,
                c.tag,
                c.bytes,
                c.comm_size,
                (i, 0),
                (i, 0),
            );
            if let (true, Some(k)) = (c.req_id != 0, idx) {
                isends.insert(c.req_id, k);
            }
        } else if c.op == Op::Recv {
            push(
                &mut out,
                c.site,
                Dir::Recv,
                c.peer,
                c.tag,
                c.bytes,
                c.comm_size,
                (i, 0),
                (i, 0),
            );
        } else if c.op == Op::Irecv {
            if c.req_id != 0 {
                posted.insert(c.req_id, (c.site, c.comm_size, (i, 0)));
            }
        } else if c.op.is_sendrecv() {
            push(
                &mut out,
                c.site,
                Dir::Send,
                c.peer,
                c.tag,
                c.bytes,
                c.comm_size,
                (i, 0),
                (i, 0),
            );
            for p in parts.iter().filter(|p| p.op == Op::Recv) {
                push(
                    &mut out,
                    c.site,
                    Dir::Recv,
                    p.peer,
                    p.tag,
                    p.bytes,
                    c.comm_size,
                    (i, 1),
                    (i, 1),
                );
            }
        } else if c.op.is_completion() {
            let join = (parts.len() > 1).then_some(i);
            for p in parts {
                match p.op {
                    Op::Irecv => {
                        let Some((site, comm, post)) = posted.remove(&p.req_id) else {
                            out.incomplete += 1;
                            continue;
                        };
                        let idx = push(
                            &mut out,
                            site,
                            Dir::Recv,
                            p.peer,
                            p.tag,
                            p.bytes,
                            comm,
                            (i, 0),
                            post,
                        );
                        if let Some(a) = idx.and_then(|k| out.p2p.get_mut(k)) {
                            a.join = join;
                        }
                    }
                    _ => {
                        if let Some(k) = isends.remove(&p.req_id) {
                            if let Some(a) = out.p2p.get_mut(k) {
                                a.join = join;
                            }
                        }
                    }
                }
            }
        } else if c.op.is_collective() {
            let wall = call.end.wtime - call.start.wtime;
            let seconds = if wall.is_finite() {
                wall
            } else {
                call.end.mono_ns.saturating_sub(call.start.mono_ns) as f64 * 1e-9
            };
            out.coll.push(CollCall {
                site: c.site,
                op: c.op,
                bytes: c.bytes,
                comm: c.comm_size,
                at: i,
                seconds: seconds.max(0.0),
                neighbours: if c.op.is_neighbourhood() {
                    u32::try_from(c.tag).unwrap_or(0)
                } else {
                    0
                },
            });
        }
    }
    out.incomplete += posted.len() as u64;
    out
}

type Channel = (u32, u32, i32, i32);
/// Per channel: the sends (action indexes, posting order) and the receives (posting position, index).
type Queues = (Vec<usize>, Vec<(Pos, usize)>);

/// Matches every send of the run with its receive (see module docs).
pub fn match_run(traces: &[RankTrace]) -> Matching {
    let ranks: Vec<RankActions> = traces
        .iter()
        .map(|t| actions(u32::try_from(t.header.rank).unwrap_or(u32::MAX), t))
        .collect();
    // index into `ranks` by world rank
    let slot: BTreeMap<u32, usize> = ranks.iter().enumerate().map(|(i, r)| (r.rank, i)).collect();
    let mut chans: BTreeMap<Channel, Queues> = BTreeMap::new();
    for r in &ranks {
        for (k, a) in r.p2p.iter().enumerate() {
            match a.dir {
                Dir::Send => chans
                    .entry((r.rank, a.peer, a.comm, a.tag))
                    .or_default()
                    .0
                    .push(k),
                Dir::Recv => chans
                    .entry((a.peer, r.rank, a.comm, a.tag))
                    .or_default()
                    .1
                    .push((a.post, k)),
            }
        }
    }
    let mut m = Matching {
        ranks,
        ..Matching::default()
    };
    for ((from, to, _, _), (sends, mut recvs)) in chans {
        recvs.sort();
        let n = sends.len().min(recvs.len());
        for (&s, &(_, r)) in sends.iter().zip(&recvs) {
            let bytes = slot
                .get(&from)
                .and_then(|&i| m.ranks.get(i))
                .and_then(|ra| ra.p2p.get(s))
                .map_or(0, |a| a.bytes);
            m.messages.push(Matched {
                from,
                send: s,
                to,
                recv: r,
                bytes,
            });
        }
        for &s in &sends[n..] {
            if let Some(a) = slot
                .get(&from)
                .and_then(|&i| m.ranks.get(i))
                .and_then(|ra| ra.p2p.get(s))
            {
                *m.unmatched_sends.entry(a.site).or_default() += 1;
            }
        }
        for &(_, r) in &recvs[n..] {
            if let Some(a) = slot
                .get(&to)
                .and_then(|&i| m.ranks.get(i))
                .and_then(|ra| ra.p2p.get(r))
            {
                *m.unmatched_recvs.entry(a.site).or_default() += 1;
            }
        }
    }
    m
}

impl Matching {
    /// The actions of world rank `rank`.
    pub fn rank(&self, rank: u32) -> Option<&RankActions> {
        // ranks are stored in rank order by `read_run`; fall back to a search otherwise
        match self.ranks.get(rank as usize) {
            Some(r) if r.rank == rank => Some(r),
            _ => self.ranks.iter().find(|r| r.rank == rank),
        }
    }

    /// The action at (rank, index).
    pub fn action(&self, rank: u32, k: usize) -> Option<&Action> {
        self.rank(rank).and_then(|r| r.p2p.get(k))
    }
}
