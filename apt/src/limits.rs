//! What defeats the analysis, said where `analyze` reports: constructs the front end could not
//! follow (MPI functions outside augur's table, one-sided communication and MPI-IO among them;
//! `goto`; calls whose arguments do not match their signature; missing include files) and
//! library calls that compute (sorts, copies, BLAS) but are no computation site (routines outside
//! `frontend::library`'s table, calls inside C expressions), and library calls that are sites
//! but whose work the source does not give. One warning
//! per kind of construct, listing its `file:line`s, and what it means for the model: time no
//! site measures ends in the overhead fit, which is a fit, not a model of it. `analyze` prints
//! them with its own warnings.

use std::collections::BTreeMap;

use crate::{Apt, NodeData};
use frontend::diagnostic::codes;
use frontend::{Language, Lowered, ProcId, Program, Span, SrcExprKind, StmtKind};

/// Every warning of this module, in a fixed order: communication augur does not trace, then
/// control flow and arguments it could not follow, then computing library calls.
pub fn warnings(lowered: &Lowered, tree: &Apt) -> Vec<String> {
    let cover = Coverage::new(lowered, tree);
    let mut out = diagnostic_warnings(lowered, &cover);
    out.extend(computing_calls(lowered, &cover));
    out.extend(unresolved_library_sites(lowered, tree, &cover));
    out
}

/// The warning about computing library calls that are computation sites
/// ([`frontend::array_op`]) whose work does not resolve from the source: which argument did
/// not, and that the runs measure it.
fn unresolved_library_sites(lowered: &Lowered, tree: &Apt, cover: &Coverage<'_>) -> Option<String> {
    let mut found: Vec<(At, String, String)> = Vec::new();
    for n in tree.nodes() {
        let NodeData::Loop(l) = &n.data else { continue };
        let (Some(names), Some(why)) = (&l.library, l.trip.unresolved()) else {
            continue;
        };
        let Some(site) = tree.site(n.site) else {
            continue;
        };
        let place = at(lowered, cover, Some(site.proc), site.span);
        found.push((place, names.clone(), why.to_string()));
    }
    if found.is_empty() {
        return None;
    }
    found.sort();
    let parts: Vec<String> = found
        .iter()
        .map(|(p, name, why)| format!("{name} at {}:{} ({why})", p.file, p.line))
        .collect();
    let (its, they) = if found.len() == 1 {
        ("its", "it is")
    } else {
        ("their", "they are")
    };
    Some(format!(
        "library calls timed as computation sites whose work the source does not give, {}: {they} timed and {its} work per call is counted in the runs, then fitted by regression (not the routine's law)",
        parts.join(", ")
    ))
}

/// One occurrence of a construct: where, and the computation phase whose measured time holds
/// it (`None`: no site measures it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    file: String,
    line: u32,
    phase: Option<u32>,
}

/// Which code runs inside a computation phase (an outermost loop without communication, whose
/// time the markers around it measure): code inside such a loop, and routines called only
/// from such code.
struct Coverage<'a> {
    prog: &'a Program,
    /// (span, line) of each computation phase.
    phases: Vec<(Span, u32)>,
    /// Routines every call of which is inside a phase, with that phase's line.
    procs: BTreeMap<ProcId, u32>,
}

