//! The one MPI table, as data: function name → operation and positional argument roles,
//! shared by the C and Fortran lowerings (and by anyone needing datatype sizes).
use serde::Serialize;

/// What an MPI call does. Serialises as the lower-case MPI name without `MPI_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MpiOp {
    Send,
    Ssend,
    Rsend,
    Bsend,
    Isend,
    Issend,
    Irsend,
    Ibsend,
    Recv,
    Irecv,
    Sendrecv,
    SendrecvReplace,
    SendInit,
    SsendInit,
    BsendInit,
    RsendInit,
    RecvInit,
    Start,
    Startall,
    Wait,
    Waitall,
    Waitany,
    Waitsome,
    Test,
    Testall,
    Testany,
    Testsome,
    Probe,
    Iprobe,
    GetCount,
    RequestFree,
    Bcast,
    Reduce,
    Allreduce,
    Barrier,
    Alltoall,
    /// MPI-3 neighbourhood collectives on a process topology (each rank with its neighbours).
    NeighborAlltoall,
    NeighborAllgather,
    /// Their v forms: a block of its own to each neighbour (the runtime records the mean).
    NeighborAlltoallv,
    NeighborAllgatherv,
    Alltoallv,
    Gather,
    Gatherv,
    Allgather,
    Allgatherv,
    Scatter,
    Scatterv,
    Scan,
    Exscan,
    ReduceScatter,
    ReduceScatterBlock,
    Ibcast,
    Ireduce,
    Iallreduce,
    Ibarrier,
    Ialltoall,
    Igather,
    Iallgather,
    Iscatter,
    CommSize,
    CommRank,
    CommSplit,
    CommDup,
    CommFree,
    CartCreate,
    CartCoords,
    CartRank,
    CartShift,
    DimsCreate,
    TypeContiguous,
    TypeVector,
    TypeCommit,
    TypeFree,
    TypeSize,
    GetProcessorName,
    CommGroup,
    CommCreate,
    GroupIncl,
    GroupFree,
    CartGet,
    CartSub,
    TypeIndexed,
    TypeCreateStruct,
    TypeCreateSubarray,
    TypeCreateResized,
    TypeGetExtent,
    OpCreate,
    OpFree,
    BufferAttach,
    BufferDetach,
    Pack,
    Unpack,
    GetVersion,
    Init,
    InitThread,
    Initialized,
    Finalize,
    Finalized,
    Wtime,
    Wtick,
    Abort,
    /// An `MPI_*` name not in the table; its arguments get [`Role::Unknown`].
    Other,
}

/// The role of one positional argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Buffer,
    Count,
    Datatype,
    /// Destination or source rank of point-to-point calls and probes.
    Peer,
    Tag,
    Comm,
    Request,
    Requests,
    Status,
    Statuses,
    Root,
    Op,
    SendBuf,
    RecvBuf,
    SendCount,
    RecvCount,
    SendCounts,
    RecvCounts,
    SendDispls,
    RecvDispls,
    SendType,
    RecvType,
    /// Sendrecv destination.
    Dest,
    /// Sendrecv source.
    Source,
    SendTag,
    RecvTag,
    /// Waitany/Testany output index.
    Index,
    Indices,
    Outcount,
    Flag,
    /// Output of `MPI_Comm_size`, `MPI_Type_size`.
    Size,
    /// A rank value: output of `MPI_Comm_rank`/`MPI_Cart_rank`, input of `MPI_Cart_coords`.
    Rank,
    NewComm,
    NewType,
    Color,
    Key,
    Ndims,
    Dims,
    Periods,
    Reorder,
    Coords,
    Direction,
    Disp,
    Nnodes,
    BlockLength,
    Stride,
    /// `MPI_Type_create_subarray`'s array of the subarray's extents (its elements per
    /// dimension).
    Subsizes,
    Argc,
    Argv,
    Required,
    Provided,
    ErrorCode,
    Name,
    ResultLen,
    Group,
    NewGroup,
    /// An argument whose role augur does not model (user functions, displacement arrays of
    /// derived datatypes, ...).
    Other,
    /// Fortran's trailing error argument.
    Ierr,
    /// Argument of an unknown MPI function, or an extra argument.
    Unknown,
}

