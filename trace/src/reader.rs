//! Streaming reader of one rank's trace file: decodes records with `nom` from a fixed buffer
//! refilled from any `Read`, and never panics on bad input: every failure is a `TraceError`
//! naming the file, the byte offset and the record index.

use crate::error::TraceError;
use crate::format::*;
use nom::number::complete::{le_f64, le_i32, le_i64, le_u16, le_u32, le_u64, le_u8};
use nom::IResult;
use std::io::Read;
use std::path::{Path, PathBuf};

const BUF_LEN: usize = 1 << 16;

/// Reads records one at a time; holds at most 64 KiB of the file.
#[derive(Debug)]
pub struct TraceReader<R> {
    path: PathBuf,
    src: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    eof: bool,
    /// File offset of `buf[pos]`.
    offset: u64,
    index: u64,
    header: Header,
    seen_events: u64,
    seen_aggs: u64,
    trailer: Option<Trailer>,
    failed: bool,
}

fn take_n(i: &[u8], n: usize) -> IResult<&[u8], &[u8]> {
    nom::bytes::complete::take(n)(i)
}

fn stamp2(i: &[u8]) -> IResult<&[u8], (u64, u64, f64, f64)> {
    let (i, m0) = le_u64(i)?;
    let (i, m1) = le_u64(i)?;
    let (i, w0) = le_f64(i)?;
    let (i, w1) = le_f64(i)?;
    Ok((i, (m0, m1, w0, w1)))
}

/// Fields of a record whose kind and length were already checked; enum codes are returned raw
/// so the caller can report them with a position.
enum Raw {
    Mpi(u8, MpiCall),
    Part(u8, Part),
    Phase(Phase),
    Agg(u8, Aggregate),
    Trailer(Trailer),
}

fn parse_mpi(i: &[u8]) -> IResult<&[u8], Raw> {
    let (i, _kind) = le_u8(i)?;
    let (i, op) = le_u8(i)?;
    let (i, flags) = le_u16(i)?;
    let (i, site) = le_u32(i)?;
    let (i, peer) = le_i32(i)?;
    let (i, tag) = le_i32(i)?;
    let (i, bytes) = le_i64(i)?;
    let (i, comm_size) = le_i32(i)?;
    let (i, nparts) = le_u32(i)?;
    let (i, req_id) = le_u64(i)?;
    let (i, (m0, m1, w0, w1)) = stamp2(i)?;
    let call = MpiCall {
        op: Op::Init,
        flags,
        site,
        peer: Peer::decode(peer),
        tag,
        bytes,
        comm_size,
        nparts,
        req_id,
        start: Stamp {
            mono_ns: m0,
            wtime: w0,
        },
        end: Stamp {
            mono_ns: m1,
            wtime: w1,
        },
    };
    Ok((i, Raw::Mpi(op, call)))
}

fn parse_part(i: &[u8]) -> IResult<&[u8], Raw> {
    let (i, _kind) = le_u8(i)?;
    let (i, op) = le_u8(i)?;
    let (i, flags) = le_u16(i)?;
    let (i, site) = le_u32(i)?;
    let (i, peer) = le_i32(i)?;
    let (i, tag) = le_i32(i)?;
    let (i, bytes) = le_i64(i)?;
    let (i, req_id) = le_u64(i)?;
    let part = Part {
        op: Op::Init,
        flags,
        site,
        peer: Peer::decode(peer),
        tag,
        bytes,
        req_id,
    };
    Ok((i, Raw::Part(op, part)))
}

fn parse_phase(i: &[u8]) -> IResult<&[u8], Raw> {
    let (i, kind) = le_u8(i)?;
    let (i, _pad) = le_u8(i)?;
    let (i, depth) = le_u16(i)?;
    let (i, site) = le_u32(i)?;
    let (i, m0) = le_u64(i)?;
    let (i, m1) = le_u64(i)?;
    let (i, cpu_ns) = le_u64(i)?;
    let (i, w0) = le_f64(i)?;
    let (i, w1) = le_f64(i)?;
    let (i, entries) = if kind == KIND_PHASE_RUN {
        let (i, n) = le_u32(i)?;
        let (i, _pad) = le_u32(i)?;
        (i, n)
    } else {
        (i, 1)
    };
    let phase = Phase {
        site,
        depth,
        start: Stamp {
            mono_ns: m0,
            wtime: w0,
        },
        end: Stamp {
            mono_ns: m1,
            wtime: w1,
        },
        cpu_ns,
        entries,
    };
    Ok((i, Raw::Phase(phase)))
}

