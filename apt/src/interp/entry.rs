//! A procedure's entry environment: named constants, and the globals and formals its call
//! sites agree on; a recursive procedure's re-entries leave them unknown unless nothing on
//! its cycle changes them.
use std::collections::BTreeSet;

use frontend::{path_root, DeclKind, Language, ProcId, SrcExprKind, StmtKind};
use symbolic::Expr;

use crate::procs::{user_proc, CallSite};
use crate::rules::agree_by;
use crate::value::Val;

use super::summary::{glob_symbol, ENTRY};
use super::{Analysis, Env};

/// A path as a report names it: `a[#ubound1]` (where an array's bound is kept) is
/// `ubound(a, 1)`; other paths as the source spells them.
pub(super) fn path_text(path: &str) -> String {
    for which in ["lbound", "ubound"] {
        let tag = format!("[#{which}");
        if let Some((array, rest)) = path.split_once(&tag) {
            if let Some(dim) = rest.strip_suffix(']') {
                return format!("`{which}({array}, {dim})`");
            }
        }
    }
    format!("`{path}`")
}

impl Analysis<'_> {
    /// Entry environment of the summary pass: constants known, each scalar global the
    /// procedure does not write standing as its [`glob_symbol`] (the call completes it with
    /// the caller's value, which the call does not change), everything else unknown.
    pub(super) fn summary_entry_env(&mut self, id: ProcId) -> Env {
        let mut env = self.constants_env(id);
        let written = self
            .procs
            .mod_globals
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_default();
        if let Some(p) = self.prog.proc(id) {
            for g in self.procs.globals.get(id.0 as usize).into_iter().flatten() {
                let v = if written.contains(g) || self.is_array(g) {
                    Val::unknown(ENTRY)
                } else {
                    Val::Known(Expr::var(&glob_symbol(g)))
                };
                env.insert(g.clone(), v);
            }
            for f in &p.params {
                env.insert(f.name.clone(), Val::unknown(ENTRY));
            }
        }
        env
    }

    /// Named constants visible in `id`, as parameter symbols.
    pub(super) fn constants_env(&mut self, id: ProcId) -> Env {
        let prog = self.prog;
        let mut env = Env::new();
        let Some(p) = prog.proc(id) else { return env };
        let decls: Vec<&frontend::Decl> = prog.globals.iter().chain(p.decls.iter()).collect();
        for d in &decls {
            if let DeclKind::Constant { value, .. } = &d.kind {
                let line = self.line(d.span);
                let v = self.ev(value, &env, Some(&d.name));
                if let Some(c) = v.known().and_then(|e| self.constant_default(e)) {
                    let name = self.params.constant(&d.name, c, line);
                    if d.span.file != prog.main_file {
                        if let Some(path) = self.sources.path(d.span.file) {
                            self.params.set_file(&name, path.display().to_string());
                        }
                    }
                    env.insert(d.name.clone(), Val::Known(Expr::var(&name)));
                }
            }
        }
        env
    }

    /// The MPI call the program hands the routine `name` to (`MPI_Op_create at line 40`), if
    /// any: a user reduction MPI calls, which no call site of the program does.
    fn given_to_mpi(&self, name: &str) -> Option<String> {
        self.prog.stmts.iter().find_map(|s| {
            let frontend::StmtKind::Mpi(m) = &s.kind else {
                return None;
            };
            m.args
                .iter()
                .any(|a| {
                    a.expr
                        .base_var()
                        .is_some_and(|v| v.eq_ignore_ascii_case(name))
                })
                .then(|| format!("{} at line {}", m.name, self.line(s.span)))
        })
    }

    /// Environment at entry of `id`: constants, then globals and formals agreed by all call sites.
    pub(super) fn entry_env(&mut self, id: ProcId) -> Env {
        let prog = self.prog;
        let mut env = self.constants_env(id);
        let Some(p) = prog.proc(id) else { return env };
        let name = &p.name;
        let recursive = self.procs.recursive.contains(&id);
        let sites = self.sites.get(&id).cloned().unwrap_or_default();
        let outer: Vec<&CallSite> = sites
            .iter()
            .filter(|s| !recursive || !self.procs.same_component(s.caller, id))
            .collect();
        let globals = self
            .procs
            .globals
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_default();
        if sites.is_empty() && !recursive {
            // program entry (or a procedure nothing calls): C initialisers of globals
            for d in prog.globals.iter().filter(|d| globals.contains(&d.name)) {
                if let DeclKind::Scalar { init: Some(init) } = &d.kind {
                    let v = self.ev(init, &env, Some(&d.name));
                    env.insert(d.name.clone(), v);
                }
            }
        } else {
            // paths under globals the callers hold (`cfg.nx` of a global `cfg`)
            let mut globals = globals.clone();
            for s in &sites {
                globals.extend(
                    s.globals
                        .keys()
                        .filter(|k| *k != path_root(k) && globals.contains(path_root(k)))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
            }
            // A recursive procedure is entered from its callers off the cycle and from the
            // cycle itself; a global nothing on the cycle (callees included) may write holds
            // at every re-entry what it held at the first, so the outer callers decide it.
            let i = id.0 as usize;
            let mut cycle_writes = self.procs.mod_globals.get(i).cloned().unwrap_or_default();
            cycle_writes.extend(
                self.procs
                    .mod_global_arrays
                    .get(i)
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            for g in &globals {
                let v = if recursive && self.touched(&cycle_writes, g) {
                    Val::unknown(format!("`{name}` is recursive and may write `{g}`"))
                } else if outer.is_empty() {
                    Val::unknown(format!("`{name}` is recursive"))
                } else {
                    agree_by(
                        outer.iter().map(|s| (s.line, s.globals.get(g).cloned())),
                        &format!("global {}", path_text(g)),
                        name,
                        &|c| self.params.constant_value(c),
                    )
                };
                env.insert(g.clone(), v);
            }
        }
        for (k, f) in p.params.iter().enumerate() {
            let v = if recursive && (outer.is_empty() || !self.passed_unchanged(id, k)) {
                Val::unknown(format!(
                    "argument `{}` of `{name}`: `{name}` is recursive",
                    f.name
                ))
            } else if recursive {
                // passed on unchanged: what the first call gave
                agree_by(
                    outer.iter().map(|s| (s.line, s.args.get(k).cloned())),
                    &format!("argument `{}`", f.name),
                    name,
                    &|c| self.params.constant_value(c),
                )
            } else if sites.is_empty() {
                Val::unknown(match self.given_to_mpi(name) {
                    // a user reduction: MPI calls it (trial 28: "which nothing calls")
                    Some(at) => format!(
                        "argument `{}` of `{name}`, which MPI calls (the program gives it to {at})",
                        f.name
                    ),
                    None => format!("argument `{}` of `{name}`, which nothing calls", f.name),
                })
            } else {
                agree_by(
                    sites.iter().map(|s| (s.line, s.args.get(k).cloned())),
                    &format!("argument `{}`", f.name),
                    name,
                    &|c| self.params.constant_value(c),
                )
            };
            env.insert(f.name.clone(), v);
            if recursive {
                continue;
            }
            let suffixes: BTreeSet<&String> = sites
                .iter()
                .filter_map(|s| s.fields.get(&k))
                .flat_map(|m| m.keys())
                .collect();
            for suffix in suffixes {
                let v = agree_by(
                    sites.iter().map(|s| {
                        (
                            s.line,
                            s.fields.get(&k).and_then(|m| m.get(suffix)).cloned(),
                        )
                    }),
                    &format!("argument {}", path_text(&format!("{}{suffix}", f.name))),
                    name,
                    &|c| self.params.constant_value(c),
                );
                env.insert(format!("{}{suffix}", f.name), v);
            }
        }
        env
    }

    /// Whether scalar formal `k` of recursive `id` holds at every re-entry what the first call
    /// gave it: `id` is its cycle's only caller of itself, each of those calls passes the
    /// formal itself in position `k` (`vcycle(l + 1, nu)` for `nu`), and nothing in `id`
    /// (callees included) writes it.
    pub(super) fn passed_unchanged(&self, id: ProcId, k: usize) -> bool {
        let prog = self.prog;
        let Some(f) = prog.proc(id).and_then(|p| p.params.get(k)) else {
            return false;
        };
        let Some(p) = prog.proc(id) else { return false };
        if self.is_array(&f.name)
            || self
                .procs
                .mod_formals
                .get(id.0 as usize)
                .is_some_and(|m| m.contains(&k))
            || self.procs.block_defs(prog, &p.body).contains(&f.name)
        {
            return false;
        }
        let same = |v: &str| {
            v == f.name || (prog.language == Language::Fortran && v.eq_ignore_ascii_case(&f.name))
        };
        for s in &prog.stmts {
            let mut targets = crate::procs::expr_calls(prog, &self.procs.names, s);
            if let StmtKind::Call(c) = &s.kind {
                if let Some(t) = user_proc(prog, &self.procs.names, s.proc, &c.name) {
                    targets.push((t, c.args.as_slice()));
                }
            }
            for (t, args) in targets {
                if t != id || !self.procs.same_component(s.proc, id) {
                    continue;
                }
                if s.proc != id {
                    return false;
                }
                match args.get(k).map(|a| &a.kind) {
                    Some(SrcExprKind::Var(v)) if same(v) => {}
                    _ => return false,
                }
            }
        }
        true
    }
}
