//! Expression evaluation at one program point: the [`Scope`] the value evaluator asks for
//! variables, user calls, inputs, stored elements and declared array bounds.

use frontend::{path_root, DeclKind, InputOrigin, Span, SrcExpr};
use symbolic::Expr;

use crate::procs::user_proc;
use crate::value::{eval, Scope, Special, Val};

use super::{Analysis, Env};

/// Scope of expression evaluation at one program point.
pub(super) struct Cx<'a, 'p> {
    pub(super) an: &'a mut Analysis<'p>,
    pub(super) env: &'a Env,
    /// The variable being defined (names a parameter read at run time).
    pub(super) target: Option<&'a str>,
}

impl Scope for Cx<'_, '_> {
    fn var(&mut self, name: &str) -> Val {
        if let Some(v) = self.env.get(name) {
            // the program's truncated quotient, where it still holds the one assigned
            if self.an.floor_divisions {
                if let (Some((held, floored)), Val::Known(now)) = (self.an.floored.get(name), v) {
                    if held == now {
                        return Val::Known(floored.clone());
                    }
                }
            }
            return v.clone();
        }
        match name.to_ascii_uppercase().as_str() {
            "MPI_ANY_SOURCE" | "MPI_ANY_TAG" => return Val::Special(Special::Wildcard),
            "MPI_PROC_NULL" => return Val::Special(Special::ProcNull),
            "MPI_COMM_WORLD" => return Val::Special(Special::CommWorld),
            u if u.starts_with("MPI_") => return Val::unknown(format!("MPI constant `{name}`")),
            _ => {}
        }
        // computing a summary: a path under a formal, read before the procedure wrote it, is
        // the caller's value of that path under its argument
        let root = path_root(name);
        if root != name {
            if let Some(k) = self
                .env
                .get(root)
                .and_then(Val::known)
                .and_then(Expr::as_var)
                .and_then(super::summary::arg_index)
            {
                let suffix = &name[root.len()..];
                return Val::Known(Expr::var(&super::summary::field_symbol(k, suffix)));
            }
        }
        let prog = self.an.prog;
        match prog.decl(self.an.cur, name).map(|d| &d.kind) {
            Some(DeclKind::Array { .. }) => Val::unknown(format!("held in array `{name}`")),
            // a C `const` whose initialiser is not a number: evaluated where it is used
            Some(DeclKind::Constant { value, .. }) => {
                let env = self.env;
                let mut inner = Cx {
                    an: &mut *self.an,
                    env,
                    target: Some(name),
                };
                eval(value, &mut inner)
            }
            _ => Val::unknown(format!(
                "`{name}` has no known value here{}",
                self.an.through_pointer(name, self.env)
            )),
        }
    }

    fn is_user_proc(&self, name: &str) -> bool {
        user_proc(self.an.prog, &self.an.procs.names, self.an.cur, name).is_some()
    }

    fn element(&mut self, path: &str) -> Option<Val> {
        // an unknown element keeps the array's reason (`held in array `nbr``)
        self.env
            .get(path)
            .filter(|v| matches!(v, Val::Known(_) | Val::OrNull(_)))
            .cloned()
    }

    fn user_call(&mut self, name: &str, args: Vec<Val>, exprs: &[SrcExpr], span: Span) {
        if let Some(callee) = user_proc(self.an.prog, &self.an.procs.names, self.an.cur, name) {
            let line = self.line(span);
            self.an.record_call(callee, args, exprs, self.env, line);
        }
    }

    fn input(&mut self, origin: &InputOrigin, span: Span) -> Val {
        let line = self.line(span);
        let var = self.target.unwrap_or("input");
        let v = self.an.input_value(origin, var, line);
        if let Some(t) = self.target {
            self.an.read_into.insert(t.to_string(), v.clone());
        }
        v
    }

    fn line(&self, span: Span) -> u32 {
        self.an.sources.first_line(span)
    }

    fn floors_divisions(&self) -> bool {
        self.an.floor_divisions
    }

    fn integer_division(&mut self, num: &Expr, den: &Expr, span: Span) {
        let key = (
            span.file.0,
            self.line(span),
            num.to_string(),
            den.to_string(),
        );
        self.an
            .divisions
            .entry(key)
            .or_insert_with(|| (span, num.clone(), den.clone()));
    }

