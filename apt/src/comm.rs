//! Which MPI operations are communication (COMM nodes) and their symbolic attributes:
//! peer, tag, message size in bytes (count × datatype size), request counts.
use frontend::mpi_table::datatype_size;
use frontend::{MpiCall, MpiOp, Role, SrcExpr, SrcExprKind, UnOp};
use symbolic::Expr;

use crate::value::{eval, Scope, Special, Val};
use crate::Attr;

/// Attributes of one COMM node. `None`: the operation has no such argument.
#[derive(Debug, Clone, PartialEq)]
pub struct CommFacts {
    pub op: MpiOp,
    /// Destination / source of point-to-point, root of rooted collectives, dest of sendrecv.
    pub peer: Option<Attr>,
    pub tag: Option<Attr>,
    /// Bytes sent (the contribution per process for collectives).
    pub bytes: Option<Attr>,
    /// Where `bytes` changes with enclosing loops' variables (a remainder block `min(K, NZ -
    /// kb)`), its mean over their iterations: the size per message in the run's parameters.
    pub bytes_mean: Option<Attr>,
    /// Sendrecv: the source, receive tag and bytes received.
    pub source: Option<Attr>,
    pub recv_tag: Option<Attr>,
    pub recv_bytes: Option<Attr>,
    /// Number of requests (`waitall`, `testall`, `startall`, …).
    pub count: Option<Attr>,
    /// Operations that send data (sends, `Sendrecv`'s send buffer, `Sendrecv_replace`,
    /// persistent send inits and starts, collectives' send buffer — the receive buffer
    /// under `MPI_IN_PLACE`, `Bcast`'s buffer): the variable the data is sent from, named as
    /// [`crate::LoopNode::writes`] names what a computation phase writes. `None`: the
    /// operation sends no data (receives, waits, probes, barriers).
    pub buffer: Option<SendBuffer>,
    /// The send buffer argument is its variable itself or the variable's first element (C
    /// `a`, `&a[0]`, `a + 0`, `g.u`, `&g.u[0]`, `p->u`; Fortran `a`, `a(1)`, `a(1,1)`, `t%u`,
    /// `t%u(1)`: every subscript 0 in C, the declared lower bound in Fortran), not a part
    /// further in (`&u[1][0]`, `u(1, j)`, `a + off`, `&a[k]`); `false` when nothing is sent.
    /// The model takes a rewrite of the buffer ([`crate::may_rewrite`]) as proven only for
    /// such sends: names drop subscripts, so a write elsewhere in the same array matches too.
    pub buffer_from_start: bool,
    /// Collectives: the ranks of the communicator, where the source gives them other than as
    /// every rank (a `MPI_Cart_sub` of a grid made here: the product of its kept extents);
    /// `None`: every rank, or not known.
    pub group: Option<Expr>,
}

/// The send buffer of a COMM node (see [`CommFacts::buffer`] and [`crate::may_rewrite`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendBuffer {
    /// Names the buffer's storage goes by: its access path with subscripts dropped and what a
    /// C pointer there may point to (`&g.u[0]` → `g.u`; `a + off` → `a`; Fortran `u(1, j)`
    /// → `u`).
    Named(std::collections::BTreeSet<String>),
    /// Not a variable apt can name (`f(x)`, a pointer of unknown target, a started
    /// persistent request): why.
    Unknown(String),
}

impl CommFacts {
    /// The size per message in the run's parameters: the mean over enclosing loops where the
    /// size changes with them, else the size.
    pub fn size(&self) -> Option<&Attr> {
        self.bytes_mean.as_ref().or(self.bytes.as_ref())
    }
}

/// A value as an attribute: wildcards and `MPI_PROC_NULL` keep their meaning.
pub fn attr(v: Val) -> Attr {
    match v {
        Val::Known(e) => Attr::Expr(e),
        Val::Special(Special::Wildcard) => Attr::Any,
        Val::Special(Special::ProcNull) => Attr::Null,
        Val::Special(Special::CommWorld) => {
            Attr::Unresolved("MPI_COMM_WORLD is not a number".into())
        }
        Val::Unknown(r) => Attr::Unresolved(r),
        // the neighbour; where it is MPI_PROC_NULL the APT's notes say
        Val::OrNull(o) => Attr::Expr(o.peer),
    }
}

fn role_attr(m: &MpiCall, roles: &[Role], s: &mut dyn Scope) -> Option<Attr> {
    let a = roles.iter().find_map(|r| m.arg(*r))?;
    Some(attr(eval(&a.expr, s)))
}

/// Where the size in bytes of a derived datatype `name` built by `MPI_Type_vector` or
/// `MPI_Type_contiguous` is kept in the environment: a path under the handle's variable, so
/// it follows the handle into callees (as an argument or a global) and is dropped when the
/// handle is written again.
pub fn datatype_path(name: &str) -> String {
    format!("{name}[#bytes]")
}

