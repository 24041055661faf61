//! C lowering: tree-sitter-c nodes → IR. Preprocessor conditionals pick a branch from the
//! macro table; `#define NAME value` becomes a named constant; MPI calls go through the table.
use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::{as_mpi_call, parse_int, parse_real, Builder, MAX_EXPR_DEPTH};
use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::macros::{needs_substitution, MacroTable};
use crate::parse::FieldExt;
use crate::parse::{self, Grammar};
use crate::source_map::Assembled;

pub struct CLower<'a> {
    src: &'a str,
    /// Added to node offsets to get offsets in `asm.text` (sub-parses of macro bodies).
    shift: i64,
    asm: &'a Assembled,
    main: FileId,
    b: &'a mut Builder,
    macros: &'a MacroTable,
    /// Macro names defined so far (for `#ifdef`).
    defined: BTreeSet<String>,
    globals: BTreeMap<String, VarType>,
    locals: BTreeMap<String, VarType>,
    /// Parser for macro bodies, made on first use and reused.
    value_parser: Option<tree_sitter::Parser>,
    /// What `break` leaves, innermost last: true for a loop, false for a `switch` (whose
    /// `break` only ends a case and is not lowered).
    break_targets: Vec<bool>,
    /// Macros substituted textually before parsing (qualifiers, attributes, declarations):
    /// not named constants.
    substituted: BTreeSet<String>,
}

/// Lowers a whole C translation unit into `b`.
pub fn lower(root: Node, asm: &Assembled, main: FileId, macros: &MacroTable, b: &mut Builder) {
    let defined = macros.command_line.keys().cloned().collect();
    // declarations of files lowered before this one
    let globals = b
        .prog
        .globals
        .iter()
        .map(|d| (d.name.clone(), d.ty.clone()))
        .collect();
    let mut l = CLower {
        src: &asm.text,
        shift: 0,
        asm,
        main,
        b,
        macros,
        defined,
        globals,
        locals: BTreeMap::new(),
        value_parser: None,
        break_targets: Vec::new(),
        substituted: macros
            .substitutions()
            .into_keys()
            .map(str::to_string)
            .collect(),
    };
    for (name, value) in &macros.command_line {
        if needs_substitution(value) || l.b.prog.globals.iter().any(|g| &g.name == name) {
            continue;
        }
        let span = Span::new(main, 0, 0);
        let expr = l
            .macro_value(value, None)
            .unwrap_or_else(|| opaque_expr(value, span));
        let ty = type_of_value(&expr);
        l.b.prog.globals.push(Decl {
            name: name.clone(),
            ty,
            kind: DeclKind::Constant {
                value: expr,
                origin: ConstOrigin::CommandLine,
            },
            span,
            common: None,
        });
    }
    l.top_level(root);
}

fn opaque_expr(text: &str, span: Span) -> SrcExpr {
    SrcExpr::new(
        SrcExprKind::Opaque {
            text: text.chars().take(120).collect(),
            vars: Vec::new(),
        },
        span,
    )
}

fn type_of_value(e: &SrcExpr) -> VarType {
    match e.ty {
        Some(BaseType::Real) => VarType::new(BaseType::Real, Some(8), "double"),
        Some(BaseType::Integer) | None => VarType::new(BaseType::Integer, Some(4), "int"),
        Some(other) => VarType::new(other, None, "const"),
    }
}

/// Type from C type-specifier text.
pub fn c_type(text: &str) -> VarType {
    let t = text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    let (base, bytes) = if has("double") {
        (BaseType::Real, Some(if has("long") { 16 } else { 8 }))
    } else if has("float") {
        (BaseType::Real, Some(4))
    } else if has("char") {
        (BaseType::Character, Some(1))
    } else if has("_Bool") || has("bool") {
        (BaseType::Logical, Some(1))
    } else if has("short") {
        (BaseType::Integer, Some(2))
    } else if has("long") || has("size_t") || has("ptrdiff_t") || has("int64_t") || has("uint64_t")
    {
        (BaseType::Integer, Some(8))
    } else if has("int") || has("unsigned") || has("signed") || has("int32_t") || has("uint32_t") {
        (BaseType::Integer, Some(4))
    } else if t.contains("complex") {
        (BaseType::Complex, Some(16))
    } else {
        (BaseType::Other, None)
    };
    VarType::new(base, bytes, t)
}

fn binop(op: &str) -> Option<BinOp> {
    Some(match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        _ => return None,
    })
}

/// A declarator unwrapped: name, pointer depth, array dims (outermost first), initialiser.
struct Declarator<'t> {
    name: Option<Node<'t>>,
    pointer: u8,
    dims: Vec<Option<Node<'t>>>,
    init: Option<Node<'t>>,
    is_function: bool,
}

fn unwrap_declarator(mut n: Node) -> Declarator {
    let mut d = Declarator {
        name: None,
        pointer: 0,
        dims: Vec::new(),
        init: None,
        is_function: false,
    };
    for _ in 0..64 {
        match n.kind() {
            "identifier" | "field_identifier" => {
                d.name = Some(n);
                break;
            }
            "init_declarator" => {
                d.init = n.field("value");
            }
            "pointer_declarator" => d.pointer = d.pointer.saturating_add(1),
            "array_declarator" => d.dims.push(n.field("size")),
            "function_declarator" => d.is_function = true,
            "parenthesized_declarator" => {}
            _ => break,
        }
        let next = n.field("declarator").or_else(|| n.named_child(0));
        match next {
            Some(c) => n = c,
            None => break,
        }
    }
    d.dims.reverse();
    d
}

