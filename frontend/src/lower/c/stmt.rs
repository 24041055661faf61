//! C statements → IR: blocks, branches, calls and MPI calls, inputs; `break` of a
//! `switch` is not a loop break.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::expr::{argv_index, is_optarg};
use super::{binop, opaque_expr, CLower};
use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::lower::as_mpi_call;
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    /// Lowers `n` (a compound statement or a single statement) appending to `out`.
    pub(super) fn block_into(&mut self, n: Node<'a>, out: &mut Block) {
        if n.kind() == "compound_statement" {
            let kids = Self::children(n);
            self.stmts(&kids, out);
        } else {
            self.stmt(n, out);
        }
    }

    /// Lowers a nested body under `parent`, guarding depth.
    pub(super) fn body(&mut self, n: Option<Node<'a>>, parent: StmtId) -> Block {
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
    pub(super) fn idents(&self, n: Node) -> BTreeSet<String> {
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
    pub(super) fn written(&self, n: Node) -> BTreeSet<String> {
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

    pub(super) fn opaque(&mut self, n: Node<'a>, reason: &str, out: &mut Block) {
        let defs = self.written(n);
        let uses = self.idents(n);
        let id = self
            .b
            .push_opaque(self.span(n), None, self.text(n), reason, defs, uses);
        out.push(id);
    }

    pub(super) fn stmt(&mut self, n: Node<'a>, out: &mut Block) {
        match n.kind() {
            "compound_statement" => self.block_into(n, out),
            "comment" | ";" => {}
            "declaration" => {
                let decls = self.declaration(n);
                for (d, init) in decls {
                    self.locals.insert(d.name.clone(), d.ty.clone());
                    // typed as an assignment's target is (`int q = sqrt(p) + 0.5` truncates
                    // like `q = …`; trial 19's `int nloc = n / p + …` read an integer split)
                    let scalar = matches!(d.kind, DeclKind::Scalar { .. }) && d.ty.pointer == 0;
                    let target =
                        SrcExpr::var(d.name.clone(), d.span).with_type(scalar.then_some(d.ty.base));
                    if let Some(p) = self.b.proc_mut() {
                        p.decls.push(d);
                    }
                    if let Some(v) = init {
                        if v.kind() == "initializer_list" {
                            self.element_stores(&target, v, out);
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
                self.goto_exits.push(None);
                self.for_stmt(n, out);
                self.goto_exits.pop();
                self.break_targets.pop();
            }
            "while_statement" | "do_statement" => {
                self.break_targets.push(true);
                self.goto_exits.push(None);
                self.while_stmt(n, out);
                self.goto_exits.pop();
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
                let target = n.field("label").map(|l| self.text(l).to_string());
                if target.is_some() && self.goto_exits.last() == Some(&target) {
                    // the jump to the statement after the goto loop around it
                    out.push(self.b.push(self.span(n), None, StmtKind::Break));
                    return;
                }
                let note = match self.goto_notes.remove(&n.start_byte()) {
                    Some(why) => format!("not a loop: {why}"),
                    None => "only loops built from goto in one statement list, entered at their label and left for the statement after them, are seen as loops".into(),
                };
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "`goto` is not analysed")
                        .with_primary(self.span(n), "control flow through this jump is ignored")
                        .with_note(note),
                );
                self.opaque(n, "goto", out);
            }
            "switch_statement" => {
                self.break_targets.push(false);
                self.switch_stmt(n, out);
                self.break_targets.pop();
            }
            "case_statement" => {
                let value = n.field("value");
                let label = value.map(|v| {
                    let t = self.text(v).trim();
                    t.strip_prefix('\'')
                        .and_then(|t| t.strip_suffix('\''))
                        .unwrap_or(t)
                        .to_string()
                });
                let outer = std::mem::replace(&mut self.case_label, label);
                for c in Self::children(n)
                    .into_iter()
                    .skip(usize::from(value.is_some()))
                {
                    self.stmt(c, out);
                }
                self.case_label = outer;
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

    /// `int dims[2] = {0, 0};`, `int dims[3] = {0};`: the elements of a small one-dimensional
    /// array stored one by one (`dims[0] = 0`, …; C zeroes the ones the list leaves out), so
    /// that they are known like elements assigned later. Lists of more than
    /// [`MAX_LISTED`] entries, nested or designated ones are left out.
    fn element_stores(&mut self, target: &SrcExpr, list: Node<'a>, out: &mut Block) {
        const MAX_LISTED: usize = 16;
        let SrcExprKind::Var(name) = &target.kind else {
            return;
        };
        let dims = match self.b.proc_mut().and_then(|p| p.decls.last()) {
            Some(Decl {
                kind: DeclKind::Array { dims, .. },
                ..
            }) => dims.clone(),
            _ => return,
        };
        let [dim] = dims.as_slice() else {
            return;
        };
        let entries: Vec<Node<'a>> = Self::children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let plain = entries
            .iter()
            .all(|c| !matches!(c.kind(), "initializer_list" | "initializer_pair"));
        let size = match dim {
            Dim::Extent(e) => self.const_int(e).and_then(|n| usize::try_from(n).ok()),
            _ => Some(entries.len()),
        };
        let Some(size) = size.filter(|n| *n <= MAX_LISTED && entries.len() <= *n) else {
            return;
        };
        if !plain {
            return;
        }
        let list_span = self.span(list);
        for k in 0..size {
            let (value, span) = match entries.get(k) {
                Some(c) => (self.expr(*c, 0), self.span(*c)),
                None => (SrcExpr::int(0, list_span), list_span),
            };
            let index = SrcExpr::int(i64::try_from(k).unwrap_or(0), span);
            let element = SrcExpr::new(
                SrcExprKind::Index {
                    array: name.clone(),
                    indices: vec![index],
                },
                span,
            )
            .with_type(target.ty);
            self.assign_like(span, element, value, out);
        }
    }

    /// A literal, or a named constant (`#define N 3`, `const int n = 3`) whose value is one.
    fn const_int(&self, e: &SrcExpr) -> Option<i64> {
        if let Some(n) = e.as_int() {
            return Some(n);
        }
        let SrcExprKind::Var(name) = &e.kind else {
            return None;
        };
        let local = self
            .b
            .prog
            .procs
            .get(self.b.cur_proc.0 as usize)
            .and_then(|p| p.decls.iter().find(|d| &d.name == name));
        let decl = local.or_else(|| self.b.prog.globals.iter().find(|d| &d.name == name))?;
        match &decl.kind {
            DeclKind::Constant { value, .. } => value.as_int(),
            _ => None,
        }
    }

    /// The span that closes a body: its closing brace, or the whole single statement.
    pub(super) fn end_span(&self, body: Node) -> Span {
        if body.kind() == "compound_statement" {
            let last = body.child(body.child_count().saturating_sub(1));
            if let Some(l) = last.filter(|l| l.kind() == "}") {
                return self.span(l);
            }
        }
        self.span(body)
    }

    /// Condition of if/while: parentheses stripped.
    pub(super) fn cond(&mut self, n: Node) -> SrcExpr {
        let inner = if n.kind() == "parenthesized_expression" {
            n.named_child(0).unwrap_or(n)
        } else {
            n
        };
        self.expr(inner, 0)
    }

    /// Pushes hoisted MPI statements for MPI calls nested in `e`.
    pub(super) fn hoist_nested(&mut self, e: &SrcExpr, out: &mut Block) {
        let before = self.b.prog.stmts.len();
        self.b.hoist_mpi(&[e]);
        let after = self.b.prog.stmts.len();
        out.extend((before..after).map(|i| StmtId(u32::try_from(i).unwrap_or(u32::MAX))));
    }

    /// `target = value` as Assign, or Mpi-with-result when `value` is an MPI call.
    pub(super) fn assign_like(
        &mut self,
        span: Span,
        target: SrcExpr,
        value: SrcExpr,
        out: &mut Block,
    ) {
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

    /// The target of a store: an lvalue, except that a member of an element with a computed
    /// subscript (`p[i].x`, `g.parts[i].x.y`), which has no access path, is its element
    /// (`p[i]`): the store writes part of it.
    fn store_target(&mut self, l: Node<'a>) -> SrcExpr {
        let target = self.expr(l, 0);
        if !matches!(target.kind, SrcExprKind::Opaque { .. }) || l.kind() != "field_expression" {
            return target;
        }
        let mut cur = l;
        for _ in 0..64 {
            if cur.kind() == "parenthesized_expression" {
                match cur.named_child(0) {
                    Some(c) => cur = c,
                    None => break,
                }
                continue;
            }
            // `p[i]->x` stores through the element: not the element itself
            if cur.kind() != "field_expression"
                || cur.field("operator").map(|o| self.text(o)) != Some(".")
            {
                break;
            }
            match cur.field("argument") {
                Some(a) => cur = a,
                None => break,
            }
        }
        if cur.kind() == "subscript_expression" {
            let element = self.expr(cur, 0);
            if matches!(element.kind, SrcExprKind::Index { .. }) {
                return SrcExpr {
                    span: target.span,
                    ..element
                };
            }
        }
        target
    }

    pub(super) fn expr_stmt(&mut self, stmt: Node<'a>, e: Node<'a>, out: &mut Block) {
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
                    keywords: Vec::new(),
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
                let target = self.store_target(l);
                if target.base_var().is_none() || matches!(target.kind, SrcExprKind::Opaque { .. })
                {
                    return self.opaque(stmt, "assignment to non-variable", out);
                }
                // `a = b = 0`: `b = 0;` first, then `a = b` (trial 17: `d.dims[0] =
                // d.dims[1] = 0` left every member of `d` modified inside an expression)
                let rhs = match r.field("left") {
                    Some(rl) if r.kind() == "assignment_expression" => {
                        self.expr_stmt(stmt, r, out);
                        self.store_target(rl)
                    }
                    _ => self.expr(r, 0),
                };
                let value = match op
                    .strip_suffix('=')
                    .filter(|s| !s.is_empty())
                    .and_then(binop)
                {
                    Some(bop) => SrcExpr::binary(bop, read_once(&target), rhs),
                    None => rhs,
                };
                self.assign_like(span, target, value, out);
            }
            "update_expression" => {
                let Some(arg) = e.field("argument") else {
                    return self.opaque(stmt, "update", out);
                };
                let target = self.store_target(arg);
                if target.base_var().is_none() || matches!(target.kind, SrcExprKind::Opaque { .. })
                {
                    return self.opaque(stmt, "update of non-variable", out);
                }
                let op = if self.text(e).contains("--") {
                    BinOp::Sub
                } else {
                    BinOp::Add
                };
                let value = SrcExpr::binary(op, read_once(&target), SrcExpr::int(1, target.span));
                out.push(
                    self.b
                        .push(span, None, StmtKind::Assign(Assign { target, value })),
                );
            }
            // `i = 1, j = 0`: each operand in turn
            "comma_expression" => {
                for part in comma_parts(e) {
                    self.expr_stmt(stmt, part, out);
                }
            }
            "parenthesized_expression" if e.named_child_count() == 1 => {
                if let Some(inner) = e.named_child(0) {
                    self.expr_stmt(stmt, inner, out);
                }
            }
            _ => {
                let v = self.expr(e, 0);
                self.hoist_nested(&v, out);
                self.opaque(stmt, "expression statement", out);
            }
        }
    }

    /// `scanf`/`fscanf`/`sscanf(argv[i], ...)` as an Input statement.
    pub(super) fn input_call(&mut self, name: &str, args: &[Node<'a>]) -> Option<StmtKind> {
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
                let origin = match first {
                    Some(f) if is_optarg(&f) => InputOrigin::Option(self.case_label.clone()),
                    f => f
                        .and_then(|f| argv_index(&f))
                        .map_or(InputOrigin::File, InputOrigin::Argv),
                };
                (origin, 2)
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

    pub(super) fn if_stmt(&mut self, n: Node<'a>, out: &mut Block) {
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
                switch: None,
            }),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        out.push(id);
    }

    pub(super) fn switch_stmt(&mut self, n: Node<'a>, out: &mut Block) {
        if self.switch_chain(n, out) {
            return;
        }
        // otherwise one if-arm guarded by an opaque condition: the body's statements (and any
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
            switch: Some(Switch { default: None }),
        });
        self.b.fill(id, kind, BTreeSet::new(), BTreeSet::new());
        out.push(id);
    }

    /// A `switch` whose cases each end with `break` (or `return`), labels stacked over one
    /// body allowed, as an IF/ELSE IF chain: `case 1: case 2: …` is `sel == 1 || sel == 2`,
    /// `default` the else. `false` (nothing lowered) when a case falls through into the next
    /// one's statements or statements precede the first case.
    fn switch_chain(&mut self, n: Node<'a>, out: &mut Block) -> bool {
        let (Some(cond_node), Some(body)) = (n.field("condition"), n.field("body")) else {
            return false;
        };
        if body.kind() != "compound_statement" {
            return false;
        }
        // (case nodes of the group, their values (None: default), statements)
        type Group<'t> = (Vec<Node<'t>>, Vec<Option<Node<'t>>>, Vec<Node<'t>>);
        let mut groups: Vec<Group<'a>> = Vec::new();
        let mut open: Option<Group<'a>> = None;
        for c in Self::children(body) {
            if c.kind() == "comment" {
                continue;
            }
            if c.kind() != "case_statement" {
                return false;
            }
            let value = c.field("value");
            let stmts: Vec<Node<'a>> = Self::children(c)
                .into_iter()
                .skip(usize::from(value.is_some()))
                .filter(|x| x.kind() != "comment")
                .collect();
            let g = open.get_or_insert_with(|| (Vec::new(), Vec::new(), Vec::new()));
            g.0.push(c);
            g.1.push(value);
            if stmts.is_empty() {
                continue;
            }
            let ends = stmts
                .last()
                .is_some_and(|l| matches!(l.kind(), "break_statement" | "return_statement"));
            // `case 1: if (x) break; work(n); break;`: an inner break skips the rest of the
            // arm, which an IF arm cannot say, so the switch stays opaque
            let inner_break = stmts[..stmts.len() - 1].iter().any(|x| breaks_switch(*x));
            if !ends || inner_break {
                return false;
            }
            g.2 = stmts;
            groups.extend(open.take());
        }
        if open.is_some_and(|g| !g.2.is_empty()) || groups.is_empty() {
            return false;
        }
        let span = self.span(n);
        let sel = self.cond(cond_node);
        let id = self.b.alloc(span, None);
        let mut arms = Vec::new();
        let mut else_body = None;
        let mut default = None;
        for (cases, values, stmts) in groups {
            let mut stmts = stmts;
            if stmts.last().is_some_and(|l| l.kind() == "break_statement") {
                stmts.pop();
            }
            // `case 1: case 2` up to the group's last label (a default: its keyword), so
            // markers after its colon run whichever label control enters at
            let start = self.span(cases[0]);
            let end = match (values.last(), cases.last()) {
                (Some(Some(v)), _) => self.span(*v).end,
                (_, Some(c)) => self.span(*c).start + 7,
                _ => start.start + 7,
            };
            let head = Span::new(start.file, start.start, end.max(start.start));
            // the option a getopt case reads (`case 'n': n = atoi(optarg)`)
            let label = values.iter().flatten().last().map(|v| {
                let t = self.text(*v).trim();
                t.strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(t)
                    .to_string()
            });
            let outer = std::mem::replace(&mut self.case_label, label);
            let block = self.list_body(&stmts, id, span);
            self.case_label = outer;
            if values.iter().any(Option::is_none) {
                default = Some(head);
                else_body = Some(block);
                continue;
            }
            let mut cond = values
                .iter()
                .flatten()
                .map(|v| {
                    let v = self.expr(*v, 0);
                    SrcExpr::binary(BinOp::Eq, sel.clone(), v)
                })
                .reduce(|a, b| SrcExpr::binary(BinOp::Or, a, b))
                .unwrap_or_else(|| opaque_expr("case", head));
            respan(&mut cond, head);
            arms.push(IfArm { cond, body: block });
        }
        if arms.is_empty() {
            // only a default: it always runs
            let Some(body) = else_body.take() else {
                return false;
            };
            let always = SrcExpr::new(SrcExprKind::Int(1), default.unwrap_or(span));
            arms.push(IfArm { cond: always, body });
            default = None;
        }
        let end_span = self.end_span(body);
        let kind = StmtKind::If(If {
            arms,
            else_body,
            end_span,
            switch: Some(Switch { default }),
        });
        self.b.fill(id, kind, BTreeSet::new(), BTreeSet::new());
        out.push(id);
        true
    }

    /// Lowers the statements `nodes` of one case under `parent`, guarding depth.
    fn list_body(&mut self, nodes: &[Node<'a>], parent: StmtId, whole: Span) -> Block {
        let mut out = Vec::new();
        if !self.b.enter(whole) {
            return out;
        }
        let saved = self.b.parent.replace(parent);
        self.stmts(nodes, &mut out);
        self.b.parent = saved;
        self.b.leave();
        out
    }
}

/// Whether `n` holds a `break` that leaves the switch around it: not one of a loop or switch
/// nested in it.
fn breaks_switch(n: Node) -> bool {
    match n.kind() {
        "break_statement" => true,
        "for_statement" | "while_statement" | "do_statement" | "switch_statement" => false,
        _ => {
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            kids.into_iter().any(breaks_switch)
        }
    }
}

/// Give a condition built from the selector and the case values the case labels' span, so it
/// reads as the `case …:` it came from; the selector and values keep theirs.
fn respan(e: &mut SrcExpr, span: Span) {
    e.span = span;
    if let SrcExprKind::Binary {
        op: BinOp::Or,
        lhs,
        rhs,
    } = &mut e.kind
    {
        respan(lhs, span);
        respan(rhs, span);
    }
}

/// The operands of a comma expression in order (`a, b, c` nests as `(a, b), c`).
pub(super) fn comma_parts(e: Node) -> Vec<Node> {
    if e.kind() != "comma_expression" {
        return vec![e];
    }
    let mut out = Vec::new();
    for f in ["left", "right"] {
        if let Some(x) = e.child_by_field_name(f) {
            out.extend(comma_parts(x));
        }
    }
    out
}

/// The target of `x op= v` / `x++` as the value reads it: itself, or where it calls a function
/// (`cnt[bucket(k)]++`) the same element read without calling it again. The program calls it
/// once; read twice, the call was two call sites, and codegen wrapped its one text twice into
/// code that did not compile (trial 27).
fn read_once(target: &SrcExpr) -> SrcExpr {
    let calls = target
        .walk()
        .iter()
        .any(|e| matches!(e.kind, SrcExprKind::Call { .. }));
    if !calls {
        return target.clone();
    }
    SrcExpr::new(
        SrcExprKind::Opaque {
            text: String::new(),
            vars: target.vars().into_iter().collect(),
        },
        target.span,
    )
    .with_type(target.ty)
}
