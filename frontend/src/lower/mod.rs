//! Lowering shared by both languages: the statement arena builder, def/use sets, MPI call
//! classification through the one table, and non-determinism warnings.
pub mod c;
pub mod fortran;
mod goto;

use std::collections::BTreeSet;

use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::mpi_table::{self, MpiOp, Role};

/// Statement nesting deeper than this is kept opaque (with a diagnostic).
pub const MAX_STMT_DEPTH: usize = 400;
/// Expression nesting deeper than this is kept opaque (with a diagnostic).
pub const MAX_EXPR_DEPTH: usize = 400;

#[derive(Debug)]
pub struct Builder {
    pub prog: Program,
    pub diags: Vec<Diagnostic>,
    pub parent: Option<StmtId>,
    pub cur_proc: ProcId,
    pub depth: usize,
    warned_deep: bool,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Builder {
    pub fn new(language: Language, main_file: FileId) -> Self {
        Builder {
            prog: Program {
                language,
                main_file,
                procs: Vec::new(),
                stmts: Vec::new(),
                globals: Vec::new(),
                modules: Vec::new(),
                module_uses: Vec::new(),
                derived_types: Default::default(),
                type_procs: Default::default(),
                c_typedefs: Default::default(),
                c_statement_macros: Default::default(),
            },
            diags: Vec::new(),
            parent: None,
            cur_proc: ProcId(0),
            depth: 0,
            warned_deep: false,
        }
    }

    pub fn lang(&self) -> Language {
        self.prog.language
    }

    /// Starts a procedure; statements pushed until the next call belong to it.
    pub fn begin_proc(
        &mut self,
        name: String,
        kind: ProcKind,
        span: Span,
        name_span: Span,
    ) -> ProcId {
        let id = ProcId(to_u32(self.prog.procs.len()));
        self.prog.procs.push(Procedure {
            id,
            name,
            kind,
            params: Vec::new(),
            decls: Vec::new(),
            body: Vec::new(),
            span,
            name_span,
            implicit_none: self.prog.language == Language::C,
            implicit: Vec::new(),
            module: None,
            host: None,
            pure: false,
        });
        self.cur_proc = id;
        self.parent = None;
        id
    }

    pub fn proc_mut(&mut self) -> Option<&mut Procedure> {
        self.prog.procs.get_mut(self.cur_proc.0 as usize)
    }

    /// Reserves the next id (pre-order): the statement is filled in later with [`Self::fill`].
    pub fn alloc(&mut self, span: Span, label: Option<u32>) -> StmtId {
        let id = StmtId(to_u32(self.prog.stmts.len()));
        self.prog.stmts.push(Stmt {
            id,
            proc: self.cur_proc,
            parent: self.parent,
            span,
            label,
            kind: StmtKind::Opaque(Opaque {
                text: String::new(),
                reason: "incomplete".into(),
                allocations: Vec::new(),
                masked: None,
            }),
            defs: BTreeSet::new(),
            uses: BTreeSet::new(),
        });
        id
    }

    /// Sets the kind of a reserved statement and computes its def/use sets; `extra_defs` and
    /// `extra_uses` are added (opaque statements, by-reference arguments).
    pub fn fill(
        &mut self,
        id: StmtId,
        kind: StmtKind,
        extra_defs: BTreeSet<String>,
        extra_uses: BTreeSet<String>,
    ) {
        let (mut defs, mut uses) = defs_uses(&kind);
        defs.extend(extra_defs);
        uses.extend(extra_uses);
        if let Some(s) = self.prog.stmts.get_mut(id.0 as usize) {
            s.kind = kind;
            s.defs = defs;
            s.uses = uses;
        }
    }

    /// Allocates and fills a leaf statement.
    pub fn push(&mut self, span: Span, label: Option<u32>, kind: StmtKind) -> StmtId {
        let id = self.alloc(span, label);
        self.fill(id, kind, BTreeSet::new(), BTreeSet::new());
        id
    }

    pub fn push_opaque(
        &mut self,
        span: Span,
        label: Option<u32>,
        text: &str,
        reason: &str,
        defs: BTreeSet<String>,
        uses: BTreeSet<String>,
    ) -> StmtId {
        let id = self.alloc(span, label);
        let first: String = text
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(120)
            .collect();
        self.fill(
            id,
            StmtKind::Opaque(Opaque {
                text: first,
                reason: reason.into(),
                allocations: Vec::new(),
                masked: None,
            }),
            defs,
            uses,
        );
        id
    }

    /// Enter a nested body; returns false (and reports once) when too deep.
    pub fn enter(&mut self, span: Span) -> bool {
        if self.depth >= MAX_STMT_DEPTH {
            if !self.warned_deep {
                self.warned_deep = true;
                self.diags.push(
                    Diagnostic::error(
                        codes::TOO_DEEP,
                        format!("statements nested more than {MAX_STMT_DEPTH} deep"),
                    )
                    .with_primary(span, "the body of this statement is not analysed")
                    .with_note("deeper statements are kept as opaque text"),
                );
            }
            return false;
        }
        self.depth += 1;
        true
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub fn report_deep_expr(&mut self, span: Span) {
        if !self.warned_deep {
            self.warned_deep = true;
            self.diags.push(
                Diagnostic::error(
                    codes::TOO_DEEP,
                    format!("expression nested more than {MAX_EXPR_DEPTH} deep"),
                )
                .with_primary(span, "kept as opaque text"),
            );
        }
    }

    /// Classifies a call to an MPI function (`name` as written) and reports arity problems
    /// and non-determinism.
    pub fn mpi_call(
        &mut self,
        name: &str,
        call_span: Span,
        args: Vec<SrcExpr>,
        result: Option<SrcExpr>,
    ) -> MpiCall {
        let fortran = self.lang() == Language::Fortran;
        let sig = mpi_table::lookup(name);
        let (op, roles): (MpiOp, &[Role]) = match sig {
            Some(s) => (
                s.op,
                if fortran {
                    s.fortran_roles.unwrap_or(s.roles)
                } else {
                    s.roles
                },
            ),
            None => {
                self.diags.push(
                    Diagnostic::note(
                        codes::UNKNOWN_MPI,
                        format!("`{name}` is not in augur's MPI table"),
                    )
                    .with_primary(call_span, "its arguments are kept without roles"),
                );
                (MpiOp::Other, &[])
            }
        };
        let has_ierr = fortran && sig.is_some_and(|s| !s.fortran_function);
        if sig.is_some() {
            let expected = roles.len() + usize::from(has_ierr);
            // `use mpi_f08`: the trailing `ierror` is optional
            let f08 = has_ierr && args.len() == roles.len();
            if args.len() != expected && !f08 {
                let takes = if has_ierr {
                    format!("{} or {expected} (with `ierror`)", roles.len())
                } else {
                    expected.to_string()
                };
                self.diags.push(
                    Diagnostic::warning(
                        codes::MPI_ARITY,
                        format!(
                            "`{name}` takes {takes} arguments here, found {}",
                            args.len()
                        ),
                    )
                    .with_primary(call_span, "argument roles may be wrong"),
                );
            }
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, arg) in args.into_iter().enumerate() {
            let role = match roles.get(i) {
                Some(r) => *r,
                None if has_ierr && i == roles.len() => Role::Ierr,
                None => Role::Unknown,
            };
            let (mut expr, address_of) = match arg.kind {
                SrcExprKind::Unary {
                    op: UnOp::AddrOf,
                    operand,
                } => (*operand, true),
                _ => (arg, false),
            };
            if fortran && role.is_data() {
                // `buf(1, j)` of an array declared in another file looks like a call
                if let SrcExprKind::Call { name, args } = &expr.kind {
                    if !fortran::is_intrinsic(name) {
                        let kind = SrcExprKind::Index {
                            array: name.clone(),
                            indices: args.clone(),
                        };
                        expr = SrcExpr {
                            kind,
                            span: expr.span,
                            ty: expr.ty,
                        };
                    }
                }
            }
            // a wildcard tag with a given source is matched in that source's send order
            // (non-overtaking): only a wildcard source depends on timing (trial 15: a worker's
            // MPI_ANY_TAG receive from the master flagged)
            if let SrcExprKind::Var(v) = &expr.kind {
                if v.eq_ignore_ascii_case("MPI_ANY_SOURCE") {
                    self.diags.push(
                        Diagnostic::warning(
                            codes::NONDETERMINISTIC,
                            format!("`{v}` makes message matching depend on timing"),
                        )
                        .with_primary(expr.span, "wildcard here")
                        .with_note("the traced runs fix one matching; predictions assume it"),
                    );
                }
            }
            out.push(MpiArg {
                role,
                expr,
                address_of,
            });
        }
        if op.is_nondeterministic() {
            self.diags.push(
                Diagnostic::warning(
                    codes::NONDETERMINISTIC,
                    format!("`{name}` completes in an order that depends on timing"),
                )
                .with_primary(call_span, "non-deterministic completion")
                .with_note("the traced runs fix one order; predictions assume it"),
            );
        }
        MpiCall {
            op,
            name: name.to_string(),
            args: out,
            result,
        }
    }

    /// Pushes one `Mpi` statement for each MPI call nested inside `exprs` (see [`MpiCall`]).
    pub fn hoist_mpi(&mut self, exprs: &[&SrcExpr]) {
        let mut calls = Vec::new();
        for e in exprs {
            for sub in e.walk() {
                if let SrcExprKind::Call { name, args } = &sub.kind {
                    if mpi_table::is_mpi_name(name) {
                        calls.push((name.clone(), sub.span, args.clone()));
                    }
                }
            }
        }
        for (name, span, args) in calls {
            let call = self.mpi_call(&name, span, args, None);
            self.push(span, None, StmtKind::Mpi(call));
        }
    }
}

/// Whether `e` is exactly a call to an MPI function.
pub fn as_mpi_call(e: &SrcExpr) -> Option<(&str, &[SrcExpr])> {
    match &e.kind {
        SrcExprKind::Call { name, args } if mpi_table::is_mpi_name(name) => Some((name, args)),
        _ => None,
    }
}

/// The variable a written MPI argument points into: `a`, `a[i]`, `&a[i]`, and C pointer
/// arithmetic `a + off` / `(a + off)`.
fn buffer_base(e: &SrcExpr) -> Option<&str> {
    match &e.kind {
        SrcExprKind::Binary {
            op: BinOp::Add | BinOp::Sub,
            lhs,
            ..
        } => buffer_base(lhs),
        _ => e.base_var(),
    }
}

/// Variables read by the subscripts of a target (`i`, `j` in `a(i, j)`).
fn target_uses(target: &SrcExpr) -> BTreeSet<String> {
    match &target.kind {
        SrcExprKind::Index { indices, .. } => indices.iter().flat_map(SrcExpr::vars).collect(),
        SrcExprKind::Var(_) => BTreeSet::new(),
        _ => {
            let mut u = target.vars();
            if let Some(b) = target.base_var() {
                u.remove(b);
            }
            u
        }
    }
}

fn defs_uses(kind: &StmtKind) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut defs = BTreeSet::new();
    let mut uses = BTreeSet::new();
    match kind {
        StmtKind::Assign(a) => {
            if let Some(b) = a.target.base_var() {
                defs.insert(b.to_string());
            }
            uses.extend(target_uses(&a.target));
            uses.extend(a.value.vars());
        }
        StmtKind::Loop(l) => {
            for (var, lo, hi, step) in l.indices() {
                defs.insert(var.to_string());
                for e in [lo, hi, step] {
                    uses.extend(e.vars());
                }
            }
            if let Some(m) = l.concurrent.as_ref().and_then(|c| c.mask.as_ref()) {
                uses.extend(m.vars());
            }
        }
        StmtKind::While(w) => {
            if let Some(c) = &w.cond {
                uses.extend(c.vars());
            }
        }
        StmtKind::If(i) => {
            for arm in &i.arms {
                uses.extend(arm.cond.vars());
            }
        }
        StmtKind::Call(c) => {
            for a in &c.args {
                uses.extend(a.vars());
            }
        }
        StmtKind::Mpi(m) => {
            for a in &m.args {
                if a.role.is_written_by(m.op) {
                    match buffer_base(&a.expr) {
                        // MPI_STATUS_IGNORE and friends are not variables of the program
                        Some(b) if b.starts_with("MPI_") => {}
                        Some(b) => {
                            defs.insert(b.to_string());
                        }
                        // `s.buf`: the whole struct may be written
                        None => defs.extend(a.expr.vars()),
                    }
                    uses.extend(target_uses(&a.expr));
                } else {
                    uses.extend(a.expr.vars());
                }
            }
            if let Some(r) = &m.result {
                if let Some(b) = r.base_var() {
                    defs.insert(b.to_string());
                }
                uses.extend(target_uses(r));
            }
        }
        StmtKind::Input(inp) => {
            for t in &inp.targets {
                if let Some(b) = t.base_var() {
                    defs.insert(b.to_string());
                }
                uses.extend(target_uses(t));
            }
        }
        StmtKind::Return { value } => {
            if let Some(v) = value {
                uses.extend(v.vars());
            }
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Opaque(_) => {}
    }
    (defs, uses)
}

/// Parses an integer literal as written in either language (`10`, `0x1F`, `10UL`, `8_8`).
pub fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let t = t.split('_').next().unwrap_or(t);
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok();
    }
    if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        return i64::from_str_radix(&t[1..], 8).ok();
    }
    t.parse().ok()
}

/// Parses a real literal (`1.0`, `1.0d0`, `2.5e-3f`, `1.0_8`); `None` if it is not one.
pub fn parse_real(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = t.split('_').next().unwrap_or(t);
    let t = t.trim_end_matches(['f', 'F', 'l', 'L']);
    let t: String = t
        .chars()
        .map(|c| {
            if c == 'd' || c == 'D' || c == 'q' || c == 'Q' {
                'e'
            } else {
                c
            }
        })
        .collect();
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("10UL"), Some(10));
        assert_eq!(parse_int("8_8"), Some(8));
        assert_eq!(parse_real("1.0d0"), Some(1.0));
        assert_eq!(parse_real("2.5e-1f"), Some(0.25));
        assert_eq!(parse_real("1.d-3"), Some(0.001));
    }
}
