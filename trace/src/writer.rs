//! Encoder for the trace format, byte-identical to what `runtime/c/augur_trace.c` writes. Used
//! to build synthetic traces for tests and benchmarks of downstream crates (cpg, model) without
//! running MPI; the runtime itself stays the only writer of real traces.

use crate::format::*;

/// Appends encoded records to a byte vector; `finish` adds the trailer with correct counts.
#[derive(Debug, Clone)]
pub struct TraceWriter {
    buf: Vec<u8>,
    events: u64,
    aggregates: u64,
}

fn stamp(b: &mut Vec<u8>, s0: &Stamp, s1: &Stamp) {
    b.extend_from_slice(&s0.mono_ns.to_le_bytes());
    b.extend_from_slice(&s1.mono_ns.to_le_bytes());
    b.extend_from_slice(&s0.wtime.to_le_bytes());
    b.extend_from_slice(&s1.wtime.to_le_bytes());
}

fn peer_code(p: Peer) -> i32 {
    match p {
        Peer::Rank(r) => i32::try_from(r).unwrap_or(-4),
        Peer::None => -1,
        Peer::ProcNull => -2,
        Peer::Any => -3,
        Peer::Unknown => -4,
    }
}

fn agg_code(k: AggKind) -> u8 {
    match k {
        AggKind::Loop => 1,
        AggKind::Branch => 2,
        AggKind::Call => 3,
        AggKind::TestPending => 4,
    }
}

impl TraceWriter {
    /// Starts a file with `header` (its `version` field is written as given).
    pub fn new(header: &Header) -> TraceWriter {
        let mut b = Vec::with_capacity(4096);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&header.version.to_le_bytes());
        b.extend_from_slice(&(HEADER_LEN as u16).to_le_bytes());
        b.extend_from_slice(&header.flags.to_le_bytes());
        b.extend_from_slice(&header.rank.to_le_bytes());
        b.extend_from_slice(&header.world_size.to_le_bytes());
        b.extend_from_slice(&header.pid.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&header.init_mono_ns.to_le_bytes());
        b.extend_from_slice(&header.init_wtime.to_le_bytes());
        b.extend_from_slice(&header.init_unix_ns.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        TraceWriter {
            buf: b,
            events: 0,
            aggregates: 0,
        }
    }

    /// Appends one record (a `Trailer` record is ignored: `finish` writes it).
    pub fn record(&mut self, r: &Record) -> &mut Self {
        let b = &mut self.buf;
        match r {
            Record::Mpi(c) => {
                b.extend_from_slice(&[KIND_MPI, c.op as u8]);
                b.extend_from_slice(&c.flags.to_le_bytes());
                b.extend_from_slice(&c.site.to_le_bytes());
                b.extend_from_slice(&peer_code(c.peer).to_le_bytes());
                b.extend_from_slice(&c.tag.to_le_bytes());
                b.extend_from_slice(&c.bytes.to_le_bytes());
                b.extend_from_slice(&c.comm_size.to_le_bytes());
                b.extend_from_slice(&c.nparts.to_le_bytes());
                b.extend_from_slice(&c.req_id.to_le_bytes());
                stamp(b, &c.start, &c.end);
                self.events += 1;
            }
            Record::Part(p) => {
                b.extend_from_slice(&[KIND_PART, p.op as u8]);
                b.extend_from_slice(&p.flags.to_le_bytes());
                b.extend_from_slice(&p.site.to_le_bytes());
                b.extend_from_slice(&peer_code(p.peer).to_le_bytes());
                b.extend_from_slice(&p.tag.to_le_bytes());
                b.extend_from_slice(&p.bytes.to_le_bytes());
                b.extend_from_slice(&p.req_id.to_le_bytes());
                self.events += 1;
            }
            Record::Phase(p) => {
                let run = p.entries != 1;
                b.extend_from_slice(&[if run { KIND_PHASE_RUN } else { KIND_PHASE }, 0]);
                b.extend_from_slice(&p.depth.to_le_bytes());
                b.extend_from_slice(&p.site.to_le_bytes());
                b.extend_from_slice(&p.start.mono_ns.to_le_bytes());
                b.extend_from_slice(&p.end.mono_ns.to_le_bytes());
                b.extend_from_slice(&p.cpu_ns.to_le_bytes());
                b.extend_from_slice(&p.start.wtime.to_le_bytes());
                b.extend_from_slice(&p.end.wtime.to_le_bytes());
                if run {
                    b.extend_from_slice(&p.entries.to_le_bytes());
                    b.extend_from_slice(&0u32.to_le_bytes());
                }
                self.events += 1;
            }
            Record::Aggregate(a) => {
                b.extend_from_slice(&[KIND_AGG, agg_code(a.kind), 0, 0]);
                b.extend_from_slice(&a.site.to_le_bytes());
                b.extend_from_slice(&a.arm.to_le_bytes());
                b.extend_from_slice(&0u32.to_le_bytes());
                for v in [a.count, a.sum, a.min, a.max] {
                    b.extend_from_slice(&v.to_le_bytes());
                }
                self.aggregates += 1;
            }
            Record::Trailer(_) => {}
        }
        self
    }

    /// Bytes so far, without a trailer (what a crashed rank leaves behind).
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Appends the trailer and returns the complete file.
    pub fn finish(mut self, end_mono_ns: u64, anomalies: u32) -> Vec<u8> {
        self.buf
            .extend_from_slice(&[KIND_TRAILER, 0, 0, 0, 0, 0, 0, 0]);
        self.buf.extend_from_slice(&self.events.to_le_bytes());
        self.buf.extend_from_slice(&self.aggregates.to_le_bytes());
        self.buf.extend_from_slice(&end_mono_ns.to_le_bytes());
        self.buf.extend_from_slice(&anomalies.to_le_bytes());
        self.buf.extend_from_slice(&0u32.to_le_bytes());
        self.buf
    }
}
