//! C expressions → `SrcExpr`: literals, operators, subscripts, calls, inputs read from
//! `argv`/the environment, with value types where cheaply known.
use tree_sitter::Node;

use super::{binop, c_type, opaque_expr, CLower};
use crate::ir::*;
use crate::lower::{parse_int, parse_real, MAX_EXPR_DEPTH};
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    /// Lowers an expression.
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
                let is_real =
                    !t.starts_with("0x") && !t.starts_with("0X") && t.contains(['.', 'e', 'E']);
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
                    None => opaque_expr(t, span),
                }
            }
            "string_literal" | "concatenated_string" => {
                let t = self.text(n);
                SrcExpr::new(SrcExprKind::Str(t.trim_matches('"').to_string()), span)
                    .with_type(Some(BaseType::Character))
            }
            "char_literal" => SrcExpr::new(SrcExprKind::Str(self.text(n).to_string()), span)
                .with_type(Some(BaseType::Character)),
            "true" => {
                SrcExpr::new(SrcExprKind::Bool(true), span).with_type(Some(BaseType::Logical))
            }
            "false" => {
                SrcExpr::new(SrcExprKind::Bool(false), span).with_type(Some(BaseType::Logical))
            }
            "null" => SrcExpr::int(0, span),
            "identifier" => {
                let name = self.text(n).to_string();
                let ty = self
                    .var_type(&name)
                    .filter(|t| t.pointer == 0)
                    .map(|t| t.base);
                SrcExpr::var(name, span).with_type(ty)
            }
            "parenthesized_expression" => match n.named_child(0) {
                Some(c) => self.expr(c, d),
                None => opaque_expr("()", span),
            },
            "binary_expression" => {
                let op = n.field("operator").map(|o| self.text(o)).and_then(binop);
                match (op, n.field("left"), n.field("right")) {
                    (Some(op), Some(l), Some(r)) => {
                        let l = self.expr(l, d);
                        let r = self.expr(r, d);
                        let mut e = SrcExpr::binary(op, l, r);
                        e.span = span;
                        e
                    }
                    _ => self.opaque_e(n),
                }
            }
            "unary_expression" | "pointer_expression" => {
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                let op = match op {
                    "-" => UnOp::Neg,
                    "+" => UnOp::Plus,
                    "!" => UnOp::Not,
                    "~" => UnOp::BitNot,
                    "&" => UnOp::AddrOf,
                    "*" => UnOp::Deref,
                    _ => return self.opaque_e(n),
                };
                let Some(a) = n.field("argument") else {
                    return self.opaque_e(n);
                };
                let a = self.expr(a, d);
                let ty = match op {
                    UnOp::Neg | UnOp::Plus | UnOp::BitNot => a.ty,
                    UnOp::Not => Some(BaseType::Logical),
                    UnOp::AddrOf => None,
                    UnOp::Deref => a.base_var().and_then(|v| self.var_type(v)).map(|t| t.base),
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
            "subscript_expression" => {
                let mut indices = Vec::new();
                let mut cur = n;
                for _ in 0..64 {
                    if cur.kind() != "subscript_expression" {
                        break;
                    }
                    if let Some(i) = cur.field("index") {
                        indices.push(i);
                    }
                    match cur.field("argument") {
                        Some(a) => cur = a,
                        None => break,
                    }
                }
                // `(a)[i]`, as macro bodies write it
                while cur.kind() == "parenthesized_expression" {
                    match cur.named_child(0) {
                        Some(c) => cur = c,
                        None => break,
                    }
                }
                // `(*sl)[k]` is `sl[0][k]` (a pointer to a pointer, as a `double **sl`
                // output parameter is written)
                let deref = cur.kind() == "pointer_expression"
                    && cur.field("operator").map(|o| self.text(o)) == Some("*");
                if deref {
                    match cur.field("argument") {
                        Some(a) if a.kind() == "identifier" => {
                            indices.push(cur);
                            cur = a;
                        }
                        _ => return self.opaque_e(n),
                    }
                }
                // `g.a[i]`: an array member named by its access path
                let (array, ty) = match cur.kind() {
                    "identifier" => {
                        let array = self.text(cur).to_string();
                        let ty = self.var_type(&array).map(|t| t.base);
                        (array, ty)
                    }
                    "field_expression" => match self.member_path(cur, d) {
                        Some(p) => (p, None),
                        None => return self.opaque_e(n),
                    },
                    _ => return self.opaque_e(n),
                };
                indices.reverse();
                // the deref pushed last is the first index
                let indices = indices
                    .into_iter()
                    .enumerate()
                    .map(|(k, i)| {
                        if deref && k == 0 {
                            SrcExpr::int(0, self.span(i))
                        } else {
                            self.expr(i, d)
                        }
                    })
                    .collect();
                SrcExpr {
                    kind: SrcExprKind::Index { array, indices },
                    span,
                    ty,
                }
            }
            "field_expression" => match self.member_path(n, d) {
                Some(path) => {
                    let ty = n
                        .field("field")
                        .and_then(|f| self.members.get(self.text(f)))
                        .copied();
                    SrcExpr::var(path, span).with_type(ty)
                }
                None => self.opaque_e(n),
            },
            "call_expression" => {
                let Some(f) = n.field("function").filter(|f| f.kind() == "identifier") else {
                    return self.opaque_e(n);
                };
                let name = self.text(f).to_string();
                let arg_nodes: Vec<Node> = n
                    .field("arguments")
                    .map(Self::children)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|a| a.kind() != "comment")
                    .collect();
                if self.macros.expressions.contains_key(&name) {
                    let texts: Vec<&str> = if arg_nodes.is_empty() {
                        vec![""]
                    } else {
                        arg_nodes.iter().map(|a| self.text(*a)).collect()
                    };
                    if let Some(e) = self.expand_macro(&name, &texts, n) {
                        return e;
                    }
                }
                let args: Vec<SrcExpr> = arg_nodes.iter().map(|a| self.expr(*a, d)).collect();
                if let Some(kind) = input_expr(&name, &args, self.case_label.as_deref()) {
                    let ty = if name.starts_with("ato") && name != "atof"
                        || name.starts_with("strtol")
                        || name.starts_with("strtoul")
                    {
                        Some(BaseType::Integer)
                    } else if name == "atof"
                        || name.starts_with("strtod")
                        || name.starts_with("strtof")
                    {
                        Some(BaseType::Real)
                    } else {
                        None
                    };
                    return SrcExpr { kind, span, ty };
                }
                let math = crate::intrinsics::lookup(&name, crate::ir::Language::C)
                    .is_some_and(|x| x.class == crate::intrinsics::Class::Math);
                let ty = match name.as_str() {
                    "MPI_Wtime" => Some(BaseType::Real),
                    "abs" | "labs" | "llabs" => Some(BaseType::Integer),
                    _ if math => Some(BaseType::Real),
                    _ => None,
                };
                SrcExpr {
                    kind: SrcExprKind::Call { name, args },
                    span,
                    ty,
                }
            }
            "conditional_expression" => {
                let parts = (
                    n.field("condition"),
                    n.field("consequence"),
                    n.field("alternative"),
                );
                let (Some(c), Some(t), Some(o)) = parts else {
                    return self.opaque_e(n);
                };
                let (c, t, o) = (self.expr(c, d), self.expr(t, d), self.expr(o, d));
                let ty = if t.ty == o.ty { t.ty } else { None };
                SrcExpr {
                    kind: SrcExprKind::Ternary {
                        cond: Box::new(c),
                        then: Box::new(t),
                        other: Box::new(o),
                    },
                    span,
                    ty,
                }
            }
            "cast_expression" => {
                let ty = n
                    .field("type")
                    .map(|t| cast_type(self.text(t)))
                    .unwrap_or_else(|| c_type(""));
                let Some(v) = n.field("value") else {
                    return self.opaque_e(n);
                };
                let v = self.expr(v, d);
                let base = Some(ty.base).filter(|b| *b != BaseType::Other);
                SrcExpr {
                    kind: SrcExprKind::Cast {
                        ty,
                        expr: Box::new(v),
                    },
                    span,
                    ty: base,
                }
            }
            "sizeof_expression" => {
                let kind = if let Some(t) = n.field("type") {
                    let mut ty = c_type(self.text(t));
                    if ty.bytes.is_none() {
                        ty.bytes = self.struct_bytes(self.text(t));
                    }
                    SrcExprKind::SizeOf {
                        ty: Some(ty),
                        expr: None,
                    }
                } else if let Some(v) = n.field("value") {
                    // `sizeof(result_t)` parses as the size of a parenthesised name: a typedef
                    // of this unit's is its type
                    let name = self
                        .text(v)
                        .trim()
                        .trim_matches(|c| c == '(' || c == ')')
                        .trim();
                    match self.structs.get(name) {
                        Some((size, _)) => SrcExprKind::SizeOf {
                            ty: Some(VarType::new(BaseType::Other, Some(*size), name)),
                            expr: None,
                        },
                        None => SrcExprKind::SizeOf {
                            ty: None,
                            expr: Some(Box::new(self.expr(v, d))),
                        },
                    }
                } else {
                    return self.opaque_e(n);
                };
                SrcExpr {
                    kind,
                    span,
                    ty: Some(BaseType::Integer),
                }
            }
            _ => self.opaque_e(n),
        }
    }

    /// The access path of a member access with no run-time index (`g.nx`, `p->a.b`,
    /// `(*p).nx` → `p->nx`, `a[2].nx`), `None` for anything else (`a[i].nx`, `f().nx`).
    fn member_path(&mut self, n: Node, depth: usize) -> Option<String> {
        let field = n.field("field").map(|f| self.text(f))?;
        let arrow = n.field("operator").map(|o| self.text(o)) == Some("->");
        let mut arg = n.field("argument")?;
        while arg.kind() == "parenthesized_expression" {
            arg = arg.named_child(0)?;
        }
        let base = self.expr(arg, depth + 1);
        let sep = if arrow { "->" } else { "." };
        let root = match &base.kind {
            // `(*p).nx` is `p->nx`
            SrcExprKind::Unary {
                op: UnOp::Deref,
                operand,
            } if !arrow => return Some(format!("{}->{field}", operand.path()?)),
            _ => base.path()?,
        };
        Some(format!("{root}{sep}{field}"))
    }

    pub(super) fn opaque_e(&self, n: Node) -> SrcExpr {
        let vars: Vec<String> = self.idents(n).into_iter().collect();
        let text: String = self.text(n).chars().take(120).collect();
        SrcExpr::new(SrcExprKind::Opaque { text, vars }, self.span(n))
    }
}

