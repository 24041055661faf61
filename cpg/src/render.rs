//! Renderings of a run's CPG with stable ids (phase ids `g<sites>`, node ids `s<site>`), for
//! people and snapshots: a text summary without timings (deterministic across runs), Mermaid
//! and DOT graphs of the site graph with one cluster per phase.

use std::fmt::Write as _;

use crate::{Cpg, Link, Phase, PhaseKind, RunSummary, SiteTree};

/// `0-3,5,7-9`: a sorted processor list, compressed.
pub fn ranks(list: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&start) = list.get(i) {
        let mut end = start;
        while list.get(i + 1) == Some(&(end + 1)) {
            end += 1;
            i += 1;
        }
        out.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    if out.is_empty() {
        "-".into()
    } else {
        out.join(",")
    }
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn site_label(tree: &SiteTree, s: u32) -> String {
    match tree.get(s) {
        Some(i) => format!("{s} {} (line {})", i.label, i.line),
        None => format!("{s} (not in the APT)"),
    }
}

/// One phase as text lines (no timings).
pub fn phase_text(p: &Phase, tree: &SiteTree) -> String {
    let mut s = String::new();
    let anc = p
        .ancestor
        .map_or("none".to_string(), |a| site_label(tree, a));
    let det = if p.determinate {
        ""
    } else {
        " (indeterminate: no processor both sends and receives)"
    };
    let _ = writeln!(s, "{} {}{det}", p.id, p.kind.name());
    for site in &p.sites {
        let _ = writeln!(s, "  site {}", site_label(tree, *site));
    }
    let _ = writeln!(s, "  ancestor {anc}");
    if matches!(p.kind, PhaseKind::Collective { .. }) {
        let _ = writeln!(
            s,
            "  processors {} (comm size {})",
            ranks(&p.processors),
            p.comm_size
        );
        let _ = writeln!(
            s,
            "  calls {} per processor {}..{} bytes {}..{}",
            p.messages,
            num(p.per_processor.min),
            num(p.per_processor.max),
            num(p.bytes.min),
            num(p.bytes.max)
        );
        return s;
    }
    let _ = writeln!(
        s,
        "  SL {} RL {} async {}",
        ranks(&p.senders),
        ranks(&p.receivers),
        ranks(&p.async_processors)
    );
    let _ = writeln!(
        s,
        "  messages {} pairs {} per sender {}..{} per pair {}..{} bytes {}..{} (mean {})",
        p.messages,
        p.pairs,
        num(p.per_processor.min),
        num(p.per_processor.max),
        num(p.instances.min),
        num(p.instances.max),
        num(p.bytes.min),
        num(p.bytes.max),
        num(p.bytes.mean)
    );
    let depth = p.depth.map_or("-".to_string(), |d| d.to_string());
    let _ = writeln!(
        s,
        "  depth {depth} components {} intervals {}",
        p.components, p.intervals
    );
    for o in &p.compute {
        let _ = writeln!(
            s,
            "  overlaps {} x{} on {} processor(s)",
            site_label(tree, o.site),
            o.occurrences,
            o.processors
        );
    }
    s
}

/// The whole run as text (no timings).
pub fn to_text(sum: &RunSummary, tree: &SiteTree) -> String {
    let mut s = format!("world {} phases {}\n", sum.world_size, sum.phases.len());
    for p in &sum.phases {
        s.push_str(&phase_text(p, tree));
    }
    for d in &sum.dependences {
        let _ = writeln!(
            s,
            "under {}: {} -> {} {} (shared {})",
            d.ancestor,
            d.first,
            d.second,
            if d.dependent {
                "dependent"
            } else {
                "independent (overlap)"
            },
            d.shared
        );
    }
    for (site, n) in &sum.proc_null {
        let _ = writeln!(s, "proc_null site {site} x{n}");
    }
    for w in &sum.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s
}

fn edges(cpg: &Cpg) -> Vec<(u32, u32, Link)> {
    let g = cpg.graph();
    let mut out: Vec<(u32, u32, Link)> = g
        .edge_indices()
        .filter_map(|e| {
            let (a, b) = g.edge_endpoints(e)?;
            Some((*g.node_weight(a)?, *g.node_weight(b)?, *g.edge_weight(e)?))
        })
        .collect();
    out.sort_by_key(|e| (e.0, e.1));
    out
}

fn edge_label(l: &Link) -> String {
    match l {
        Link::Message { count, bytes } => format!("{count} msg, {bytes} B"),
        Link::Completion { count } => format!("waitall x{count}"),
    }
}

/// Mermaid flowchart: one subgraph per point-to-point phase.
pub fn to_mermaid(cpg: &Cpg, tree: &SiteTree) -> String {
    let mut s = String::from("flowchart LR\n");
    for p in cpg
        .phases()
        .iter()
        .filter(|p| !matches!(p.kind, PhaseKind::Collective { .. }))
    {
        let _ = writeln!(s, "  subgraph {}[\"{} {}\"]", p.id, p.id, p.kind.name());
        for site in &p.sites {
            let _ = writeln!(
                s,
                "    s{site}[\"{}\"]",
                site_label(tree, *site).replace('"', "'")
            );
        }
        let _ = writeln!(s, "  end");
    }
    for (a, b, l) in edges(cpg) {
        let arrow = if matches!(l, Link::Completion { .. }) {
            "-.-"
        } else {
            "-->"
        };
        let _ = writeln!(s, "  s{a} {arrow}|{}| s{b}", edge_label(&l));
    }
    s
}

/// Graphviz DOT: one cluster per point-to-point phase.
pub fn to_dot(cpg: &Cpg, tree: &SiteTree) -> String {
    let mut s = String::from("digraph cpg {\n  rankdir=LR;\n");
    for p in cpg
        .phases()
        .iter()
        .filter(|p| !matches!(p.kind, PhaseKind::Collective { .. }))
    {
        let _ = writeln!(
            s,
            "  subgraph cluster_{} {{\n    label=\"{} {}\";",
            p.id,
            p.id,
            p.kind.name()
        );
        for site in &p.sites {
            let _ = writeln!(
                s,
                "    s{site} [label=\"{}\"];",
                site_label(tree, *site).replace('"', "'")
            );
        }
        let _ = writeln!(s, "  }}");
    }
    for (a, b, l) in edges(cpg) {
        let style = if matches!(l, Link::Completion { .. }) {
            ", style=dashed, dir=none"
        } else {
            ""
        };
        let _ = writeln!(s, "  s{a} -> s{b} [label=\"{}\"{style}];", edge_label(&l));
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn rank_lists_compress() {
        assert_eq!(super::ranks(&[0, 1, 2, 3, 5, 7, 8]), "0-3,5,7-8");
        assert_eq!(super::ranks(&[]), "-");
        assert_eq!(super::ranks(&[4]), "4");
    }
}
