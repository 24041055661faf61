//! Fortran lowering (free form, and fixed form after normalisation): tree-sitter-fortran
//! nodes → IR. `a(i)` is an array element when `a` is declared with dimensions, else a call.
use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::{as_mpi_call, parse_int, parse_real, Builder, MAX_EXPR_DEPTH};
use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::parse::FieldExt;
use crate::source_map::Assembled;

/// Canonical Fortran name: lower-case, but `MPI_*` upper-case (matches C spelling of constants).
pub fn norm(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("mpi_") {
        name.to_ascii_uppercase()
    } else {
        lower
    }
}

#[derive(Debug)]
pub struct FLower<'a> {
    src: &'a str,
    asm: &'a Assembled,
    main: FileId,
    b: &'a mut Builder,
    /// Module variables and constants.
    globals: BTreeMap<String, (VarType, bool)>,
    /// Current procedure's declared names → (type, is_array).
    locals: BTreeMap<String, (VarType, bool)>,
    /// Character variables filled by `get_command_argument(i, v)`.
    argv_vars: BTreeMap<String, Option<u32>>,
    /// Variables visible to the next internal procedure from its host.
    host: BTreeMap<String, (VarType, bool)>,
    /// Terminator statements of a labelled DO nest, handed to the innermost loop.
    pending_terminator: Option<(u32, Vec<Node<'a>>)>,
    module: Option<String>,
}

pub fn lower(root: Node, asm: &Assembled, main: FileId, b: &mut Builder) {
    // module variables of files lowered before this one
    let globals = b
        .prog
        .globals
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                (d.ty.clone(), matches!(d.kind, DeclKind::Array { .. })),
            )
        })
        .collect();
    let mut l = FLower {
        src: &asm.text,
        asm,
        main,
        b,
        globals,
        locals: BTreeMap::new(),
        argv_vars: BTreeMap::new(),
        pending_terminator: None,
        host: BTreeMap::new(),
        module: None,
    };
    let mut loose = Vec::new();
    for n in children(root) {
        match n.kind() {
            "program" | "subroutine" | "function" => l.unit(n),
            "module" => l.module(n),
            // BLOCK DATA only initialises COMMON blocks; interface blocks declare
            "comment" | "include_statement" | "block_data" | "interface" => {}
            k if k.starts_with("preproc") => {}
            _ => loose.push(n),
        }
    }
    if loose.iter().any(|n| n.kind() != "ERROR") {
        // a main program without a PROGRAM statement
        let span = loose
            .iter()
            .map(|n| l.span(*n))
            .reduce(Span::cover)
            .unwrap_or_else(|| Span::new(main, 0, 0));
        l.b.begin_proc(
            "main".into(),
            ProcKind::Main,
            span,
            Span::new(span.file, span.start, span.start),
        );
        l.locals.clear();
        let body = l.stmts(&loose);
        if let Some(p) = l.b.proc_mut() {
            p.body = body;
        }
    }
}

fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

/// Type from Fortran type text (`integer`, `real*8`, `real(kind=8)`, `double precision`).
pub fn f_type(text: &str) -> VarType {
    let t = text.trim().to_ascii_lowercase();
    let digits: String = t
        .split(['*', '(', '=', ')', ','])
        .skip(1)
        .find(|p| !p.trim().is_empty() && p.trim().bytes().all(|b| b.is_ascii_digit()))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let kind: Option<u32> = digits.parse().ok();
    let (base, default) = if t.starts_with("double precision") || t.starts_with("doubleprecision") {
        (BaseType::Real, Some(8))
    } else if t.starts_with("double complex") || t.starts_with("doublecomplex") {
        (BaseType::Complex, Some(16))
    } else if t.starts_with("integer") {
        (BaseType::Integer, Some(4))
    } else if t.starts_with("real") {
        (BaseType::Real, Some(4))
    } else if t.starts_with("complex") {
        (BaseType::Complex, Some(8))
    } else if t.starts_with("logical") {
        (BaseType::Logical, Some(4))
    } else if t.starts_with("character") {
        (BaseType::Character, Some(1))
    } else {
        (BaseType::Other, None)
    };
    let has_kind = t.contains('*') || t.contains('(');
    let bytes = match (base, kind) {
        (BaseType::Character, _) => Some(1),
        (BaseType::Complex, Some(k)) if t.contains('*') => Some(k),
        (BaseType::Complex, Some(k)) => Some(2 * k),
        (_, Some(k)) => Some(k),
        (_, None) if has_kind => None,
        _ => default,
    };
    VarType::new(base, bytes, t)
}

fn rel_op(op: &str) -> Option<BinOp> {
    Some(match op.to_ascii_lowercase().as_str() {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "**" => BinOp::Pow,
        "//" => BinOp::Concat,
        "<" | ".lt." => BinOp::Lt,
        "<=" | ".le." => BinOp::Le,
        ">" | ".gt." => BinOp::Gt,
        ">=" | ".ge." => BinOp::Ge,
        "==" | ".eq." => BinOp::Eq,
        "/=" | ".ne." => BinOp::Ne,
        ".and." => BinOp::And,
        ".or." => BinOp::Or,
        ".eqv." => BinOp::Eqv,
        ".neqv." => BinOp::Neqv,
        _ => return None,
    })
}