fn parse_agg(i: &[u8]) -> IResult<&[u8], Raw> {
    let (i, _kind) = le_u8(i)?;
    let (i, code) = le_u8(i)?;
    let (i, _pad) = le_u16(i)?;
    let (i, site) = le_u32(i)?;
    let (i, arm) = le_i32(i)?;
    let (i, _pad2) = le_u32(i)?;
    let (i, count) = le_u64(i)?;
    let (i, sum) = le_u64(i)?;
    let (i, min) = le_u64(i)?;
    let (i, max) = le_u64(i)?;
    let agg = Aggregate {
        kind: AggKind::Loop,
        site,
        arm,
        count,
        sum,
        min,
        max,
    };
    Ok((i, Raw::Agg(code, agg)))
}

fn parse_trailer(i: &[u8]) -> IResult<&[u8], Raw> {
    let (i, _head) = take_n(i, 8)?;
    let (i, events) = le_u64(i)?;
    let (i, aggregates) = le_u64(i)?;
    let (i, end_mono_ns) = le_u64(i)?;
    let (i, anomalies) = le_u32(i)?;
    let (i, _pad) = le_u32(i)?;
    Ok((
        i,
        Raw::Trailer(Trailer {
            events,
            aggregates,
            end_mono_ns,
            anomalies,
        }),
    ))
}

fn parse_header(i: &[u8]) -> IResult<&[u8], (&[u8], Header, u16)> {
    let (i, magic) = take_n(i, 8)?;
    let (i, version) = le_u16(i)?;
    let (i, header_len) = le_u16(i)?;
    let (i, flags) = le_u32(i)?;
    let (i, rank) = le_i32(i)?;
    let (i, world_size) = le_i32(i)?;
    let (i, pid) = le_u32(i)?;
    let (i, _pad) = le_u32(i)?;
    let (i, init_mono_ns) = le_u64(i)?;
    let (i, init_wtime) = le_f64(i)?;
    let (i, init_unix_ns) = le_u64(i)?;
    let (i, _pad2) = le_u64(i)?;
    let h = Header {
        version,
        flags,
        rank,
        world_size,
        pid,
        init_mono_ns,
        init_wtime,
        init_unix_ns,
    };
    Ok((i, (magic, h, header_len)))
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// Opens a trace file and reads its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let f = std::fs::File::open(path).map_err(|source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TraceReader::new(path, std::io::BufReader::with_capacity(0, f))
    }
}

impl<R: Read> TraceReader<R> {
    /// Wraps any byte source; `path` is only used in error messages.
    pub fn new(path: &Path, src: R) -> Result<Self, TraceError> {
        let mut r = TraceReader {
            path: path.to_path_buf(),
            src,
            buf: vec![0u8; BUF_LEN].into_boxed_slice(),
            pos: 0,
            end: 0,
            eof: false,
            offset: 0,
            index: 0,
            header: Header {
                version: 0,
                flags: 0,
                rank: 0,
                world_size: 0,
                pid: 0,
                init_mono_ns: 0,
                init_wtime: 0.0,
                init_unix_ns: 0,
            },
            seen_events: 0,
            seen_aggs: 0,
            trailer: None,
            failed: false,
        };
        r.fill(HEADER_LEN)?;
        let avail = &r.buf[r.pos..r.end];
        if avail.len() < MAGIC.len() || &avail[..MAGIC.len()] != MAGIC {
            if avail.len() < MAGIC.len() && MAGIC.starts_with(avail) {
                return Err(r.truncated("file header"));
            }
            return Err(TraceError::BadMagic {
                path: r.path.clone(),
            });
        }
        if avail.len() >= 10 {
            let version = u16::from_le_bytes([avail[8], avail[9]]);
            if version != VERSION {
                return Err(TraceError::Version {
                    path: r.path.clone(),
                    found: version,
                    expected: VERSION,
                });
            }
        }
        let (header, header_len) = match parse_header(avail) {
            Ok((_, (_, h, len))) => (h, len),
            Err(_) => return Err(r.truncated("file header")),
        };
        if usize::from(header_len) != HEADER_LEN {
            return Err(r.corrupt(format!("header length {header_len}, expected {HEADER_LEN}")));
        }
        if header.rank < 0 || header.world_size <= 0 || header.rank >= header.world_size {
            return Err(r.corrupt(format!(
                "rank {} of world size {} is impossible",
                header.rank, header.world_size
            )));
        }
        r.header = header;
        r.pos += HEADER_LEN;
        r.offset += HEADER_LEN as u64;
        Ok(r)
    }

