//! Reader robustness: exact round trip, truncation at every byte, wrong magic/version, random
//! garbage and random corruption never panic and always name the file and a byte offset.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use std::path::Path;
use trace::*;

fn header(rank: i32, size: i32) -> Header {
    Header {
        version: format::VERSION,
        flags: 0,
        rank,
        world_size: size,
        pid: 42,
        init_mono_ns: 1_000,
        init_wtime: 0.5,
        init_unix_ns: 7,
    }
}

fn st(t: u64) -> Stamp {
    Stamp {
        mono_ns: t,
        wtime: t as f64 * 1e-9,
    }
}

fn sample_records() -> Vec<Record> {
    let isend = MpiCall {
        op: Op::Isend,
        flags: 0,
        site: 25,
        peer: Peer::Rank(1),
        tag: 7,
        bytes: 4000,
        comm_size: 2,
        nparts: 0,
        req_id: 1,
        start: st(10),
        end: st(20),
    };
    vec![
        Record::Phase(Phase {
            site: 21,
            depth: 0,
            start: st(1),
            end: st(9),
            cpu_ns: 8,
            entries: 1,
        }),
        Record::Mpi(isend),
        Record::Mpi(MpiCall {
            op: Op::Irecv,
            peer: Peer::Any,
            tag: -1,
            req_id: 2,
            ..isend
        }),
        Record::Mpi(MpiCall {
            op: Op::Waitall,
            peer: Peer::None,
            tag: 0,
            bytes: 2,
            comm_size: 0,
            nparts: 2,
            req_id: 0,
            ..isend
        }),
        Record::Part(Part {
            op: Op::Irecv,
            flags: 1,
            site: 24,
            peer: Peer::Rank(1),
            tag: 7,
            bytes: 4000,
            req_id: 2,
        }),
        Record::Part(Part {
            op: Op::Isend,
            flags: 1,
            site: 25,
            peer: Peer::Rank(1),
            tag: 7,
            bytes: 4000,
            req_id: 1,
        }),
        Record::Aggregate(Aggregate {
            kind: AggKind::Loop,
            site: 10,
            arm: 0,
            count: 3,
            sum: 600,
            min: 200,
            max: 200,
        }),
        Record::Aggregate(Aggregate {
            kind: AggKind::Branch,
            site: 23,
            arm: 1,
            count: 1,
            sum: 1,
            min: 1,
            max: 1,
        }),
    ]
}

fn sample_file() -> Vec<u8> {
    let mut w = TraceWriter::new(&header(0, 2));
    for r in sample_records() {
        w.record(&r);
    }
    w.finish(99, 0)
}

fn read_all(bytes: &[u8]) -> Result<RankTrace, TraceError> {
    RankTrace::from_bytes(Path::new("runs/P=2/rank-0.augt"), bytes)
}

#[test]
fn round_trip() {
    let bytes = sample_file();
    let mut r = TraceReader::new(Path::new("x"), bytes.as_slice()).unwrap();
    let mut got = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        got.push(rec);
    }
    let trailer = got.pop().unwrap();
    assert_eq!(got, sample_records());
    assert_eq!(
        trailer,
        Record::Trailer(Trailer {
            events: 6,
            aggregates: 2,
            end_mono_ns: 99,
            anomalies: 0
        })
    );
    assert_eq!(r.next_record().unwrap(), None);

    let t = read_all(&bytes).unwrap();
    assert_eq!(t.events.len(), 4);
    let (wait, parts) = t.mpi_calls().nth(2).unwrap();
    assert_eq!((wait.op, parts.len()), (Op::Waitall, 2));
    assert_eq!(
        t.received(),
        vec![Message {
            peer: 1,
            tag: 7,
            bytes: 4000,
            site: 24
        }]
    );
    assert_eq!(
        t.sent(),
        vec![Message {
            peer: 1,
            tag: 7,
            bytes: 4000,
            site: 25
        }]
    );
}

