//! Which data-sheet collective a COMM node is costed as: itself, or the regular counterpart of
//! one the sheet does not list, with the size the sheet's cost takes.

use symbolic::Expr;

use crate::machine::CollectiveOp;

/// The collective a COMM node performs, if it is one (the machine sheet names them as the APT
/// spells MPI operations).
pub(super) fn collective_op(c: &apt::CommFacts) -> Option<CollectiveOp> {
    sheet_op(c).map(|s| s.op)
}

/// The data-sheet collective a call is costed as: itself, or for a collective the sheet does not
/// list, its regular counterpart (`MPI_Allgatherv` as `allgather` at the traced mean count,
/// `MPI_Ibcast` as `bcast` charged at the call).
#[derive(Debug, Clone, Copy)]
pub(super) struct SheetOp {
    pub(super) op: CollectiveOp,
    /// The traced/source size is all a rank sends (`Alltoallv`); the sheet's is per pair.
    pub(super) per_pair: bool,
    /// Costed as another operation: said in a warning.
    pub(super) stand_in: bool,
}

pub(super) fn sheet_op(c: &apt::CommFacts) -> Option<SheetOp> {
    sheet_op_named(&format!("{:?}", c.op))
}

/// [`sheet_op`] by the operation's name (`Allgatherv`).
pub(super) fn sheet_op_named(name: &str) -> Option<SheetOp> {
    if let Ok(op) = name.parse() {
        return Some(SheetOp {
            op,
            per_pair: false,
            stand_in: false,
        });
    }
    let (op, per_pair) = match name {
        "Allgatherv" | "Iallgather" => (CollectiveOp::Allgather, false),
        "Gatherv" | "Igather" => (CollectiveOp::Gather, false),
        "Scatterv" | "Iscatter" => (CollectiveOp::Scatter, false),
        "Alltoallv" => (CollectiveOp::Alltoall, true),
        "Ialltoall" => (CollectiveOp::Alltoall, false),
        "Ibcast" => (CollectiveOp::Bcast, false),
        "Ireduce" => (CollectiveOp::Reduce, false),
        // a reduce-scatter or a prefix reduction moves the whole vector like an allreduce
        "Iallreduce" | "ReduceScatter" | "ReduceScatterBlock" | "Scan" | "Exscan" => {
            (CollectiveOp::Allreduce, false)
        }
        "Ibarrier" => (CollectiveOp::Barrier, false),
        _ => return None,
    };
    Some(SheetOp {
        op,
        per_pair,
        stand_in: true,
    })
}

/// The size the sheet's cost of `s` takes, from a call's size.
pub(super) fn sheet_bytes(s: SheetOp, bytes: &Expr, group: &Expr) -> Expr {
    if s.per_pair {
        bytes.clone() / group.clone()
    } else {
        bytes.clone()
    }
}
