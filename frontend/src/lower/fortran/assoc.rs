//! Fortran ASSOCIATE and BLOCK constructs → the statements of the enclosing procedure: their
//! bodies run once where they stand, so they are lowered in place (no IR node of their own,
//! the statements' parent is the construct's). An associate name stands for its selector:
//! every use is lowered as the selector (`a(i, j)` with `a => u` is `u(i, j)`, `nx` with
//! `nx => g%nx` is `g%nx`), which keeps loop bounds, message sizes and def/use sets on the
//! variables the rest of the program knows. A selector calling a user function is evaluated
//! once, at entry: it is bound by an assignment to the name instead. BLOCK declarations become
//! locals of the procedure.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{children, norm, FLower};
use crate::ir::*;
use crate::parse::FieldExt;

/// Whether a selector can stand for its name at every use: no user function call, nothing
/// read at run time, nothing opaque (the statement is evaluated once, at entry).
fn substitutable(e: &SrcExpr) -> bool {
    e.walk().iter().all(|x| match &x.kind {
        SrcExprKind::Call { name, .. } => {
            crate::intrinsics::lookup(name, Language::Fortran).is_some()
                && !name.starts_with("MPI_")
        }
        SrcExprKind::Opaque { .. } | SrcExprKind::Input(_) => false,
        _ => true,
    })
}

impl<'a> FLower<'a> {
    /// `[name:] associate (a => sel, …) … end associate [name]`.
    pub(super) fn associate(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let kids = children(n);
        let mut bound = Vec::new();
        let mut binds = Vec::new();
        for list in kids.iter().filter(|k| k.kind() == "association_list") {
            for a in children(*list)
                .into_iter()
                .filter(|a| a.kind() == "association")
            {
                let (Some(name), Some(sel)) = (a.field("name"), a.field("selector")) else {
                    continue;
                };
                let name = norm(self.text(name));
                // every selector is evaluated before any name exists (they cannot see each
                // other), under the aliases of the constructs around this one
                let e = self.expr(sel, 0);
                if substitutable(&e) {
                    bound.push((name, e));
                } else {
                    binds.push((name, e, self.span(a)));
                }
            }
        }
        if label.is_some() {
            // a GOTO target: the construct's first line, as a statement doing nothing
            let head = kids
                .iter()
                .find(|k| k.kind() == "association_list")
                .map_or_else(|| self.span(n), |l| self.span(n).cover(self.span(*l)));
            let uses = bound.iter().flat_map(|(_, e)| e.vars()).collect();
            let id = self
                .b
                .push_opaque(head, label, "", "associate", BTreeSet::new(), uses);
            out.push(id);
        }
        let saved = self.aliases.clone();
        let saved_locals = self.locals.clone();
        for (name, value, span) in binds {
            self.hoist_nested(&value, out);
            let ty = value.ty.map(|b| VarType::new(b, None, String::new()));
            if let Some(t) = ty {
                self.locals.insert(name.clone(), (t, false));
            }
            let target = SrcExpr::var(name.clone(), span).with_type(value.ty);
            self.aliases.remove(&name);
            out.push(
                self.b
                    .push(span, None, StmtKind::Assign(Assign { target, value })),
            );
        }
        for (name, e) in bound {
            self.locals.remove(&name);
            self.aliases.insert(name, e);
        }
        let body: Vec<Node<'a>> = kids
            .into_iter()
            .filter(|k| {
                !matches!(
                    k.kind(),
                    "association_list" | "end_associate_statement" | "block_label_start_expression"
                )
            })
            .collect();
        let mut stmts = self.stmts(&body);
        out.append(&mut stmts);
        self.aliases = saved;
        self.locals = saved_locals;
    }

    /// `[name:] block … end block [name]`: its declarations are locals of the procedure
    /// (visible in the block only, which the lowering does not need to enforce: the names
    /// are the same variables for the whole block).
    pub(super) fn block_construct(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        if label.is_some() {
            let id = self.b.push_opaque(
                self.span(n),
                label,
                "",
                "block",
                BTreeSet::new(),
                BTreeSet::new(),
            );
            out.push(id);
        }
        // a local of the block hides an alias or local of the same name only inside it
        let saved = self.aliases.clone();
        let saved_locals = self.locals.clone();
        let body: Vec<Node<'a>> = children(n)
            .into_iter()
            .filter(|k| {
                !matches!(
                    k.kind(),
                    "end_block_construct_statement" | "block_label_start_expression"
                )
            })
            .collect();
        for d in body.iter().filter(|k| super::is_decl(k.kind())) {
            for name in self.idents(*d) {
                self.aliases.remove(&name);
            }
        }
        let mut stmts = self.stmts(&body);
        out.append(&mut stmts);
        self.aliases = saved;
        self.locals = saved_locals;
    }

    /// The selector an associate name stands for, at a use spanning `span`.
    pub(super) fn alias(&self, name: &str, span: Span) -> Option<SrcExpr> {
        let mut e = self.aliases.get(name)?.clone();
        e.span = span;
        Some(e)
    }

    /// `a(i, j)` with `a` an associate name: an element of the selector's array (`u(i, j)`
    /// for `a => u`, `g%u(i, j)` for `a => g%u`, `u(i, k)` for `a => u(:, k)`: each index
    /// fills the next section of the selector, offset by its lower bound).
    pub(super) fn alias_element(
        &self,
        name: &str,
        args: Vec<SrcExpr>,
        span: Span,
    ) -> Option<SrcExpr> {
        let sel = self.aliases.get(name)?;
        let ty = sel.ty;
        let kind = match &sel.kind {
            SrcExprKind::Var(v) => SrcExprKind::Index {
                array: v.clone(),
                indices: args,
            },
            SrcExprKind::Index { array, indices } => {
                let mut args = args.into_iter();
                let mut out = Vec::with_capacity(indices.len());
                for ix in indices {
                    match &ix.kind {
                        SrcExprKind::Range { lo, .. } => {
                            let Some(a) = args.next() else {
                                out.push(ix.clone());
                                continue;
                            };
                            out.push(match lo.as_deref() {
                                Some(lo) if lo.as_int() != Some(1) => SrcExpr::binary(
                                    BinOp::Sub,
                                    SrcExpr::binary(BinOp::Add, lo.clone(), a),
                                    SrcExpr::int(1, span),
                                ),
                                _ => a,
                            });
                        }
                        _ => out.push(ix.clone()),
                    }
                }
                SrcExprKind::Index {
                    array: array.clone(),
                    indices: out,
                }
            }
            _ => return None,
        };
        Some(SrcExpr { kind, span, ty })
    }

    /// The variables an associate name stands for (for def/use sets), else the name.
    pub(super) fn alias_vars(&self, name: &str) -> Vec<String> {
        match self.aliases.get(name) {
            Some(e) => e
                .vars()
                .into_iter()
                .map(|v| path_root(&v).to_string())
                .collect(),
            None => vec![name.to_string()],
        }
    }
}
