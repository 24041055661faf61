//! Fortran statements → IR: labels, assignments, CALL (MPI through the table), READ
//! inputs, IF and SELECT CASE, EXIT/CYCLE/GOTO, opaque statements with def/use sets.
use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{children, is_decl, norm, FLower};
use crate::diagnostic::{codes, Diagnostic};
use crate::ir::*;
use crate::lower::{as_mpi_call, parse_int};
use crate::parse::FieldExt;

impl<'a> FLower<'a> {
    /// Lowers a statement sequence (labels attach to the next statement; a loop built from
    /// GOTO becomes a `While`, see `goto.rs`).
    pub(super) fn stmts(&mut self, nodes: &[Node<'a>]) -> Block {
        let mut items = Vec::new();
        let mut label = None;
        let mut first = None;
        for (k, n) in nodes.iter().enumerate() {
            if n.kind() == "statement_label" {
                label = parse_int(self.text(*n)).and_then(|v| u32::try_from(v).ok());
                first = Some(k);
                continue;
            }
            if n.kind() == "comment" {
                continue;
            }
            let item = self.item(nodes, label.take(), first.take().unwrap_or(k), k);
            items.push(item);
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < items.len() {
            if items[i].label.is_some() {
                if let Some(next) = self.goto_loop(nodes, &items, i, &mut out) {
                    i = next;
                    continue;
                }
            }
            let before = out.len();
            let (stmt, label) = (items[i].stmt, items[i].label);
            self.next_label = items.get(i + 1).and_then(|x| x.label);
            self.stmt(nodes[stmt], label, &mut out);
            self.next_label = None;
            if out.len() == before && label.is_some() {
                // a label on a declaration or comment-like node moves to the next statement
                if let Some(next) = items.get_mut(i + 1) {
                    if next.label.is_none() {
                        next.label = label;
                    }
                }
            }
            i += 1;
        }
        out
    }

    pub(super) fn body(&mut self, nodes: &[Node<'a>], parent: StmtId, whole: Span) -> Block {
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

    pub(super) fn idents(&self, n: Node) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut cursor = n.walk();
        // (node, is the callee of a call or CALL): parents tracked here because
        // `Node::parent` walks down from the root
        let mut stack = vec![(n, false)];
        while let Some((x, callee)) = stack.pop() {
            if x.kind() == "identifier" {
                let name = norm(self.text(x));
                if self.aliases.contains_key(&name) {
                    out.extend(self.alias_vars(&name));
                } else if !callee || self.is_array(&name) {
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

    pub(super) fn opaque(
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

    /// A `WHERE` construct (or statement): one statement visiting the elements of its first
    /// masked assignment's target ([`Opaque::masked`]), writing every assignment's target;
    /// its mask and `ELSEWHERE` arms are read. Its time is the array statement's (nothing can
    /// be timed inside a WHERE).
    fn where_construct(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let mut targets = Vec::new();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            for c in children(x).into_iter().rev() {
                match c.kind() {
                    "assignment_statement" => targets.push(c),
                    "elsewhere_clause" | "where_statement" => stack.push(c),
                    _ => {}
                }
            }
        }
        targets.sort_by_key(|t| t.start_byte());
        let mut defs = BTreeSet::new();
        let mut first = None;
        for t in &targets {
            let Some(l) = t.field("left") else { continue };
            let e = self.target(l, 0);
            if let Some(v) = e.base_var() {
                defs.insert(v.to_string());
            }
            first.get_or_insert(e);
        }
        self.opaque(n, label, "where", defs, out);
        if let Some(o) = self.last_opaque(out) {
            o.masked = first;
        }
    }

    /// The opaque statement [`Self::opaque`] just pushed to `out`, to fill in what it knows.
    fn last_opaque(&mut self, out: &Block) -> Option<&mut Opaque> {
        let stmt = out
            .last()
            .and_then(|id| self.b.prog.stmts.get_mut(id.0 as usize));
        match stmt {
            Some(Stmt {
                kind: StmtKind::Opaque(o),
                ..
            }) => Some(o),
            _ => None,
        }
    }

    pub(super) fn hoist_nested(&mut self, e: &SrcExpr, out: &mut Block) {
        let before = self.b.prog.stmts.len();
        self.b.hoist_mpi(&[e]);
        let after = self.b.prog.stmts.len();
        out.extend((before..after).map(|i| StmtId(u32::try_from(i).unwrap_or(u32::MAX))));
    }

    pub(super) fn stmt(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let kind = n.kind();
        if is_decl(kind) {
            self.decl_stmt(n);
            return;
        }
        match kind {
            "use_statement" => self.use_stmt(n, false),
            "comment" | "include_statement" | "format_statement" | "contains_statement" => {}
            "assignment_statement" => self.assignment(n, label, out),
            "subroutine_call" => self.call(n, label, out),
            "do_loop" => self.do_loop(n, label, out),
            "associate_statement" => self.associate(n, label, out),
            "block_construct" => self.block_construct(n, label, out),
            "if_statement" => self.if_stmt(n, label, out),
            "keyword_statement" => self.keyword(n, label, out),
            "read_statement" => self.read(n, label, out),
            "namelist_statement" => {
                let groups = self.namelist_groups(n);
                self.namelists.extend(groups);
            }
            "select_case_statement" => self.select(n, label, out),
            "where_statement" => self.where_construct(n, label, out),
            "forall_statement" => self.forall(n, label, out),
            "arithmetic_if_statement" => {
                let note = match self.goto_notes.remove(&n.start_byte()) {
                    Some(why) => format!("not a loop: {why}; rewrite it as a block IF"),
                    None => "only one closing a loop (jumping back to its first statement for some signs, to the statement after it for the others) is analysed; rewrite it as a block IF".into(),
                };
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "arithmetic IF is not analysed")
                        .with_primary(self.span(n), "its jumps are ignored")
                        .with_note(note),
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
                if kind == "allocate_statement" {
                    let allocations = self.allocations(n);
                    if let Some(o) = self.last_opaque(out) {
                        o.allocations = allocations;
                    }
                }
            }
        }
    }

    /// The arrays an ALLOCATE sizes, with their bounds (`u(0:nx+1, ny)`); arrays given a
    /// shape by `source=`/`mold=` are left out.
    fn allocations(&mut self, n: Node) -> Vec<Allocation> {
        children(n)
            .into_iter()
            .filter(|c| c.kind() == "sized_allocation")
            .filter_map(|c| {
                // an array, or an array component (`g%u`, named by its path as it is
                // written elsewhere)
                let name = c.named_child(0).filter(|x| {
                    matches!(x.kind(), "identifier" | "derived_type_member_expression")
                })?;
                let size = children(c).into_iter().find(|x| x.kind() == "size")?;
                Some(Allocation {
                    array: norm(self.text(name)),
                    dims: self.dims(size),
                })
            })
            .collect()
    }

    /// Names allocated/deallocated/nullified by an opaque statement.
    pub(super) fn allocated(&self, n: Node) -> BTreeSet<String> {
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

    pub(super) fn keyword(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let t = self.text(n).trim().to_ascii_lowercase();
        let word: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let span = self.span(n);
        match word.as_str() {
            "exit" => out.push(self.b.push(span, label, StmtKind::Break)),
            "cycle" => out.push(self.b.push(span, label, StmtKind::Continue)),
            "return" => out.push(self.b.push(span, label, StmtKind::Return { value: None })),
            "continue" => self.opaque(n, label, "continue", BTreeSet::new(), out),
            "go" | "goto" => {
                let target = children(n)
                    .into_iter()
                    .find(|c| c.kind() == "statement_label_reference")
                    .and_then(|c| parse_int(self.text(c)))
                    .and_then(|v| u32::try_from(v).ok());
                let plain = t
                    .trim_start_matches(['g', 'o', ' ', 't'])
                    .starts_with(|c: char| c.is_ascii_digit());
                if plain && target.is_some() && self.goto_exits.last() == Some(&target) {
                    // the jump to the statement after the GOTO loop around it
                    out.push(self.b.push(span, label, StmtKind::Break));
                    return;
                }
                if plain && target.is_some_and(|t| self.do_ends.contains(&t)) {
                    // `GOTO 20` inside `DO 20 …`: the next iteration (apt reads it as such)
                    self.goto_notes.remove(&n.start_byte());
                    self.opaque(n, label, "goto", BTreeSet::new(), out);
                    return;
                }
                let note = match self.goto_notes.remove(&n.start_byte()) {
                    Some(why) => format!("not a loop: {why}"),
                    None => "only loops built from GOTO in one statement list, entered at their label and left for the statement after them, are seen as loops".into(),
                };
                self.b.diags.push(
                    Diagnostic::warning(codes::UNSUPPORTED, "GOTO is not analysed")
                        .with_primary(span, "control flow through this jump is ignored")
                        .with_note(note),
                );
                self.opaque(n, label, "goto", BTreeSet::new(), out);
            }
            _ => self.opaque(n, label, &word, BTreeSet::new(), out),
        }
    }

    pub(super) fn assignment(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
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
        if r.kind() == "array_literal" && self.element_stores(&target, r, label, out) {
            return;
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

    /// `a = [e1, e2, …]` / `a = (/ e1, e2, … /)` to a one-dimensional array this procedure
    /// declares with a literal lower bound: one store per element, as C lowers an initializer
    /// list, so that `keep = [.true., .false.]` before `MPI_Cart_sub` (trial 26) or
    /// `dims = [0, 0]` before `MPI_Dims_create` is read element by element. `false` (nothing
    /// pushed) for a typed constructor, an implied DO, more than 16 values or more values than
    /// the array holds: the caller lowers the assignment whole.
    fn element_stores(
        &mut self,
        target: &SrcExpr,
        list: Node<'a>,
        label: Option<u32>,
        out: &mut Block,
    ) -> bool {
        const MAX_LISTED: usize = 16;
        let SrcExprKind::Var(name) = &target.kind else {
            return false;
        };
        let dims = match self
            .b
            .proc_mut()
            .and_then(|p| p.decls.iter().find(|d| d.name == *name))
        {
            Some(Decl {
                kind: DeclKind::Array { dims, .. },
                ..
            }) => dims.clone(),
            _ => return false,
        };
        let [Dim::Bounds { lo, hi }] = dims.as_slice() else {
            return false;
        };
        let (Some(lo), size) = (
            lo.as_int(),
            hi.as_int().zip(lo.as_int()).map(|(h, l)| h - l + 1),
        ) else {
            return false;
        };
        let mut entries = Vec::new();
        let mut cursor = list.walk();
        for c in list.named_children(&mut cursor) {
            if c.kind() != "comment" {
                entries.push(c);
            }
        }
        let plain = list.child_by_field_name("type").is_none()
            && entries
                .iter()
                .all(|c| !matches!(c.kind(), "implied_do_loop_expression" | "array_literal"));
        let fits = size.is_none_or(|n| usize::try_from(n).is_ok_and(|n| entries.len() <= n));
        if !plain || entries.is_empty() || entries.len() > MAX_LISTED || !fits {
            return false;
        }
        let mut label = label;
        for (k, c) in entries.into_iter().enumerate() {
            let span = self.span(c);
            let value = self.expr(c, 0);
            self.hoist_nested(&value, out);
            let element = SrcExpr::new(
                SrcExprKind::Index {
                    array: name.clone(),
                    indices: vec![SrcExpr::int(lo + k as i64, span)],
                },
                span,
            )
            .with_type(target.ty);
            out.push(self.b.push(
                span,
                label.take(),
                StmtKind::Assign(Assign {
                    target: element,
                    value,
                }),
            ));
        }
        true
    }

    /// An assignment target: `a(i)` is always an element (or a statement function; rare); a
    /// component with no run-time index is its access path (`t%nx`, `t%a(3)`), one reached
    /// through a run-time index writes its whole variable (`u(i)%nx` defines `u`).
    pub(super) fn target(&mut self, n: Node, depth: usize) -> SrcExpr {
        if n.kind() == "call_expression" {
            if let Some(f) = n.named_child(0) {
                let alias = (f.kind() == "identifier")
                    .then(|| norm(self.text(f)))
                    .filter(|name| self.aliases.contains_key(name));
                if let Some(name) = alias {
                    let indices = n
                        .named_child(1)
                        .map(|a| self.args(a, depth + 1))
                        .unwrap_or_default();
                    if let Some(e) = self.alias_element(&name, indices, self.span(n)) {
                        return e;
                    }
                }
                let path = (f.kind() == "derived_type_member_expression")
                    .then(|| self.member_path(f, depth + 1))
                    .flatten();
                let array = path.unwrap_or_else(|| norm(self.text(f)));
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
            if let Some(path) = self.member_path(n, depth + 1) {
                return SrcExpr::var(path, self.span(n));
            }
            // `u(i)%a = ...` defines u: an element of it (a section for `u(:)%a`), not the
            // whole array (trial 27: `p(i)%alive = .false.` in a loop was an array assignment
            // over every element of `p`, and its instrumented `size(p(i)%alive)` did not
            // compile); the component's own elements (`u(i)%pos = 0` of a `pos(3)`) are not
            // counted
            if let Some(base) = n.named_child(0) {
                let e = self.target(base, depth + 1);
                if let SrcExprKind::Index { array, indices } = e.kind {
                    return SrcExpr::new(SrcExprKind::Index { array, indices }, self.span(n));
                }
                if let Some(b) = e.base_var() {
                    return SrcExpr::var(path_root(b).to_string(), self.span(n));
                }
            }
        }
        self.expr(n, depth)
    }

    pub(super) fn args(&mut self, list: Node, depth: usize) -> Vec<SrcExpr> {
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

    /// The dummy each argument of `list` names (`n=8`), `None` for a positional one, in the
    /// order of [`Self::args`]; empty where no argument is named.
    pub(super) fn keywords(&self, list: Node) -> Vec<Option<String>> {
        let names: Vec<Option<String>> = children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| {
                (a.kind() == "keyword_argument")
                    .then(|| a.field("name").map(|k| norm(self.text(k).trim())))
                    .flatten()
            })
            .collect();
        if names.iter().all(Option::is_none) {
            Vec::new()
        } else {
            names
        }
    }

    /// The procedure a type-bound reference `object%binding` calls, with the object where it
    /// is passed (as the first argument: `pass(name)` of another dummy is rare and read as
    /// the first too); `None` for anything else ([`crate::ir::Program::type_bound`]).
    pub(super) fn type_bound(
        &mut self,
        callee: Node,
        depth: usize,
    ) -> Option<(String, Option<SrcExpr>)> {
        if callee.kind() != "derived_type_member_expression" {
            return None;
        }
        let kids = children(callee);
        let [object, member] = kids.as_slice() else {
            return None;
        };
        if member.kind() != "type_member" {
            return None;
        }
        // `parts(i)%push(x)`: the declaration of `parts`
        let path = without_subscripts(&norm(self.text(*object)));
        let binding = norm(self.text(*member));
        let (target, passed) = self.b.prog.type_bound(self.b.cur_proc, &path, &binding)?;
        let object = passed.then(|| self.expr(*object, depth + 1));
        Some((target, object))
    }

    pub(super) fn call(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        let span = self.span(n);
        let Some(f) = n.field("subroutine").or_else(|| n.named_child(0)) else {
            return self.opaque(n, label, "call", BTreeSet::new(), out);
        };
        let raw = self.text(f);
        let list = children(n)
            .into_iter()
            .find(|c| c.kind() == "argument_list");
        let mut args: Vec<SrcExpr> = list.map(|a| self.args(a, 0)).unwrap_or_default();
        let mut keywords = list.map(|a| self.keywords(a)).unwrap_or_default();
        if crate::mpi_table::is_mpi_name(raw) {
            let call = self.b.mpi_call(raw, span, args, None);
            out.push(self.b.push(span, label, StmtKind::Mpi(call)));
            return;
        }
        let mut name = norm(raw);
        // `call g%step(dt)`: the procedure its type binds, the object passed first
        if let Some((target, object)) = self.type_bound(f, 0) {
            name = target;
            if object.is_some() && !keywords.is_empty() {
                keywords.insert(0, None);
            }
            args.splice(0..0, object);
        }
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
            keywords,
            name_span: self.span(f),
        };
        self.b.fill(id, StmtKind::Call(call), defs, BTreeSet::new());
        out.push(id);
    }

    pub(super) fn read(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
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
        let mut targets: Vec<SrcExpr> = items.into_iter().map(|c| self.target(c, 0)).collect();
        if let Some(group) = self.namelist_read(&kids) {
            // a namelist read may assign every variable of its group
            let span = self.span(n);
            targets.extend(group.into_iter().map(|v| SrcExpr::var(v, span)));
        }
        if targets.is_empty() {
            return self.opaque(n, label, "read", BTreeSet::new(), out);
        }
        out.push(self.b.push(
            self.span(n),
            label,
            StmtKind::Input(Input { targets, origin }),
        ));
    }

    /// `namelist /g/ a, b /h/ c`: each group's name and variables.
    pub(super) fn namelist_groups(&self, n: Node) -> Vec<(String, Vec<String>)> {
        children(n)
            .into_iter()
            .filter(|g| g.kind() == "variable_group")
            .filter_map(|g| {
                let kids = children(g);
                let name = kids.iter().find(|k| k.kind() == "name")?;
                let vars = kids
                    .iter()
                    .filter(|k| k.kind() == "identifier")
                    .map(|k| norm(self.text(*k)))
                    .collect();
                Some((norm(self.text(*name)), vars))
            })
            .collect()
    }

    /// The variables of the group a READ names with `nml=g`, or as its format (`read(5, g)`);
    /// `None` when it reads no known namelist group.
    fn namelist_read(&self, kids: &[Node]) -> Option<Vec<String>> {
        let group = kids.iter().find_map(|k| match k.kind() {
            "keyword_argument" => k
                .field("name")
                .filter(|name| self.text(*name).trim().eq_ignore_ascii_case("nml"))
                .and_then(|_| k.field("value"))
                .map(|v| norm(self.text(v).trim())),
            "format_identifier" => Some(norm(self.text(*k).trim())),
            _ => None,
        })?;
        self.namelists
            .get(&group)
            .or_else(|| self.module_namelists.get(&group))
            .cloned()
    }

    pub(super) fn cond_of(&mut self, n: Node) -> SrcExpr {
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

    pub(super) fn if_stmt(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
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
                switch: None,
            }),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        out.push(id);
    }

    pub(super) fn select(&mut self, n: Node<'a>, label: Option<u32>, out: &mut Block) {
        // IF/ELSE IF chain semantics: each `case (…)` is an arm guarded by comparisons of the
        // selector with its values and ranges, `case default` the else (Fortran's cases are
        // disjoint, so where default is written does not matter)
        let span = self.span(n);
        let kids = children(n);
        let selector = kids
            .iter()
            .find(|c| c.kind() == "selector")
            .and_then(|s| s.named_child(0));
        let sel = selector.map(|s| self.expr(s, 0));
        let id = self.b.alloc(span, label);
        let mut arms = Vec::new();
        let mut else_body = None;
        let mut default_span = None;
        let mut end_span = span;
        for c in kids {
            match c.kind() {
                "case_statement" => {
                    let parts = children(c);
                    let (heads, stmts): (Vec<Node>, Vec<Node>) = parts
                        .into_iter()
                        .partition(|p| matches!(p.kind(), "case_value_range_list" | "default"));
                    let Some(head) = heads.first().copied() else {
                        continue;
                    };
                    let head_span = self.case_head_span(c, head);
                    if head.kind() == "default" {
                        default_span = Some(head_span);
                        else_body = Some(self.body(&stmts, id, span));
                        continue;
                    }
                    let cond = match &sel {
                        Some(sel) => self.case_cond(sel, head, head_span),
                        None => {
                            let mut e = self.opaque_e(head);
                            e.span = head_span;
                            e
                        }
                    };
                    self.hoist_nested(&cond, out);
                    let body = self.body(&stmts, id, span);
                    arms.push(IfArm { cond, body });
                }
                "end_select_statement" => end_span = self.span(c),
                _ => {}
            }
        }
        if arms.is_empty() {
            // only a default: an arm that always runs keeps its statements under the select
            let always = SrcExpr::new(SrcExprKind::Bool(true), default_span.unwrap_or(span));
            if let Some(body) = else_body.take() {
                default_span = None;
                arms.push(IfArm { cond: always, body });
            }
        }
        self.b.fill(
            id,
            StmtKind::If(If {
                arms,
                else_body,
                end_span,
                switch: Some(Switch {
                    default: default_span,
                }),
            }),
            BTreeSet::new(),
            BTreeSet::new(),
        );
        out.push(id);
    }

    /// `case (…)` or `case default` up to its closing parenthesis: the arm's condition as
    /// written, without the statements under it.
    fn case_head_span(&self, case: Node, head: Node) -> Span {
        let mut cursor = case.walk();
        let end = case
            .children(&mut cursor)
            .filter(|x| x.start_byte() >= head.end_byte())
            .find(|x| x.kind() == ")")
            .map_or(head.end_byte(), |x| x.end_byte());
        self.asm.span(case.start_byte(), end, self.main)
    }

    /// `sel == v` for each value, `lo <= sel .and. sel <= hi` for each range `lo:hi` (either
    /// side may be missing), joined by `.or.`; each part spans the case head.
    fn case_cond(&mut self, sel: &SrcExpr, list: Node, head_span: Span) -> SrcExpr {
        let mut parts = Vec::new();
        for v in children(list) {
            let part = if v.kind() == "extent_specifier" {
                let (mut lo, mut hi, mut seen_colon) = (None, None, false);
                let mut cursor = v.walk();
                for x in v.children(&mut cursor) {
                    if x.kind() == ":" {
                        if seen_colon {
                            break;
                        }
                        seen_colon = true;
                    } else if x.is_named() {
                        let e = self.expr(x, 0);
                        if seen_colon {
                            hi = Some(e);
                        } else {
                            lo = Some(e);
                        }
                    }
                }
                let ge = lo.map(|lo| SrcExpr::binary(BinOp::Ge, sel.clone(), lo));
                let le = hi.map(|hi| SrcExpr::binary(BinOp::Le, sel.clone(), hi));
                match (ge, le) {
                    (Some(a), Some(b)) => SrcExpr::binary(BinOp::And, a, b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => SrcExpr::new(SrcExprKind::Bool(true), head_span),
                }
            } else {
                let value = self.expr(v, 0);
                SrcExpr::binary(BinOp::Eq, sel.clone(), value)
            };
            parts.push(part);
        }
        let mut cond = parts
            .into_iter()
            .reduce(|a, b| SrcExpr::binary(BinOp::Or, a, b))
            .unwrap_or_else(|| self.opaque_e(list));
        respan(&mut cond, head_span);
        cond
    }

    // ---- declarations ----
}

/// Give a condition built from the selector and the case values the case head's span, so it
/// reads as the `case (…)` it came from (the selector itself sits on the `select` line); the
/// selector and values keep theirs.
fn respan(e: &mut SrcExpr, span: Span) {
    e.span = span;
    if let SrcExprKind::Binary {
        op: BinOp::And | BinOp::Or,
        lhs,
        rhs,
    } = &mut e.kind
    {
        respan(lhs, span);
        respan(rhs, span);
    }
}

/// `a%b` of `a(i)%b(j, k)`: a component path without its subscripts.
fn without_subscripts(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}
