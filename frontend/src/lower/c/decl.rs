//! C declarations → IR: file-scope and local declarations, `#define` constants, function
//! definitions with their parameters.
use tree_sitter::Node;

use super::{c_type, opaque_expr, type_of_value, unwrap_declarator, CLower};
use crate::ir::*;
use crate::macros::needs_substitution;
use crate::parse::FieldExt;

impl<'a> CLower<'a> {
    pub(super) fn define(&mut self, n: Node) {
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
            common_slot: None,
        });
    }

    /// Adds a file-scope declaration once (a header included by several files declares it
    /// at the same span each time).
    pub(super) fn push_global(&mut self, d: Decl) {
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
    pub(super) fn declaration(&mut self, n: Node<'a>) -> Vec<(Decl, Option<Node<'a>>)> {
        let ty_text = n.field("type").map(|t| self.text(t)).unwrap_or("int");
        let mut is_const = false;
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.kind() == "type_qualifier" && self.text(ch) == "const" {
                is_const = true;
            }
        }
        let mut base = c_type(ty_text);
        // a variable of a struct this unit defines has its size (trial 27: `sizeof(prm)` of a
        // `struct run_params prm` broadcast as MPI_BYTE was "a type not known to augur")
        if base.bytes.is_none() {
            base.bytes = self.struct_bytes(ty_text);
        }
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
                // `int deltas[] = {1, 2, 5}`: the first extent is the initializer's length
                let listed = d
                    .init
                    .filter(|i| i.kind() == "initializer_list")
                    .map(|i| i.named_child_count() as i64);
                let dims = d
                    .dims
                    .iter()
                    .enumerate()
                    .map(|(k, s)| match (s, listed) {
                        (Some(s), _) => Dim::Extent(self.expr(*s, 0)),
                        (None, Some(n)) if k == 0 => Dim::Extent(SrcExpr::int(n, span)),
                        (None, _) => Dim::Assumed,
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
                    common_slot: None,
                },
                init,
            ));
        }
        out
    }

    pub(super) fn function(&mut self, n: Node<'a>) {
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
                if ty.bytes.is_none() {
                    ty.bytes = self.struct_bytes(ty_text);
                }
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
                        common_slot: None,
                    });
                }
            }
        }
        let mut body = Vec::new();
        if let Some(b) = n.field("body") {
            self.jumps = self.collect_jumps(b);
            self.goto_notes.clear();
            self.block_into(b, &mut body);
        }
        if let Some(p) = self.b.proc_mut() {
            p.body = body;
        }
    }
}
