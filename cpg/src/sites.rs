//! The part of the APT the CPG needs: each site's kind, parent and program order, so that a
//! phase's ancestor (nearest common ancestor of its call sites, seed 004 Fig. 2 step 4) and the
//! program order of phases can be computed. Built from an [`apt::Apt`] or from the `apt.json`
//! a run directory stores beside its traces (the APT whose site ids the traces use).
//!
//! Invariant: a routine's parent is the CALL node that calls it when exactly one CALL node in
//! the program names it; otherwise the routine is a root. This lets a phase whose sites sit in
//! a subroutine and its caller still get an ancestor.

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, Node, NodeData, NodeKind};
use serde_json::Value;

use crate::CpgError;

/// One APT node as the CPG sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteInfo {
    pub site: u32,
    pub kind: NodeKind,
    pub parent: Option<u32>,
    /// Source line of the statement.
    pub line: u32,
    /// Pre-order index over all routines (program text order).
    pub order: u32,
    /// Loops only: a computation phase (no communication below).
    pub compute: bool,
    /// Short description: `routine main`, `loop i`, `if rank < P - 1`, `call exchange`, `comm send`.
    pub label: String,
}

/// Site id → node facts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteTree {
    sites: BTreeMap<u32, SiteInfo>,
    /// Routines called from several CALL nodes (so they have no parent): their callers.
    callers: BTreeMap<u32, Vec<u32>>,
}

/// A node as read from either source, before parents across routines are resolved.
struct Flat {
    info: SiteInfo,
    /// Routine name or call target (lower-cased), for linking routines to their caller.
    routine: Option<String>,
    callee: Option<String>,
}

impl SiteTree {
    /// From an APT built in this process.
    pub fn from_apt(apt: &Apt) -> SiteTree {
        let mut flat = Vec::new();
        for r in &apt.routines {
            walk_apt(r, None, &mut flat);
        }
        SiteTree::link(flat)
    }

    /// From `apt.json` text (the `augur apt --json` schema).
    pub fn from_json_str(text: &str) -> Result<SiteTree, CpgError> {
        let v: Value = serde_json::from_str(text).map_err(|e| CpgError::AptJson(e.to_string()))?;
        SiteTree::from_json(&v)
    }

    /// From a parsed `apt.json` value.
    pub fn from_json(v: &Value) -> Result<SiteTree, CpgError> {
        let routines = v
            .get("routines")
            .and_then(Value::as_array)
            .ok_or_else(|| CpgError::AptJson("no `routines` array".into()))?;
        let mut flat = Vec::new();
        for r in routines {
            walk_json(r, None, &mut flat)?;
        }
        Ok(SiteTree::link(flat))
    }

    fn link(mut flat: Vec<Flat>) -> SiteTree {
        let mut callers: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for f in &flat {
            if let Some(c) = &f.callee {
                callers.entry(c.clone()).or_default().push(f.info.site);
            }
        }
        let mut shared = BTreeMap::new();
        for (i, f) in flat.iter_mut().enumerate() {
            f.info.order = u32::try_from(i).unwrap_or(u32::MAX);
            if let Some(name) = &f.routine {
                match callers.get(name).map(Vec::as_slice) {
                    Some([one]) => f.info.parent = Some(*one),
                    Some(several @ [_, _, ..]) => {
                        shared.insert(f.info.site, several.to_vec());
                    }
                    _ => {}
                }
            }
        }
        SiteTree {
            sites: flat.into_iter().map(|f| (f.info.site, f.info)).collect(),
            callers: shared,
        }
    }

    pub fn get(&self, site: u32) -> Option<&SiteInfo> {
        self.sites.get(&site)
    }