/// One table row.
#[derive(Debug, Clone, Copy)]
pub struct MpiSig {
    /// Lower-case name with the `mpi_` prefix (`mpi_send`).
    pub name: &'static str,
    pub op: MpiOp,
    /// Roles of the C binding's arguments, in order.
    pub roles: &'static [Role],
    /// Fortran binding's roles before `ierr` when they differ from C (`mpi_init(ierr)`).
    pub fortran_roles: Option<&'static [Role]>,
    /// The Fortran binding is a function without `ierr` (`mpi_wtime()`).
    pub fortran_function: bool,
}

use Role::*;

const P2P: &[Role] = &[Buffer, Count, Datatype, Peer, Tag, Comm];
const P2P_REQ: &[Role] = &[Buffer, Count, Datatype, Peer, Tag, Comm, Request];
const A2A: &[Role] = &[
    SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Comm,
];
const ROOTED: &[Role] = &[
    SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Root, Comm,
];
const RED: &[Role] = &[SendBuf, RecvBuf, Count, Datatype, Op, Comm];

const fn sig(name: &'static str, op: MpiOp, roles: &'static [Role]) -> MpiSig {
    MpiSig {
        name,
        op,
        roles,
        fortran_roles: None,
        fortran_function: false,
    }
}

/// Sorted by name (binary search).
static TABLE: &[MpiSig] = &[
    sig("mpi_abort", MpiOp::Abort, &[Comm, ErrorCode]),
    sig("mpi_allgather", MpiOp::Allgather, A2A),
    sig(
        "mpi_allgatherv",
        MpiOp::Allgatherv,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCounts, RecvDispls, RecvType, Comm,
        ],
    ),
    sig("mpi_allreduce", MpiOp::Allreduce, RED),
    sig("mpi_alltoall", MpiOp::Alltoall, A2A),
    sig(
        "mpi_alltoallv",
        MpiOp::Alltoallv,
        &[
            SendBuf, SendCounts, SendDispls, SendType, RecvBuf, RecvCounts, RecvDispls, RecvType,
            Comm,
        ],
    ),
    sig("mpi_barrier", MpiOp::Barrier, &[Comm]),
    sig(
        "mpi_bcast",
        MpiOp::Bcast,
        &[Buffer, Count, Datatype, Root, Comm],
    ),
    sig("mpi_bsend", MpiOp::Bsend, P2P),
    sig("mpi_bsend_init", MpiOp::BsendInit, P2P_REQ),
    sig("mpi_buffer_attach", MpiOp::BufferAttach, &[Buffer, Size]),
    sig("mpi_buffer_detach", MpiOp::BufferDetach, &[Buffer, Size]),
    sig(
        "mpi_cart_coords",
        MpiOp::CartCoords,
        &[Comm, Rank, Ndims, Coords],
    ),
    sig(
        "mpi_cart_create",
        MpiOp::CartCreate,
        &[Comm, Ndims, Dims, Periods, Reorder, NewComm],
    ),
    sig(
        "mpi_cart_get",
        MpiOp::CartGet,
        &[Comm, Ndims, Dims, Periods, Coords],
    ),
    sig("mpi_cart_rank", MpiOp::CartRank, &[Comm, Coords, Rank]),
    sig(
        "mpi_cart_shift",
        MpiOp::CartShift,
        &[Comm, Direction, Disp, Source, Dest],
    ),
    sig("mpi_cart_sub", MpiOp::CartSub, &[Comm, Periods, NewComm]),
    sig(
        "mpi_comm_create",
        MpiOp::CommCreate,
        &[Comm, Group, NewComm],
    ),
    sig("mpi_comm_dup", MpiOp::CommDup, &[Comm, NewComm]),
    sig("mpi_comm_free", MpiOp::CommFree, &[Comm]),
    sig("mpi_comm_group", MpiOp::CommGroup, &[Comm, NewGroup]),
    sig("mpi_comm_rank", MpiOp::CommRank, &[Comm, Rank]),
    sig("mpi_comm_size", MpiOp::CommSize, &[Comm, Size]),
    sig(
        "mpi_comm_split",
        MpiOp::CommSplit,
        &[Comm, Color, Key, NewComm],
    ),
    sig("mpi_dims_create", MpiOp::DimsCreate, &[Nnodes, Ndims, Dims]),
    sig("mpi_exscan", MpiOp::Exscan, RED),
    sig("mpi_finalize", MpiOp::Finalize, &[]),
    sig("mpi_finalized", MpiOp::Finalized, &[Flag]),
    sig("mpi_gather", MpiOp::Gather, ROOTED),
    sig(
        "mpi_gatherv",
        MpiOp::Gatherv,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCounts, RecvDispls, RecvType, Root, Comm,
        ],
    ),
    sig("mpi_get_count", MpiOp::GetCount, &[Status, Datatype, Count]),
    sig(
        "mpi_get_processor_name",
        MpiOp::GetProcessorName,
        &[Name, ResultLen],
    ),
    sig("mpi_get_version", MpiOp::GetVersion, &[Other, Other]),
    sig("mpi_group_free", MpiOp::GroupFree, &[Group]),
    sig(
        "mpi_group_incl",
        MpiOp::GroupIncl,
        &[Group, Count, Other, NewGroup],
    ),
    sig(
        "mpi_iallgather",
        MpiOp::Iallgather,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Comm, Request,
        ],
    ),
    sig(
        "mpi_iallreduce",
        MpiOp::Iallreduce,
        &[SendBuf, RecvBuf, Count, Datatype, Op, Comm, Request],
    ),
    sig(
        "mpi_ialltoall",
        MpiOp::Ialltoall,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Comm, Request,
        ],
    ),
    sig("mpi_ibarrier", MpiOp::Ibarrier, &[Comm, Request]),
    sig(
        "mpi_ibcast",
        MpiOp::Ibcast,
        &[Buffer, Count, Datatype, Root, Comm, Request],
    ),
    sig("mpi_ibsend", MpiOp::Ibsend, P2P_REQ),
    sig(
        "mpi_igather",
        MpiOp::Igather,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Root, Comm, Request,
        ],
    ),
    MpiSig {
        name: "mpi_init",
        op: MpiOp::Init,
        roles: &[Argc, Argv],
        fortran_roles: Some(&[]),
        fortran_function: false,
    },
    MpiSig {
        name: "mpi_init_thread",
        op: MpiOp::InitThread,
        roles: &[Argc, Argv, Required, Provided],
        fortran_roles: Some(&[Required, Provided]),
        fortran_function: false,
    },
    sig("mpi_initialized", MpiOp::Initialized, &[Flag]),
    sig(
        "mpi_iprobe",
        MpiOp::Iprobe,
        &[Peer, Tag, Comm, Flag, Status],
    ),
    sig("mpi_irecv", MpiOp::Irecv, P2P_REQ),
    sig(
        "mpi_ireduce",
        MpiOp::Ireduce,
        &[SendBuf, RecvBuf, Count, Datatype, Op, Root, Comm, Request],
    ),
    sig("mpi_irsend", MpiOp::Irsend, P2P_REQ),
    sig(
        "mpi_iscatter",
        MpiOp::Iscatter,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCount, RecvType, Root, Comm, Request,
        ],
    ),
    sig("mpi_isend", MpiOp::Isend, P2P_REQ),
    sig("mpi_issend", MpiOp::Issend, P2P_REQ),
    sig("mpi_neighbor_allgather", MpiOp::NeighborAllgather, A2A),
    sig(
        "mpi_neighbor_allgatherv",
        MpiOp::NeighborAllgatherv,
        &[
            SendBuf, SendCount, SendType, RecvBuf, RecvCounts, RecvDispls, RecvType, Comm,
        ],
    ),
    sig("mpi_neighbor_alltoall", MpiOp::NeighborAlltoall, A2A),
    sig(
        "mpi_neighbor_alltoallv",
        MpiOp::NeighborAlltoallv,
        &[
            SendBuf, SendCounts, SendDispls, SendType, RecvBuf, RecvCounts, RecvDispls, RecvType,
            Comm,
        ],
    ),
    sig("mpi_op_create", MpiOp::OpCreate, &[Other, Other, Op]),
    sig("mpi_op_free", MpiOp::OpFree, &[Op]),
    sig(
        "mpi_pack",
        MpiOp::Pack,
        &[SendBuf, SendCount, SendType, RecvBuf, Size, Other, Comm],
    ),
    sig("mpi_probe", MpiOp::Probe, &[Peer, Tag, Comm, Status]),
    sig(
        "mpi_recv",
        MpiOp::Recv,
        &[Buffer, Count, Datatype, Peer, Tag, Comm, Status],
    ),
    sig("mpi_recv_init", MpiOp::RecvInit, P2P_REQ),
    sig(
        "mpi_reduce",
        MpiOp::Reduce,
        &[SendBuf, RecvBuf, Count, Datatype, Op, Root, Comm],
    ),
    sig(
        "mpi_reduce_scatter",
        MpiOp::ReduceScatter,
        &[SendBuf, RecvBuf, RecvCounts, Datatype, Op, Comm],
    ),
    sig(
        "mpi_reduce_scatter_block",
        MpiOp::ReduceScatterBlock,
        &[SendBuf, RecvBuf, RecvCount, Datatype, Op, Comm],
    ),
    sig("mpi_request_free", MpiOp::RequestFree, &[Request]),
    sig("mpi_rsend", MpiOp::Rsend, P2P),
    sig("mpi_rsend_init", MpiOp::RsendInit, P2P_REQ),
    sig("mpi_scan", MpiOp::Scan, RED),
    sig("mpi_scatter", MpiOp::Scatter, ROOTED),
    sig(
        "mpi_scatterv",
        MpiOp::Scatterv,
        &[
            SendBuf, SendCounts, SendDispls, SendType, RecvBuf, RecvCount, RecvType, Root, Comm,
        ],
    ),
    sig("mpi_send", MpiOp::Send, P2P),
    sig("mpi_send_init", MpiOp::SendInit, P2P_REQ),
    sig(
        "mpi_sendrecv",
        MpiOp::Sendrecv,
        &[
            SendBuf, SendCount, SendType, Dest, SendTag, RecvBuf, RecvCount, RecvType, Source,
            RecvTag, Comm, Status,
        ],
    ),
    sig(
        "mpi_sendrecv_replace",
        MpiOp::SendrecvReplace,
        &[
            Buffer, Count, Datatype, Dest, SendTag, Source, RecvTag, Comm, Status,
        ],
    ),
    sig("mpi_ssend", MpiOp::Ssend, P2P),
    sig("mpi_ssend_init", MpiOp::SsendInit, P2P_REQ),
    sig("mpi_start", MpiOp::Start, &[Request]),
    sig("mpi_startall", MpiOp::Startall, &[Count, Requests]),
    sig("mpi_test", MpiOp::Test, &[Request, Flag, Status]),
    sig(
        "mpi_testall",
        MpiOp::Testall,
        &[Count, Requests, Flag, Statuses],
    ),
    sig(
        "mpi_testany",
        MpiOp::Testany,
        &[Count, Requests, Index, Flag, Status],
    ),
    sig(
        "mpi_testsome",
        MpiOp::Testsome,
        &[Count, Requests, Outcount, Indices, Statuses],
    ),
    sig("mpi_type_commit", MpiOp::TypeCommit, &[NewType]),
    sig(
        "mpi_type_contiguous",
        MpiOp::TypeContiguous,
        &[Count, Datatype, NewType],
    ),
    sig(
        "mpi_type_create_resized",
        MpiOp::TypeCreateResized,
        &[Datatype, Other, Other, NewType],
    ),
    sig(
        "mpi_type_create_struct",
        MpiOp::TypeCreateStruct,
        &[Count, Other, Other, Other, NewType],
    ),
    sig(
        "mpi_type_create_subarray",
        MpiOp::TypeCreateSubarray,
        &[Ndims, Other, Subsizes, Other, Other, Datatype, NewType],
    ),
    sig("mpi_type_free", MpiOp::TypeFree, &[NewType]),
    sig(
        "mpi_type_get_extent",
        MpiOp::TypeGetExtent,
        &[Datatype, Other, Other],
    ),
    sig(
        "mpi_type_indexed",
        MpiOp::TypeIndexed,
        &[Count, Other, Other, Datatype, NewType],
    ),
    sig("mpi_type_size", MpiOp::TypeSize, &[Datatype, Size]),
    sig(
        "mpi_type_vector",
        MpiOp::TypeVector,
        &[Count, BlockLength, Stride, Datatype, NewType],
    ),
    sig(
        "mpi_unpack",
        MpiOp::Unpack,
        &[SendBuf, Size, Other, RecvBuf, RecvCount, RecvType, Comm],
    ),
    sig("mpi_wait", MpiOp::Wait, &[Request, Status]),
    sig("mpi_waitall", MpiOp::Waitall, &[Count, Requests, Statuses]),
    sig(
        "mpi_waitany",
        MpiOp::Waitany,
        &[Count, Requests, Index, Status],
    ),
    sig(
        "mpi_waitsome",
        MpiOp::Waitsome,
        &[Count, Requests, Outcount, Indices, Statuses],
    ),
    MpiSig {
        name: "mpi_wtick",
        op: MpiOp::Wtick,
        roles: &[],
        fortran_roles: None,
        fortran_function: true,
    },
    MpiSig {
        name: "mpi_wtime",
        op: MpiOp::Wtime,
        roles: &[],
        fortran_roles: None,
        fortran_function: true,
    },
];

