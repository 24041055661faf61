//! Reader throughput: writes a synthetic trace of realistic record mix to a temp file, then
//! streams it back with `TraceReader` and prints events/s and MB/s (target ≥ 10 M events/s).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;
use trace::*;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let header = Header {
        version: format::VERSION,
        flags: 0,
        rank: 0,
        world_size: 4,
        pid: 1,
        init_mono_ns: 1,
        init_wtime: 0.0,
        init_unix_ns: 0,
    };
    let mut w = TraceWriter::new(&header);
    let s = |t: u64| Stamp {
        mono_ns: t,
        wtime: t as f64 * 1e-9,
    };
    // Mix per 4 events: Isend, Irecv, Waitall + its 2 parts would be 5; use phase, isend, wait, part.
    let mut written = 0u64;
    let mut t = 0u64;
    while written < n {
        t += 1000;
        w.record(&Record::Phase(Phase {
            site: 3,
            depth: 0,
            start: s(t),
            end: s(t + 500),
            cpu_ns: 480,
            entries: 1,
        }));
        w.record(&Record::Mpi(MpiCall {
            op: Op::Isend,
            flags: 0,
            site: 4,
            peer: Peer::Rank(1),
            tag: 7,
            bytes: 8192,
            comm_size: 4,
            nparts: 0,
            req_id: written,
            start: s(t + 510),
            end: s(t + 520),
        }));
        w.record(&Record::Mpi(MpiCall {
            op: Op::Wait,
            flags: 0,
            site: 5,
            peer: Peer::None,
            tag: 0,
            bytes: 0,
            comm_size: 0,
            nparts: 1,
            req_id: written,
            start: s(t + 530),
            end: s(t + 900),
        }));
        w.record(&Record::Part(Part {
            op: Op::Isend,
            flags: 1,
            site: 4,
            peer: Peer::Rank(1),
            tag: 7,
            bytes: 8192,
            req_id: written,
        }));
        written += 4;
    }
    let bytes = w.finish(t + 1000, 0);
    let dir = std::env::temp_dir().join(format!("augur-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rank-0.augt");
    std::fs::write(&path, &bytes).unwrap();

    let mut best = f64::INFINITY;
    let mut count = 0u64;
    let mut check = 0i64;
    for _ in 0..3 {
        let t0 = Instant::now();
        let mut r = TraceReader::open(&path).unwrap();
        count = 0;
        check = 0;
        while let Some(rec) = r.next_record().unwrap() {
            count += 1;
            if let Record::Mpi(c) = rec {
                check += c.bytes;
            }
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let expect_check = (written / 4) as i64 * 8192;
    println!("case                 records        bytes   seconds   M events/s    MB/s  check");
    println!(
        "stream TraceReader {:>10} {:>12} {:>9.3} {:>12.1} {:>7.0}  {}",
        count,
        bytes.len(),
        best,
        count as f64 / best / 1e6,
        bytes.len() as f64 / best / 1e6,
        if check == expect_check && count == written + 1 {
            "ok"
        } else {
            "MISMATCH"
        }
    );
    let t0 = Instant::now();
    let rt = RankTrace::read(&path).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "RankTrace::read    {:>10} {:>12} {:>9.3} {:>12.1} {:>7.0}  {}",
        rt.events.len(),
        bytes.len(),
        secs,
        written as f64 / secs / 1e6,
        bytes.len() as f64 / secs / 1e6,
        if rt.trailer.events == written {
            "ok"
        } else {
            "MISMATCH"
        }
    );
    let _ = std::fs::remove_dir_all(&dir);
}