    pub fn len(&self) -> usize {
        self.sites.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// `site` and its ancestors, innermost first (stops at a cycle of routine calls).
    pub fn path(&self, site: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut cur = Some(site);
        while let Some(s) = cur {
            if !seen.insert(s) {
                break;
            }
            let Some(info) = self.sites.get(&s) else {
                break;
            };
            out.push(s);
            cur = info.parent;
        }
        out
    }

    /// Nearest common ancestor of `sites` that is not a COMM node (a phase of one call site is
    /// anchored at the node holding that call). `None` if a site is unknown or the sites share
    /// no ancestor (routines with several callers are roots).
    pub fn ancestor(&self, sites: &[u32]) -> Option<u32> {
        let mut common: Option<Vec<u32>> = None;
        for &s in sites {
            if !self.sites.contains_key(&s) {
                return None;
            }
            let p = self.path(s);
            common = Some(match common {
                None => p,
                Some(c) => c.into_iter().filter(|x| p.contains(x)).collect(),
            });
        }
        common?
            .into_iter()
            .find(|s| self.sites.get(s).is_some_and(|i| i.kind != NodeKind::Comm))
    }

    /// Whether code at `site` may run inside one execution of `anchor`'s subtree: some chain
    /// of parents from `site` (through every caller of a routine called from several places)
    /// reaches `anchor`, or ends at a root `anchor` does not lead to (code reached some way the
    /// tree does not show, e.g. through a function pointer, is not ruled out). `false` means
    /// every chain reaches one of `anchor`'s own roots without passing `anchor`: the code runs
    /// only between executions of `anchor`.
    pub fn may_run_under(&self, site: u32, anchor: u32) -> bool {
        let anchor_roots = self.roots(anchor);
        let mut seen = BTreeSet::new();
        let mut todo = vec![site];
        while let Some(s) = todo.pop() {
            if s == anchor {
                return true;
            }
            if !seen.insert(s) {
                continue;
            }
            let Some(info) = self.sites.get(&s) else {
                return true;
            };
            match (info.parent, self.callers.get(&s)) {
                (Some(p), _) => todo.push(p),
                (None, Some(cs)) => todo.extend(cs.iter().copied()),
                (None, None) if !anchor_roots.contains(&s) => return true,
                (None, None) => {}
            }
        }
        false
    }

    /// The roots (sites without parent or callers) reached upward from `site`.
    fn roots(&self, site: u32) -> BTreeSet<u32> {
        let (mut out, mut seen, mut todo) = (BTreeSet::new(), BTreeSet::new(), vec![site]);
        while let Some(s) = todo.pop() {
            if !seen.insert(s) {
                continue;
            }
            let Some(info) = self.sites.get(&s) else {
                continue;
            };
            match (info.parent, self.callers.get(&s)) {
                (Some(p), _) => todo.push(p),
                (None, Some(cs)) => todo.extend(cs.iter().copied()),
                (None, None) => {
                    out.insert(s);
                }
            }
        }
        out
    }

    /// Program order of a site (`u32::MAX` if unknown, so unknown sites sort last).
    pub fn order(&self, site: u32) -> u32 {
        self.sites.get(&site).map_or(u32::MAX, |i| i.order)
    }
}

fn walk_apt(n: &Node, parent: Option<u32>, out: &mut Vec<Flat>) {
    let (label, compute, routine, callee) = match &n.data {
        NodeData::Routine { name, .. } => (
            format!("routine {name}"),
            false,
            Some(name.to_lowercase()),
            None,
        ),
        NodeData::Loop(l) => (
            match (&l.var, &l.array, &l.library) {
                (Some(v), _, _) => format!("loop {v}"),
                (None, Some(a), _) => format!("array {a}"),
                (None, None, Some(r)) => format!("library {r}"),
                (None, None, None) => "loop while".to_string(),
            },
            l.compute,
            None,
            None,
        ),
        NodeData::If(i) => (format!("if {}", i.cond), false, None, None),
        NodeData::Call { callee, .. } => (
            format!("call {callee}"),
            false,
            None,
            Some(callee.to_lowercase()),
        ),
        NodeData::Comm(c) => (format!("comm {}", c.op.name()), false, None, None),
    };
    let info = SiteInfo {
        site: n.site.0,
        kind: n.kind(),
        parent,
        line: n.line,
        order: 0,
        compute,
        label,
    };
    out.push(Flat {
        info,
        routine,
        callee,
    });
    for c in n.children.iter().chain(&n.else_children) {
        walk_apt(c, Some(n.site.0), out);
    }
}

fn walk_json(v: &Value, parent: Option<u32>, out: &mut Vec<Flat>) -> Result<(), CpgError> {
    let bad = |what: &str| CpgError::AptJson(format!("node {what}"));
    let site = v
        .get("site")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("without a `site` number"))?;
    let site = u32::try_from(site).map_err(|_| bad("site id out of range"))?;
    let kind_s = v
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("without a `kind`"))?;
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let (kind, label, routine, callee) = match kind_s {
        "routine" => (
            NodeKind::Routine,
            format!("routine {}", text("name")),
            Some(text("name").to_lowercase()),
            None,
        ),
        "loop" => {
            let label = match (
                v.get("var").and_then(Value::as_str),
                v.get("array").and_then(Value::as_str),
                v.get("library").and_then(Value::as_str),
            ) {
                (Some(var), _, _) => format!("loop {var}"),
                (None, Some(a), _) => format!("array {a}"),
                (None, None, Some(r)) => format!("library {r}"),
                (None, None, None) => "loop while".to_string(),
            };
            (NodeKind::Loop, label, None, None)
        }
        "if" => (NodeKind::If, format!("if {}", text("cond")), None, None),
        "call" => (
            NodeKind::Call,
            format!("call {}", text("callee")),
            None,
            Some(text("callee").to_lowercase()),
        ),
        "comm" => (NodeKind::Comm, format!("comm {}", text("op")), None, None),
        other => return Err(bad(&format!("of unknown kind `{other}`"))),
    };
    let line = v
        .get("line")
        .and_then(Value::as_u64)
        .and_then(|l| u32::try_from(l).ok())
        .unwrap_or(0);
    let compute = v.get("compute").and_then(Value::as_bool).unwrap_or(false);
    out.push(Flat {
        info: SiteInfo {
            site,
            kind,
            parent,
            line,
            order: 0,
            compute,
            label,
        },
        routine,
        callee,
    });
    for key in ["children", "else"] {
        if let Some(kids) = v.get(key).and_then(Value::as_array) {
            for k in kids {
                walk_json(k, Some(site), out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const TREE: &str = r#"{"routines": [
      {"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
        {"kind": "loop", "var": "it", "site": 1, "line": 2, "children": [
          {"kind": "if", "cond": "rank > 0", "site": 2, "line": 3,
           "children": [{"kind": "comm", "op": "recv", "site": 3, "line": 4, "children": []}],
           "else": [{"kind": "call", "callee": "Work", "site": 4, "line": 5, "children": []}]},
          {"kind": "loop", "var": "i", "compute": true, "site": 5, "line": 6, "children": []}
        ]}
      ]},
      {"kind": "routine", "name": "work", "site": 6, "line": 10, "children": [
        {"kind": "comm", "op": "send", "site": 7, "line": 11, "children": []}
      ]}
    ]}"#;

    #[test]
    fn ancestors_cross_a_unique_call() {
        let t = SiteTree::from_json_str(TREE).unwrap();
        assert_eq!(t.path(7), vec![7, 6, 4, 2, 1, 0]);
        assert_eq!(t.ancestor(&[3, 7]), Some(2));
        // one COMM site: anchored at its parent
        assert_eq!(t.ancestor(&[3]), Some(2));
        assert_eq!(t.ancestor(&[3, 5]), Some(1));
        assert_eq!(t.ancestor(&[3, 99]), None);
        assert!(t.get(5).unwrap().compute);
        assert!(t.order(3) < t.order(7));
    }

    #[test]
    fn array_syntax_loops_are_labelled_by_their_section() {
        let t = SiteTree::from_json_str(
            r#"{"routines": [{"kind": "routine", "name": "main", "site": 0, "line": 1, "children": [
              {"kind": "loop", "array": "u(1:n, j)", "compute": true, "site": 1, "line": 2, "children": []},
              {"kind": "loop", "site": 2, "line": 3, "children": []},
              {"kind": "loop", "var": "i", "site": 3, "line": 4, "children": []},
              {"kind": "loop", "library": "qsort", "compute": true, "site": 4, "line": 5, "children": []}]}]}"#,
        )
        .unwrap();
        assert_eq!(t.get(4).unwrap().label, "library qsort");
        assert_eq!(t.get(1).unwrap().label, "array u(1:n, j)");
        assert_eq!(t.get(2).unwrap().label, "loop while");
        assert_eq!(t.get(3).unwrap().label, "loop i");
    }

    #[test]
    fn bad_json_is_an_error() {
        assert!(SiteTree::from_json_str("{}").is_err());
        assert!(SiteTree::from_json_str(r#"{"routines": [{"kind": "x", "site": 0}]}"#).is_err());
        assert!(SiteTree::from_json_str("not json").is_err());
    }
}
