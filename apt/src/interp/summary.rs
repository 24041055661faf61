//! Procedure summaries: what a procedure leaves in the globals and formals it writes,
//! computed once with unknown entry values and completed at each call with its arguments.
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use frontend::{path_root, path_under, ProcId, SrcExpr, SrcExprKind};
use symbolic::Expr;

use crate::procs::caller_suffix;
use crate::value::Val;

use super::calls::arg_root;
use super::{Analysis, Env};

/// Reason given to every formal and global at entry while computing summaries: a value
/// still carrying it at exit depends on how the procedure was called.
pub(super) const ENTRY: &str = "⟨value at entry⟩";

/// What a procedure leaves in the globals and formals it writes, computed with every
/// entry value unknown: `Known` exit values do not depend on the call.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub globals: BTreeMap<String, Val>,
    pub formals: BTreeMap<usize, Val>,
    /// Per formal position: the paths under it the procedure leaves set (suffix → value,
    /// `->nx` → `n`), with the formals' entry values standing as [`arg_symbol`]s.
    pub fields: BTreeMap<usize, BTreeMap<String, Val>>,
}

/// The symbol standing for formal `k`'s entry value while computing [`Summary::fields`].
pub(super) fn arg_symbol(k: usize) -> String {
    format!("__augur_arg{k}")
}

pub(super) fn arg_index(sym: &str) -> Option<usize> {
    sym.strip_prefix("__augur_arg")?.parse().ok()
}

/// The symbol standing for the entry value of the path `suffix` under formal `k` (`->q` of
/// `pg`, read before the procedure writes it) while computing summaries: the caller completes
/// it with its own value of the path under the argument (`pg.q` for `&pg`; trial 22 E6:
/// `m->nloc = n / pg->q` left `nloc` unknown at the caller, which knew `pg.q`).
pub(super) fn field_symbol(k: usize, suffix: &str) -> String {
    let enc = suffix
        .replace("->", "__A")
        .replace('.', "__D")
        .replace('%', "__P");
    format!("__augur_fld{k}_{enc}")
}

/// (formal position, suffix) of a [`field_symbol`].
fn field_index(sym: &str) -> Option<(usize, String)> {
    let rest = sym.strip_prefix("__augur_fld")?;
    let (k, enc) = rest.split_once('_')?;
    let suffix = enc
        .replace("__A", "->")
        .replace("__D", ".")
        .replace("__P", "%");
    Some((k.parse().ok()?, suffix))
}

/// `v` with its [`field_symbol`]s replaced by the caller's values of those paths under the
/// call's arguments `args` (in `env`, as it is at the call); unknown, naming `name` and the
/// call, where one is not known there.
pub(super) fn bind_fields(
    v: &Val,
    args: &[SrcExpr],
    env: &Env,
    name: &str,
    call: &CallAt<'_>,
) -> Val {
    let Val::Known(e) = v else {
        return v.clone();
    };
    let mut map = BTreeMap::new();
    for x in e.vars() {
        let Some((k, suffix)) = field_index(&x) else {
            continue;
        };
        let caller_path = args
            .get(k)
            .and_then(arg_root)
            .and_then(|(root, addr)| Some(format!("{root}{}", caller_suffix(&suffix, addr)?)));
        let why = |r: String| {
            Val::unknown(format!(
                "`{name}`: assigned by call to `{}` at line {} from its argument {}'s `{suffix}`: {r}",
                call.callee,
                call.line,
                k + 1
            ))
        };
        match caller_path.as_ref().map(|p| (p, env.get(p))) {
            Some((_, Some(Val::Known(a)))) => {
                map.insert(x, a.clone());
            }
            Some((p, Some(Val::Unknown(r)))) => return why(format!("`{p}` {r}")),
            Some((p, _)) => return why(format!("`{p}` has no known value at the call")),
            None => return why("the argument is not a variable or its address".into()),
        }
    }
    if map.is_empty() {
        v.clone()
    } else {
        Val::Known(e.subs_all(&map))
    }
}

/// The symbol standing for `MPI_Comm_size` (`rank`: `MPI_Comm_rank`) of the communicator
/// handed in as formal `k` while computing summaries: P (the rank) where the call hands in
/// MPI_COMM_WORLD (trial 16: `grid_init(g, n, MPI_COMM_WORLD)` left every size and peer the
/// routine computes "of a communicator other than MPI_COMM_WORLD").
pub(super) fn comm_symbol(k: usize, rank: bool) -> String {
    format!("__augur_comm{}{k}", if rank { "rank" } else { "size" })
}

/// (formal position, rank?) of a [`comm_symbol`].
fn comm_index(sym: &str) -> Option<(usize, bool)> {
    if let Some(k) = sym.strip_prefix("__augur_commsize") {
        return Some((k.parse().ok()?, false));
    }
    Some((sym.strip_prefix("__augur_commrank")?.parse().ok()?, true))
}

