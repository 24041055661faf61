//! Synthetic traces for unit tests: a small script per rank encoded with `trace::TraceWriter`
//! and read back with `RankTrace::from_bytes`, so the tests exercise the real decoder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::too_many_arguments)]

use std::path::Path;

use trace::{Header, MpiCall, Op, Part, Peer, Phase, RankTrace, Record, Stamp, TraceWriter};

/// One rank being scripted.
pub struct RankScript {
    w: TraceWriter,
    t: u64,
    next_req: u64,
    pub comm: i32,
}

fn stamp(t: u64) -> Stamp {
    Stamp {
        mono_ns: t,
        wtime: t as f64 * 1e-9,
    }
}

pub fn peer(r: i64) -> Peer {
    match r {
        -2 => Peer::ProcNull,
        -3 => Peer::Any,
        r => Peer::Rank(u32::try_from(r).unwrap()),
    }
}

impl RankScript {
    pub fn new(rank: i32, world: i32) -> RankScript {
        let h = Header {
            version: 1,
            flags: 0,
            rank,
            world_size: world,
            pid: 1,
            init_mono_ns: 0,
            init_wtime: 0.0,
            init_unix_ns: 0,
        };
        RankScript {
            w: TraceWriter::new(&h),
            t: 0,
            next_req: 1,
            comm: world,
        }
    }

    fn call(
        &mut self,
        op: Op,
        site: u32,
        peer: Peer,
        tag: i32,
        bytes: i64,
        req: u64,
        parts: &[Part],
    ) {
        self.call_flags(op, 0, site, peer, tag, bytes, req, parts);
    }

    fn call_flags(
        &mut self,
        op: Op,
        flags: u16,
        site: u32,
        peer: Peer,
        tag: i32,
        bytes: i64,
        req: u64,
        parts: &[Part],
    ) {
        self.t += 1000;
        let c = MpiCall {
            op,
            flags,
            site,
            peer,
            tag,
            bytes,
            comm_size: if op.is_completion() { 0 } else { self.comm },
            nparts: u32::try_from(parts.len()).unwrap(),
            req_id: req,
            start: stamp(self.t),
            end: stamp(self.t + 500),
        };
        self.w.record(&Record::Mpi(c));
        for p in parts {
            self.w.record(&Record::Part(*p));
        }
    }

    pub fn send(&mut self, site: u32, to: i64, tag: i32, bytes: i64) -> &mut Self {
        self.call(Op::Send, site, peer(to), tag, bytes, 0, &[]);
        self
    }

    pub fn recv(&mut self, site: u32, from: i64, tag: i32, bytes: i64) -> &mut Self {
        self.call(Op::Recv, site, peer(from), tag, bytes, 0, &[]);
        self
    }

    /// Returns the request id.
    pub fn isend(&mut self, site: u32, to: i64, tag: i32, bytes: i64) -> u64 {
        let r = self.next_req;
        self.next_req += 1;
        self.call(Op::Isend, site, peer(to), tag, bytes, r, &[]);
        r
    }

    /// `from` may be -3 (any source), `tag` -1 (any tag). Returns the request id.
    pub fn irecv(&mut self, site: u32, from: i64, tag: i32, bytes: i64) -> u64 {
        let r = self.next_req;
        self.next_req += 1;
        self.call(Op::Irecv, site, peer(from), tag, bytes, r, &[]);
        r
    }

    /// One start of a persistent request as the runtime records it: an Isend/Issend/Irecv
    /// record with `FLAG_STARTED` at the Start's site. Returns the request id.
    pub fn start(&mut self, site: u32, op: Op, peer_rank: i64, tag: i32, bytes: i64) -> u64 {
        let r = self.next_req;
        self.next_req += 1;
        let f = trace::format::FLAG_STARTED;
        self.call_flags(op, f, site, peer(peer_rank), tag, bytes, r, &[]);
        r
    }

    /// A record that moves no data (a persistent request's init, Request_free, a probe).
    pub fn note(&mut self, op: Op, site: u32, peer_rank: i64, tag: i32, bytes: i64) -> &mut Self {
        self.call(op, site, peer(peer_rank), tag, bytes, 0, &[]);
        self
    }

    /// A Waitall completing `parts`: (request id, originating op, site, actual peer, tag, bytes).
    pub fn waitall(&mut self, site: u32, parts: &[(u64, Op, u32, i64, i32, i64)]) -> &mut Self {
        let ps: Vec<Part> = parts
            .iter()
            .map(|&(req_id, op, s, p, tag, bytes)| Part {
                op,
                flags: 1,
                site: s,
                peer: peer(p),
                tag,
                bytes,
                req_id,
            })
            .collect();
        self.call(Op::Waitall, site, Peer::None, 0, ps.len() as i64, 0, &ps);
        self
    }

    pub fn sendrecv(
        &mut self,
        site: u32,
        to: i64,
        stag: i32,
        from: i64,
        rtag: i32,
        bytes: i64,
    ) -> &mut Self {
        let part = Part {
            op: Op::Recv,
            flags: 1,
            site,
            peer: peer(from),
            tag: rtag,
            bytes,
            req_id: 0,
        };
        self.call(Op::Sendrecv, site, peer(to), stag, bytes, 0, &[part]);
        self
    }

    /// A nonblocking collective's start as the runtime records it: a collective record with a
    /// request id, which it returns.
    pub fn icoll(&mut self, site: u32, op: Op, bytes: i64) -> u64 {
        let r = self.next_req;
        self.next_req += 1;
        self.call(op, site, Peer::None, 0, bytes, r, &[]);
        r
    }

    /// The Wait completing the nonblocking collective `req` started at `coll_site`.
    pub fn wait_coll(
        &mut self,
        site: u32,
        req: u64,
        op: Op,
        coll_site: u32,
        bytes: i64,
    ) -> &mut Self {
        let part = Part {
            op,
            flags: 0,
            site: coll_site,
            peer: Peer::None,
            tag: 0,
            bytes,
            req_id: req,
        };
        self.call(Op::Wait, site, Peer::None, 0, 0, req, &[part]);
        self
    }

    pub fn coll(&mut self, site: u32, op: Op, bytes: i64) -> &mut Self {
        self.call(op, site, Peer::None, 0, bytes, 0, &[]);
        self
    }

    pub fn compute(&mut self, site: u32, cpu_ns: u64) -> &mut Self {
        self.t += 1000;
        let p = Phase {
            site,
            depth: 0,
            start: stamp(self.t),
            end: stamp(self.t + cpu_ns),
            cpu_ns,
            entries: 1,
        };
        self.t += cpu_ns;
        self.w.record(&Record::Phase(p));
        self
    }

    pub fn finish(self) -> RankTrace {
        let bytes = self.w.finish(self.t + 1000, 0);
        RankTrace::from_bytes(Path::new("synthetic.augt"), bytes.as_slice()).unwrap()
    }
}

/// A world of `p` ranks scripted by `f(rank, script)`.
pub fn world(p: i32, mut f: impl FnMut(i64, &mut RankScript)) -> Vec<RankTrace> {
    (0..p)
        .map(|r| {
            let mut s = RankScript::new(r, p);
            f(i64::from(r), &mut s);
            s.finish()
        })
        .collect()
}
