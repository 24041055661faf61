//! Human-readable text of the IR: `Display` for program expressions and an indented dump of a
//! whole program with original line numbers (used by snapshot tests and `--dump-ir` style tools).
use std::fmt::{self, Write as _};

use crate::ir::*;

fn prec(e: &SrcExpr) -> u8 {
    match &e.kind {
        SrcExprKind::Binary { op, .. } => match op {
            BinOp::Or | BinOp::Eqv | BinOp::Neqv => 1,
            BinOp::And => 2,
            BinOp::BitOr | BinOp::BitXor | BinOp::BitAnd => 3,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::Shl | BinOp::Shr | BinOp::Concat => 5,
            BinOp::Add | BinOp::Sub => 6,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 7,
            BinOp::Pow => 9,
        },
        SrcExprKind::Ternary { .. } => 0,
        SrcExprKind::Unary { .. } => 8,
        _ => 10,
    }
}

fn write_child(f: &mut fmt::Formatter<'_>, child: &SrcExpr, min: u8) -> fmt::Result {
    if prec(child) < min {
        write!(f, "({child})")
    } else {
        write!(f, "{child}")
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[SrcExpr]) -> fmt::Result {
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

/// Language-neutral syntax: `a(i, j)` for elements, `**` for powers, C-like operators.
impl fmt::Display for SrcExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SrcExprKind::Int(v) => write!(f, "{v}"),
            SrcExprKind::Real { text, .. } => f.write_str(text),
            SrcExprKind::Str(s) => write!(f, "{s:?}"),
            SrcExprKind::Bool(b) => write!(f, "{b}"),
            SrcExprKind::Var(v) => f.write_str(v),
            SrcExprKind::Index { array, indices } => {
                write!(f, "{array}[")?;
                write_list(f, indices)?;
                f.write_str("]")
            }
            SrcExprKind::Range { lo, hi, step } => {
                if let Some(l) = lo {
                    write!(f, "{l}")?;
                }
                f.write_str(":")?;
                if let Some(h) = hi {
                    write!(f, "{h}")?;
                }
                if let Some(s) = step {
                    write!(f, ":{s}")?;
                }
                Ok(())
            }
            SrcExprKind::Call { name: n, args } | SrcExprKind::Construct { ty: n, args } => {
                write!(f, "{n}(")?;
                write_list(f, args)?;
                f.write_str(")")
            }
            SrcExprKind::Unary { op, operand } => {
                let s = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::AddrOf => "&",
                    UnOp::Deref => "*",
                };
                f.write_str(s)?;
                write_child(f, operand, 8)
            }
            SrcExprKind::Binary { op, lhs, rhs } => {
                let p = prec(self);
                // left-associative: the right operand needs parens at equal precedence
                let (lp, rp) = if *op == BinOp::Pow {
                    (p + 1, p)
                } else {
                    (p, p + 1)
                };
                write_child(f, lhs, lp)?;
                write!(f, " {} ", op.symbol())?;
                write_child(f, rhs, rp)?;
                if *op == BinOp::Div && self.ty == Some(BaseType::Integer) {
                    // integer division is marked so it is not mistaken for real division
                    f.write_str(" /*int*/")?;
                }
                Ok(())
            }
            SrcExprKind::Ternary { cond, then, other } => write!(f, "{cond} ? {then} : {other}"),
            SrcExprKind::SizeOf { ty: Some(t), .. } => write!(f, "sizeof({})", t.text),
            SrcExprKind::SizeOf { expr: Some(e), .. } => write!(f, "sizeof({e})"),
            SrcExprKind::SizeOf { .. } => f.write_str("sizeof(?)"),
            SrcExprKind::Cast { ty, expr } => {
                write!(f, "({})", ty.text)?;
                write_child(f, expr, 8)
            }
            SrcExprKind::Input(o) => write!(f, "input({})", origin_text(o)),
            SrcExprKind::Opaque { text, .. } => write!(f, "«{}»", text.replace('\n', " ")),
        }
    }
}

pub fn origin_text(o: &InputOrigin) -> String {
    match o {
        InputOrigin::Stdin => "stdin".into(),
        InputOrigin::Argv(Some(i)) => format!("argv {i}"),
        InputOrigin::Argv(None) => "argv ?".into(),
        InputOrigin::File => "file".into(),
        InputOrigin::Env(Some(k)) => format!("env {k}"),
        InputOrigin::Env(None) => "env ?".into(),
        InputOrigin::Option(Some(o)) => format!("option -{o}"),
        InputOrigin::Option(None) => "option ?".into(),
    }
}

fn set_text(s: &std::collections::BTreeSet<String>) -> String {
    s.iter().cloned().collect::<Vec<_>>().join(",")
}

fn decl_text(d: &Decl) -> String {
    let kind = match &d.kind {
        DeclKind::Scalar { init: Some(i) } => format!("= {i}"),
        DeclKind::Scalar { init: None } => String::new(),
        DeclKind::Array { dims, .. } => {
            let ds: Vec<String> = dims
                .iter()
                .map(|d| match d {
                    Dim::Extent(e) => format!("{e}"),
                    Dim::Bounds { lo, hi } => format!("{lo}:{hi}"),
                    Dim::Assumed => "*".into(),
                })
                .collect();
            format!("[{}]", ds.join(", "))
        }
        DeclKind::Constant { value, origin } => format!("const({origin:?}) = {value}"),
    };
    let common = d
        .common
        .as_ref()
        .map(|c| format!(" common /{c}/"))
        .unwrap_or_default();
    let bytes = d.ty.bytes.map(|b| format!("*{b}")).unwrap_or_default();
    let ptr = "*".repeat(d.ty.pointer as usize);
    format!("{}: {:?}{bytes}{ptr} {kind}{common}", d.name, d.ty.base)
        .trim_end()
        .to_string()
}

