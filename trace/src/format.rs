//! The per-rank event format (version 1): constants and record types, mirrored from
//! `runtime/c/augur_trace.c` and specified in `docs/trace-format.md`. Change all three together.

use serde::Serialize;

/// First 8 bytes of every trace file.
pub const MAGIC: &[u8; 8] = b"AUGURTRC";
/// The format version this crate reads and the runtime writes.
pub const VERSION: u16 = 1;
/// Header length in bytes (also stored in the header, bytes 10..12).
pub const HEADER_LEN: usize = 64;
/// File name extension of a rank's trace.
pub const EXTENSION: &str = "augt";

pub(crate) const KIND_MPI: u8 = 1;
pub(crate) const KIND_PART: u8 = 2;
pub(crate) const KIND_PHASE: u8 = 3;
pub(crate) const KIND_PHASE_RUN: u8 = 4;
pub(crate) const KIND_AGG: u8 = 16;
pub(crate) const KIND_TRAILER: u8 = 127;
pub(crate) const LEN_MPI: usize = 72;
pub(crate) const LEN_PART: usize = 32;
pub(crate) const LEN_PHASE: usize = 48;
pub(crate) const LEN_PHASE_RUN: usize = 56;
pub(crate) const LEN_AGG: usize = 48;
pub(crate) const LEN_TRAILER: usize = 40;
/// The longest record; a reader holding this many bytes can always decode the next record.
pub(crate) const MAX_RECORD: usize = 72;

/// Record length by kind byte, `None` for an unknown kind.
pub(crate) fn record_len(kind: u8) -> Option<usize> {
    match kind {
        KIND_MPI => Some(LEN_MPI),
        KIND_PART => Some(LEN_PART),
        KIND_PHASE => Some(LEN_PHASE),
        KIND_PHASE_RUN => Some(LEN_PHASE_RUN),
        KIND_AGG => Some(LEN_AGG),
        KIND_TRAILER => Some(LEN_TRAILER),
        _ => None,
    }
}

/// The file header: who wrote the file and the clocks at MPI_Init.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Header {
    pub version: u16,
    pub flags: u32,
    /// Rank in MPI_COMM_WORLD.
    pub rank: i32,
    pub world_size: i32,
    pub pid: u32,
    /// Host CLOCK_MONOTONIC at the end of MPI_Init, ns.
    pub init_mono_ns: u64,
    /// MPI_Wtime at the end of MPI_Init (simulated under SMPI).
    pub init_wtime: f64,
    /// Host CLOCK_REALTIME at the end of MPI_Init, ns since the Unix epoch.
    pub init_unix_ns: u64,
}

impl Header {
    /// Written by the runtime compiled with `smpicc` (MPI_Wtime is simulated time).
    pub fn smpi(&self) -> bool {
        self.flags & 1 != 0
    }
    /// MPI_Init was called through the Fortran wrappers.
    pub fn fortran(&self) -> bool {
        self.flags & 2 != 0
    }
}

macro_rules! ops {
    ($($name:ident = $code:literal, $mpi:literal;)*) => {
        /// The MPI operation of a record.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum Op { $($name = $code),* }

        impl Op {
            /// Decodes a record's operation byte.
            pub fn from_code(code: u8) -> Option<Op> {
                match code { $($code => Some(Op::$name),)* _ => None }
            }
            /// The C name of the MPI function, e.g. `MPI_Send`.
            pub fn mpi_name(self) -> &'static str {
                match self { $(Op::$name => $mpi),* }
            }
        }
    };
}