impl<'a> Coverage<'a> {
    fn new(lowered: &'a Lowered, tree: &Apt) -> Self {
        let mut phases = Vec::new();
        let mut calls: Vec<(ProcId, ProcId, Span)> = Vec::new();
        for n in tree.nodes() {
            let Some(site) = tree.site(n.site) else {
                continue;
            };
            match &n.data {
                NodeData::Loop(l) if l.compute => phases.push((site.span, site.line)),
                NodeData::Call { proc, .. } => calls.push((site.proc, *proc, site.span)),
                _ => {}
            }
        }
        let mut cover = Coverage {
            prog: &lowered.program,
            phases,
            procs: BTreeMap::new(),
        };
        // grows to a fixed point; a routine on a call cycle outside every phase never joins
        loop {
            let mut added = false;
            let callees: std::collections::BTreeSet<ProcId> =
                calls.iter().map(|&(_, callee, _)| callee).collect();
            for callee in callees {
                if cover.procs.contains_key(&callee) {
                    continue;
                }
                let lines: Option<Vec<u32>> = calls
                    .iter()
                    .filter(|c| c.1 == callee)
                    .map(|&(caller, _, span)| cover.phase(Some(caller), span))
                    .collect();
                if let Some(first) = lines.and_then(|l| l.into_iter().min()) {
                    cover.procs.insert(callee, first);
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
        cover
    }

    /// The line of the computation phase `span` (in routine `proc`) runs in, if any.
    fn phase(&self, proc: Option<ProcId>, span: Span) -> Option<u32> {
        let inside = self
            .phases
            .iter()
            .filter(|(p, _)| p.file == span.file && p.start <= span.start && span.end <= p.end)
            .min_by_key(|(p, _)| p.end - p.start)
            .map(|&(_, line)| line);
        inside.or_else(|| {
            let proc = proc.or_else(|| self.proc_of(span))?;
            self.procs.get(&proc).copied()
        })
    }

    /// The innermost routine whose text holds `span`.
    fn proc_of(&self, span: Span) -> Option<ProcId> {
        self.prog
            .procs
            .iter()
            .filter(|p| {
                p.span.file == span.file && p.span.start <= span.start && span.end <= p.span.end
            })
            .min_by_key(|p| p.span.end - p.span.start)
            .map(|p| p.id)
    }
}

fn at(lowered: &Lowered, cover: &Coverage<'_>, proc: Option<ProcId>, span: Span) -> At {
    let file = lowered
        .sources
        .path(span.file)
        .map(|p| {
            p.file_name()
                .map_or(p.display().to_string(), |n| n.to_string_lossy().into())
        })
        .unwrap_or_default();
    At {
        file,
        line: lowered.sources.first_line(span),
        phase: cover.phase(proc, span),
    }
}

/// The kinds of front-end diagnostic that mean "not analysed here", each a warning of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    OneSided,
    MpiIo,
    UnknownMpi,
    Unsupported,
    Arity,
    Include,
}

fn kind_of(code: &str, name: &str) -> Option<Kind> {
    let lower = name.to_ascii_lowercase();
    Some(match code {
        codes::UNKNOWN_MPI if is_one_sided(&lower) => Kind::OneSided,
        codes::UNKNOWN_MPI if lower.starts_with("mpi_file_") => Kind::MpiIo,
        codes::UNKNOWN_MPI => Kind::UnknownMpi,
        codes::UNSUPPORTED => Kind::Unsupported,
        codes::MPI_ARITY => Kind::Arity,
        codes::INCLUDE_NOT_FOUND => Kind::Include,
        _ => return None,
    })
}

/// MPI-2/3 one-sided communication: windows, their epochs and the RMA operations.
fn is_one_sided(lower: &str) -> bool {
    let Some(rest) = lower.strip_prefix("mpi_") else {
        return false;
    };
    rest.starts_with("win_")
        || matches!(
            rest,
            "put"
                | "get"
                | "rput"
                | "rget"
                | "accumulate"
                | "raccumulate"
                | "get_accumulate"
                | "rget_accumulate"
                | "fetch_and_op"
                | "compare_and_swap"
        )
}

/// The name a diagnostic is about: its first `quoted` word (`` `MPI_Put` is not in … ``), else
/// its whole message.
fn subject(message: &str) -> String {
    let mut parts = message.split('`');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(name), Some(_)) if !name.is_empty() => name.to_string(),
        _ => message.to_string(),
    }
}

fn diagnostic_warnings(lowered: &Lowered, cover: &Coverage<'_>) -> Vec<String> {
    // kind → subject → occurrences; subjects in order of their first occurrence
    let mut found: BTreeMap<Kind, Vec<(String, Vec<At>)>> = BTreeMap::new();
    for d in &lowered.diagnostics {
        if d.severity == frontend::Severity::Error {
            continue;
        }
        let name = match d.code {
            codes::UNSUPPORTED => d.message.clone(),
            _ => subject(&d.message),
        };
        let Some(kind) = kind_of(d.code, &name) else {
            continue;
        };
        let place = d.primary_span().map(|s| at(lowered, cover, None, s));
        let list = found.entry(kind).or_default();
        let entry = match list.iter_mut().position(|(n, _)| *n == name) {
            Some(i) => &mut list[i].1,
            None => {
                list.push((name, Vec::new()));
                let last = list.len() - 1;
                &mut list[last].1
            }
        };
        if let Some(p) = place {
            if !entry.contains(&p) {
                entry.push(p);
            }
        }
    }
    found
        .into_iter()
        .map(|(kind, mut subjects)| {
            for (_, places) in &mut subjects {
                places.sort();
            }
            subjects.sort_by(|a, b| a.1.first().cmp(&b.1.first()));
            render(kind, &subjects)
        })
        .collect()
}

