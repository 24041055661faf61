//! Chrome/Perfetto trace-event JSON for one run, so a person can look at the timeline in
//! ui.perfetto.dev or chrome://tracing: one process per rank, MPI calls and computation phases
//! as complete ("X") slices, point-to-point messages as flow arrows from send to receive.

use crate::format::{Op, Peer, Stamp};
use crate::rank::{Event, RankTrace};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;

/// Which clock places events on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Host CLOCK_MONOTONIC, relative to the earliest MPI_Init of the run (one host only).
    Mono,
    /// MPI_Wtime, relative to each rank's MPI_Init (SMPI: simulated time, one global clock).
    Wtime,
    /// `Wtime` for SMPI traces, `Mono` otherwise.
    Auto,
}

/// Export options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportOptions {
    pub clock: Clock,
    /// Draw send→receive arrows (messages matched in order per (source, destination, tag)).
    pub flows: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            clock: Clock::Auto,
            flows: true,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExportStats {
    pub slices: usize,
    pub flows: usize,
}

struct Timeline {
    clock: Clock,
    mono0: u64,
}

impl Timeline {
    /// Microseconds since the timeline origin, or `None` when the clock has no value (wtime NaN).
    fn us(&self, rank: &RankTrace, s: &Stamp) -> Option<f64> {
        match self.clock {
            Clock::Wtime => {
                let w0 = if rank.header.smpi() {
                    0.0
                } else {
                    rank.header.init_wtime
                };
                s.wtime.is_finite().then_some((s.wtime - w0) * 1e6)
            }
            _ => Some(s.mono_ns.saturating_sub(self.mono0) as f64 / 1e3),
        }
    }
}