/// Indented text of the whole program. Lines are `L<first>[-<last>]` in the original file.
pub fn dump(program: &Program, sources: &Sources) -> String {
    let mut out = String::new();
    for g in &program.globals {
        let _ = writeln!(out, "global {}", decl_text(g));
    }
    for p in &program.procs {
        let params: Vec<&str> = p.params.iter().map(|x| x.name.as_str()).collect();
        let _ = writeln!(
            out,
            "{:?} {}({}) L{}{}",
            p.kind,
            p.name,
            params.join(", "),
            sources.first_line(p.span),
            if p.implicit_none { "" } else { " implicit" }
        );
        for d in &p.decls {
            let _ = writeln!(out, "  decl {}", decl_text(d));
        }
        dump_block(program, sources, &p.body, 1, &mut out);
    }
    out
}

fn lines(sources: &Sources, span: Span) -> String {
    let (a, b) = (sources.first_line(span), sources.last_line(span));
    let file = if span.file.0 == 0 {
        String::new()
    } else {
        format!("f{}:", span.file.0)
    };
    if a == b {
        format!("{file}L{a}")
    } else {
        format!("{file}L{a}-{b}")
    }
}

fn dump_block(
    program: &Program,
    sources: &Sources,
    block: &[StmtId],
    depth: usize,
    out: &mut String,
) {
    // explicit stack so deep nests cannot overflow: (stmt, depth) in reverse order
    let mut stack: Vec<(StmtId, usize)> = block.iter().rev().map(|s| (*s, depth)).collect();
    while let Some((id, depth)) = stack.pop() {
        let Some(s) = program.stmt(id) else { continue };
        let pad = "  ".repeat(depth);
        let label = s.label.map(|l| format!(" label {l}")).unwrap_or_default();
        let head = match &s.kind {
            StmtKind::Assign(a) => format!("assign {} = {}", a.target, a.value),
            StmtKind::Loop(l) => {
                let more: String = l.indices()[1..]
                    .iter()
                    .map(|(v, lo, hi, st)| format!(", {v} = {lo} .. {hi} step {st}"))
                    .collect();
                let mask = l.concurrent.as_ref().and_then(|c| c.mask.as_ref());
                format!(
                    "loop {}{} = {} .. {} step {}{more}{} (end {})",
                    if l.concurrent.is_some() {
                        "concurrent "
                    } else {
                        ""
                    },
                    l.var,
                    l.lo,
                    l.hi,
                    l.step,
                    mask.map(|m| format!(" mask {m}")).unwrap_or_default(),
                    lines(sources, l.end_span)
                )
            }
            StmtKind::While(w) => format!(
                "while{} {}",
                if w.post_test { " (post-test)" } else { "" },
                w.cond
                    .as_ref()
                    .map_or("<none>".to_string(), ToString::to_string)
            ),
            StmtKind::If(i) => {
                let conds: Vec<String> = i.arms.iter().map(|a| a.cond.to_string()).collect();
                format!(
                    "if {}{}",
                    conds.join(" | elif "),
                    if i.else_body.is_some() { " | else" } else { "" }
                )
            }
            StmtKind::Call(c) => {
                let args: Vec<String> = c.args.iter().map(ToString::to_string).collect();
                format!("call {}({})", c.name, args.join(", "))
            }
            StmtKind::Mpi(m) => {
                let args: Vec<String> = m
                    .args
                    .iter()
                    .map(|a| {
                        format!(
                            "{:?}={}{}",
                            a.role,
                            if a.address_of { "&" } else { "" },
                            a.expr
                        )
                    })
                    .collect();
                let res = m
                    .result
                    .as_ref()
                    .map(|r| format!("{r} = "))
                    .unwrap_or_default();
                format!("mpi {res}{} [{}]({})", m.op.name(), m.name, args.join(", "))
            }
            StmtKind::Input(i) => {
                let t: Vec<String> = i.targets.iter().map(ToString::to_string).collect();
                format!("input {} <- {}", t.join(", "), origin_text(&i.origin))
            }
            StmtKind::Return { value } => format!(
                "return {}",
                value.as_ref().map(ToString::to_string).unwrap_or_default()
            ),
            StmtKind::Break => "break".into(),
            StmtKind::Continue => "continue".into(),
            StmtKind::Opaque(o) => format!("opaque({}) {:?}", o.reason, o.text),
        };
        let _ = writeln!(
            out,
            "{pad}[{}] {}{label} {}  defs={{{}}} uses={{{}}}",
            id.0,
            lines(sources, s.span),
            head.trim_end(),
            set_text(&s.defs),
            set_text(&s.uses)
        );
        let mut children: Vec<(StmtId, usize)> = Vec::new();
        match &s.kind {
            StmtKind::If(i) => {
                for (n, arm) in i.arms.iter().enumerate() {
                    let _ = n;
                    children.extend(arm.body.iter().map(|c| (*c, depth + 1)));
                }
                if let Some(e) = &i.else_body {
                    children.extend(e.iter().map(|c| (*c, depth + 1)));
                }
            }
            k => {
                for b in k.blocks() {
                    children.extend(b.iter().map(|c| (*c, depth + 1)));
                }
            }
        }
        stack.extend(children.into_iter().rev());
    }
}
