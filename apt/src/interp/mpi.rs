//! MPI calls: rank and size, each call's communication facts, what the call writes (a
//! broadcast gives every rank the root's value), derived datatype sizes, and notes on
//! neighbours that are `MPI_PROC_NULL` at the grid's edge.

use frontend::{path_root, path_under, BinOp, MpiOp, Role, SrcExpr, SrcExprKind, StmtId, UnOp};
use symbolic::Expr;

use crate::comm::comm_facts;
use crate::value::{Special, Val};
use crate::Attr;

use super::scope::Cx;
use super::{stale_paths, Analysis, Env};

/// The variable (or access path) whose storage a written MPI buffer argument starts in:
/// `g` for `g`, `ibuf` for `ibuf(1)` / `&ibuf[0]` / `ibuf + k`.
pub(super) fn written_root(e: &SrcExpr) -> Option<&str> {
    match &e.kind {
        SrcExprKind::Var(v) => Some(v),
        SrcExprKind::Index { array, .. } => Some(array),
        SrcExprKind::Binary {
            op: BinOp::Add | BinOp::Sub,
            lhs,
            ..
        } => written_root(lhs),
        SrcExprKind::Unary { operand, .. } => written_root(operand),
        SrcExprKind::Cast { expr, .. } => written_root(expr),
        _ => None,
    }
}