/// Looks a function name up, case-insensitively (`MPI_Send`, `mpi_send`, `MPI_SEND`; also the
/// profiling names `PMPI_*`).
pub fn lookup(name: &str) -> Option<&'static MpiSig> {
    let lower = name.to_ascii_lowercase();
    let key = lower
        .strip_prefix('p')
        .filter(|s| s.starts_with("mpi_"))
        .unwrap_or(&lower);
    TABLE
        .binary_search_by(|s| s.name.cmp(key))
        .ok()
        .and_then(|i| TABLE.get(i))
}

/// Whether `name` looks like an MPI function (`MPI_*`/`PMPI_*`, any case).
pub fn is_mpi_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("mpi_") || lower.starts_with("pmpi_")
}

/// Every row of the table, sorted by name.
pub fn table() -> &'static [MpiSig] {
    TABLE
}

impl MpiOp {
    /// Lower-case name without `mpi_` (`send`, `sendrecv_replace`).
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|s| s.op == self)
            .and_then(|s| s.name.strip_prefix("mpi_"))
            .unwrap_or("other")
    }
    /// Its outcome depends on message arrival order (warned about by the front end). A
    /// probe is not: with a given source and tag, MPI's non-overtaking rule fixes the message
    /// it finds (with `MPI_ANY_SOURCE`/`MPI_ANY_TAG` the wildcard itself is warned about).
    pub fn is_nondeterministic(self) -> bool {
        matches!(
            self,
            MpiOp::Waitany | MpiOp::Waitsome | MpiOp::Testany | MpiOp::Testsome
        )
    }
    /// `MPI_Send_init`, `Ssend_init`, `Bsend_init`, `Rsend_init`, `Recv_init`.
    pub fn is_persistent_init(self) -> bool {
        matches!(
            self,
            MpiOp::SendInit
                | MpiOp::SsendInit
                | MpiOp::BsendInit
                | MpiOp::RsendInit
                | MpiOp::RecvInit
        )
    }
    /// Calls that send a message each time they run: point-to-point sends (blocking or not)
    /// and both Sendrecv forms; not a persistent request's start (which request it starts is
    /// not in the call).
    pub fn sends(self) -> bool {
        matches!(
            self,
            MpiOp::Send
                | MpiOp::Ssend
                | MpiOp::Rsend
                | MpiOp::Bsend
                | MpiOp::Isend
                | MpiOp::Issend
                | MpiOp::Irsend
                | MpiOp::Ibsend
                | MpiOp::Sendrecv
                | MpiOp::SendrecvReplace
        )
    }
    /// Whether a call communicates, or completes or probes communication: what the APT calls
    /// a COMM node and the skeleton keeps.
    pub fn is_comm(self) -> bool {
        self.is_point_to_point()
            || self.is_collective()
            || matches!(
                self,
                MpiOp::Start
                    | MpiOp::Startall
                    | MpiOp::Wait
                    | MpiOp::Waitall
                    | MpiOp::Waitany
                    | MpiOp::Waitsome
                    | MpiOp::Test
                    | MpiOp::Testall
                    | MpiOp::Testany
                    | MpiOp::Testsome
                    | MpiOp::Probe
                    | MpiOp::Iprobe
            )
    }
    /// Point-to-point sends and receives (blocking or not).
    pub fn is_point_to_point(self) -> bool {
        self.sends() || matches!(self, MpiOp::Recv | MpiOp::Irecv)
    }
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            MpiOp::Bcast
                | MpiOp::Reduce
                | MpiOp::Allreduce
                | MpiOp::Barrier
                | MpiOp::Alltoall
                | MpiOp::Alltoallv
                | MpiOp::NeighborAlltoall
                | MpiOp::NeighborAllgather
                | MpiOp::NeighborAlltoallv
                | MpiOp::NeighborAllgatherv
                | MpiOp::Gather
                | MpiOp::Gatherv
                | MpiOp::Allgather
                | MpiOp::Allgatherv
                | MpiOp::Scatter
                | MpiOp::Scatterv
                | MpiOp::Scan
                | MpiOp::Exscan
                | MpiOp::ReduceScatter
                | MpiOp::ReduceScatterBlock
                | MpiOp::Ibcast
                | MpiOp::Ireduce
                | MpiOp::Iallreduce
                | MpiOp::Ibarrier
                | MpiOp::Ialltoall
                | MpiOp::Igather
                | MpiOp::Iallgather
                | MpiOp::Iscatter
        ) || self.makes_communicator()
    }
    /// Neighbourhood collectives: a block to and from each neighbour of a process topology.
    pub fn neighbourhood(self) -> bool {
        matches!(
            self,
            MpiOp::NeighborAlltoall
                | MpiOp::NeighborAllgather
                | MpiOp::NeighborAlltoallv
                | MpiOp::NeighborAllgatherv
        )
    }
    /// Collective calls that make a communicator (`MPI_Comm_split`, `MPI_Cart_create`, …):
    /// they move no user data, but every rank of the old communicator takes part, and a
    /// simulator's implementation of them is O(P) (SMPI 3.32: MPI_Comm_split 20 ms at P = 256).
    pub fn makes_communicator(self) -> bool {
        matches!(
            self,
            MpiOp::CommSplit
                | MpiOp::CommDup
                | MpiOp::CommCreate
                | MpiOp::CartCreate
                | MpiOp::CartSub
        )
    }
}

