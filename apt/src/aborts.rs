//! Where a program stops itself: an `MPI_Abort` under IFs whose conditions the analysis
//! resolves (`if (q * q != size) MPI_Abort(…)`: Cannon's P must be a square). `predict` says
//! so at a point where such a guard holds, rather than give a time for a run that cannot be.

use frontend::{MpiOp, Program, Sources, StmtKind};
use serde::{Deserialize, Serialize};

use crate::interp::Facts;

/// An `MPI_Abort` and the conditions under which it is reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbortGuard {
    pub line: u32,
    /// The file, when not the main one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Each enclosing IF's condition (`lhs op rhs`, symbolic) and whether the path to the
    /// abort needs it true (its arm) or false (an earlier arm's, or the else).
    pub conds: Vec<(String, bool)>,
    /// The symbols the conditions mention (named constants among them, kept in
    /// `consts` with their values).
    #[serde(skip)]
    pub vars: std::collections::BTreeSet<String>,
    /// The named constants among `vars`, with their values.
    #[serde(skip)]
    pub consts: std::collections::BTreeMap<String, f64>,
}

/// Every `MPI_Abort` whose enclosing statements in its routine are IFs with resolved
/// conditions (none under a loop, where it would depend on the data), at least one.
pub(crate) fn aborts(prog: &Program, sources: &Sources, facts: &Facts) -> Vec<AbortGuard> {
    let mut out = Vec::new();
    'stmts: for s in &prog.stmts {
        if !matches!(&s.kind, StmtKind::Mpi(m) if m.op == MpiOp::Abort) {
            continue;
        }
        let mut conds = Vec::new();
        let mut vars = std::collections::BTreeSet::new();
        let mut cur = s;
        while let Some(parent) = cur.parent.and_then(|p| prog.stmt(p)) {
            let StmtKind::If(i) = &parent.kind else {
                continue 'stmts;
            };
            let Some(arms) = facts.conds.get(&parent.id) else {
                continue 'stmts;
            };
            let arm = i.arms.iter().position(|a| a.body.contains(&cur.id));
            let upto = arm.unwrap_or(i.arms.len());
            for (k, c) in arms.iter().enumerate().take(upto + 1) {
                if k == upto && arm.is_none() {
                    break;
                }
                let taken = Some(k) == arm;
                let text = match (&c.unresolved, &c.sufficient) {
                    (None, _) => c.exact.clone().unwrap_or_else(|| c.text.clone()),
                    // an arm taken where a disjunction holds: taken at least where its
                    // resolved disjuncts do (`(P & (P - 1)) != 0 || n % P != 0`)
                    (Some(_), Some(s)) if taken => s.clone(),
                    _ => continue 'stmts,
                };
                conds.push((text, taken));
                vars.extend(c.vars.iter().cloned());
            }
            cur = parent;
        }
        if conds.is_empty() {
            continue;
        }
        let file = (s.span.file != prog.main_file)
            .then(|| sources.path(s.span.file))
            .flatten()
            .and_then(|p| p.file_name())
            .map(|f| f.to_string_lossy().into_owned());
        out.push(AbortGuard {
            line: sources.first_line(s.span),
            file,
            conds,
            vars,
            consts: std::collections::BTreeMap::new(),
        });
    }
    out
}