impl<'a> CLower<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn span(&self, n: Node) -> Span {
        let s = usize::try_from(n.start_byte() as i64 + self.shift).unwrap_or(0);
        let e = usize::try_from(n.end_byte() as i64 + self.shift).unwrap_or(0);
        self.asm.span(s, e, self.main)
    }

    fn var_type(&self, name: &str) -> Option<&VarType> {
        self.locals.get(name).or_else(|| self.globals.get(name))
    }

    /// Lowers a macro body by parsing it as an initialiser; `at` is the body's node.
    fn macro_value(&mut self, value: &str, at: Option<Node>) -> Option<SrcExpr> {
        const PREFIX: &str = "int __augur_v = (";
        // fast path for the common `#define N 100`
        if value.bytes().all(|b| b.is_ascii_digit()) {
            if let Some(v) = parse_int(value) {
                let span = at.map_or_else(|| Span::new(self.main, 0, 0), |n| self.span(n));
                return Some(SrcExpr::int(v, span));
            }
        }
        let wrapper = format!("{PREFIX}{value});");
        if self.value_parser.is_none() {
            self.value_parser = parse::parser(Grammar::C).ok();
        }
        let tree = parse::parse(self.value_parser.as_mut()?, &wrapper)?;
        if tree.root_node().has_error() {
            return None;
        }
        let decl = tree.root_node().named_child(0)?;
        let init = decl.field("declarator")?.field("value")?;
        let shift = match at {
            Some(n) => n.start_byte() as i64 + self.shift - PREFIX.len() as i64,
            None => i64::MIN / 2,
        };
        let mut sub = CLower {
            src: &wrapper,
            shift,
            asm: self.asm,
            main: self.main,
            b: &mut *self.b,
            macros: self.macros,
            defined: BTreeSet::new(),
            globals: BTreeMap::new(),
            locals: BTreeMap::new(),
            value_parser: None,
            break_targets: Vec::new(),
            substituted: BTreeSet::new(),
        };
        let mut e = sub.expr(init, 0);
        if at.is_none() {
            strip_spans(&mut e, Span::new(self.main, 0, 0));
        }
        Some(e)
    }

    fn children(n: Node) -> Vec<Node> {
        let mut c = n.walk();
        n.named_children(&mut c).collect()
    }

    /// Which children of a preprocessor conditional are live, and its alternative.
    fn preproc_branch(&self, n: Node) -> bool {
        match n.kind() {
            "preproc_ifdef" => {
                let name = n.field("name").map(|x| self.text(x)).unwrap_or("");
                let is_ndef = self
                    .text(n)
                    .trim_start()
                    .trim_start_matches('#')
                    .trim_start()
                    .starts_with("ifndef");
                self.defined.contains(name) != is_ndef
            }
            "preproc_if" | "preproc_elif" => {
                let cond = n.field("condition");
                cond.is_none_or(|c| self.eval_pp(c).unwrap_or(1) != 0)
            }
            _ => true,
        }
    }

    /// Evaluates a `#if` condition; `None` when unknown.
    fn eval_pp(&self, n: Node) -> Option<i64> {
        match n.kind() {
            "number_literal" => parse_int(self.text(n)),
            "identifier" => Some(
                self.macros
                    .values
                    .get(self.text(n))
                    .and_then(|v| parse_int(v))
                    .unwrap_or(0),
            ),
            "preproc_defined" => {
                let name = n.named_child(0).map(|x| self.text(x)).unwrap_or("");
                Some(i64::from(self.defined.contains(name)))
            }
            "parenthesized_expression" => self.eval_pp(n.named_child(0)?),
            "unary_expression" => {
                let v = self.eval_pp(n.field("argument")?)?;
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                Some(match op {
                    "!" => i64::from(v == 0),
                    "-" => -v,
                    _ => v,
                })
            }
            "binary_expression" => {
                let l = self.eval_pp(n.field("left")?)?;
                let r = self.eval_pp(n.field("right")?)?;
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                Some(match op {
                    "&&" => i64::from(l != 0 && r != 0),
                    "||" => i64::from(l != 0 || r != 0),
                    "==" => i64::from(l == r),
                    "!=" => i64::from(l != r),
                    "<" => i64::from(l < r),
                    ">" => i64::from(l > r),
                    "<=" => i64::from(l <= r),
                    ">=" => i64::from(l >= r),
                    "+" => l.wrapping_add(r),
                    "-" => l.wrapping_sub(r),
                    "*" => l.wrapping_mul(r),
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// The live children of a preprocessor conditional.
    fn preproc_live(&self, n: Node<'a>) -> Vec<Node<'a>> {
        let mut cur = n;
        for _ in 0..256 {
            let alt = cur.field("alternative");
            if self.preproc_branch(cur) {
                let mut c = cur.walk();
                return cur
                    .named_children(&mut c)
                    .filter(|ch| {
                        Some(ch.id()) != alt.map(|a| a.id())
                            && Some(ch.id()) != cur.field("name").map(|x| x.id())
                            && Some(ch.id()) != cur.field("condition").map(|x| x.id())
                    })
                    .collect();
            }
            match alt {
                Some(a) if a.kind() == "preproc_else" => {
                    let mut c = a.walk();
                    return a.named_children(&mut c).collect();
                }
                Some(a) => cur = a,
                None => return Vec::new(),
            }
        }
        Vec::new()
    }

    fn top_level(&mut self, root: Node<'a>) {
        let mut work: Vec<Node<'a>> = Self::children(root).into_iter().rev().collect();
        while let Some(n) = work.pop() {
            match n.kind() {
                "function_definition" => self.function(n),
                "declaration" => {
                    let decls = self.declaration(n);
                    for (d, _) in decls {
                        self.push_global(d);
                    }
                }
                "preproc_def" => self.define(n),
                "preproc_ifdef" | "preproc_if" => {
                    work.extend(self.preproc_live(n).into_iter().rev());
                }
                "linkage_specification" => {
                    if let Some(body) = n.field("body") {
                        work.extend(Self::children(body).into_iter().rev());
                    }
                }
                _ => {}
            }
        }
    }

    fn define(&mut self, n: Node) {
        let Some(name) = n.field("name") else { return };
        let name = self.text(name).to_string();
        self.defined.insert(name.clone());
        if self.macros.command_line.contains_key(&name) {
            return;
        }
        let Some(value) = n.field("value") else {
            return;
        };
        let body = self.text(value);
        let body = body.split("//").next().unwrap_or("").trim();
        if needs_substitution(body) || self.substituted.contains(&name) {
            return;
        }
        let Some(expr) = self.macro_value(body, Some(value)) else {
            return;
        };
        let ty = type_of_value(&expr);
        let span = self.span(n);
        self.push_global(Decl {
            name,
            ty,
            kind: DeclKind::Constant {
                value: expr,
                origin: ConstOrigin::Define,
            },
            span,
            common: None,
        });
    }

    /// Adds a file-scope declaration once (a header included by several files declares it
    /// at the same span each time).
    fn push_global(&mut self, d: Decl) {
        self.globals.insert(d.name.clone(), d.ty.clone());
        if !self
            .b
            .prog
            .globals
            .iter()
            .any(|g| g.name == d.name && g.span == d.span)
        {
            self.b.prog.globals.push(d);
        }
    }

    /// Declarations of one `declaration` node, each with its declarator's initialiser node.
    fn declaration(&mut self, n: Node<'a>) -> Vec<(Decl, Option<Node<'a>>)> {
        let ty_text = n.field("type").map(|t| self.text(t)).unwrap_or("int");
        let mut is_const = false;
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.kind() == "type_qualifier" && self.text(ch) == "const" {
                is_const = true;
            }
        }
        let base = c_type(ty_text);
        let mut out = Vec::new();
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for dn in decls {
            let d = unwrap_declarator(dn);
            if d.is_function {
                continue;
            }
            let Some(name_node) = d.name else { continue };
            let name = self.text(name_node).to_string();
            let mut ty = base.clone();
            ty.pointer = d.pointer;
            let span = self.span(dn);
            let kind = if !d.dims.is_empty() {
                let dims = d
                    .dims
                    .iter()
                    .map(|s| match s {
                        Some(s) => Dim::Extent(self.expr(*s, 0)),
                        None => Dim::Assumed,
                    })
                    .collect();
                DeclKind::Array { dims, init: None }
            } else if is_const && d.init.is_some() {
                let value = d
                    .init
                    .map(|v| self.expr(v, 0))
                    .unwrap_or_else(|| opaque_expr("", span));
                DeclKind::Constant {
                    value,
                    origin: ConstOrigin::Const,
                }
            } else {
                DeclKind::Scalar { init: None }
            };
            let init = if matches!(kind, DeclKind::Constant { .. }) {
                None
            } else {
                d.init
            };
            out.push((
                Decl {
                    name,
                    ty,
                    kind,
                    span,
                    common: None,
                },
                init,
            ));
        }
        out
    }

    fn function(&mut self, n: Node<'a>) {
        let Some(decl) = n.field("declarator") else {
            return;
        };
        let mut fd = decl;
        for _ in 0..16 {
            if fd.kind() == "function_declarator" {
                break;
            }
            match fd.field("declarator") {
                Some(c) => fd = c,
                None => return,
            }
        }
        let Some(name_node) = fd.field("declarator") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let kind = if name == "main" {
            ProcKind::Main
        } else {
            ProcKind::Function
        };
        let span = self.span(n);
        let name_span = self.span(name_node);
        self.b.begin_proc(name, kind, span, name_span);
        self.locals.clear();
        if let Some(params) = fd.field("parameters") {
            for p in Self::children(params) {
                if p.kind() != "parameter_declaration" {
                    continue;
                }
                let ty_text = p.field("type").map(|t| self.text(t)).unwrap_or("int");
                let Some(dn) = p.field("declarator") else {
                    continue;
                };
                let d = unwrap_declarator(dn);
                let Some(nn) = d.name else { continue };
                let pname = self.text(nn).to_string();
                let mut ty = c_type(ty_text);
                ty.pointer = d.pointer;
                let pspan = self.span(p);
                let kind = if d.dims.is_empty() {
                    DeclKind::Scalar { init: None }
                } else {
                    DeclKind::Array {
                        dims: d.dims.iter().map(|_| Dim::Assumed).collect(),
                        init: None,
                    }
                };
                self.locals.insert(pname.clone(), ty.clone());
                if let Some(p) = self.b.proc_mut() {
                    p.params.push(Param {
                        name: pname.clone(),
                        span: pspan,
                    });
                    p.decls.push(Decl {
                        name: pname,
                        ty,
                        kind,
                        span: pspan,
                        common: None,
                    });
                }
            }
        }
        let mut body = Vec::new();
        if let Some(b) = n.field("body") {
            self.block_into(b, &mut body);
        }
        if let Some(p) = self.b.proc_mut() {
            p.body = body;
        }
    }

    /// Lowers `n` (a compound statement or a single statement) appending to `out`.
    fn block_into(&mut self, n: Node<'a>, out: &mut Block) {
        if n.kind() == "compound_statement" {
            for c in Self::children(n) {
                self.stmt(c, out);
            }
        } else {
            self.stmt(n, out);
        }
    }

    /// Lowers a nested body under `parent`, guarding depth.
    fn body(&mut self, n: Option<Node<'a>>, parent: StmtId) -> Block {
        let mut out = Vec::new();
        let Some(n) = n else { return out };
        let span = self.span(n);
        if !self.b.enter(span) {
            let uses = self.idents(n);
            out.push(self.b.push_opaque(
                span,
                None,
                self.text(n),
                "nested too deep",
                BTreeSet::new(),
                uses,
            ));
            return out;
        }
        let saved = self.b.parent.replace(parent);
        self.block_into(n, &mut out);
        self.b.parent = saved;
        self.b.leave();
        out
    }

    /// All identifiers read under `n` (explicit cursor walk), for opaque def/use sets.
    fn idents(&self, n: Node) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut cursor = n.walk();
        // (node, is the callee of a call): parents are tracked here because
        // `Node::parent` walks down from the root
        let mut stack = vec![(n, false)];
        while let Some((x, callee)) = stack.pop() {
            if x.kind() == "identifier" && !callee {
                out.insert(self.text(x).to_string());
            }
            let f = if x.kind() == "call_expression" {
                x.field("function").map(|f| f.id())
            } else {
                None
            };
            stack.extend(
                x.named_children(&mut cursor)
                    .map(|c| (c, Some(c.id()) == f)),
            );
        }
        out
    }

    /// Variables written under `n`: assignment and update targets, `&x` arguments.
    fn written(&self, n: Node) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut cursor = n.walk();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            let target = match x.kind() {
                "assignment_expression" => x.field("left"),
                "update_expression" => x.field("argument"),
                "pointer_expression" if self.text(x).starts_with('&') => x.field("argument"),
                _ => None,
            };
            if let Some(mut t) = target {
                for _ in 0..32 {
                    match t.kind() {
                        "subscript_expression"
                        | "field_expression"
                        | "pointer_expression"
                        | "parenthesized_expression" => {
                            match t.field("argument").or_else(|| t.named_child(0)) {
                                Some(c) => t = c,
                                None => break,
                            }
                        }
                        _ => break,
                    }
                }
                if t.kind() == "identifier" {
                    out.insert(self.text(t).to_string());
                }
            }
            stack.extend(x.named_children(&mut cursor));
        }
        out
    }

    fn opaque(&mut self, n: Node<'a>, reason: &str, out: &mut Block) {
        let defs = self.written(n);
        let uses = self.idents(n);
        let id = self
            .b
            .push_opaque(self.span(n), None, self.text(n), reason, defs, uses);
        out.push(id);
    }

    fn stmt(&mut self, n: Node<'a>, out: &mut Block) {
        match n.kind() {
            "compound_statement" => self.block_into(n, out),
            "comment" | ";" => {}
            "declaration" => {
                let decls = self.declaration(n);
                for (d, init) in decls {
                    self.locals.insert(d.name.clone(), d.ty.clone());
                    let target = SrcExpr::var(d.name.clone(), d.span);
                    if let Some(p) = self.b.proc_mut() {
                        p.decls.push(d);
                    }
                    if let Some(v) = init {
                        if v.kind() == "initializer_list" {
                            continue;
                        }
                        let value = self.expr(v, 0);
                        let span = target.span.cover(value.span);
                        self.assign_like(span, target, value, out);
                    }
                }
            }
            "expression_statement" => {
                if let Some(e) = n.named_child(0) {
                    self.expr_stmt(n, e, out);
                }
            }
            "if_statement" => self.if_stmt(n, out),
            "for_statement" => {
                self.break_targets.push(true);
                self.for_stmt(n, out);
                self.break_targets.pop();
            }
            "while_statement" | "do_statement" => {
                self.break_targets.push(true);
                self.while_stmt(n, out);
                self.break_targets.pop();
            }
            "return_statement" => {
                let value = n.named_child(0).map(|v| self.expr(v, 0));
                if let Some(v) = &value {
                    self.hoist_nested(v, out);
                }
                out.push(self.b.push(self.span(n), None, StmtKind::Return { value }));
            }
            "break_statement" => {
                if self.break_targets.last() != Some(&false) {
                    out.push(self.b.push(self.span(n), None, StmtKind::Break));
                }
            }
            "continue_statement" => out.push(self.b.push(self.span(n), None, StmtKind::Continue)),
            "labeled_statement" => {
                let mut c = n.walk();
                let inner: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|x| x.kind() != "statement_identifier")
                    .collect();
                for i in inner {
                    self.stmt(i, out);
                }
            }
            "goto_statement" => {
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "`goto` is not analysed")
                        .with_primary(self.span(n), "control flow through this jump is ignored")
                        .with_note("loops built from goto are not seen as loops"),
                );
                self.opaque(n, "goto", out);
            }
            "switch_statement" => {
                self.break_targets.push(false);
                self.switch_stmt(n, out);
                self.break_targets.pop();
            }
            "case_statement" => {
                for c in Self::children(n)
                    .into_iter()
                    .skip(usize::from(n.field("value").is_some()))
                {
                    self.stmt(c, out);
                }
            }
            "preproc_ifdef" | "preproc_if" => {
                for c in self.preproc_live(n) {
                    self.stmt(c, out);
                }
            }
            "preproc_def" => self.define(n),
            "preproc_call" | "preproc_include" | "preproc_function_def" | "type_definition" => {}
            "ERROR" => self.opaque(n, "syntax error", out),
            _ => self.opaque(n, n.kind(), out),
        }
    }

    fn while_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        let post = n.kind() == "do_statement";
        let cond = n.field("condition").map(|c| self.cond(c));
        if let Some(c) = &cond {
            self.hoist_nested(c, out);
        }
        let span = self.span(n);
        let id = self.b.alloc(span, None);
        let body_node = n.field("body");
        let body = self.body(body_node, id);
        let end_span = self.end_span(body_node.unwrap_or(n));
        let header_span = match (post, cond.as_ref()) {
            (false, Some(c)) => Span::new(span.file, span.start, c.span.end.max(span.start)),
            _ => span,
        };
        let w = While {
            cond,
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test: post,
            header_span,
            end_span,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// The span that closes a body: its closing brace, or the whole single statement.
    fn end_span(&self, body: Node) -> Span {
        if body.kind() == "compound_statement" {
            let last = body.child(body.child_count().saturating_sub(1));
            if let Some(l) = last.filter(|l| l.kind() == "}") {
                return self.span(l);
            }
        }
        self.span(body)
    }

    /// Condition of if/while: parentheses stripped.
    fn cond(&mut self, n: Node) -> SrcExpr {
        let inner = if n.kind() == "parenthesized_expression" {
            n.named_child(0).unwrap_or(n)
        } else {
            n
        };
        self.expr(inner, 0)
    }

    /// Pushes hoisted MPI statements for MPI calls nested in `e`.
    fn hoist_nested(&mut self, e: &SrcExpr, out: &mut Block) {
        let before = self.b.prog.stmts.len();
        self.b.hoist_mpi(&[e]);
        let after = self.b.prog.stmts.len();
        out.extend((before..after).map(|i| StmtId(u32::try_from(i).unwrap_or(u32::MAX))));
    }

    /// `target = value` as Assign, or Mpi-with-result when `value` is an MPI call.
    fn assign_like(&mut self, span: Span, target: SrcExpr, value: SrcExpr, out: &mut Block) {
        if let Some((name, args)) = as_mpi_call(&value) {
            let (name, args) = (name.to_string(), args.to_vec());
            let call = self.b.mpi_call(&name, value.span, args, Some(target));
            out.push(self.b.push(span, None, StmtKind::Mpi(call)));
            return;
        }
        self.hoist_nested(&value, out);
        out.push(
            self.b
                .push(span, None, StmtKind::Assign(Assign { target, value })),
        );
    }

    fn expr_stmt(&mut self, stmt: Node<'a>, e: Node<'a>, out: &mut Block) {
        let span = self.span(stmt);
        match e.kind() {
            "call_expression" => {
                let Some(f) = e.field("function").filter(|f| f.kind() == "identifier") else {
                    return self.opaque(stmt, "call through expression", out);
                };
                let name = self.text(f).to_string();
                let args: Vec<Node> = e.field("arguments").map(Self::children).unwrap_or_default();
                let args: Vec<Node> = args.into_iter().filter(|a| a.kind() != "comment").collect();
                if crate::mpi_table::is_mpi_name(&name) {
                    let args: Vec<SrcExpr> = args.iter().map(|a| self.expr(*a, 0)).collect();
                    let call = self.b.mpi_call(&name, self.span(e), args, None);
                    out.push(self.b.push(span, None, StmtKind::Mpi(call)));
                    return;
                }
                if let Some(kind) = self.input_call(&name, &args) {
                    out.push(self.b.push(span, None, kind));
                    return;
                }
                let args: Vec<SrcExpr> = args.iter().map(|a| self.expr(*a, 0)).collect();
                let mut defs = BTreeSet::new();
                for a in &args {
                    match &a.kind {
                        SrcExprKind::Unary {
                            op: UnOp::AddrOf,
                            operand,
                        } => {
                            if let Some(b) = operand.base_var() {
                                defs.insert(b.to_string());
                            }
                        }
                        SrcExprKind::Var(v)
                            if self.var_type(v).is_some_and(|t| t.pointer > 0)
                                || self.is_array(v) =>
                        {
                            defs.insert(v.clone());
                        }
                        _ => {}
                    }
                }
                for a in &args {
                    self.hoist_nested(a, out);
                }
                let id = self.b.alloc(span, None);
                let call = Call {
                    name,
                    args,
                    name_span: self.span(f),
                };
                self.b.fill(id, StmtKind::Call(call), defs, BTreeSet::new());
                out.push(id);
            }
            "assignment_expression" => {
                let (Some(l), Some(r)) = (e.field("left"), e.field("right")) else {
                    return self.opaque(stmt, "assignment", out);
                };
                let op = e.field("operator").map(|o| self.text(o)).unwrap_or("=");
                let target = self.expr(l, 0);
                if target.base_var().is_none() || matches!(target.kind, SrcExprKind::Opaque { .. })
                {
                    return self.opaque(stmt, "assignment to non-variable", out);
                }
                let rhs = self.expr(r, 0);
                let value = match op
                    .strip_suffix('=')
                    .filter(|s| !s.is_empty())
                    .and_then(binop)
                {
                    Some(bop) => SrcExpr::binary(bop, target.clone(), rhs),
                    None => rhs,
                };
                self.assign_like(span, target, value, out);
            }
            "update_expression" => {
                let Some(arg) = e.field("argument") else {
                    return self.opaque(stmt, "update", out);
                };
                let target = self.expr(arg, 0);
                if target.base_var().is_none() {
                    return self.opaque(stmt, "update of non-variable", out);
                }
                let op = if self.text(e).contains("--") {
                    BinOp::Sub
                } else {
                    BinOp::Add
                };
                let value = SrcExpr::binary(op, target.clone(), SrcExpr::int(1, target.span));
                out.push(
                    self.b
                        .push(span, None, StmtKind::Assign(Assign { target, value })),
                );
            }
            _ => {
                let v = self.expr(e, 0);
                self.hoist_nested(&v, out);
                self.opaque(stmt, "expression statement", out);
            }
        }
    }

    fn is_array(&self, v: &str) -> bool {
        let proc = self.b.cur_proc;
        self.b.prog.proc(proc).is_some_and(|p| {
            p.decls
                .iter()
                .any(|d| d.name == v && matches!(d.kind, DeclKind::Array { .. }))
        }) || self
            .b
            .prog
            .globals
            .iter()
            .any(|d| d.name == v && matches!(d.kind, DeclKind::Array { .. }))
    }

    /// `scanf`/`fscanf`/`sscanf(argv[i], ...)` as an Input statement.
    fn input_call(&mut self, name: &str, args: &[Node<'a>]) -> Option<StmtKind> {
        let (origin, skip) = match name {
            "scanf" => (InputOrigin::Stdin, 1),
            "fscanf" => {
                let stream = args.first().map(|a| self.text(*a)).unwrap_or("");
                (
                    if stream == "stdin" {
                        InputOrigin::Stdin
                    } else {
                        InputOrigin::File
                    },
                    2,
                )
            }
            "sscanf" => {
                let first = args.first().map(|a| self.expr(*a, 0));
                (
                    first
                        .and_then(|f| argv_index(&f))
                        .map_or(InputOrigin::File, InputOrigin::Argv),
                    2,
                )
            }
            _ => return None,
        };
        let targets = args
            .iter()
            .skip(skip)
            .map(|a| {
                let e = self.expr(*a, 0);
                match e.kind {
                    SrcExprKind::Unary {
                        op: UnOp::AddrOf,
                        operand,
                    } => *operand,
                    _ => e,
                }
            })
            .collect();
        Some(StmtKind::Input(Input { targets, origin }))
    }

    fn if_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        let span = self.span(n);
        let mut arms_nodes = Vec::new();
        let mut else_node = None;
        let mut cur = n;
        for _ in 0..4096 {
            arms_nodes.push((cur.field("condition"), cur.field("consequence")));
            let alt = cur.field("alternative");
            let alt_inner = alt.and_then(|a| {
                if a.kind() == "else_clause" {
                    a.named_child(0)
                } else {
                    Some(a)
                }
            });
            match alt_inner {
                Some(a) if a.kind() == "if_statement" => cur = a,
                other => {
                    else_node = other;
                    break;
                }
            }
        }
        let conds: Vec<SrcExpr> = arms_nodes
            .iter()
            .map(|(c, _)| c.map_or_else(|| opaque_expr("", span), |c| self.cond(c)))
            .collect();
        for c in &conds {
            self.hoist_nested(c, out);
        }
        let id = self.b.alloc(span, None);
        let mut arms = Vec::new();
        let mut last_body = n;
        for (cond, (_, body)) in conds.into_iter().zip(arms_nodes) {
            if let Some(b) = body {
                last_body = b;
            }
            let body = self.body(body, id);
            arms.push(IfArm { cond, body });
        }
        let else_body = else_node.map(|e| {
            last_body = e;
            self.body(Some(e), id)
        });
        let end_span = self.end_span(last_body);
        self.b.fill(
            id,
            StmtKind::If(If {
                arms,
                else_body,
                end_span,
            }),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        out.push(id);
    }

    fn switch_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        // kept as one if-arm guarded by an opaque condition: the body's statements (and any
        // MPI calls) stay visible under a branch
        let span = self.span(n);
        let cond_node = n.field("condition");
        let cond = match cond_node {
            Some(c) => {
                let vars: Vec<String> = self.idents(c).into_iter().collect();
                SrcExpr::new(
                    SrcExprKind::Opaque {
                        text: format!("switch {}", self.text(c)),
                        vars,
                    },
                    self.span(c),
                )
            }
            None => opaque_expr("switch", span),
        };
        let id = self.b.alloc(span, None);
        let body_node = n.field("body");
        let body = self.body(body_node, id);
        let end_span = self.end_span(body_node.unwrap_or(n));
        let kind = StmtKind::If(If {
            arms: vec![IfArm { cond, body }],
            else_body: None,
            end_span,
        });
        self.b.fill(id, kind, BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    fn for_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        let span = self.span(n);
        let body_node = n.field("body");
        let header_end = body_node.map_or(span.end, |b| self.span(b).start);
        let header_span = Span::new(span.file, span.start, header_end);
        let end_span = self.end_span(body_node.unwrap_or(n));
        if let Some((var, lo, hi, step)) = self.counted(n) {
            let id = self.b.alloc(span, None);
            let body = self.body(body_node, id);
            let l = Loop {
                var,
                lo,
                hi,
                step,
                body,
                header_span,
                end_span,
            };
            self.b
                .fill(id, StmtKind::Loop(l), BTreeSet::new(), BTreeSet::new());
            out.push(id);
            return;
        }
        let cond = n.field("condition").map(|c| self.expr(c, 0));
        let id = self.b.alloc(span, None);
        let saved = self.b.parent.replace(id);
        let mut init = Vec::new();
        if let Some(i) = n.field("initializer") {
            if i.kind() == "declaration" {
                self.stmt(i, &mut init);
            } else {
                self.expr_stmt(i, i, &mut init);
            }
        }
        let mut update = Vec::new();
        let mut c = n.walk();
        let updates: Vec<Node> = n.children_by_field_name("update", &mut c).collect();
        for u in updates {
            self.expr_stmt(u, u, &mut update);
        }
        self.b.parent = saved;
        let body = self.body(body_node, id);
        let w = While {
            cond,
            init,
            body,
            update,
            post_test: false,
            header_span,
            end_span,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// Recognises `for (v = lo; v OP bound; v += step)`; returns (var, lo, hi inclusive, step).
    fn counted(&mut self, n: Node<'a>) -> Option<(String, SrcExpr, SrcExpr, SrcExpr)> {
        let init = n.field("initializer")?;
        let (var, lo_node) = match init.kind() {
            "assignment_expression" => {
                let l = init
                    .field("left")
                    .map(strip_parens)
                    .filter(|l| l.kind() == "identifier")?;
                if init.field("operator").map(|o| self.text(o)) != Some("=") {
                    return None;
                }
                (self.text(l).to_string(), init.field("right")?)
            }
            "declaration" => {
                let mut c = init.walk();
                let decls: Vec<Node> = init.children_by_field_name("declarator", &mut c).collect();
                let [d] = decls.as_slice() else { return None };
                let dd = unwrap_declarator(*d);
                let found = (self.text(dd.name?).to_string(), dd.init?);
                // `for (int k = ...)` declares k
                for (decl, _) in self.declaration(init) {
                    self.locals.insert(decl.name.clone(), decl.ty.clone());
                    if let Some(p) = self.b.proc_mut() {
                        p.decls.push(decl);
                    }
                }
                found
            }
            _ => return None,
        };
        let cond = n.field("condition")?;
        if cond.kind() != "binary_expression" {
            return None;
        }
        let mut op = self.text(cond.field("operator")?).to_string();
        let (cl, cr) = (
            strip_parens(cond.field("left")?),
            strip_parens(cond.field("right")?),
        );
        let bound_node = if cl.kind() == "identifier" && self.text(cl) == var {
            cr
        } else if cr.kind() == "identifier" && self.text(cr) == var {
            op = match op.as_str() {
                "<" => ">",
                "<=" => ">=",
                ">" => "<",
                ">=" => "<=",
                o => o,
            }
            .to_string();
            cl
        } else {
            return None;
        };
        let mut c = n.walk();
        let updates: Vec<Node> = n.children_by_field_name("update", &mut c).collect();
        let [upd] = updates.as_slice() else {
            return None;
        };
        let upd = *upd;
        let step: SrcExpr = match upd.kind() {
            "update_expression" => {
                let a = strip_parens(upd.field("argument")?);
                if self.text(a) != var {
                    return None;
                }
                let v = if self.text(upd).contains("--") { -1 } else { 1 };
                SrcExpr::int(v, self.span(upd))
            }
            "assignment_expression" => {
                let l = strip_parens(upd.field("left")?);
                if self.text(l) != var {
                    return None;
                }
                let r = upd.field("right")?;
                match self.text(upd.field("operator")?) {
                    "+=" => self.expr(r, 0),
                    "-=" => negate(self.expr(r, 0)),
                    "=" if r.kind() == "binary_expression" => {
                        let rl = strip_parens(r.field("left")?);
                        let rop = self.text(r.field("operator")?);
                        if self.text(rl) != var {
                            return None;
                        }
                        let k = self.expr(r.field("right")?, 0);
                        match rop {
                            "+" => k,
                            "-" => negate(k),
                            _ => return None,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let sign = step.as_int().map(i64::signum);
        let up = match op.as_str() {
            "<" | "<=" => true,
            ">" | ">=" => false,
            "!=" => match sign {
                Some(1) => true,
                Some(-1) => false,
                _ => return None,
            },
            _ => return None,
        };
        if sign.is_some_and(|s| (s > 0) != up || s == 0) {
            return None;
        }
        if let Some(body) = n.field("body") {
            if text_may_write(self.text(body), &var) {
                return None;
            }
        }
        let lo = self.expr(lo_node, 0);
        let bound = self.expr(bound_node, 0);
        let hi = match op.as_str() {
            "<" | "!=" if up => offset(bound, -1),
            ">" | "!=" => offset(bound, 1),
            _ => bound,
        };
        Some((var, lo, hi, step))
    }

    /// Lowers an expression.
    pub fn expr(&mut self, n: Node, depth: usize) -> SrcExpr {
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
                if cur.kind() != "identifier" {
                    return self.opaque_e(n);
                }
                indices.reverse();
                let array = self.text(cur).to_string();
                let ty = self.var_type(&array).map(|t| t.base);
                let indices = indices.into_iter().map(|i| self.expr(i, d)).collect();
                SrcExpr {
                    kind: SrcExprKind::Index { array, indices },
                    span,
                    ty,
                }
            }
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
                let args: Vec<SrcExpr> = arg_nodes.iter().map(|a| self.expr(*a, d)).collect();
                if let Some(kind) = input_expr(&name, &args) {
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
                let ty = match name.as_str() {
                    "sqrt" | "pow" | "exp" | "log" | "sin" | "cos" | "fabs" | "floor" | "ceil"
                    | "log2" | "MPI_Wtime" => Some(BaseType::Real),
                    "abs" => Some(BaseType::Integer),
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
                    .map(|t| c_type(self.text(t)))
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
                    SrcExprKind::SizeOf {
                        ty: Some(c_type(self.text(t))),
                        expr: None,
                    }
                } else if let Some(v) = n.field("value") {
                    SrcExprKind::SizeOf {
                        ty: None,
                        expr: Some(Box::new(self.expr(v, d))),
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

    fn opaque_e(&self, n: Node) -> SrcExpr {
        let vars: Vec<String> = self.idents(n).into_iter().collect();
        let text: String = self.text(n).chars().take(120).collect();
        SrcExpr::new(SrcExprKind::Opaque { text, vars }, self.span(n))
    }
}

/// Whether C text may assign `var`: an occurrence of the identifier followed by an
/// assignment or `++`/`--`, or preceded by `++`, `--` or `&`. A text scan (conservative,
/// comments included) is much cheaper than walking the body's syntax tree for every loop.
fn text_may_write(text: &str, var: &str) -> bool {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(pos) = text.get(from..).and_then(|t| t.find(var)) {
        let start = from + pos;
        let end = start + var.len();
        from = end;
        if (start > 0 && is_ident(bytes[start - 1])) || bytes.get(end).is_some_and(|b| is_ident(*b))
        {
            continue;
        }
        let after = text.get(end..).unwrap_or("").trim_start();
        let before = text.get(..start).unwrap_or("").trim_end();
        let assigns = after.starts_with("++")
            || after.starts_with("--")
            || (after.starts_with('=') && !after.starts_with("=="))
            || ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="]
                .iter()
                .any(|op| after.starts_with(op));
        let prefixed = before.ends_with("++")
            || before.ends_with("--")
            || (before.ends_with('&') && !before.ends_with("&&"));
        if assigns || prefixed {
            return true;
        }
    }
    false
}

/// `((x))` → `x`.
fn strip_parens(mut n: Node) -> Node {
    for _ in 0..64 {
        match n.named_child(0) {
            Some(c) if n.kind() == "parenthesized_expression" => n = c,
            _ => break,
        }
    }
    n
}

fn negate(e: SrcExpr) -> SrcExpr {
    match e.as_int() {
        Some(v) => SrcExpr::int(-v, e.span),
        None => {
            let span = e.span;
            let ty = e.ty;
            SrcExpr {
                kind: SrcExprKind::Unary {
                    op: UnOp::Neg,
                    operand: Box::new(e),
                },
                span,
                ty,
            }
        }
    }
}

/// `e + k`, folded when `e` is a literal; the result has `e`'s span.
pub fn offset(e: SrcExpr, k: i64) -> SrcExpr {
    let span = e.span;
    if let Some(v) = e.as_int() {
        return SrcExpr::int(v + k, span);
    }
    let (op, k) = if k < 0 {
        (BinOp::Sub, -k)
    } else {
        (BinOp::Add, k)
    };
    let mut out = SrcExpr::binary(op, e, SrcExpr::int(k, span));
    out.span = span;
    out
}

/// `argv[i]` → `Some(Some(i))`, `argv[k]` → `Some(None)`.
fn argv_index(e: &SrcExpr) -> Option<Option<u32>> {
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

/// `atoi(argv[1])`, `strtol(argv[2], ...)`, `getenv("N")` as an input value.
fn input_expr(name: &str, args: &[SrcExpr]) -> Option<SrcExprKind> {
    match name {
        "atoi" | "atol" | "atoll" | "atof" | "strtol" | "strtoll" | "strtoul" | "strtoull"
        | "strtod" | "strtof" => {
            let first = args.first()?;
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

/// Gives every span in `e` the value `span` (expressions from `-D`, which have no source).
fn strip_spans(e: &mut SrcExpr, span: Span) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        x.span = span;
        match &mut x.kind {
            SrcExprKind::Index { indices, .. } => stack.extend(indices.iter_mut()),
            SrcExprKind::Call { args, .. } => stack.extend(args.iter_mut()),
            SrcExprKind::Unary { operand, .. } => stack.push(operand),
            SrcExprKind::Binary { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            SrcExprKind::Ternary { cond, then, other } => {
                stack.push(cond);
                stack.push(then);
                stack.push(other);
            }
            SrcExprKind::Cast { expr, .. } => stack.push(expr),
            SrcExprKind::SizeOf { expr: Some(x2), .. } => stack.push(x2),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::text_may_write;

    #[test]
    fn loop_variable_writes_are_found_in_text() {
        assert!(text_may_write("{ i += 2; }", "i"));
        assert!(text_may_write("{ i = 0; }", "i"));
        assert!(text_may_write("{ ++i; }", "i"));
        assert!(text_may_write("{ f(&i); }", "i"));
        assert!(!text_may_write("{ a[i] = i == 2 && ii++; }", "i"));
        assert!(!text_may_write("{ x = i + 1; }", "i"));
    }
}