impl Role {
    /// Arguments that are memory (buffers, statuses, requests, count/displacement arrays):
    /// in Fortran `x(i)` there is an array element.
    pub fn is_data(self) -> bool {
        matches!(
            self,
            Buffer
                | SendBuf
                | RecvBuf
                | Status
                | Statuses
                | Request
                | Requests
                | SendCounts
                | RecvCounts
                | SendDispls
                | RecvDispls
                | Coords
                | Dims
                | Periods
                | Indices
        )
    }

    /// Whether a call of `op` writes the argument in this role (used for def sets).
    pub fn is_written_by(self, op: MpiOp) -> bool {
        match self {
            Buffer => matches!(
                op,
                MpiOp::Recv
                    | MpiOp::Irecv
                    | MpiOp::Bcast
                    | MpiOp::Ibcast
                    | MpiOp::SendrecvReplace
                    | MpiOp::RecvInit
            ),
            RecvBuf | Status | Statuses | Request | Requests | Index | Indices | Outcount
            | Flag | NewComm | Coords | Provided | ResultLen | Name | Ierr => true,
            Size => matches!(op, MpiOp::CommSize | MpiOp::TypeSize | MpiOp::BufferDetach),
            Rank => !matches!(op, MpiOp::CartCoords),
            Count => op == MpiOp::GetCount,
            Dims => op == MpiOp::DimsCreate,
            NewType => true,
            Source | Dest => op == MpiOp::CartShift,
            NewGroup => true,
            Group => op == MpiOp::GroupFree,
            Op => matches!(op, MpiOp::OpCreate | MpiOp::OpFree),
            Argc | Argv => op == MpiOp::Init || op == MpiOp::InitThread,
            _ => false,
        }
    }
}