/// Fortran intrinsic functions likely in MPI programs (never array names).
pub fn is_intrinsic(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "abs"
            | "dabs"
            | "iabs"
            | "min"
            | "max"
            | "min0"
            | "max0"
            | "amin1"
            | "amax1"
            | "dmin1"
            | "dmax1"
            | "mod"
            | "modulo"
            | "sign"
            | "dsign"
            | "sqrt"
            | "dsqrt"
            | "exp"
            | "dexp"
            | "log"
            | "dlog"
            | "log10"
            | "sin"
            | "cos"
            | "tan"
            | "atan"
            | "atan2"
            | "dble"
            | "real"
            | "float"
            | "int"
            | "nint"
            | "idint"
            | "ifix"
            | "floor"
            | "ceiling"
            | "size"
            | "len"
            | "len_trim"
            | "trim"
            | "adjustl"
            | "ichar"
            | "char"
            | "shape"
            | "lbound"
            | "ubound"
            | "sum"
            | "product"
            | "maxval"
            | "minval"
            | "dot_product"
            | "matmul"
            | "merge"
            | "present"
            | "allocated"
            | "associated"
            | "huge"
            | "tiny"
            | "epsilon"
            | "kind"
            | "selected_real_kind"
            | "selected_int_kind"
            | "command_argument_count"
            | "iargc"
            | "cmplx"
            | "conjg"
            | "aimag"
            | "transpose"
            | "reshape"
            | "spread"
            | "pack"
            | "count"
            | "any"
            | "all"
            | "ishft"
            | "iand"
            | "ior"
            | "ieor"
            | "btest"
            | "mpi_wtime"
            | "mpi_wtick"
    )
}

fn intrinsic_type(name: &str, args: &[SrcExpr]) -> Option<BaseType> {
    match name {
        "dble" | "real" | "sqrt" | "exp" | "log" | "sin" | "cos" | "dsqrt" | "dabs" | "float"
        | "log10" | "dfloat" | "sngl" => Some(BaseType::Real),
        "int"
        | "nint"
        | "size"
        | "len"
        | "ichar"
        | "command_argument_count"
        | "iargc"
        | "floor"
        | "ceiling" => Some(BaseType::Integer),
        "mod" | "abs" | "min" | "max" | "sign" => {
            let ts: Vec<_> = args.iter().map(|a| a.ty).collect();
            ts.first()
                .copied()
                .flatten()
                .filter(|t| ts.iter().all(|x| *x == Some(*t)))
        }
        _ => None,
    }
}

