//! Fortran expressions → `SrcExpr`: `a(i)` is an element when `a` is an array, else a
//! call (intrinsics typed); sections become ranges.
use tree_sitter::Node;

use super::{children, intrinsic_type, norm, rel_op, FLower};
use crate::ir::*;
use crate::lower::{parse_int, parse_real, MAX_EXPR_DEPTH};
use crate::parse::FieldExt;

impl<'a> FLower<'a> {
    pub(super) fn expr(&mut self, n: Node, depth: usize) -> SrcExpr {
        let span = self.span(n);
        if depth > MAX_EXPR_DEPTH {
            self.b.report_deep_expr(span);
            let vars: Vec<String> = self.idents(n).into_iter().collect();
            return SrcExpr::new(
                SrcExprKind::Opaque {
                    text: String::new(),
                    vars,
                },
                span,
            );
        }
        let d = depth + 1;
        match n.kind() {
            "number_literal" => {
                let t = self.text(n);
                if let Some(v) = boz(t) {
                    return SrcExpr::int(v, span);
                }
                let is_real = t.contains(['.', 'e', 'E', 'd', 'D']);
                if !is_real {
                    if let Some(v) = parse_int(t) {
                        return SrcExpr::int(v, span);
                    }
                }
                match parse_real(t) {
                    Some(value) => SrcExpr::new(
                        SrcExprKind::Real {
                            text: t.to_string(),
                            value,
                        },
                        span,
                    )
                    .with_type(Some(BaseType::Real)),
                    None => self.opaque_e(n),
                }
            }
            "string_literal" => {
                let t = self.text(n);
                let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
                SrcExpr::new(SrcExprKind::Str(inner.to_string()), span)
                    .with_type(Some(BaseType::Character))
            }
            "boolean_literal" => {
                let v = self.text(n).to_ascii_lowercase().contains("true");
                SrcExpr::new(SrcExprKind::Bool(v), span).with_type(Some(BaseType::Logical))
            }
            "identifier" => {
                let name = norm(self.text(n));
                if let Some(e) = self.alias(&name, span) {
                    return e;
                }
                let ty = self.type_of(&name);
                SrcExpr::var(name, span).with_type(ty)
            }
            "parenthesized_expression" => match n.named_child(0) {
                Some(c) => self.expr(c, d),
                None => self.opaque_e(n),
            },
            "math_expression"
            | "relational_expression"
            | "logical_expression"
            | "concatenation_expression" => {
                let op_text = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                let l = n.field("left");
                let r = n.field("right");
                match (l, r) {
                    (Some(l), Some(r)) => {
                        let op = if n.kind() == "concatenation_expression" {
                            Some(BinOp::Concat)
                        } else {
                            rel_op(op_text)
                        };
                        let Some(op) = op else {
                            return self.opaque_e(n);
                        };
                        let (l, r) = (self.expr(l, d), self.expr(r, d));
                        let mut e = SrcExpr::binary(op, l, r);
                        e.span = span;
                        e
                    }
                    _ => {
                        // `.not. x`
                        let Some(a) = n.field("argument").or_else(|| n.named_child(0)) else {
                            return self.opaque_e(n);
                        };
                        let a = self.expr(a, d);
                        SrcExpr {
                            kind: SrcExprKind::Unary {
                                op: UnOp::Not,
                                operand: Box::new(a),
                            },
                            span,
                            ty: Some(BaseType::Logical),
                        }
                    }
                }
            }
            "unary_expression" => {
                let op = n
                    .field("operator")
                    .map(|o| self.text(o).to_ascii_lowercase());
                let Some(a) = n.field("argument") else {
                    return self.opaque_e(n);
                };
                let a = self.expr(a, d);
                let op = match op.as_deref() {
                    Some("-") => UnOp::Neg,
                    Some("+") => UnOp::Plus,
                    Some(".not.") => UnOp::Not,
                    _ => return self.opaque_e(n),
                };
                let ty = if op == UnOp::Not {
                    Some(BaseType::Logical)
                } else {
                    a.ty
                };
                SrcExpr {
                    kind: SrcExprKind::Unary {
                        op,
                        operand: Box::new(a),
                    },
                    span,
                    ty,
                }
            }
            "derived_type_member_expression" => match self.member_path(n, d) {
                Some(path) => SrcExpr::var(path, span),
                None => self.opaque_e(n),
            },
            "call_expression" => {
                if let Some(f) = n
                    .named_child(0)
                    .filter(|f| f.kind() == "derived_type_member_expression")
                {
                    // `t%a(3)`: an element of a component array named by its access path
                    let Some(array) = self.member_path(f, d) else {
                        return self.opaque_e(n);
                    };
                    let indices = n
                        .named_child(1)
                        .map(|a| self.args(a, d))
                        .unwrap_or_default();
                    return SrcExpr::new(SrcExprKind::Index { array, indices }, span);
                }
                let Some(f) = n.named_child(0).filter(|f| f.kind() == "identifier") else {
                    return self.opaque_e(n);
                };
                let name = norm(self.text(f));
                let mut args = n
                    .named_child(1)
                    .map(|a| self.args(a, d))
                    .unwrap_or_default();
                // `g%norm(x)`: the function its type binds, the object passed first
                if let Some((target, object)) = self.type_bound(f, d) {
                    args.splice(0..0, object);
                    return SrcExpr {
                        kind: SrcExprKind::Call { name: target, args },
                        span,
                        ty: None,
                    };
                }
                if self.aliases.contains_key(&name) {
                    return match self.alias_element(&name, args, span) {
                        Some(e) => e,
                        None => self.opaque_e(n),
                    };
                }
                if self.is_array(&name) {
                    let ty = self.type_of(&name);
                    return SrcExpr {
                        kind: SrcExprKind::Index {
                            array: name,
                            indices: args,
                        },
                        span,
                        ty,
                    };
                }
                // `task_t(k, lo, hi)`: the structure constructor of a derived type the sources
                // define (modules are lowered first), not a call of a routine `task_t`
                if self.b.prog.derived_types.contains_key(&name) {
                    return SrcExpr::new(SrcExprKind::Construct { ty: name, args }, span);
                }
                let ty = intrinsic_type(&name, &args).or_else(|| {
                    if name == "MPI_WTIME" {
                        Some(BaseType::Real)
                    } else {
                        None
                    }
                });
                // a function call's name is raw-cased only for MPI (so the table sees it)
                let name = if name.starts_with("MPI_") {
                    self.text(f).to_string()
                } else {
                    name
                };
                SrcExpr {
                    kind: SrcExprKind::Call { name, args },
                    span,
                    ty,
                }
            }
            "extent_specifier" => {
                let t = self.text(n);
                let colons: Vec<usize> = t
                    .match_indices(':')
                    .map(|(i, _)| n.start_byte() + i)
                    .collect();
                let mut lo = None;
                let mut hi = None;
                let mut step = None;
                for p in children(n) {
                    let e = Some(Box::new(self.expr(p, d)));
                    match colons.iter().filter(|c| **c < p.start_byte()).count() {
                        0 => lo = e,
                        1 => hi = e,
                        _ => step = e,
                    }
                }
                SrcExpr::new(SrcExprKind::Range { lo, hi, step }, span)
            }
            _ => self.opaque_e(n),
        }
    }