#[test]
fn every_truncation_is_a_positioned_error() {
    let bytes = sample_file();
    for cut in 0..bytes.len() {
        let e = read_all(&bytes[..cut]).expect_err("truncated file must not read");
        let msg = e.to_string();
        assert!(
            msg.starts_with("runs/P=2/rank-0.augt: "),
            "cut {cut}: {msg}"
        );
        match e {
            TraceError::Truncated { offset, .. } => {
                assert!(
                    offset <= cut as u64,
                    "cut {cut}: offset {offset} past the end"
                );
                assert!(msg.contains(&format!("byte {offset}")), "{msg}");
            }
            // cutting inside the magic leaves a prefix that is still a valid-looking start
            other => panic!("cut {cut}: expected Truncated, got {other}"),
        }
    }
}

#[test]
fn record_boundary_truncation_reports_record_index() {
    let bytes = sample_file();
    // header 64 + phase 48 + isend 72 = 184: the next record (index 2) is missing entirely
    let e = read_all(&bytes[..184]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "runs/P=2/rank-0.augt: byte 184 (record 2): truncated trace (no trailer: the rank did not reach MPI_Finalize)"
    );
    let e = read_all(&bytes[..190]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "runs/P=2/rank-0.augt: byte 184 (record 2): truncated record"
    );
}