/// Size in bytes of a predefined MPI datatype (names compared upper-cased), as on Open MPI
/// and MPICH for LP64 platforms.
pub fn datatype_size(name: &str) -> Option<u32> {
    let upper = name.to_ascii_uppercase();
    let size = match upper.as_str() {
        "MPI_CHAR" | "MPI_SIGNED_CHAR" | "MPI_UNSIGNED_CHAR" | "MPI_BYTE" | "MPI_PACKED"
        | "MPI_CHARACTER" | "MPI_INT8_T" | "MPI_UINT8_T" | "MPI_C_BOOL" | "MPI_INTEGER1" => 1,
        "MPI_SHORT" | "MPI_UNSIGNED_SHORT" | "MPI_INT16_T" | "MPI_UINT16_T" | "MPI_INTEGER2" => 2,
        "MPI_INT" | "MPI_UNSIGNED" | "MPI_FLOAT" | "MPI_INTEGER" | "MPI_REAL" | "MPI_LOGICAL"
        | "MPI_INT32_T" | "MPI_UINT32_T" | "MPI_INTEGER4" | "MPI_REAL4" | "MPI_WCHAR" => 4,
        "MPI_LONG"
        | "MPI_UNSIGNED_LONG"
        | "MPI_LONG_LONG"
        | "MPI_LONG_LONG_INT"
        | "MPI_UNSIGNED_LONG_LONG"
        | "MPI_DOUBLE"
        | "MPI_DOUBLE_PRECISION"
        | "MPI_REAL8"
        | "MPI_INTEGER8"
        | "MPI_INT64_T"
        | "MPI_UINT64_T"
        | "MPI_COMPLEX"
        | "MPI_C_FLOAT_COMPLEX"
        | "MPI_2INT"
        | "MPI_2REAL"
        | "MPI_2INTEGER"
        | "MPI_FLOAT_INT"
        | "MPI_AINT"
        | "MPI_OFFSET"
        | "MPI_COUNT" => 8,
        "MPI_DOUBLE_INT" | "MPI_LONG_INT" => 12,
        "MPI_LONG_DOUBLE"
        | "MPI_DOUBLE_COMPLEX"
        | "MPI_C_DOUBLE_COMPLEX"
        | "MPI_2DOUBLE_PRECISION"
        | "MPI_REAL16"
        | "MPI_COMPLEX16" => 16,
        _ => return None,
    };
    Some(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in TABLE.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn lookup_any_case_and_pmpi() {
        assert_eq!(lookup("MPI_Send").map(|s| s.op), Some(MpiOp::Send));
        assert_eq!(lookup("mpi_send").map(|s| s.op), Some(MpiOp::Send));
        assert_eq!(
            lookup("MPI_SENDRECV_REPLACE").map(|s| s.op),
            Some(MpiOp::SendrecvReplace)
        );
        assert_eq!(
            lookup("PMPI_Allreduce").map(|s| s.op),
            Some(MpiOp::Allreduce)
        );
        assert!(lookup("mpi_no_such_thing").is_none());
        assert!(lookup("send").is_none());
    }

    #[test]
    fn op_names_round_trip() {
        for s in TABLE {
            assert_eq!(format!("mpi_{}", s.op.name()), s.name);
        }
        assert_eq!(MpiOp::Other.name(), "other");
    }

    #[test]
    fn datatype_sizes() {
        assert_eq!(datatype_size("MPI_DOUBLE"), Some(8));
        assert_eq!(datatype_size("mpi_double_precision"), Some(8));
        assert_eq!(datatype_size("MPI_INTEGER"), Some(4));
        assert_eq!(datatype_size("MPI_CHAR"), Some(1));
        assert_eq!(datatype_size("my_type"), None);
    }

    #[test]
    fn recv_writes_buffer_send_does_not() {
        assert!(Role::Buffer.is_written_by(MpiOp::Recv));
        assert!(!Role::Buffer.is_written_by(MpiOp::Send));
        assert!(Role::Rank.is_written_by(MpiOp::CommRank));
        assert!(!Role::Rank.is_written_by(MpiOp::CartCoords));
        assert!(Role::Size.is_written_by(MpiOp::CommSize));
        assert!(!Role::Size.is_written_by(MpiOp::BufferAttach));
    }
}