    /// The access path of a component reference with no run-time index (`t%nx`, `t%in%b`,
    /// `u(2)%nx` → `u[2]%nx`), `None` for anything else (`u(i)%nx`, `f(x)%nx`).
    pub(super) fn member_path(&mut self, n: Node, depth: usize) -> Option<String> {
        let kids = children(n);
        let [base, member] = kids.as_slice() else {
            return None;
        };
        if member.kind() != "type_member" {
            return None;
        }
        let base = self.expr(*base, depth + 1);
        let root = match &base.kind {
            SrcExprKind::Var(_) | SrcExprKind::Index { .. } => base.path()?,
            _ => return None,
        };
        Some(format!("{root}%{}", norm(self.text(*member))))
    }

    pub(super) fn opaque_e(&self, n: Node) -> SrcExpr {
        let vars: Vec<String> = self.idents(n).into_iter().collect();
        let text: String = self.text(n).chars().take(120).collect();
        SrcExpr::new(SrcExprKind::Opaque { text, vars }, self.span(n))
    }
}

/// A BOZ literal (`Z'1F'`, `B'101'`, `O'17'`, also `X'1F'` and `'1F'X`) as an integer.
fn boz(t: &str) -> Option<i64> {
    let t = t.trim();
    let (radix_char, digits) = if t.ends_with(['\'', '"']) && t.len() > 3 {
        (t.chars().next()?, t.get(2..t.len() - 1)?)
    } else {
        (t.chars().last()?, t.get(1..t.len().checked_sub(2)?)?)
    };
    let radix = match radix_char.to_ascii_uppercase() {
        'B' => 2,
        'O' => 8,
        'Z' | 'X' => 16,
        _ => return None,
    };
    i64::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::boz;

    #[test]
    fn boz_literals() {
        assert_eq!(boz("Z'1F'"), Some(31));
        assert_eq!(boz("b'101'"), Some(5));
        assert_eq!(boz("O\"17\""), Some(15));
        assert_eq!(boz("'1F'X"), Some(31));
        assert_eq!(boz("12"), None);
        assert_eq!(boz("1.0d0"), None);
    }
}