#[test]
fn wrong_magic_and_version() {
    let mut bytes = sample_file();
    bytes[0] = b'X';
    assert!(matches!(read_all(&bytes), Err(TraceError::BadMagic { .. })));
    assert!(matches!(
        read_all(b"hello world, this is not a trace"),
        Err(TraceError::BadMagic { .. })
    ));
    let mut bytes = sample_file();
    bytes[8] = 9;
    let e = read_all(&bytes).unwrap_err();
    assert!(
        matches!(
            e,
            TraceError::Version {
                found: 9,
                expected: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("version 9"));
}

#[test]
fn structural_corruption_is_named() {
    let good = sample_file();
    // unknown record kind at the first record
    let mut b = good.clone();
    b[64] = 99;
    let e = read_all(&b).unwrap_err().to_string();
    assert_eq!(
        e,
        "runs/P=2/rank-0.augt: byte 64 (record 0): unknown record kind 99"
    );
    // unknown op in the isend (record 1 at byte 112)
    let mut b = good.clone();
    b[113] = 200;
    let e = read_all(&b).unwrap_err().to_string();
    assert_eq!(
        e,
        "runs/P=2/rank-0.augt: byte 112 (record 1): unknown MPI operation 200"
    );
    // waitall announcing 3 parts while 2 follow
    let mut b = good.clone();
    let waitall = 64 + 48 + 72 + 72;
    b[waitall + 28] = 3;
    let e = read_all(&b).unwrap_err().to_string();
    assert!(
        e.contains(&format!("byte {waitall} (record 3)")) && e.contains("more completion part"),
        "{e}"
    );
    // bytes after the trailer
    let mut b = good.clone();
    b.push(0);
    let e = read_all(&b).unwrap_err().to_string();
    assert!(
        e.contains(&format!("byte {}", good.len())) && e.contains("after the trailer"),
        "{e}"
    );
    // impossible rank in the header
    let mut b = good;
    b[16] = 5;
    let e = read_all(&b).unwrap_err().to_string();
    assert!(e.contains("rank 5 of world size 2"), "{e}");
}

#[test]
fn reads_through_tiny_chunks() {
    // A source that returns one byte per read exercises every refill path.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }
    let bytes = sample_file();
    let a = RankTrace::from_bytes(Path::new("t"), Trickle(&bytes)).unwrap();
    assert_eq!(a, read_all(&bytes).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = read_all(&bytes);
        let mut with_magic = b"AUGURTRC\x01\x00\x40\x00".to_vec();
        with_magic.extend_from_slice(&bytes);
        if let Err(e) = read_all(&with_magic) {
            prop_assert!(e.to_string().starts_with("runs/P=2/rank-0.augt: "));
        }
    }

    #[test]
    fn corrupted_bytes_never_panic(pos in 0usize..1000, val in any::<u8>(), cut in 0usize..1000) {
        let mut b = sample_file();
        let n = b.len();
        b[pos % n] = val;
        b.truncate(cut % (n + 1));
        if let Err(e) = read_all(&b) {
            prop_assert!(e.to_string().starts_with("runs/P=2/rank-0.augt: "));
        }
    }
}

fn arb_stamp() -> impl Strategy<Value = Stamp> {
    (any::<u64>(), prop_oneof![Just(f64::NAN), -1e9f64..1e9])
        .prop_map(|(mono_ns, wtime)| Stamp { mono_ns, wtime })
}

fn arb_peer() -> impl Strategy<Value = Peer> {
    prop_oneof![
        (0u32..1 << 30).prop_map(Peer::Rank),
        Just(Peer::None),
        Just(Peer::ProcNull),
        Just(Peer::Any),
        Just(Peer::Unknown)
    ]
}

fn arb_op() -> impl Strategy<Value = Op> {
    (1u8..=31).prop_map(|c| Op::from_code(c).unwrap())
}

/// A random well-formed event sequence: MPI calls followed by exactly the parts they announce.
fn arb_events() -> impl Strategy<Value = Vec<Record>> {
    let call = (
        arb_op(),
        any::<u16>(),
        any::<u32>(),
        arb_peer(),
        any::<i32>(),
        any::<i64>(),
        any::<i32>(),
        0u32..3,
        any::<u64>(),
        arb_stamp(),
        arb_stamp(),
    );
    let part = (
        arb_op(),
        any::<u16>(),
        any::<u32>(),
        arb_peer(),
        any::<i32>(),
        any::<i64>(),
        any::<u64>(),
    )
        .prop_map(|(op, flags, site, peer, tag, bytes, req_id)| Part {
            op,
            flags,
            site,
            peer,
            tag,
            bytes,
            req_id,
        });
    let mpi = (call, proptest::collection::vec(part, 2)).prop_map(
        |((op, flags, site, peer, tag, bytes, comm_size, nparts, req_id, start, end), parts)| {
            let mut v = vec![Record::Mpi(MpiCall {
                op,
                flags,
                site,
                peer,
                tag,
                bytes,
                comm_size,
                nparts,
                req_id,
                start,
                end,
            })];
            v.extend(parts.into_iter().take(nparts as usize).map(Record::Part));
            v
        },
    );
    let phase = (
        any::<u32>(),
        any::<u16>(),
        arb_stamp(),
        arb_stamp(),
        any::<u64>(),
        prop_oneof![Just(1u32), any::<u32>()],
    )
        .prop_map(|(site, depth, start, end, cpu_ns, entries)| {
            vec![Record::Phase(Phase {
                site,
                depth,
                start,
                end,
                cpu_ns,
                entries,
            })]
        });
    proptest::collection::vec(prop_oneof![mpi, phase], 0..40)
        .prop_map(|v| v.into_iter().flatten().collect())
}

fn same(a: &Record, b: &Record) -> bool {
    // NaN wtimes compare by bits
    format!("{a:?}") == format!("{b:?}")
}

proptest! {
    #[test]
    fn writer_reader_round_trip(events in arb_events(), aggs in proptest::collection::vec((1u8..=4, any::<u32>(), any::<i32>(), any::<[u64; 4]>()), 0..10)) {
        let mut w = TraceWriter::new(&header(1, 3));
        for e in &events {
            w.record(e);
        }
        let kinds = [AggKind::Loop, AggKind::Branch, AggKind::Call, AggKind::TestPending];
        let aggs: Vec<Record> = aggs
            .into_iter()
            .map(|(k, site, arm, [count, sum, min, max])| {
                Record::Aggregate(Aggregate { kind: kinds[usize::from(k - 1)], site, arm, count, sum, min, max })
            })
            .collect();
        for a in &aggs {
            w.record(a);
        }
        let bytes = w.finish(5, 2);
        let mut r = TraceReader::new(Path::new("p"), bytes.as_slice()).unwrap();
        let mut got = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            got.push(rec);
        }
        let expect: Vec<Record> = events.iter().chain(aggs.iter()).cloned().collect();
        prop_assert_eq!(got.len(), expect.len() + 1);
        for (g, e) in got.iter().zip(&expect) {
            prop_assert!(same(g, e), "{:?} != {:?}", g, e);
        }
        let t = RankTrace::from_bytes(Path::new("p"), bytes.as_slice()).unwrap();
        prop_assert_eq!(t.trailer.anomalies, 2);
        prop_assert_eq!(t.aggregates.len(), aggs.len());
    }
}