/// The variable or the one element a handle or scalar output argument names: `comm`, C
/// `&comm`, `&nbr[1]` or `&g.face[0][1]`, Fortran `nbr(2)` (passed by reference); an element
/// only at constant indices (its path: [`frontend::SrcExpr::path`]).
pub fn out_path(e: &SrcExpr) -> Option<String> {
    match &e.kind {
        SrcExprKind::Var(v) => Some(v.clone()),
        SrcExprKind::Index { .. } => e.path(),
        SrcExprKind::Unary {
            op: UnOp::AddrOf,
            operand,
        } => match &operand.kind {
            SrcExprKind::Var(_) | SrcExprKind::Index { .. } => operand.path(),
            _ => None,
        },
        _ => None,
    }
}

/// Size in bytes of the datatype argument: predefined, or derived with a known size.
fn type_size(m: &MpiCall, role: Role, s: &mut dyn Scope) -> Option<Result<Expr, String>> {
    let a = m.arg(role)?;
    Some(match &a.expr.kind {
        SrcExprKind::Var(name) => match datatype_size(name) {
            Some(b) => Ok(Expr::int(i64::from(b))),
            None if name.to_ascii_uppercase().starts_with("MPI_") => {
                Err(format!("datatype `{name}` has no known size"))
            }
            None => match s.element(&datatype_path(name)) {
                Some(Val::Known(b)) => Ok(b),
                _ => Err(format!("derived datatype `{name}`")),
            },
        },
        // an element of an array of handles at constant indices (`face[0][1]`)
        SrcExprKind::Index { .. } => match a.expr.path() {
            Some(p) => match s.element(&datatype_path(&p)) {
                Some(Val::Known(b)) => Ok(b),
                _ => Err(format!("derived datatype `{p}`")),
            },
            None => Err("datatype held in an array at indices that vary".to_string()),
        },
        _ => Err("datatype is an expression".to_string()),
    })
}

/// The handle a type constructor creates and the new type's size in bytes:
/// `MPI_Type_vector(count, blocklen, stride, old, t)` holds count × blocklen elements of
/// `old` (the stride moves them apart, it adds no bytes), `MPI_Type_contiguous(n, old, t)`
/// n of them. `None` for other calls or a handle that is not a variable.
pub fn derived_size(m: &MpiCall, s: &mut dyn Scope) -> Option<(String, Val)> {
    if m.op == MpiOp::TypeCreateSubarray {
        let handle = out_path(&m.arg(Role::NewType)?.expr)?;
        let v = match (subarray_elements(m, s), type_size(m, Role::Datatype, s)?) {
            (Val::Known(n), Ok(size)) => Val::Known(n * size),
            (Val::Unknown(r), _) | (_, Err(r)) => Val::Unknown(r),
            _ => Val::unknown("a subarray extent is an MPI constant"),
        };
        return Some((datatype_path(&handle), v));
    }
    let block = match m.op {
        MpiOp::TypeVector => m.arg(Role::BlockLength)?,
        MpiOp::TypeContiguous => m.arg(Role::Count)?,
        _ => return None,
    };
    let handle = out_path(&m.arg(Role::NewType)?.expr)?;
    let count = match m.op {
        MpiOp::TypeVector => eval(&m.arg(Role::Count)?.expr, s),
        _ => Val::Known(Expr::int(1)),
    };
    let block = eval(&block.expr, s);
    let base = type_size(m, Role::Datatype, s)?;
    let v = match (count, block, base) {
        (Val::Known(c), Val::Known(b), Ok(size)) => Val::Known(c * b * size),
        (Val::Unknown(r), _, _) | (_, Val::Unknown(r), _) | (_, _, Err(r)) => Val::Unknown(r),
        _ => Val::unknown("count is an MPI constant"),
    };
    Some((datatype_path(&handle), v))
}

/// The elements of `MPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, old, t)`:
/// the product of `subsizes`' first `ndims` elements, read from the array as stored (from its
/// declared lower bound: C's 0, Fortran's 1), where `ndims` is a known small integer.
fn subarray_elements(m: &MpiCall, s: &mut dyn Scope) -> Val {
    let ndims = match m.arg(Role::Ndims).map(|a| eval(&a.expr, s)) {
        Some(Val::Known(n)) => small_int(&n).filter(|n| (1..=8).contains(n)),
        _ => None,
    };
    let Some(ndims) = ndims else {
        return Val::unknown("a subarray of a number of dimensions the source does not give");
    };
    let Some(name) = m.arg(Role::Subsizes).and_then(|a| a.expr.path()) else {
        return Val::unknown("a subarray whose extents are an expression");
    };
    let lo = s
        .declared_bounds(&name)
        .and_then(|b| b.first().cloned().flatten())
        .and_then(|(lo, _)| match lo {
            Val::Known(e) => small_int(&e),
            _ => None,
        });
    let Some(lo) = lo else {
        return Val::unknown(format!("a subarray's extents held in `{name}`"));
    };
    let mut n = Expr::int(1);
    for k in lo..lo + ndims {
        match s.element(&format!("{name}[{k}]")) {
            Some(Val::Known(e)) => n = n * e,
            _ => return Val::unknown(format!("a subarray's extents held in `{name}`")),
        }
    }
    Val::Known(n)
}

