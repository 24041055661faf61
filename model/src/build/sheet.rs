//! Which data-sheet collective a COMM node is costed as: itself, or the regular counterpart of
//! one the sheet does not list, with the size the sheet's cost takes.

use symbolic::Expr;

use crate::machine::{CollectiveOp, Machine};

/// The collective a COMM node performs, if it is one (the machine sheet names them as the APT
/// spells MPI operations).
pub(super) fn collective_op(c: &apt::CommFacts, m: &Machine) -> Option<CollectiveOp> {
    sheet_op(c, m).map(|s| s.op)
}

/// The data-sheet collective a call is costed as: itself, or for a collective the sheet does not
/// list, its regular counterpart (`MPI_Allgatherv` as `allgather` at the traced mean count where
/// the sheet has no `allgatherv`, `MPI_Ibcast` as `bcast` charged at the call).
#[derive(Debug, Clone, Copy)]
pub(super) struct SheetOp {
    pub(super) op: CollectiveOp,
    /// The traced/source size is all a rank sends (`Alltoallv`); the sheet's is per pair.
    pub(super) per_pair: bool,
    /// Costed as another operation: said in a warning.
    pub(super) stand_in: bool,
}

pub(super) fn sheet_op(c: &apt::CommFacts, m: &Machine) -> Option<SheetOp> {
    sheet_op_named(&format!("{:?}", c.op), |op| m.collective(op).is_some())
}

/// [`sheet_op`] by the operation's name (`Allgatherv`), `listed` saying which collectives the
/// sheet has.
pub(super) fn sheet_op_named(name: &str, listed: impl Fn(CollectiveOp) -> bool) -> Option<SheetOp> {
    let (op, per_pair) = match name.parse::<CollectiveOp>() {
        Ok(op) => (op, op == CollectiveOp::Alltoallv),
        Err(_) => match name {
            "Iallgather" => (CollectiveOp::Allgather, false),
            "Igather" => (CollectiveOp::Gather, false),
            "Iscatter" => (CollectiveOp::Scatter, false),
            "Ialltoall" => (CollectiveOp::Alltoall, false),
            "Ibcast" => (CollectiveOp::Bcast, false),
            "Ireduce" => (CollectiveOp::Reduce, false),
            // a reduce-scatter or a prefix reduction moves the whole vector like an allreduce
            "Iallreduce" | "ReduceScatter" | "ReduceScatterBlock" | "Scan" | "Exscan" => {
                (CollectiveOp::Allreduce, false)
            }
            "Ibarrier" => (CollectiveOp::Barrier, false),
            _ => return None,
        },
    };
    let named = name.parse::<CollectiveOp>().is_ok();
    let (op, stand_in) = if listed(op) {
        (op, !named)
    } else {
        (op.regular(), true)
    };
    Some(SheetOp {
        op,
        per_pair,
        stand_in,
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