ops! {
    Init = 1, "MPI_Init";
    Finalize = 2, "MPI_Finalize";
    Send = 3, "MPI_Send";
    Ssend = 4, "MPI_Ssend";
    Isend = 5, "MPI_Isend";
    Recv = 6, "MPI_Recv";
    Irecv = 7, "MPI_Irecv";
    Sendrecv = 8, "MPI_Sendrecv";
    Wait = 9, "MPI_Wait";
    Waitall = 10, "MPI_Waitall";
    Test = 11, "MPI_Test";
    Barrier = 12, "MPI_Barrier";
    Bcast = 13, "MPI_Bcast";
    Reduce = 14, "MPI_Reduce";
    Allreduce = 15, "MPI_Allreduce";
    Alltoall = 16, "MPI_Alltoall";
    Gather = 17, "MPI_Gather";
    Allgather = 18, "MPI_Allgather";
    Scatter = 19, "MPI_Scatter";
    Waitany = 20, "MPI_Waitany";
    Issend = 21, "MPI_Issend";
    Rsend = 22, "MPI_Rsend";
    Bsend = 23, "MPI_Bsend";
    SendrecvReplace = 24, "MPI_Sendrecv_replace";
    Alltoallv = 25, "MPI_Alltoallv";
    Allgatherv = 26, "MPI_Allgatherv";
    Gatherv = 27, "MPI_Gatherv";
    Scatterv = 28, "MPI_Scatterv";
    ReduceScatter = 29, "MPI_Reduce_scatter";
    Scan = 30, "MPI_Scan";
    Abort = 31, "MPI_Abort";
    SendInit = 32, "MPI_Send_init";
    SsendInit = 33, "MPI_Ssend_init";
    BsendInit = 34, "MPI_Bsend_init";
    RsendInit = 35, "MPI_Rsend_init";
    RecvInit = 36, "MPI_Recv_init";
    Start = 37, "MPI_Start";
    Startall = 38, "MPI_Startall";
    RequestFree = 39, "MPI_Request_free";
    Probe = 40, "MPI_Probe";
    Iprobe = 41, "MPI_Iprobe";
    Exscan = 42, "MPI_Exscan";
    ReduceScatterBlock = 43, "MPI_Reduce_scatter_block";
    Ibarrier = 44, "MPI_Ibarrier";
    Ibcast = 45, "MPI_Ibcast";
    Ireduce = 46, "MPI_Ireduce";
    Iallreduce = 47, "MPI_Iallreduce";
    Ialltoall = 48, "MPI_Ialltoall";
    Igather = 49, "MPI_Igather";
    Iallgather = 50, "MPI_Iallgather";
    Iscatter = 51, "MPI_Iscatter";
    CommSplit = 52, "MPI_Comm_split";
    CommDup = 53, "MPI_Comm_dup";
    CommCreate = 54, "MPI_Comm_create";
    CartCreate = 55, "MPI_Cart_create";
    CartSub = 56, "MPI_Cart_sub";
    Testall = 57, "MPI_Testall";
    Testany = 58, "MPI_Testany";
    Testsome = 59, "MPI_Testsome";
    Waitsome = 60, "MPI_Waitsome";
    NeighborAlltoall = 61, "MPI_Neighbor_alltoall";
    NeighborAllgather = 62, "MPI_Neighbor_allgather";
    NeighborAlltoallv = 63, "MPI_Neighbor_alltoallv";
    NeighborAllgatherv = 64, "MPI_Neighbor_allgatherv";
}