fn render(kind: Kind, subjects: &[(String, Vec<At>)]) -> String {
    let n: usize = subjects.iter().map(|(_, p)| p.len().max(1)).sum();
    let (it, its, is) = if n == 1 {
        ("it", "its", "is")
    } else {
        ("they", "their", "are")
    };
    let listed = list_subjects(subjects);
    let all: Vec<&At> = subjects.iter().flat_map(|(_, p)| p).collect();
    let overhead = untimed(&all, its);
    match kind {
        Kind::OneSided => format!(
            "one-sided communication {listed} {is} not traced (augur models no RMA windows or epochs): {overhead}; the data {it} move{s} is in no phase, so T does not grow with {its} message sizes",
            s = if n == 1 { "s" } else { "" },
        ),
        Kind::MpiIo => format!(
            "MPI-IO {listed} {is} not traced (augur does not model parallel I/O): {overhead}"
        ),
        Kind::UnknownMpi => format!(
            "{} outside augur's table, {listed}, {is} not traced: {overhead}; if {it} communicate{s}, that communication is in no phase",
            if n == 1 { "an MPI function" } else { "MPI functions" },
            s = if n == 1 { "s" } else { "" },
        ),
        Kind::Unsupported => format!(
            "{listed}: control flow through {} is ignored (a loop made with it counts its body once, code it jumps over counts as run), so T may miss time there or count time twice; what the runs measured beyond that is in the overhead fit",
            if n == 1 { "this jump" } else { "these jumps" }
        ),
        Kind::Arity => format!(
            "MPI calls with an unexpected number of arguments, {listed}: augur may read the wrong argument as the message size, peer or tag, so the sizes and phases it derives there may be wrong"
        ),
        Kind::Include => format!(
            "include files not found, {listed}: the sizes, COMMON blocks and parameters they define are unknown to the analysis; pass their directory with -I"
        ),
    }
}

/// `MPI_Put at heat3d.c:120, MPI_Win_fence at heat3d.c lines 118 and 122`.
fn list_subjects(subjects: &[(String, Vec<At>)]) -> String {
    let parts: Vec<String> = subjects
        .iter()
        .map(|(name, places)| match places_text(places) {
            Some(p) => format!("{name} at {p}"),
            None => name.clone(),
        })
        .collect();
    parts.join(", ")
}