/// The symbol standing for global `g`'s entry value in the summary of a procedure that
/// reads it and does not write it (a setup routine computing `nloc` from `n` and `nprocs`).
pub(super) fn glob_symbol(g: &str) -> String {
    format!("__augur_glob_{g}")
}

fn glob_name(sym: &str) -> Option<&str> {
    sym.strip_prefix("__augur_glob_")
}

/// A call statement whose summary is applied: for the reasons of what it leaves unknown.
pub(super) struct CallAt<'a> {
    pub(super) callee: &'a str,
    pub(super) line: u32,
    /// What everything the call may write is before its summary is applied.
    pub(super) reason: &'a str,
}

/// A callee's exit value `v` of `name` in the caller: its [`arg_symbol`]s replaced by the
/// call's argument values, its [`glob_symbol`]s by the caller's values of those globals
/// (`globals`, as they are at the call). Unknown, naming `name` and the call, when it depends
/// on what the callee found at entry in a global it writes, or in a global or on an
/// argument whose value is not known here.
pub(super) fn bind_args(
    v: &Val,
    vals: &[Val],
    globals: &Env,
    name: &str,
    call: &CallAt<'_>,
) -> Val {
    let CallAt { callee, line, .. } = call;
    let set = format!("`{name}`: assigned by call to `{callee}` at line {line}");
    // the argument values `vars` mention, or why one is not known
    let bindings = |vars: BTreeSet<String>| -> Result<BTreeMap<String, Expr>, Val> {
        let mut map = BTreeMap::new();
        for x in vars {
            if let Some(g) = glob_name(&x) {
                match globals.get(g) {
                    Some(Val::Known(a)) => {
                        map.insert(x.clone(), a.clone());
                    }
                    Some(Val::Unknown(r)) => {
                        return Err(Val::unknown(format!("{set} from `{g}`: {r}")))
                    }
                    Some(_) => return Err(Val::unknown(format!("{set} from `{g}`, not a number"))),
                    None => {
                        return Err(Val::unknown(format!(
                        "{set}, not followed (it depends on `{g}` as the callee found it at entry)"
                    )))
                    }
                }
                continue;
            }
            if let Some((j, rank)) = comm_index(&x) {
                let of = match vals.get(j) {
                    Some(Val::Special(crate::value::Special::CommWorld)) => Expr::var(if rank {
                        crate::params::RANK
                    } else {
                        crate::params::P
                    }),
                    // handed on from the caller's own formal
                    Some(Val::Known(a)) if let Some(i) = a.as_var().and_then(arg_index) => {
                        Expr::var(&comm_symbol(i, rank))
                    }
                    _ => {
                        return Err(Val::unknown(format!(
                            "{set}: MPI_Comm_{} of a communicator other than MPI_COMM_WORLD (its argument {})",
                            if rank { "rank" } else { "size" },
                            j + 1
                        )))
                    }
                };
                map.insert(x, of);
                continue;
            }
            let Some(j) = arg_index(&x) else { continue };
            match vals.get(j) {
                Some(Val::Known(a)) => {
                    map.insert(x, a.clone());
                }
                Some(Val::Unknown(r)) => {
                    return Err(Val::unknown(format!(
                        "{set} from its argument {}: {r}",
                        j + 1
                    )))
                }
                _ => {
                    return Err(Val::unknown(format!(
                        "{set} from its argument {}, not a number",
                        j + 1
                    )))
                }
            }
        }
        Ok(map)
    };
    match v {
        Val::Known(e) => match bindings(e.vars()) {
            Ok(map) if map.is_empty() => v.clone(),
            Ok(map) => Val::Known(e.subs_all(&map)),
            Err(u) => u,
        },
        Val::OrNull(o) => match bindings(o.vars()) {
            Ok(map) => Val::OrNull(Box::new(o.map(&|e| e.subs_all(&map)))),
            Err(u) => u,
        },
        Val::Unknown(r) if r.contains(ENTRY) => Val::unknown(format!(
            "{set}, not followed (it depends on a value the callee found at entry)"
        )),
        // already naming the call deeper down that set it
        Val::Unknown(r) if r.contains(": assigned by call to ") => v.clone(),
        Val::Unknown(r) => Val::unknown(format!("{set}: {r}")),
        Val::Special(_) => v.clone(),
    }
}