impl Op {
    /// Point-to-point sends (blocking or not), excluding the send half of Sendrecv.
    pub fn is_send(self) -> bool {
        matches!(
            self,
            Op::Send | Op::Ssend | Op::Isend | Op::Issend | Op::Rsend | Op::Bsend
        )
    }
    /// Sendrecv and Sendrecv_replace: the record is the send half, one Part the receive half.
    pub fn is_sendrecv(self) -> bool {
        matches!(self, Op::Sendrecv | Op::SendrecvReplace)
    }
    /// Point-to-point receives (blocking or not), excluding the receive half of Sendrecv.
    pub fn is_recv(self) -> bool {
        matches!(self, Op::Recv | Op::Irecv)
    }
    /// Calls that complete requests and are followed by completion parts.
    pub fn is_completion(self) -> bool {
        matches!(
            self,
            Op::Wait
                | Op::Waitall
                | Op::Waitany
                | Op::Test
                | Op::Testall
                | Op::Testany
                | Op::Testsome
                | Op::Waitsome
        )
    }
    /// `MPI_*_init`: creates a persistent request and moves no data; its starts are recorded
    /// as Isend/Issend/Irecv records with [`FLAG_STARTED`].
    pub fn is_persistent_init(self) -> bool {
        matches!(
            self,
            Op::SendInit | Op::SsendInit | Op::BsendInit | Op::RsendInit | Op::RecvInit
        )
    }
    /// Collective operations over a communicator.
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            Op::Barrier
                | Op::Bcast
                | Op::Reduce
                | Op::Allreduce
                | Op::Alltoall
                | Op::Gather
                | Op::Allgather
                | Op::Scatter
                | Op::Alltoallv
                | Op::Allgatherv
                | Op::Gatherv
                | Op::Scatterv
                | Op::ReduceScatter
                | Op::Scan
                | Op::Exscan
                | Op::ReduceScatterBlock
                | Op::NeighborAlltoall
                | Op::NeighborAllgather
                | Op::NeighborAlltoallv
                | Op::NeighborAllgatherv
        ) || self.is_nonblocking_collective()
            || self.makes_communicator()
    }
    /// Neighbourhood collectives: a block to and from each neighbour of a process topology;
    /// their record's tag is the messages posted each way.
    pub fn is_neighbourhood(self) -> bool {
        matches!(
            self,
            Op::NeighborAlltoall
                | Op::NeighborAllgather
                | Op::NeighborAlltoallv
                | Op::NeighborAllgatherv
        )
    }
    /// Collectives that make a communicator: no bytes, the old communicator's size.
    pub fn makes_communicator(self) -> bool {
        matches!(
            self,
            Op::CommSplit | Op::CommDup | Op::CommCreate | Op::CartCreate | Op::CartSub
        )
    }
    /// Nonblocking collectives: the record is the start (request id, the collective's bytes
    /// and communicator size); the Part of the call that completes the request has the same op.
    pub fn is_nonblocking_collective(self) -> bool {
        matches!(
            self,
            Op::Ibarrier
                | Op::Ibcast
                | Op::Ireduce
                | Op::Iallreduce
                | Op::Ialltoall
                | Op::Igather
                | Op::Iallgather
                | Op::Iscatter
        )
    }
}

/// A peer as recorded: a world rank or one of the special values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Peer {
    /// A rank in MPI_COMM_WORLD (translated from the call's communicator).
    Rank(u32),
    /// No peer (non-rooted collectives, waits).
    None,
    /// MPI_PROC_NULL.
    ProcNull,
    /// MPI_ANY_SOURCE on a posted receive that has not completed yet (Irecv).
    Any,
    /// Could not be translated (inter-communicator, freed communicator, bad rank).
    Unknown,
}

impl Peer {
    pub(crate) fn decode(v: i32) -> Peer {
        match v {
            v if v >= 0 => Peer::Rank(v.unsigned_abs()),
            -1 => Peer::None,
            -2 => Peer::ProcNull,
            -3 => Peer::Any,
            _ => Peer::Unknown,
        }
    }
    /// The world rank, if this is one.
    pub fn rank(self) -> Option<u32> {
        match self {
            Peer::Rank(r) => Some(r),
            _ => None,
        }
    }
}

/// A point in time on both clocks the runtime reads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stamp {
    /// Host CLOCK_MONOTONIC, ns. Comparable across ranks on one host only.
    pub mono_ns: u64,
    /// MPI_Wtime in seconds (simulated under SMPI); NaN before MPI_Init / after finalize began.
    pub wtime: f64,
}

/// MPI record flag: peer/tag/bytes are the actual ones from a completed status.
pub const FLAG_ACTUAL: u16 = 1;
/// MPI record flag: the call returned an error code.
pub const FLAG_ERROR: u16 = 2;
/// MPI record flag: called through the Fortran wrappers.
pub const FLAG_FORTRAN: u16 = 4;
/// MPI record flag: an Isend/Issend/Irecv record that `MPI_Start`/`MPI_Startall` wrote for one
/// persistent request it started (site: the Start's; a new request id per start).
pub const FLAG_STARTED: u16 = 8;

