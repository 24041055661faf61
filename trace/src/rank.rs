//! A whole rank's trace in memory: events in program order with completion parts attached to
//! the call that completed them, and per-site aggregates. Built from the streaming reader.

use crate::error::TraceError;
use crate::format::*;
use crate::reader::TraceReader;
use serde::Serialize;
use std::io::Read;
use std::path::Path;

/// One event in program order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Event {
    /// An MPI call; its `call.nparts` Parts (completions, Sendrecv's receive half) are
    /// `RankTrace::parts[first_part..first_part + call.nparts]` (see `RankTrace::parts_of`).
    Mpi {
        call: MpiCall,
        first_part: usize,
    },
    Phase(Phase),
}

/// Everything one rank recorded. Parts live in one vector beside the events (no allocation per
/// call): large traces read at stream speed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankTrace {
    pub header: Header,
    pub events: Vec<Event>,
    /// Every Part in file order; each MPI event owns a contiguous range.
    pub parts: Vec<Part>,
    pub aggregates: Vec<Aggregate>,
    pub trailer: Trailer,
}

impl RankTrace {
    /// Reads and checks a whole trace file.
    pub fn read(path: &Path) -> Result<RankTrace, TraceError> {
        Self::from_reader(TraceReader::open(path)?)
    }

    /// Reads and checks a trace from any byte source (`path` names it in errors).
    pub fn from_bytes(path: &Path, src: impl Read) -> Result<RankTrace, TraceError> {
        Self::from_reader(TraceReader::new(path, src)?)
    }

    fn from_reader<R: Read>(mut r: TraceReader<R>) -> Result<RankTrace, TraceError> {
        let header = *r.header();
        let mut events = Vec::new();
        let mut all_parts = Vec::new();
        let mut aggregates = Vec::new();
        // Parts still owed to the last MPI call, and where that call started (for errors).
        let mut owed = 0u32;
        let mut owed_at = (0u64, 0u64);
        let mut index = 0u64;
        loop {
            let offset = r.offset();
            let Some(rec) = r.next_record()? else { break };
            let misplaced = |what: &str| TraceError::Corrupt {
                path: r.path().to_path_buf(),
                offset,
                index,
                reason: what.to_string(),
            };
            if owed > 0 && !matches!(rec, Record::Part(_)) {
                return Err(TraceError::Corrupt {
                    path: r.path().to_path_buf(),
                    offset: owed_at.0,
                    index: owed_at.1,
                    reason: format!(
                        "MPI record announces {owed} more completion part(s) than follow it"
                    ),
                });
            }
            match rec {
                Record::Mpi(call) => {
                    owed = call.nparts;
                    owed_at = (offset, index);
                    events.push(Event::Mpi {
                        call,
                        first_part: all_parts.len(),
                    });
                }
                Record::Part(p) => {
                    if owed == 0 {
                        return Err(misplaced(
                            "completion part without a preceding MPI call that announces it",
                        ));
                    }
                    owed -= 1;
                    all_parts.push(p);
                }
                Record::Phase(p) => events.push(Event::Phase(p)),
                Record::Aggregate(a) => aggregates.push(a),
                Record::Trailer(_) => {}
            }
            index += 1;
        }
        let trailer = match r.trailer() {
            Some(t) => *t,
            None => {
                return Err(TraceError::Truncated {
                    path: r.path().to_path_buf(),
                    offset: r.offset(),
                    index,
                    what: "trace (no trailer)",
                })
            }
        };
        Ok(RankTrace {
            header,
            events,
            parts: all_parts,
            aggregates,
            trailer,
        })
    }

    /// The Parts of an `Event::Mpi` (empty for phases).
    pub fn parts_of(&self, e: &Event) -> &[Part] {
        match e {
            Event::Mpi { call, first_part } => {
                let end = first_part.saturating_add(call.nparts as usize);
                self.parts.get(*first_part..end).unwrap_or(&[])
            }
            Event::Phase(_) => &[],
        }
    }

    /// The MPI calls in program order, each with its Parts.
    pub fn mpi_calls(&self) -> impl Iterator<Item = (&MpiCall, &[Part])> {
        self.events.iter().filter_map(|e| match e {
            Event::Mpi { call, .. } => Some((call, self.parts_of(e))),
            Event::Phase(_) => None,
        })
    }

    /// The computation-phase entries in program order.
    pub fn phases(&self) -> impl Iterator<Item = &Phase> {
        self.events.iter().filter_map(|e| match e {
            Event::Phase(p) => Some(p),
            Event::Mpi { .. } => None,
        })
    }

    /// Every message this rank sent, as (world destination, tag, bytes, site):
    /// blocking and nonblocking sends and the send half of Sendrecv(_replace). PROC_NULL peers are skipped.
    pub fn sent(&self) -> Vec<Message> {
        let mut out = Vec::new();
        for (c, _) in self.mpi_calls() {
            if c.op.is_send() || c.op.is_sendrecv() {
                if let Some(to) = c.peer.rank() {
                    out.push(Message {
                        peer: to,
                        tag: c.tag,
                        bytes: c.bytes,
                        site: c.site,
                    });
                }
            }
        }
        out
    }

    /// Every message this rank received with its actual source: blocking receives, completed
    /// Irecvs (from their completion part) and the receive half of Sendrecv(_replace).
    pub fn received(&self) -> Vec<Message> {
        let mut out = Vec::new();
        for (c, parts) in self.mpi_calls() {
            if c.op == Op::Recv {
                if let Some(from) = c.peer.rank() {
                    out.push(Message {
                        peer: from,
                        tag: c.tag,
                        bytes: c.bytes,
                        site: c.site,
                    });
                }
            }
            for p in parts {
                if p.op == Op::Irecv || p.op == Op::Recv {
                    if let Some(from) = p.peer.rank() {
                        out.push(Message {
                            peer: from,
                            tag: p.tag,
                            bytes: p.bytes,
                            site: p.site,
                        });
                    }
                }
            }
        }
        out
    }
}

/// One point-to-point message as seen from one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Message {
    /// World rank of the other side.
    pub peer: u32,
    pub tag: i32,
    pub bytes: i64,
    /// Site of the call that posted it on this side.
    pub site: u32,
}