/// `argv[i]` → `Some(Some(i))`, `argv[k]` → `Some(None)`.
pub(super) fn argv_index(e: &SrcExpr) -> Option<Option<u32>> {
    match &e.kind {
        SrcExprKind::Index { array, indices } if array == "argv" && indices.len() == 1 => Some(
            indices
                .first()
                .and_then(SrcExpr::as_int)
                .and_then(|v| u32::try_from(v).ok()),
        ),
        _ => None,
    }
}

/// `getopt`'s `optarg`, the argument of the option being parsed.
pub(super) fn is_optarg(e: &SrcExpr) -> bool {
    matches!(&e.kind, SrcExprKind::Var(v) if v == "optarg")
}

/// `atoi(argv[1])`, `strtol(argv[2], ...)`, `getenv("N")`, `atoi(optarg)` (under `case
/// 'n':`, the option `case_label`) as an input value.
pub(super) fn input_expr(
    name: &str,
    args: &[SrcExpr],
    case_label: Option<&str>,
) -> Option<SrcExprKind> {
    match name {
        "atoi" | "atol" | "atoll" | "atof" | "strtol" | "strtoll" | "strtoul" | "strtoull"
        | "strtod" | "strtof" => {
            let first = args.first()?;
            if is_optarg(first) {
                let option = case_label.map(str::to_string);
                return Some(SrcExprKind::Input(InputOrigin::Option(option)));
            }
            argv_index(first)
                .map(|i| SrcExprKind::Input(InputOrigin::Argv(i)))
                .or_else(|| {
                    // atoi(getenv("X"))
                    match &first.kind {
                        SrcExprKind::Input(o) => Some(SrcExprKind::Input(o.clone())),
                        _ => None,
                    }
                })
        }
        "getenv" => {
            let key = args.first().and_then(|a| match &a.kind {
                SrcExprKind::Str(s) => Some(s.clone()),
                _ => None,
            });
            Some(SrcExprKind::Input(InputOrigin::Env(key)))
        }
        _ => None,
    }
}

/// The target type of a cast: [`c_type`] with its pointer depth (`(double *)` is a pointer,
/// not a real), and the integer typedefs of the C library and MPI `c_type` does not know
/// (`(MPI_Aint)`, `(ssize_t)`, `(uint16_t)`) read as integers, so that a cast to one
/// truncates like `(long)` does.
fn cast_type(text: &str) -> VarType {
    let pointer = u8::try_from(text.matches('*').count()).unwrap_or(u8::MAX);
    let base = text.replace('*', " ");
    let mut ty = c_type(&base);
    if ty.base == BaseType::Other {
        let bytes = match base.split_whitespace().last().unwrap_or("") {
            "int8_t" | "uint8_t" => Some(1),
            "int16_t" | "uint16_t" => Some(2),
            "MPI_Fint" => Some(4),
            "ssize_t" | "intptr_t" | "uintptr_t" | "intmax_t" | "uintmax_t" | "off_t"
            | "MPI_Aint" | "MPI_Offset" | "MPI_Count" => Some(8),
            _ => None,
        };
        if let Some(b) = bytes {
            ty = VarType::new(BaseType::Integer, Some(b), "");
        }
    }
    ty.pointer = pointer;
    ty.text = text.trim().to_string();
    ty
}