/// Writes the run's timeline as trace-event JSON to `out`.
pub fn export_perfetto(
    ranks: &[RankTrace],
    opts: ExportOptions,
    out: &mut dyn Write,
) -> std::io::Result<ExportStats> {
    let clock = match opts.clock {
        Clock::Auto if ranks.iter().all(|r| r.header.smpi()) && !ranks.is_empty() => Clock::Wtime,
        Clock::Auto => Clock::Mono,
        c => c,
    };
    let mono0 = ranks
        .iter()
        .flat_map(|r| {
            r.events
                .iter()
                .map(event_start_mono)
                .chain(std::iter::once(r.header.init_mono_ns))
        })
        .min()
        .unwrap_or(0);
    let tl = Timeline { clock, mono0 };
    let mut stats = ExportStats::default();
    let mut first = true;
    let mut emit = |out: &mut dyn Write, v: Value| -> std::io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::other)
    };
    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    // Sends waiting for their receive, per (from, to, tag): (flow id, ts of the send).
    let mut pending: BTreeMap<(u32, u32, i32), VecDeque<u64>> = BTreeMap::new();
    let mut next_flow = 1u64;
    // Flow ends are emitted after all sends so every arrow starts before it ends in the file.
    let mut flow_ends: Vec<((u32, u32, i32), Value)> = Vec::new();
    for r in ranks {
        let pid = r.header.rank;
        emit(
            out,
            json!({"ph":"M","name":"process_name","pid":pid,"args":{"name":format!("rank {pid}")}}),
        )?;
        emit(
            out,
            json!({"ph":"M","name":"process_sort_index","pid":pid,"args":{"sort_index":pid}}),
        )?;
        for e in &r.events {
            match e {
                Event::Phase(p) => {
                    let (Some(t0), Some(t1)) = (tl.us(r, &p.start), tl.us(r, &p.end)) else {
                        continue;
                    };
                    emit(
                        out,
                        json!({"ph":"X","cat":"compute","name":format!("phase {}", p.site),"pid":pid,"tid":0,
                            "ts":t0,"dur":(t1 - t0).max(0.0),
                            "args":{"site":p.site,"depth":p.depth,"cpu_us":p.cpu_ns as f64 / 1e3,"entries":p.entries}}),
                    )?;
                    stats.slices += 1;
                }
                Event::Mpi { call, .. } => {
                    let parts = r.parts_of(e);
                    let (Some(t0), Some(t1)) = (tl.us(r, &call.start), tl.us(r, &call.end)) else {
                        continue;
                    };
                    let mut args = json!({"site":call.site,"comm_size":call.comm_size});
                    if let Some(obj) = args.as_object_mut() {
                        if call.peer != Peer::None {
                            obj.insert("peer".into(), json!(peer_str(call.peer)));
                        }
                        if call.op.is_send() || call.op.is_recv() || call.op.is_sendrecv() {
                            obj.insert("tag".into(), json!(call.tag));
                        }
                        if call.bytes != 0 || !call.op.is_completion() {
                            obj.insert("bytes".into(), json!(call.bytes));
                        }
                        if call.req_id != 0 {
                            obj.insert("request".into(), json!(call.req_id));
                        }
                        if !parts.is_empty() {
                            let ps: Vec<Value> = parts
                                .iter()
                                .map(|p| json!({"op":p.op.mpi_name(),"peer":peer_str(p.peer),"tag":p.tag,"bytes":p.bytes,"request":p.req_id}))
                                .collect();
                            obj.insert("completed".into(), Value::Array(ps));
                        }
                    }
                    let cat = if call.op.is_collective() {
                        "collective"
                    } else {
                        "mpi"
                    };
                    emit(
                        out,
                        json!({"ph":"X","cat":cat,"name":call.op.mpi_name(),"pid":pid,"tid":0,"ts":t0,
                            "dur":(t1 - t0).max(0.0),"args":args}),
                    )?;
                    stats.slices += 1;
                    if !opts.flows {
                        continue;
                    }
                    // Arrow tails at sends (bound to the enclosing slice), heads at the call that
                    // completed the receive.
                    if call.op.is_send() || call.op.is_sendrecv() {
                        if let Some(to) = call.peer.rank() {
                            let id = next_flow;
                            next_flow += 1;
                            pending
                                .entry((pid.unsigned_abs(), to, call.tag))
                                .or_default()
                                .push_back(id);
                            emit(
                                out,
                                json!({"ph":"s","cat":"msg","name":"message","id":id,"pid":pid,"tid":0,"ts":t0}),
                            )?;
                        }
                    }
                    let mut recvs: Vec<(u32, i32)> = Vec::new();
                    if call.op == Op::Recv {
                        if let Some(from) = call.peer.rank() {
                            recvs.push((from, call.tag));
                        }
                    }
                    for p in parts
                        .iter()
                        .filter(|p| p.op == Op::Irecv || p.op == Op::Recv)
                    {
                        if let Some(from) = p.peer.rank() {
                            recvs.push((from, p.tag));
                        }
                    }
                    for (from, tag) in recvs {
                        flow_ends.push((
                            (from, pid.unsigned_abs(), tag),
                            json!({"ph":"f","bp":"e","cat":"msg","name":"message","pid":pid,"tid":0,"ts":t1}),
                        ));
                    }
                }
            }
        }
    }
    // Match receive heads to send tails in order (MPI's non-overtaking rule per source/tag).
    for (key, mut v) in flow_ends {
        let Some(id) = pending.get_mut(&key).and_then(VecDeque::pop_front) else {
            continue;
        };
        if let Some(obj) = v.as_object_mut() {
            obj.insert("id".into(), json!(id));
        }
        emit(out, v)?;
        stats.flows += 1;
    }
    out.write_all(b"\n]}\n")?;
    Ok(stats)
}

fn event_start_mono(e: &Event) -> u64 {
    match e {
        Event::Mpi { call, .. } => call.start.mono_ns,
        Event::Phase(p) => p.start.mono_ns,
    }
}

fn peer_str(p: Peer) -> String {
    match p {
        Peer::Rank(r) => r.to_string(),
        Peer::None => "none".into(),
        Peer::ProcNull => "MPI_PROC_NULL".into(),
        Peer::Any => "MPI_ANY_SOURCE".into(),
        Peer::Unknown => "unknown".into(),
    }
}