impl Analysis<'_> {
    /// What `id` leaves in the globals and formals it writes (and the paths under them: a
    /// datatype's size, an ALLOCATE's bounds, `q->nx`), from one run of its body with every
    /// global unknown at entry and each scalar formal standing as its [`arg_symbol`]: an exit
    /// value in those symbols is one the caller can complete with its arguments
    /// ([`Self::bind_args`]). `None` when it writes nothing out.
    pub(super) fn summary(&mut self, id: ProcId) -> Option<Summary> {
        let i = id.0 as usize;
        let mod_globals = self.procs.mod_globals.get(i).cloned().unwrap_or_default();
        let mod_formals = self.procs.mod_formals.get(i).cloned().unwrap_or_default();
        let arrays = self.procs.mod_global_arrays.get(i);
        if mod_globals.is_empty() && mod_formals.is_empty() && arrays.is_none_or(|a| a.is_empty()) {
            return None;
        }
        let p = self.prog.proc(id)?;
        self.cur = id;
        self.stack.clear();
        self.read_into.clear();
        self.points_to.clear();
        let mut env = self.summary_entry_env(id);
        for (k, f) in p.params.iter().enumerate() {
            if !self.is_array(&f.name) {
                env.insert(f.name.clone(), Val::Known(Expr::var(&arg_symbol(k))));
            }
        }
        self.block(&p.body, &mut env);
        let mut sum = Summary::default();
        for g in &mod_globals {
            sum.globals.insert(
                g.clone(),
                env.get(g).cloned().unwrap_or_else(|| Val::unknown(ENTRY)),
            );
            for (path, v) in env
                .range::<str, _>((Bound::Excluded(g.as_str()), Bound::Unbounded))
                .take_while(|(k, _)| k.starts_with(g.as_str()))
                .filter(|(k, _)| path_under(k, g))
            {
                sum.globals.insert(path.clone(), v.clone());
            }
        }
        // what it leaves in global arrays (not in `mod_globals`: writing their elements
        // changes no scalar): the bounds it ALLOCATEs them with, elements it stores (`dims`
        // from MPI_Dims_create, `coords` from MPI_Cart_coords). The entry environment holds
        // no paths under globals, so each was set here, or made unknown by a write here.
        let globals = self.procs.globals.get(i).cloned().unwrap_or_default();
        for (path, v) in &env {
            let root = path_root(path);
            if path != root && globals.contains(root) && !mod_globals.contains(root) {
                sum.globals.insert(path.clone(), v.clone());
            }
        }
        for &k in &mod_formals {
            let Some(f) = p.params.get(k) else { continue };
            let v = env
                .get(&f.name)
                .cloned()
                .unwrap_or_else(|| Val::unknown(ENTRY));
            sum.formals.insert(k, v);
            if !self.procs.path_formals.contains(&(id, f.name.clone())) {
                continue;
            }
            let m: BTreeMap<String, Val> = env
                .iter()
                .filter(|(path, _)| path_under(path, &f.name))
                .map(|(path, v)| (path[f.name.len()..].to_string(), v.clone()))
                .collect();
            if !m.is_empty() {
                sum.fields.insert(k, m);
            }
        }
        Some(sum)
    }

    /// After a call: the callee's exit values of what it writes ([`Summary`]), completed
    /// with the call's argument values (`vals`, evaluated before the call).
    pub(super) fn apply_summary(
        &self,
        callee: ProcId,
        args: &[SrcExpr],
        vals: &[Val],
        env: &mut Env,
        call: &CallAt<'_>,
    ) {
        let Some(sum) = self.summaries.get(&callee) else {
            return;
        };
        // the globals the callee reads and does not write: the call left them as they were
        let globals = env.clone();
        for (g, v) in &sum.globals {
            if self
                .procs
                .globals
                .get(self.cur.0 as usize)
                .is_some_and(|gs| gs.contains(path_root(g)))
            {
                let v = bind_fields(v, args, &globals, path_root(g), call);
                env.insert(g.clone(), bind_args(&v, vals, &globals, path_root(g), call));
            }
        }
        for (k, v) in &sum.formals {
            if let Some(SrcExprKind::Var(x)) = args.get(*k).map(|a| &a.kind) {
                if env
                    .get(x)
                    .is_some_and(|old| *old == Val::unknown(call.reason))
                {
                    let v = bind_fields(v, args, &globals, x, call);
                    env.insert(x.clone(), bind_args(&v, vals, &globals, x, call));
                }
            }
        }
    }

    /// After a call: what the callee stores under the formals it was handed by address
    /// ([`Summary::fields`]), in the caller's paths, its arguments substituted.
    pub(super) fn apply_fields(
        &mut self,
        callee: ProcId,
        args: &[SrcExpr],
        vals: &[Val],
        defs: &BTreeSet<String>,
        env: &mut Env,
        call: &CallAt<'_>,
    ) {
        let Some(fields) = self.summaries.get(&callee).map(|s| s.fields.clone()) else {
            return;
        };
        let globals = env.clone();
        for (k, fields) in &fields {
            let Some((root, addr)) = args.get(*k).and_then(arg_root) else {
                continue;
            };
            // a struct passed by value: the callee's writes stay there (`defs` names the
            // argument, or the paths under it the callee writes)
            let base = path_root(&root);
            if !defs.iter().any(|d| path_root(d) == base) {
                continue;
            }
            for (suffix, v) in fields {
                let Some(rest) = caller_suffix(suffix, addr) else {
                    continue;
                };
                let path = format!("{root}{rest}");
                let v = bind_fields(v, args, &globals, &path, call);
                let v = bind_args(&v, vals, &globals, &path, call);
                self.note_store(&path, &v);
                env.insert(path, v);
            }
        }
    }
}