impl<'a> FLower<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn span(&self, n: Node) -> Span {
        self.asm.span(n.start_byte(), n.end_byte(), self.main)
    }

    fn lookup(&self, name: &str) -> Option<&(VarType, bool)> {
        self.locals.get(name).or_else(|| self.globals.get(name))
    }

    fn is_array(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|(_, a)| *a)
    }

    fn type_of(&self, name: &str) -> Option<BaseType> {
        if let Some((t, _)) = self.lookup(name) {
            return Some(t.base);
        }
        let p = self.b.prog.proc(self.b.cur_proc)?;
        if p.implicit_none {
            return None;
        }
        let first = name.chars().next()?;
        if let Some(r) = p
            .implicit
            .iter()
            .find(|r| r.first <= first && first <= r.last)
        {
            return Some(r.ty.base);
        }
        Some(VarType::fortran_implicit(name).base)
    }

    fn module(&mut self, n: Node<'a>) {
        let name = n
            .named_child(0)
            .and_then(|s| s.named_child(0))
            .map(|x| norm(self.text(x)));
        self.module = name;
        self.b.begin_proc(
            String::new(),
            ProcKind::Subroutine,
            self.span(n),
            self.span(n),
        );
        // module-level declarations go to globals: lower them into a scratch procedure
        let scratch = self.b.cur_proc;
        self.locals.clear();
        for c in children(n) {
            match c.kind() {
                "internal_procedures" => {}
                k if is_decl(k) => self.decl_stmt(c),
                _ => {}
            }
        }
        let decls = self.b.prog.procs.pop().map(|p| p.decls).unwrap_or_default();
        debug_assert_eq!(scratch.0 as usize, self.b.prog.procs.len());
        for d in decls {
            self.globals.insert(
                d.name.clone(),
                (d.ty.clone(), matches!(d.kind, DeclKind::Array { .. })),
            );
            self.b.prog.globals.push(d);
        }
        for c in children(n) {
            if c.kind() == "internal_procedures" {
                for p in children(c) {
                    if matches!(p.kind(), "subroutine" | "function") {
                        self.unit(p);
                    }
                }
            }
        }
        self.module = None;
    }

    /// A program, subroutine or function (and its `contains` procedures).
    fn unit(&mut self, n: Node<'a>) {
        let kind = match n.kind() {
            "program" => ProcKind::Main,
            "function" => ProcKind::Function,
            _ => ProcKind::Subroutine,
        };
        let kids = children(n);
        let header = kids
            .first()
            .copied()
            .filter(|h| h.kind().ends_with("_statement"));
        let name_node = header.and_then(|h| h.field("name").or_else(|| h.named_child(0)));
        let name = name_node.map_or_else(|| "main".to_string(), |x| norm(self.text(x)));
        let span = self.span(n);
        let name_span = name_node.map_or(span, |x| self.span(x));
        self.b.begin_proc(name, kind, span, name_span);
        if let Some(p) = self.b.proc_mut() {
            p.module = None;
        }
        let module = self.module.clone();
        if let Some(p) = self.b.proc_mut() {
            p.module = module;
        }
        // an internal procedure sees its host's variables (host association)
        self.locals = std::mem::take(&mut self.host);
        self.argv_vars.clear();
        if let Some(params) = header.and_then(|h| h.field("parameters")) {
            for p in children(params) {
                let pname = norm(self.text(p));
                let pspan = self.span(p);
                if let Some(pr) = self.b.proc_mut() {
                    pr.params.push(Param {
                        name: pname,
                        span: pspan,
                    });
                }
            }
        }
        if kind == ProcKind::Function {
            if let Some(t) = header.and_then(|h| h.field("type")) {
                let pname = self
                    .b
                    .prog
                    .proc(self.b.cur_proc)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                let ty = f_type(self.text(t));
                self.locals.insert(pname.clone(), (ty.clone(), false));
                let span = self.span(t);
                if let Some(pr) = self.b.proc_mut() {
                    pr.decls.push(Decl {
                        name: pname,
                        ty,
                        kind: DeclKind::Scalar { init: None },
                        span,
                        common: None,
                    });
                }
            }
        }
        let mut body_nodes = Vec::new();
        let mut internal = Vec::new();
        for k in kids.into_iter().skip(usize::from(header.is_some())) {
            match k.kind() {
                "internal_procedures" => internal.push(k),
                kk if kk.starts_with("end_") && kk.ends_with("_statement") => {}
                _ => body_nodes.push(k),
            }
        }
        let body = self.stmts(&body_nodes);
        if let Some(p) = self.b.proc_mut() {
            p.body = body;
        }
        // fill in parameter declarations that were only implicit
        for ip in internal {
            for p in children(ip) {
                if matches!(p.kind(), "subroutine" | "function") {
                    let saved = self.locals.clone();
                    self.host = saved.clone();
                    self.unit(p);
                    self.locals = saved;
                }
            }
        }
    }

    /// Lowers a statement sequence (labels attach to the next statement).
    fn stmts(&mut self, nodes: &[Node<'a>]) -> Block {
        let mut out = Vec::new();
        let mut label = None;
        for n in nodes {
            if n.kind() == "statement_label" {
                label = parse_int(self.text(*n)).and_then(|v| u32::try_from(v).ok());
                continue;
            }
            let before = out.len();
            self.stmt(*n, label, &mut out);
            if out.len() > before {
                label = None;
            }
        }
        out
    }

    fn body(&mut self, nodes: &[Node<'a>], parent: StmtId, whole: Span) -> Block {
        if !self.b.enter(whole) {
            let id = self.b.push_opaque(
                whole,
                None,
                "",
                "nested too deep",
                BTreeSet::new(),
                BTreeSet::new(),
            );
            return vec![id];
        }
        let saved = self.b.parent.replace(parent);
        let out = self.stmts(nodes);
        self.b.parent = saved;
        self.b.leave();
        out
    }

    fn idents(&self, n: Node) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut cursor = n.walk();
        // (node, is the callee of a call or CALL): parents tracked here because
        // `Node::parent` walks down from the root
        let mut stack = vec![(n, false)];
        while let Some((x, callee)) = stack.pop() {
            if x.kind() == "identifier" {
                let name = norm(self.text(x));
                if !callee || self.is_array(&name) {
                    out.insert(name);
                }
            }
            let is_call = matches!(x.kind(), "call_expression" | "subroutine_call");
            let first = if is_call {
                x.named_child(0).map(|f| f.id())
            } else {
                None
            };
            stack.extend(
                x.named_children(&mut cursor)
                    .map(|c| (c, Some(c.id()) == first)),
            );
        }
        out
    }

    fn opaque(
        &mut self,
        n: Node<'a>,
        label: Option<u32>,
        reason: &str,
        defs: BTreeSet<String>,
        out: &mut Block,
    ) {
        let uses = self.idents(n);
        let id = self
            .b
            .push_opaque(self.span(n), label, self.text(n), reason, defs, uses);
        out.push(id);
    }

    fn hoist_nested(&mut self, e: &SrcExpr, out: &mut Block) {
        let before = self.b.prog.stmts.len();
        self.b.hoist_mpi(&[e]);
        let after = self.b.prog.stmts.len();
        out.extend((before..after).map(|i| StmtId(u32::try_from(i).unwrap_or(u32::MAX))));
    }

    fn stmt(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let kind = n.kind();
        if is_decl(kind) {
            self.decl_stmt(n);
            return;
        }
        match kind {
            "comment" | "use_statement" | "include_statement" | "format_statement"
            | "contains_statement" => {}
            "assignment_statement" => self.assignment(n, label, out),
            "subroutine_call" => self.call(n, label, out),
            "do_loop" => self.do_loop(n, label, out),
            "if_statement" => self.if_stmt(n, label, out),
            "keyword_statement" => self.keyword(n, label, out),
            "read_statement" => self.read(n, label, out),
            "select_case_statement" => self.select(n, label, out),
            "arithmetic_if_statement" => {
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "arithmetic IF is not analysed")
                        .with_primary(self.span(n), "its jumps are ignored")
                        .with_note("rewrite it as a block IF"),
                );
                self.opaque(n, label, "arithmetic if", BTreeSet::new(), out);
            }
            "data_statement" => {
                let mut defs = BTreeSet::new();
                let mut uses = BTreeSet::new();
                for set in children(n) {
                    for c in children(set) {
                        if c.kind() == "data_value" {
                            uses.extend(self.idents(c));
                        } else {
                            defs.extend(self.idents(c));
                        }
                    }
                }
                let id = self.b.push_opaque(
                    self.span(n),
                    label,
                    self.text(n),
                    "data statement",
                    defs,
                    uses,
                );
                out.push(id);
            }
            "ERROR" => self.opaque(n, label, "syntax error", BTreeSet::new(), out),
            k if k.starts_with("preproc") => {
                // cpp conditionals in .F files: lower every branch's statements in order
                let kids = children(n);
                let mut body = self.stmts(&kids);
                out.append(&mut body);
            }
            _ => {
                let defs = self.allocated(n);
                let reason = kind.trim_end_matches("_statement").replace('_', " ");
                self.opaque(n, label, &reason, defs, out);
            }
        }
    }

    /// Names allocated/deallocated/nullified by an opaque statement.
    fn allocated(&self, n: Node) -> BTreeSet<String> {
        if !matches!(n.kind(), "allocate_statement" | "deallocate_statement") {
            return BTreeSet::new();
        }
        children(n)
            .into_iter()
            .filter_map(|c| {
                if c.kind() == "identifier" {
                    Some(c)
                } else {
                    c.named_child(0)
                }
            })
            .map(|c| norm(self.text(c)))
            .collect()
    }

    fn keyword(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let t = self.text(n).trim().to_ascii_lowercase();
        let word: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let span = self.span(n);
        match word.as_str() {
            "exit" => out.push(self.b.push(span, label, StmtKind::Break)),
            "cycle" => out.push(self.b.push(span, label, StmtKind::Continue)),
            "return" => out.push(self.b.push(span, label, StmtKind::Return { value: None })),
            "continue" => self.opaque(n, label, "continue", BTreeSet::new(), out),
            "go" | "goto" => {
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "GOTO is not analysed")
                        .with_primary(span, "control flow through this jump is ignored")
                        .with_note("loops built from GOTO are not seen as loops"),
                );
                self.opaque(n, label, "goto", BTreeSet::new(), out);
            }
            _ => self.opaque(n, label, &word, BTreeSet::new(), out),
        }
    }

    fn assignment(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let (Some(l), Some(r)) = (n.field("left"), n.field("right")) else {
            return self.opaque(n, label, "assignment", BTreeSet::new(), out);
        };
        if l.kind() == "call_expression" {
            // `f(x) = ...` with `f` declared as a scalar: a statement function definition
            let name = l
                .named_child(0)
                .map(|f| norm(self.text(f)))
                .unwrap_or_default();
            if self
                .locals
                .get(&name)
                .is_some_and(|(_, is_array)| !is_array)
            {
                let id = self.b.push_opaque(
                    self.span(n),
                    label,
                    self.text(n),
                    "statement function",
                    BTreeSet::new(),
                    BTreeSet::new(),
                );
                out.push(id);
                return;
            }
        }
        let target = self.target(l, 0);
        if target.base_var().is_none() {
            let defs = self.idents(l).into_iter().take(1).collect();
            return self.opaque(n, label, "assignment to non-variable", defs, out);
        }
        let value = self.expr(r, 0);
        let span = self.span(n);
        if let Some((name, args)) = as_mpi_call(&value) {
            let (name, args) = (name.to_string(), args.to_vec());
            let call = self.b.mpi_call(&name, value.span, args, Some(target));
            out.push(self.b.push(span, label, StmtKind::Mpi(call)));
            return;
        }
        self.hoist_nested(&value, out);
        out.push(
            self.b
                .push(span, label, StmtKind::Assign(Assign { target, value })),
        );
    }

    /// An assignment target: `a(i)` is always an element (or a statement function; rare).
    fn target(&mut self, n: Node, depth: usize) -> SrcExpr {
        if n.kind() == "call_expression" {
            if let Some(f) = n.named_child(0) {
                let array = norm(self.text(f));
                let indices = n
                    .named_child(1)
                    .map(|a| self.args(a, depth + 1))
                    .unwrap_or_default();
                let ty = self.type_of(&array);
                return SrcExpr {
                    kind: SrcExprKind::Index { array, indices },
                    span: self.span(n),
                    ty,
                };
            }
        }
        if n.kind() == "derived_type_member_expression" {
            // `t%a = ...` defines t
            if let Some(base) = n.named_child(0) {
                let e = self.target(base, depth + 1);
                if let Some(b) = e.base_var() {
                    return SrcExpr::var(b.to_string(), self.span(n));
                }
            }
        }
        self.expr(n, depth)
    }

    fn args(&mut self, list: Node, depth: usize) -> Vec<SrcExpr> {
        children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| {
                if a.kind() == "keyword_argument" {
                    match a.field("value") {
                        Some(v) => self.expr(v, depth),
                        None => self.opaque_e(a),
                    }
                } else {
                    self.expr(a, depth)
                }
            })
            .collect()
    }

    fn call(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let span = self.span(n);
        let Some(f) = n.field("subroutine").or_else(|| n.named_child(0)) else {
            return self.opaque(n, label, "call", BTreeSet::new(), out);
        };
        let raw = self.text(f);
        let args: Vec<SrcExpr> = children(n)
            .into_iter()
            .find(|c| c.kind() == "argument_list")
            .map(|a| self.args(a, 0))
            .unwrap_or_default();
        if crate::mpi_table::is_mpi_name(raw) {
            let call = self.b.mpi_call(raw, span, args, None);
            out.push(self.b.push(span, label, StmtKind::Mpi(call)));
            return;
        }
        let name = norm(raw);
        if matches!(name.as_str(), "get_command_argument" | "getarg") {
            if let (Some(i), Some(v)) = (args.first(), args.get(1).and_then(SrcExpr::base_var)) {
                let idx = i.as_int().and_then(|x| u32::try_from(x).ok());
                self.argv_vars.insert(v.to_string(), idx);
            }
        }
        if name == "get_environment_variable" {
            if let (Some(SrcExprKind::Str(key)), Some(v)) = (
                args.first().map(|a| &a.kind),
                args.get(1).and_then(SrcExpr::base_var),
            ) {
                let origin = InputOrigin::Env(Some(key.clone()));
                let target = args
                    .get(1)
                    .cloned()
                    .unwrap_or_else(|| SrcExpr::var(v.to_string(), span));
                out.push(self.b.push(
                    span,
                    label,
                    StmtKind::Input(Input {
                        targets: vec![target],
                        origin,
                    }),
                ));
                return;
            }
        }
        for a in &args {
            self.hoist_nested(a, out);
        }
        // arguments are passed by reference: any variable argument may be written
        let proc = self.b.cur_proc;
        let defs: BTreeSet<String> = args
            .iter()
            .filter(|a| matches!(a.kind, SrcExprKind::Var(_) | SrcExprKind::Index { .. }))
            .filter_map(|a| a.base_var().map(str::to_string))
            // named constants and MPI handles cannot be written
            .filter(|v| !v.starts_with("MPI_"))
            .filter(|v| {
                !self
                    .b
                    .prog
                    .decl(proc, v)
                    .is_some_and(|d| matches!(d.kind, DeclKind::Constant { .. }))
            })
            .collect();
        let id = self.b.alloc(span, label);
        let call = Call {
            name,
            args,
            name_span: self.span(f),
        };
        self.b.fill(id, StmtKind::Call(call), defs, BTreeSet::new());
        out.push(id);
    }

    fn read(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let kids = children(n);
        let unit = kids.iter().find(|c| c.kind() == "unit_identifier").copied();
        let origin = match unit {
            None => InputOrigin::Stdin,
            Some(u) => {
                let t = self.text(u).trim();
                if t == "*"
                    || t == "5"
                    || t.eq_ignore_ascii_case("unit=*")
                    || t.eq_ignore_ascii_case("unit=5")
                {
                    InputOrigin::Stdin
                } else {
                    let name = norm(t);
                    match self.argv_vars.get(&name) {
                        Some(i) => InputOrigin::Argv(*i),
                        None => InputOrigin::File,
                    }
                }
            }
        };
        // items, with implied-do lists `(a(i), i = 1, n)` flattened to their elements
        let mut items = Vec::new();
        let mut stack: Vec<Node> = kids
            .iter()
            .filter(|c| c.kind() == "input_item_list")
            .flat_map(|l| children(*l))
            .collect();
        stack.reverse();
        while let Some(c) = stack.pop() {
            if c.kind() == "implied_do_loop_expression" {
                let inner: Vec<Node> = children(c)
                    .into_iter()
                    .filter(|x| x.kind() != "loop_control_expression")
                    .collect();
                stack.extend(inner.into_iter().rev());
            } else {
                items.push(c);
            }
        }
        let targets: Vec<SrcExpr> = items.into_iter().map(|c| self.target(c, 0)).collect();
        if targets.is_empty() {
            return self.opaque(n, label, "read", BTreeSet::new(), out);
        }
        out.push(self.b.push(
            self.span(n),
            label,
            StmtKind::Input(Input { targets, origin }),
        ));
    }

    fn do_loop(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let span = self.span(n);
        let kids = children(n);
        let Some(head) = kids.first().copied().filter(|k| k.kind() == "do_statement") else {
            return self.opaque(n, label, "do loop", BTreeSet::new(), out);
        };
        let mut body_nodes = Vec::new();
        let mut end_span = span;
        let my_label = self.do_label(n);
        // a terminator statement handed down by an enclosing loop ending on the same label
        let mut terminator: Vec<Node<'a>> = match self.pending_terminator.take() {
            Some((l, nodes)) if Some(l) == my_label => nodes,
            other => {
                self.pending_terminator = other;
                Vec::new()
            }
        };
        for k in kids.iter().skip(1) {
            match k.kind() {
                "end_do_loop_statement" => end_span = self.span(*k),
                "end_do_label_loop_statement" => {
                    end_span = self.span(*k);
                    // a terminator that is a real statement belongs to the body
                    for c in children(*k) {
                        let ck = c.kind();
                        let is_continue = ck == "keyword_statement"
                            && self.text(c).trim().eq_ignore_ascii_case("continue");
                        if !matches!(ck, "statement_label" | "do_label_virtual" | "comment")
                            && !is_continue
                        {
                            terminator.push(c);
                        }
                    }
                }
                _ => body_nodes.push(*k),
            }
        }
        // `DO 10 J ... DO 10 I ... 10 A(I,J) = 0`: the shared terminator runs in the
        // innermost loop, which tree-sitter closes with a virtual label
        let inner_shares = body_nodes
            .iter()
            .rev()
            .find(|b| b.kind() != "comment")
            .is_some_and(|b| {
                b.kind() == "do_loop" && my_label.is_some() && self.do_label(*b) == my_label
            });
        if inner_shares && !terminator.is_empty() {
            self.pending_terminator = my_label.map(|l| (l, std::mem::take(&mut terminator)));
        }
        body_nodes.extend(terminator);
        let header_span = self.span(head);
        let control = children(head)
            .into_iter()
            .find(|c| c.kind() == "loop_control_expression");
        let whiled = children(head)
            .into_iter()
            .find(|c| c.kind() == "while_statement");
        if let Some(ctl) = control {
            let parts = children(ctl);
            if parts.len() >= 3 {
                let var = norm(self.text(parts[0]));
                let lo = self.expr(parts[1], 0);
                let hi = self.expr(parts[2], 0);
                let step = match parts.get(3) {
                    Some(s) => self.expr(*s, 0),
                    None => SrcExpr::int(1, hi.span),
                };
                for e in [&lo, &hi, &step] {
                    self.hoist_nested(e, out);
                }
                let id = self.b.alloc(span, label);
                let body = self.body(&body_nodes, id, span);
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
        }
        let cond = whiled.and_then(|w| w.named_child(0)).map(|c| {
            let inner = if c.kind() == "parenthesized_expression" {
                c.named_child(0).unwrap_or(c)
            } else {
                c
            };
            self.expr(inner, 0)
        });
        if let Some(c) = &cond {
            self.hoist_nested(c, out);
        }
        let id = self.b.alloc(span, label);
        let body = self.body(&body_nodes, id, span);
        let w = While {
            cond,
            init: Vec::new(),
            body,
            update: Vec::new(),
            post_test: false,
            header_span,
            end_span,
        };
        self.b
            .fill(id, StmtKind::While(w), BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// The label of a labelled DO (`DO 10 I = ...` → 10).
    fn do_label(&self, n: Node) -> Option<u32> {
        let head = n.named_child(0).filter(|h| h.kind() == "do_statement")?;
        let l = head.field("do_label")?;
        parse_int(self.text(l)).and_then(|v| u32::try_from(v).ok())
    }

    fn cond_of(&mut self, n: Node) -> SrcExpr {
        match children(n)
            .into_iter()
            .find(|c| c.kind() == "parenthesized_expression")
        {
            Some(p) => match p.named_child(0) {
                Some(inner) => self.expr(inner, 0),
                None => self.opaque_e(p),
            },
            None => self.opaque_e(n),
        }
    }

    fn if_stmt(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let span = self.span(n);
        let mut arm_nodes: Vec<(Node, Vec<Node>)> = vec![(n, Vec::new())];
        let mut else_nodes: Option<Vec<Node>> = None;
        let mut end_span = span;
        let mut seen_cond = false;
        for c in children(n) {
            match c.kind() {
                "parenthesized_expression" if !seen_cond => seen_cond = true,
                "elseif_clause" => {
                    let stmts = children(c)
                        .into_iter()
                        .filter(|x| x.kind() != "parenthesized_expression")
                        .collect();
                    arm_nodes.push((c, stmts));
                }
                "else_clause" => else_nodes = Some(children(c)),
                "end_if_statement" => end_span = self.span(c),
                _ => {
                    if let Some(last) = arm_nodes.first_mut() {
                        if else_nodes.is_none() && seen_cond {
                            last.1.push(c);
                        }
                    }
                }
            }
        }
        let conds: Vec<SrcExpr> = arm_nodes.iter().map(|(h, _)| self.cond_of(*h)).collect();
        for c in &conds {
            self.hoist_nested(c, out);
        }
        let id = self.b.alloc(span, label);
        let mut arms = Vec::new();
        for (cond, (_, stmts)) in conds.into_iter().zip(arm_nodes) {
            let body = self.body(&stmts, id, span);
            arms.push(IfArm { cond, body });
        }
        let else_body = else_nodes.map(|e| self.body(&e, id, span));
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

    fn select(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        // one if-arm per case, each guarded by an opaque condition naming the selector
        let span = self.span(n);
        let kids = children(n);
        let selector = kids.iter().find(|c| c.kind() == "selector").copied();
        let sel_vars: Vec<String> = selector
            .map(|s| self.idents(s).into_iter().collect())
            .unwrap_or_default();
        let sel_text = selector.map(|s| self.text(s)).unwrap_or("");
        let id = self.b.alloc(span, label);
        let mut arms = Vec::new();
        let mut end_span = span;
        for c in kids {
            match c.kind() {
                "case_statement" => {
                    let parts = children(c);
                    let (heads, stmts): (Vec<Node>, Vec<Node>) = parts
                        .into_iter()
                        .partition(|p| matches!(p.kind(), "case_value_range_list" | "default"));
                    let head_text = heads.first().map(|h| self.text(*h)).unwrap_or("");
                    let cond = SrcExpr::new(
                        SrcExprKind::Opaque {
                            text: format!("case {sel_text} = ({head_text})"),
                            vars: sel_vars.clone(),
                        },
                        self.span(c),
                    );
                    let body = self.body(&stmts, id, span);
                    arms.push(IfArm { cond, body });
                }
                "end_select_statement" => end_span = self.span(c),
                _ => {}
            }
        }
        self.b.fill(
            id,
            StmtKind::If(If {
                arms,
                else_body: None,
                end_span,
            }),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        out.push(id);
    }

    // ---- declarations ----

    fn add_decl(&mut self, d: Decl) {
        let is_array = matches!(d.kind, DeclKind::Array { .. });
        self.locals.insert(d.name.clone(), (d.ty.clone(), is_array));
        if let Some(p) = self.b.proc_mut() {
            if let Some(old) = p.decls.iter_mut().find(|o| o.name == d.name) {
                // a later statement refines an earlier one (type, then DIMENSION or COMMON)
                if matches!(d.kind, DeclKind::Constant { .. }) {
                    old.span = d.span;
                }
                if matches!(d.kind, DeclKind::Array { .. } | DeclKind::Constant { .. }) {
                    old.kind = d.kind;
                }
                if d.ty.base != BaseType::Other && d.ty.text != "implicit" {
                    old.ty = d.ty;
                }
                if d.common.is_some() {
                    old.common = d.common;
                }
                let (ty, arr) = (old.ty.clone(), matches!(old.kind, DeclKind::Array { .. }));
                self.locals.insert(old.name.clone(), (ty, arr));
                return;
            }
            p.decls.push(d);
        }
    }

    fn implicit_type(&self, name: &str) -> VarType {
        let first = name.chars().next().unwrap_or('a');
        if let Some(p) = self.b.prog.proc(self.b.cur_proc) {
            if let Some(r) = p
                .implicit
                .iter()
                .find(|r| r.first <= first && first <= r.last)
            {
                return r.ty.clone();
            }
        }
        let mut t = VarType::fortran_implicit(name);
        t.text = "implicit".into();
        t
    }

    fn dims(&mut self, size: Node) -> Vec<Dim> {
        children(size)
            .into_iter()
            .map(|d| match d.kind() {
                "assumed_size" => Dim::Assumed,
                "extent_specifier" => {
                    let t = self.text(d).trim().to_string();
                    let parts = children(d);
                    if t == ":" || t == "*" || parts.is_empty() {
                        return Dim::Assumed;
                    }
                    let colon = d.start_byte() + t.find(':').unwrap_or(0);
                    let lo = parts.iter().find(|p| p.start_byte() < colon).copied();
                    let hi = parts.iter().find(|p| p.start_byte() > colon).copied();
                    match (lo, hi) {
                        (Some(l), Some(h)) => Dim::Bounds {
                            lo: self.expr(l, 0),
                            hi: self.expr(h, 0),
                        },
                        _ => Dim::Assumed,
                    }
                }
                _ => {
                    let hi = self.expr(d, 0);
                    Dim::Bounds {
                        lo: SrcExpr::int(1, hi.span),
                        hi,
                    }
                }
            })
            .collect()
    }

    /// One declarator of a type declaration / COMMON / DIMENSION.
    fn declarator(
        &mut self,
        dn: Node,
        ty: &VarType,
        attr_dims: Option<Vec<Dim>>,
        is_param: bool,
        common: Option<String>,
    ) {
        let span = self.span(dn);
        let (name_node, dims, init) = match dn.kind() {
            "identifier" => (Some(dn), None, None),
            "sized_declarator" => {
                let size = children(dn).into_iter().find(|c| c.kind() == "size");
                (dn.named_child(0), size.map(|s| self.dims(s)), None)
            }
            "init_declarator" => {
                let left = dn.field("left");
                let (nn, dims) = match left {
                    Some(l) if l.kind() == "sized_declarator" => {
                        let size = children(l).into_iter().find(|c| c.kind() == "size");
                        (l.named_child(0), size.map(|s| self.dims(s)))
                    }
                    other => (other, None),
                };
                (nn, dims, dn.field("right"))
            }
            _ => (None, None, None),
        };
        let Some(nn) = name_node else { return };
        let name = norm(self.text(nn));
        let dims = dims.or(attr_dims);
        let init = init.map(|i| self.expr(i, 0));
        let ty = if ty.text == "implicit" {
            self.implicit_type(&name)
        } else {
            ty.clone()
        };
        let kind = match (is_param, init, dims) {
            (true, Some(value), _) => DeclKind::Constant {
                value,
                origin: ConstOrigin::Parameter,
            },
            (_, init, Some(dims)) => DeclKind::Array { dims, init },
            (_, init, None) => DeclKind::Scalar { init },
        };
        self.add_decl(Decl {
            name,
            ty,
            kind,
            span,
            common,
        });
    }

    fn decl_stmt(&mut self, n: Node) {
        match n.kind() {
            "variable_declaration" => {
                let ty = n
                    .field("type")
                    .map(|t| f_type(self.text(t)))
                    .unwrap_or_else(|| f_type(""));
                let mut is_param = false;
                let mut attr_dims = None;
                let mut c = n.walk();
                let attrs: Vec<Node> = n.children_by_field_name("attribute", &mut c).collect();
                for a in attrs {
                    let t = self.text(a).to_ascii_lowercase();
                    if t.starts_with("parameter") {
                        is_param = true;
                    } else if t.starts_with("dimension") {
                        if let Some(list) = children(a).into_iter().next() {
                            attr_dims = Some(self.dims(list));
                        }
                    }
                }
                let mut c = n.walk();
                let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                for d in decls {
                    self.declarator(d, &ty, attr_dims.clone(), is_param, None);
                }
            }
            "parameter_statement" => {
                for pa in children(n) {
                    let parts = children(pa);
                    if let (Some(nn), Some(v)) = (parts.first(), parts.get(1)) {
                        let name = norm(self.text(*nn));
                        let value = self.expr(*v, 0);
                        let ty = self
                            .lookup(&name)
                            .map(|(t, _)| t.clone())
                            .unwrap_or_else(|| self.implicit_type(&name));
                        let span = self.span(pa);
                        self.add_decl(Decl {
                            name,
                            ty,
                            kind: DeclKind::Constant {
                                value,
                                origin: ConstOrigin::Parameter,
                            },
                            span,
                            common: None,
                        });
                    }
                }
            }
            "variable_modification" => {
                let implicit = VarType::new(BaseType::Other, None, "implicit");
                let mut c = n.walk();
                let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                for d in decls {
                    let name = d
                        .named_child(0)
                        .map(|x| norm(self.text(x)))
                        .unwrap_or_default();
                    let ty = self
                        .lookup(&name)
                        .map(|(t, _)| t.clone())
                        .unwrap_or_else(|| implicit.clone());
                    self.declarator(d, &ty, None, false, None);
                }
            }
            "common_statement" => {
                for group in children(n) {
                    let mut block = String::new();
                    for item in children(group) {
                        match item.kind() {
                            "name" => block = norm(self.text(item)),
                            "identifier" | "sized_declarator" => {
                                let nn = if item.kind() == "identifier" {
                                    Some(item)
                                } else {
                                    item.named_child(0)
                                };
                                let name = nn.map(|x| norm(self.text(x))).unwrap_or_default();
                                let ty = self.lookup(&name).map(|(t, _)| t.clone()).unwrap_or_else(
                                    || VarType::new(BaseType::Other, None, "implicit"),
                                );
                                self.declarator(item, &ty, None, false, Some(block.clone()));
                            }
                            _ => {}
                        }
                    }
                }
            }
            "implicit_statement" => {
                let kids = children(n);
                if kids.iter().any(|k| k.kind() == "none") {
                    if let Some(p) = self.b.proc_mut() {
                        p.implicit_none = true;
                    }
                    return;
                }
                let mut ty = None;
                for k in kids {
                    match k.kind() {
                        "intrinsic_type" => ty = Some(f_type(self.text(k))),
                        "implicit_range" => {
                            let t = self.text(k).to_ascii_lowercase();
                            let letters: Vec<char> =
                                t.chars().filter(char::is_ascii_alphabetic).collect();
                            if let (Some(ty), Some(first)) = (ty.clone(), letters.first().copied())
                            {
                                let last = letters.get(1).copied().unwrap_or(first);
                                if let Some(p) = self.b.proc_mut() {
                                    p.implicit.push(ImplicitRule { first, last, ty });
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    // ---- expressions ----

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
            "call_expression" => {
                let Some(f) = n.named_child(0).filter(|f| f.kind() == "identifier") else {
                    return self.opaque_e(n);
                };
                let name = norm(self.text(f));
                let args = n
                    .named_child(1)
                    .map(|a| self.args(a, d))
                    .unwrap_or_default();
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

    fn opaque_e(&self, n: Node) -> SrcExpr {
        let vars: Vec<String> = self.idents(n).into_iter().collect();
        let text: String = self.text(n).chars().take(120).collect();
        SrcExpr::new(SrcExprKind::Opaque { text, vars }, self.span(n))
    }
}

fn is_decl(kind: &str) -> bool {
    matches!(
        kind,
        "variable_declaration"
            | "parameter_statement"
            | "variable_modification"
            | "common_statement"
            | "implicit_statement"
            | "save_statement"
            | "equivalence_statement"
            | "interface"
            | "derived_type_definition"
            | "import_statement"
            | "public_statement"
            | "private_statement"
    )
}