/// The variable a handle argument names: `comm` or C `&comm`.
pub(super) fn handle_var(e: &SrcExpr) -> Option<&str> {
    match &e.kind {
        SrcExprKind::Var(v) => Some(v),
        SrcExprKind::Unary {
            op: UnOp::AddrOf,
            operand,
        } => match &operand.kind {
            SrcExprKind::Var(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an argument in `role` written by `op` is one value (a handle, a rank, a count),
/// so `&a[1]` writes that element alone; a buffer or an array of results written from an
/// element on may write the rest of the array too.
fn writes_one_value(role: Role) -> bool {
    matches!(
        role,
        Role::NewType
            | Role::NewComm
            | Role::NewGroup
            | Role::Request
            | Role::Source
            | Role::Dest
            | Role::Rank
            | Role::Size
            | Role::Flag
            | Role::Index
            | Role::Outcount
            | Role::Count
            | Role::Provided
    )
}

/// `MPI_Reduce_scatter_block` reduces the whole vector, `recvcount` elements for each rank of
/// the communicator, and the runtime records that size (as `MPI_Reduce_scatter` records the
/// sum of its counts): the block times P where the communicator has the world's ranks, else
/// unresolved (its size is not kept). The block alone did not match the traces (trial 26:
/// `32` from the source against 32·P traced, fitted by regression as a constant 42.67).
fn whole_vector(block: Attr, world: bool, m: &frontend::MpiCall, line: u32) -> Attr {
    match block {
        Attr::Expr(b) if world => Attr::Expr(b * Expr::var(crate::params::P)),
        Attr::Expr(_) => Attr::Unresolved(format!(
            "the whole vector {} reduces at line {line}: its count per rank times the size of a communicator other than MPI_COMM_WORLD",
            m.name
        )),
        other => other,
    }
}

impl Analysis<'_> {
    pub(super) fn mpi(&mut self, id: StmtId, m: &frontend::MpiCall, env: &mut Env, line: u32) {
        // MPI_COMM_WORLD as written or through a variable holding it, or a Cartesian grid
        // of it (ranks as in MPI_COMM_WORLD: crate::cart)
        let world = match m.arg(Role::Comm) {
            Some(a) => {
                self.ev(&a.expr, env, None) == Val::Special(Special::CommWorld)
                    || handle_var(&a.expr).is_some_and(|c| crate::cart::stored(env, c).is_some())
            }
            None => false,
        };
        let out_var = |role: Role| match m.arg(role).map(|a| &a.expr.kind) {
            Some(SrcExprKind::Var(v)) => Some(v.clone()),
            _ => None,
        };
        match m.op {
            MpiOp::CommSize | MpiOp::CommRank => {
                let role = if m.op == MpiOp::CommSize {
                    Role::Size
                } else {
                    Role::Rank
                };
                // in a summary, the communicator handed in as a formal: P or the rank where
                // the call hands in MPI_COMM_WORLD ([`super::summary::comm_symbol`])
                let formal = m
                    .arg(Role::Comm)
                    .map(|a| self.ev(&a.expr, env, None))
                    .and_then(|v| {
                        v.known()
                            .and_then(|e| e.as_var().and_then(super::summary::arg_index))
                    });
                if let Some(v) = out_var(role) {
                    let val = if let (false, Some(k)) = (world, formal) {
                        if m.op == MpiOp::CommSize {
                            self.params.comm_size(&v, line);
                        } else {
                            self.params.comm_rank(&v, line);
                        }
                        Val::Known(Expr::var(&super::summary::comm_symbol(
                            k,
                            m.op == MpiOp::CommRank,
                        )))
                    } else if world {
                        let p = if m.op == MpiOp::CommSize {
                            self.params.comm_size(&v, line)
                        } else {
                            self.params.comm_rank(&v, line)
                        };
                        Val::Known(Expr::var(&p))
                    } else {
                        Val::unknown(format!(
                            "{} of a communicator other than MPI_COMM_WORLD at line {line}",
                            m.name
                        ))
                    };
                    env.insert(v, val);
                }
                return;
            }
            _ => {}
        }
        let facts = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            comm_facts(m, &mut cx)
        };
        if let Some(mut f) = facts {
            if m.op == MpiOp::ReduceScatterBlock {
                f.bytes = f.bytes.map(|b| whole_vector(b, world, m, line));
            }
            if matches!(m.op, MpiOp::Start | MpiOp::Startall) {
                self.started(m, &mut f);
            }
            if let Some(Attr::Expr(b)) = &f.bytes {
                f.bytes_mean = self.mean_over_loops(b);
            }
            self.facts.comms.insert(id, f);
            self.note_edges(m, env, line);
        }
        if m.op.is_persistent_init() {
            self.request_init(m, env);
        }
        let balanced = (m.op == MpiOp::DimsCreate)
            .then(|| self.dims_create(m, env, line))
            .flatten();
        for a in &m.args {
            // committing a type keeps its handle (and the size kept under it)
            if a.role.is_written_by(m.op) && m.op != MpiOp::TypeCommit {
                let bcast = matches!(m.op, MpiOp::Bcast | MpiOp::Ibcast) && a.role == Role::Buffer;
                // a broadcast gives every rank the root's value: unchanged if every rank
                // already had it, else what the root read at run time
                let after = |v: &str, env: &Env| match (bcast, env.get(v), self.read_into.get(v)) {
                    (true, Some(b @ (Val::Known(_) | Val::Special(_))), _) => b.clone(),
                    (true, _, Some(read)) => read.clone(),
                    _ => Val::unknown(format!("set by {} at line {line}", m.name)),
                };
                if let SrcExprKind::Var(v) = &a.expr.kind {
                    let x = after(v, env);
                    env.insert(v.clone(), x);
                }
                // one element written as one value (`&nbr[1]`): that element alone
                let element = crate::comm::out_path(&a.expr)
                    .filter(|p| writes_one_value(a.role) && *p != path_root(p));
                if let Some(x) = element {
                    let mut paths = stale_paths(env, &x);
                    paths.push(x);
                    for p in paths {
                        let v = after(&p, env);
                        env.insert(p, v);
                    }
                    continue;
                }
                // the elements and members of the buffer (from `&a[k]` or `a + k` on, the
                // whole array)
                if let Some(root) = written_root(&a.expr) {
                    let mut paths = stale_paths(env, root);
                    paths.extend(
                        self.read_into
                            .keys()
                            .filter(|k| path_under(k, root) && !env.contains_key(*k))
                            .cloned(),
                    );
                    for p in paths {
                        let x = after(&p, env);
                        env.insert(p, x);
                    }
                }
            }
        }
        // after the handle's old paths were dropped above
        let derived = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            crate::comm::derived_size(m, &mut cx)
        };
        if let Some((path, size)) = derived {
            env.insert(path, size);
        }
        match m.op {
            MpiOp::CartCreate => {
                if let Some((comm, grid)) = self.cart_create(m, env) {
                    env.extend(crate::cart::store(&comm, &grid));
                }
            }
            MpiOp::CartShift => self.cart_shift(m, env, line),
            MpiOp::CartSub => self.cart_sub(m, env),
            MpiOp::CommSplit => self.comm_split(m, env),
            MpiOp::CartCoords => self.cart_coords(m, env),
            _ => {}
        }
        if let Some(b) = balanced {
            // a grid of the P ranks, whether or not its extents reach a count the APT gives
            for (_, v) in &b.elements {
                if let Val::Known(e) = v {
                    for t in e.terms() {
                        for (a, _) in t.factors() {
                            if let symbolic::Atom::Dims { n, d, rule, .. } = a {
                                if **n == symbolic::Expr::var(crate::params::P) {
                                    self.grids.insert((*d, *rule));
                                }
                            }
                        }
                    }
                }
            }
            env.extend(b.elements);
            if let Some(note) = b.note {
                self.notes.insert(line, note);
            }
        }
        if let Some(r) = &m.result {
            if let SrcExprKind::Var(v) = &r.kind {
                env.insert(
                    v.clone(),
                    Val::unknown(format!("returned by {} at line {line}", m.name)),
                );
            }
        }
    }

    /// A COMM node's peer is the neighbour (its attribute); where the neighbour is
    /// `MPI_PROC_NULL` (the edge of the process grid) the note at its line says.
    pub(super) fn note_edges(&mut self, m: &frontend::MpiCall, env: &Env, line: u32) {
        let mut said = Vec::new();
        for role in [Role::Peer, Role::Dest, Role::Source] {
            let Some(a) = m.arg(role) else { continue };
            // evaluated again: only a variable or an element at constant indices
            // (`nbr[0]`), which record nothing twice
            let v = match &a.expr.kind {
                SrcExprKind::Var(_) | SrcExprKind::Index { .. } => a.expr.path(),
                _ => None,
            };
            let Some(v) = v else { continue };
            if let Val::OrNull(o) = self.ev(&a.expr, env, None) {
                said.push(format!("`{v}` is {}", o.text()));
            }
        }
        if !said.is_empty() {
            let note = format!("{} at line {line}: {}", m.name, said.join("; "));
            self.notes
                .entry(line)
                .and_modify(|n| {
                    n.push_str("; ");
                    n.push_str(&note);
                })
                .or_insert(note);
        }
    }
}