fn small_int(e: &Expr) -> Option<i64> {
    e.as_const()
        .filter(|c| c.fract() == 0.0 && c.abs() < 1e6)
        .map(|c| c as i64)
}

fn bytes_of(m: &MpiCall, count: Role, ty: Role, s: &mut dyn Scope) -> Option<Attr> {
    let c = m.arg(count)?;
    let size = type_size(m, ty, s)?;
    let n = eval(&c.expr, s);
    Some(match (n, size) {
        (Val::Known(n), Ok(b)) => Attr::Expr(n * b),
        (Val::Known(_), Err(r)) => Attr::Unresolved(r),
        (Val::Unknown(r), _) => Attr::Unresolved(r),
        (Val::Special(_) | Val::OrNull(_), _) => {
            Attr::Unresolved("count is an MPI constant".into())
        }
    })
}

/// Per-rank count arrays (`alltoallv`, `gatherv`, …).
fn counts_array(m: &MpiCall, role: Role) -> Option<Attr> {
    let a = m.arg(role)?;
    Some(Attr::Unresolved(match a.expr.base_var() {
        Some(name) if !name.eq_ignore_ascii_case("NULL") => {
            format!("per-rank counts held in array `{name}`")
        }
        _ => "per-rank counts held in an array".into(),
    }))
}

/// The block one rank moves in a Scatterv (what it receives) or Gatherv (what it sends):
/// its scalar count, as the runtime records a non-root rank. A root that moves no block of
/// its own (count 0 or `MPI_IN_PLACE`) is recorded with the mean of the per-rank counts,
/// which the source does not give: unresolved, naming the counts array. The root-only
/// arguments of the other ranks (often `NULL`) are never read.
fn v_block(
    m: &MpiCall,
    buf: Role,
    count: Role,
    ty: Role,
    counts: Role,
    s: &mut dyn Scope,
) -> Option<Attr> {
    let in_place = m.arg(buf).is_some_and(
        |a| matches!(&a.expr.kind, SrcExprKind::Var(v) if v.eq_ignore_ascii_case("MPI_IN_PLACE")),
    );
    let none = m
        .arg(count)
        .is_some_and(|a| matches!(a.expr.kind, SrcExprKind::Int(0)));
    if in_place || none {
        return counts_array(m, counts);
    }
    bytes_of(m, count, ty, s)
}

/// Attributes of a communication call; `None` when `m` is not communication.
pub fn comm_facts(m: &MpiCall, s: &mut dyn Scope) -> Option<CommFacts> {
    if !m.op.is_comm() {
        return None;
    }
    let peer = role_attr(m, &[Role::Peer, Role::Dest, Role::Root], s);
    let tag = role_attr(m, &[Role::Tag, Role::SendTag], s);
    let bytes = match m.op {
        MpiOp::Scatterv => v_block(
            m,
            Role::RecvBuf,
            Role::RecvCount,
            Role::RecvType,
            Role::SendCounts,
            s,
        ),
        MpiOp::Gatherv => v_block(
            m,
            Role::SendBuf,
            Role::SendCount,
            Role::SendType,
            Role::RecvCounts,
            s,
        ),
        _ => None,
    };
    let bytes = bytes
        .or_else(|| bytes_of(m, Role::Count, Role::Datatype, s))
        .or_else(|| bytes_of(m, Role::SendCount, Role::SendType, s))
        .or_else(|| bytes_of(m, Role::RecvCount, Role::Datatype, s))
        .or_else(|| counts_array(m, Role::SendCounts))
        .or_else(|| counts_array(m, Role::RecvCounts));
    let source = role_attr(m, &[Role::Source], s);
    let recv_tag = role_attr(m, &[Role::RecvTag], s);
    let recv_bytes = match m.op {
        MpiOp::Sendrecv => bytes_of(m, Role::RecvCount, Role::RecvType, s),
        MpiOp::SendrecvReplace => bytes.clone(),
        _ => None,
    };
    let count = if m.arg(Role::Requests).is_some() {
        role_attr(m, &[Role::Count], s)
    } else {
        None
    };
    Some(CommFacts {
        op: m.op,
        peer,
        tag,
        bytes,
        bytes_mean: None,
        source,
        recv_tag,
        recv_bytes,
        count,
        // set by the tree builder, which knows the procedure (crate::writes)
        buffer: None,
        buffer_from_start: false,
        group: m
            .op
            .is_collective()
            .then(|| m.arg(Role::Comm)?.expr.path())
            .flatten()
            .and_then(|c| match s.stored(&crate::cart::group_path(&c)) {
                Some(Val::Known(g)) => Some(g),
                _ => None,
            }),
    })
}