/// One MPI call (record kind 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MpiCall {
    pub op: Op,
    pub flags: u16,
    pub site: u32,
    /// Destination (sends), source (receives; actual when `FLAG_ACTUAL`), root (rooted collectives).
    pub peer: Peer,
    /// User tag; -1 for MPI_ANY_TAG on a pending receive; 0 for collectives but the
    /// neighbourhood ones, whose tag is the messages they post each way (2 × ndims on a
    /// Cartesian topology, the rank's neighbours on a graph, the larger degree on a
    /// distributed graph).
    pub tag: i32,
    /// Bytes: count × type size (actual for completed receives). For Waitall/Waitany and the
    /// other completions of several requests (Testall/Testany/Testsome/Waitsome) the request count.
    pub bytes: i64,
    /// Size of the call's communicator (0 for request completions).
    pub comm_size: i32,
    /// Number of `Part` records that follow this one.
    pub nparts: u32,
    /// Request id assigned at Isend/Irecv/a nonblocking collective, or the completed request at
    /// Wait/Waitany/Test; 0 if none (Waitall and the others of several requests: one Part each).
    pub req_id: u64,
    pub start: Stamp,
    pub end: Stamp,
}

/// The completion of one request, or the receive half of a Sendrecv (record kind 2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Part {
    /// Op of the request's originating call (Isend, Issend, Irecv, a nonblocking collective),
    /// or Recv for a Sendrecv.
    pub op: Op,
    pub flags: u16,
    /// Site of the originating call (Sendrecv: the Sendrecv's site).
    pub site: u32,
    /// World rank of the peer; for receives the actual source.
    pub peer: Peer,
    pub tag: i32,
    pub bytes: i64,
    pub req_id: u64,
}

/// One entry into a computation phase (record kind 3), or a run of `entries` brief entries of
/// one site that ran back to back with nothing recorded between them (kind 4: a routine with a
/// loop called once per point): from the first's start to the last's end, `cpu_ns` their sum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Phase {
    pub site: u32,
    /// Nesting depth (0 = outermost phase).
    pub depth: u16,
    pub start: Stamp,
    pub end: Stamp,
    /// Thread CPU time spent inside, ns (summed over the run's entries).
    pub cpu_ns: u64,
    /// Entries the record stands for: 1, or a run's.
    pub entries: u32,
}

/// What an aggregate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum AggKind {
    /// count = loop executions, sum/min/max = iterations per execution.
    Loop,
    /// count = times `arm` was taken.
    Branch,
    /// count = calls, sum/min/max = inclusive wall ns per call.
    Call,
    /// count = MPI_Test calls at this site that found the request incomplete (MPI_Iprobe calls
    /// that found no message).
    TestPending,
}

impl AggKind {
    pub(crate) fn from_code(c: u8) -> Option<AggKind> {
        match c {
            1 => Some(AggKind::Loop),
            2 => Some(AggKind::Branch),
            3 => Some(AggKind::Call),
            4 => Some(AggKind::TestPending),
            _ => None,
        }
    }
}

/// A per-site counter written at finalize (record kind 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Aggregate {
    pub kind: AggKind,
    pub site: u32,
    /// Branch arm; 0 for other kinds.
    pub arm: i32,
    pub count: u64,
    pub sum: u64,
    pub min: u64,
    pub max: u64,
}

/// The last record (kind 127): its presence proves the rank reached MPI_Finalize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Trailer {
    /// Number of MPI, Part and Phase records in the file.
    pub events: u64,
    /// Number of Aggregate records in the file.
    pub aggregates: u64,
    pub end_mono_ns: u64,
    /// Unbalanced markers, unknown requests, stack overflows seen by the runtime.
    pub anomalies: u32,
}

/// One decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Record {
    Mpi(MpiCall),
    Part(Part),
    Phase(Phase),
    Aggregate(Aggregate),
    Trailer(Trailer),
}