    fn is_input(&self, name: &str) -> bool {
        self.an.params.is_input(name)
    }

    fn is_constant(&self, name: &str) -> bool {
        self.an.params.is_constant(name)
    }

    fn stored(&mut self, path: &str) -> Option<Val> {
        self.env.get(path).cloned()
    }

    fn size_of(&mut self, x: &SrcExpr) -> Option<Val> {
        let prog = self.an.prog;
        let (name, element) = match &x.kind {
            frontend::SrcExprKind::Var(v) => (v.as_str(), false),
            frontend::SrcExprKind::Index { array, .. } => (array.as_str(), true),
            // `*q`: what q points to, as `q[0]`
            frontend::SrcExprKind::Unary {
                op: frontend::UnOp::Deref,
                operand,
            } => match &operand.kind {
                frontend::SrcExprKind::Var(v) => (v.as_str(), true),
                _ => return None,
            },
            _ => return None,
        };
        let d = prog.decl(self.an.cur, name)?;
        let bytes = if d.ty.pointer > 0 && !element {
            8
        } else {
            i64::from(d.ty.bytes?)
        };
        match (&d.kind, element) {
            (DeclKind::Array { dims, .. }, false) if d.ty.pointer == 0 => {
                let bounds = self.declared_bounds(name)?;
                let mut size = Expr::int(bytes);
                for b in bounds.iter().take(dims.len()) {
                    let (Val::Known(lo), Val::Known(hi)) = b.as_ref()? else {
                        return None;
                    };
                    size = size * (hi.clone() - lo.clone() + Expr::one());
                }
                Some(Val::Known(size))
            }
            (DeclKind::Array { dims, .. }, true) => match &x.kind {
                frontend::SrcExprKind::Index { indices, .. }
                    if indices.len() == dims.len() && d.ty.pointer == 0 =>
                {
                    Some(Val::Known(Expr::int(bytes)))
                }
                _ => None,
            },
            (DeclKind::Scalar { .. } | DeclKind::Constant { .. }, false) => {
                Some(Val::Known(Expr::int(bytes)))
            }
            // what a pointer points to (`*q`, `q[0]`)
            (DeclKind::Scalar { .. }, true) if d.ty.pointer == 1 => {
                Some(Val::Known(Expr::int(bytes)))
            }
            _ => None,
        }
    }

    fn declared_bounds(&mut self, array: &str) -> Option<Vec<Option<(Val, Val)>>> {
        let prog = self.an.prog;
        let Some(DeclKind::Array { dims, .. }) = prog.decl(self.an.cur, array).map(|d| &d.kind)
        else {
            return None;
        };
        let env = self.env;
        let mut ev = |e: &SrcExpr| {
            eval(
                e,
                &mut Cx {
                    an: &mut *self.an,
                    env,
                    target: None,
                },
            )
        };
        Some(
            dims.iter()
                .map(|d| match d {
                    frontend::Dim::Bounds { lo, hi } => Some((ev(lo), ev(hi))),
                    frontend::Dim::Extent(n) => {
                        let hi = match ev(n) {
                            Val::Known(x) => Val::Known(x - Expr::one()),
                            other => other,
                        };
                        Some((Val::Known(Expr::zero()), hi))
                    }
                    frontend::Dim::Assumed => None,
                })
                .collect(),
        )
    }
}

impl Analysis<'_> {
    /// Why a path under a pointer last assigned an address is not known: ` (`L0` is
    /// `&lev[0]` from line 126; `lev`: assigned in loop at line 113)`, or nothing.
    pub(super) fn through_pointer(&self, path: &str, env: &Env) -> String {
        let root = path_root(path);
        let Some((target, base, line)) = self.points_to.get(root).filter(|_| root != path) else {
            return String::new();
        };
        let why = match env.get(base) {
            Some(Val::Unknown(r)) if r.starts_with(&format!("`{base}`")) => r.clone(),
            Some(Val::Unknown(r)) => format!("`{base}`: {r}"),
            _ => format!("`{path}` is not followed through the pointer"),
        };
        format!(" (`{root}` is `&{target}` from line {line}; {why})")
    }
}