/// `a.c:12`, `a.c lines 12, 40 and 41`, `a.c:12 and b.c:7`; at most 8 lines, then `and N more`.
fn places_text(places: &[At]) -> Option<String> {
    if places.is_empty() {
        return None;
    }
    let mut by_file: Vec<(String, Vec<u32>)> = Vec::new();
    for p in places {
        match by_file.iter_mut().find(|(f, _)| *f == p.file) {
            Some((_, lines)) => lines.push(p.line),
            None => by_file.push((p.file.clone(), vec![p.line])),
        }
    }
    let parts: Vec<String> = by_file
        .into_iter()
        .map(|(file, mut lines)| {
            lines.sort_unstable();
            lines.dedup();
            let more = lines.len().saturating_sub(8);
            lines.truncate(8);
            let mut shown: Vec<String> = lines.iter().map(u32::to_string).collect();
            if more > 0 {
                shown.push(format!("{more} more"));
            }
            match shown.as_slice() {
                [one] => format!("{file}:{one}"),
                [init @ .., last] => format!("{file} lines {} and {last}", init.join(", ")),
                [] => file,
            }
        })
        .collect();
    Some(and_list(&parts))
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What untraced time becomes: the overhead fit, or the fitted cost of the computation phase
/// that holds it.
fn untimed(places: &[&At], its: &str) -> String {
    let outside = places.iter().filter(|p| p.phase.is_none()).count();
    let mut inside: Vec<(u32, String)> = places
        .iter()
        .filter_map(|p| p.phase.map(|ph| (ph, format!("{}:{}", p.file, p.line))))
        .collect();
    inside.sort();
    let overhead = format!(
        "{its} time is in the unexplained overhead (time outside computation phases), which is a fit, not a model of it"
    );
    if inside.is_empty() || places.is_empty() {
        return overhead;
    }
    let mut phases: Vec<String> = inside.iter().map(|(ph, _)| ph.to_string()).collect();
    phases.dedup();
    let those: Vec<String> = inside.iter().map(|(_, at)| at.clone()).collect();
    let counted = format!(
        "{} {} inside the computation phase{} at line{} {}, whose fitted cost per iteration includes {}",
        and_list(&those),
        if those.len() == 1 { "is" } else { "are" },
        if phases.len() == 1 { "" } else { "s" },
        if phases.len() == 1 { "" } else { "s" },
        and_list(&phases),
        if those.len() == 1 { "it" } else { "them" },
    );
    if outside == 0 {
        counted
    } else {
        format!("{overhead}; {counted}")
    }
}

/// The warning about library calls that compute ([`crate::externals::is_computing`]) outside
/// every computation phase, naming each call; a `memcpy`/`memmove`/`memset` of a constant
/// size (`sizeof(double)`) costs nothing worth naming. The calls [`frontend::array_op`] makes
/// implicit loops are computation phases themselves (or inside one) and are not named.
fn computing_calls(lowered: &Lowered, cover: &Coverage<'_>) -> Option<String> {
    let prog = &lowered.program;
    let names = crate::procs::ProcNames::new(prog);
    let mut found: Vec<(String, Vec<At>)> = Vec::new();
    let mut stack = Vec::new();
    for s in &prog.stmts {
        let mut called: Vec<(&str, &[frontend::SrcExpr])> = Vec::new();
        if let StmtKind::Call(c) = &s.kind {
            called.push((&c.name, &c.args));
        }
        for top in s.exprs() {
            crate::procs::for_each_expr(top, &mut stack, &mut |e| {
                if let SrcExprKind::Call { name, args } = &e.kind {
                    called.push((name, args));
                }
            });
        }
        for (name, args) in called {
            if !crate::externals::is_computing(prog.language, name)
                || names.get(name).is_some()
                || !callable(prog, s.proc, name)
                || frontend::library::constant_copy(name, args)
            {
                continue;
            }
            let place = at(lowered, cover, Some(s.proc), s.span);
            if place.phase.is_some() {
                continue;
            }
            let shown = match prog.language {
                Language::C => name.to_string(),
                Language::Fortran => name.to_ascii_lowercase(),
            };
            match found.iter_mut().find(|(n, _)| *n == shown) {
                Some((_, places)) if places.contains(&place) => {}
                Some((_, places)) => places.push(place),
                None => found.push((shown, vec![place])),
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    for (_, places) in &mut found {
        places.sort();
    }
    found.sort_by(|a, b| a.1.first().cmp(&b.1.first()));
    let n: usize = found.iter().map(|(_, p)| p.len()).sum();
    let (its, it) = if n == 1 {
        ("its", "it is")
    } else {
        ("their", "they are")
    };
    Some(format!(
        "library calls that compute, {}: {its} time is not a computation site; {it} in the overhead fit (time outside computation phases), which does not follow {its} sizes",
        list_subjects(&found)
    ))
}

/// Whether `name` called in `proc` is a routine, not a variable: a declared C variable that is
/// called is a function pointer; a Fortran scalar declared with a numeric type is a function's
/// type (`double precision ddot`).
fn callable(prog: &Program, proc: ProcId, name: &str) -> bool {
    match prog.language {
        Language::C => prog.decl(proc, name).is_none(),
        Language::Fortran => prog.decl(proc, &name.to_ascii_lowercase()).is_none_or(|d| {
            matches!(d.kind, frontend::DeclKind::Scalar { .. })
                && d.ty.base != frontend::BaseType::Character
        }),
    }
}

#[cfg(test)]
mod tests;