    /// The file header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The trailer, once the reader has reached it.
    pub fn trailer(&self) -> Option<&Trailer> {
        self.trailer.as_ref()
    }

    /// The file named in errors.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Makes at least `want` bytes available from `pos`, unless the source ends first.
    fn fill(&mut self, want: usize) -> Result<(), TraceError> {
        if self.end - self.pos >= want || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.end < want && !self.eof {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(TraceError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            }
        }
        Ok(())
    }

    fn truncated(&self, what: &'static str) -> TraceError {
        TraceError::Truncated {
            path: self.path.clone(),
            offset: self.offset,
            index: self.index,
            what,
        }
    }

    fn corrupt(&self, reason: String) -> TraceError {
        TraceError::Corrupt {
            path: self.path.clone(),
            offset: self.offset,
            index: self.index,
            reason,
        }
    }

    /// The next record; `Ok(None)` after a trailer that ends the file. A file that ends without
    /// a trailer (rank killed or crashed before MPI_Finalize) is `TraceError::Truncated`.
    pub fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        if self.failed {
            return Ok(None);
        }
        let r = self.decode_next();
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    fn decode_next(&mut self) -> Result<Option<Record>, TraceError> {
        self.fill(MAX_RECORD)?;
        let avail = self.end - self.pos;
        if self.trailer.is_some() {
            if avail == 0 {
                return Ok(None);
            }
            return Err(self.corrupt(format!(
                "{avail} or more bytes after the trailer, which must end the file"
            )));
        }
        if avail == 0 {
            return Err(self.truncated("trace (no trailer: the rank did not reach MPI_Finalize)"));
        }
        let kind = self.buf[self.pos];
        let Some(len) = record_len(kind) else {
            return Err(self.corrupt(format!("unknown record kind {kind}")));
        };
        if avail < len {
            return Err(self.truncated("record"));
        }
        let bytes = &self.buf[self.pos..self.pos + len];
        let parsed = match kind {
            KIND_MPI => parse_mpi(bytes),
            KIND_PART => parse_part(bytes),
            KIND_PHASE | KIND_PHASE_RUN => parse_phase(bytes),
            KIND_AGG => parse_agg(bytes),
            _ => parse_trailer(bytes),
        };
        let raw = match parsed {
            Ok((_, raw)) => raw,
            Err(_) => return Err(self.truncated("record")),
        };
        let rec = match raw {
            Raw::Mpi(code, mut call) => {
                call.op = Op::from_code(code)
                    .ok_or_else(|| self.corrupt(format!("unknown MPI operation {code}")))?;
                Record::Mpi(call)
            }
            Raw::Part(code, mut part) => {
                part.op = Op::from_code(code)
                    .ok_or_else(|| self.corrupt(format!("unknown MPI operation {code}")))?;
                Record::Part(part)
            }
            Raw::Phase(p) => Record::Phase(p),
            Raw::Agg(code, mut a) => {
                a.kind = AggKind::from_code(code)
                    .ok_or_else(|| self.corrupt(format!("unknown aggregate kind {code}")))?;
                Record::Aggregate(a)
            }
            Raw::Trailer(t) => Record::Trailer(t),
        };
        match rec {
            Record::Mpi(_) | Record::Part(_) | Record::Phase(_) => {
                if self.seen_aggs > 0 {
                    return Err(self.corrupt("event record after the aggregate section".into()));
                }
                self.seen_events += 1;
            }
            Record::Aggregate(_) => self.seen_aggs += 1,
            Record::Trailer(t) => {
                if t.events != self.seen_events || t.aggregates != self.seen_aggs {
                    return Err(self.corrupt(format!(
                        "trailer counts {} events and {} aggregates, file holds {} and {}",
                        t.events, t.aggregates, self.seen_events, self.seen_aggs
                    )));
                }
                self.trailer = Some(t);
            }
        }
        self.pos += len;
        self.offset += len as u64;
        self.index += 1;
        Ok(Some(rec))
    }
}

impl<R: Read> Iterator for TraceReader<R> {
    type Item = Result<Record, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}
