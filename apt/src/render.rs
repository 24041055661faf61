//! The APT as JSON (the `augur apt --json` schema) and as an indented text tree.
//!
//! JSON: `{"file", "language", "params": [{"name", "origin", …}], "routines": [node…]}`,
//! `"notes": [{"line", "text"}]` when the analysis took approximations, and
//! `"integer_divisions": [{"line", "num", "den", "file"?}]` where the program truncates a
//! quotient of its parameters;
//! every node has `kind`, `site`, `line`, `children`, and `file` when its line is in another
//! file than the main one (an included file). Attributes that may be unresolved
//! are a string (expression text in augur's syntax, `any`, `null`) or
//! `{"unresolved": reason}`; loops instead carry `trip` or `unresolved` at top level (and
//! `cap`, the bound the source proves on a trip that may end early), and
//! Fortran array syntax (an implicit loop) carries `array`, the sections it visits; a
//! computing library call (an implicit loop too) `library`, the routines it calls.
//!
//! What may be overwritten, in both forms: computation phases show what they write
//! (JSON `"writes": [names]`, or `{"unresolved": reason}`; text `writes={…}` or
//! `writes=? (reason)`), CALL nodes what the call may write in the caller's names (the same,
//! [`crate::call_may_rewrite`]), COMM nodes that send data their buffer (JSON `"buffer"` as
//! names or `{"unresolved": reason}` with `"buffer_from_start"`, false when the buffer
//! argument is not its variable's start, [`crate::CommFacts::buffer_from_start`]; text
//! `buffer={…}`, followed by `(from an offset)`). [`to_json`] leaves them out: it is saved as
//! each run directory's `apt.json`, which tests compare whole with today's APT of the source;
//! [`to_json_with_writes`] (`augur apt --json`) has them.
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};

use std::collections::{BTreeMap, BTreeSet};

use crate::{Apt, Attr, CommFacts, Node, NodeData, SendBuffer, SiteId};

/// What each CALL node may write ([`Apt::call_writes`]).
type CallWrites = BTreeMap<SiteId, Result<BTreeSet<String>, String>>;

fn attr_json(a: &Attr) -> Value {
    match a {
        Attr::Unresolved(r) => json!({ "unresolved": r }),
        other => Value::String(other.text()),
    }
}

fn comm_json(m: &mut Map<String, Value>, c: &CommFacts, writes: bool) {
    m.insert("op".into(), Value::String(c.op.name().to_string()));
    let fields = [
        ("peer", &c.peer),
        ("tag", &c.tag),
        ("bytes", &c.bytes),
        ("bytes_mean", &c.bytes_mean),
        ("source", &c.source),
        ("recv_tag", &c.recv_tag),
        ("recv_bytes", &c.recv_bytes),
        ("count", &c.count),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert(k.into(), attr_json(v));
        }
    }
    if !writes {
        return;
    }
    match &c.buffer {
        Some(SendBuffer::Named(names)) => {
            m.insert("buffer".into(), names_json(names));
            m.insert("buffer_from_start".into(), Value::Bool(c.buffer_from_start));
        }
        Some(SendBuffer::Unknown(r)) => {
            m.insert("buffer".into(), json!({ "unresolved": r }));
        }
        None => {}
    }
}

fn names_json(names: &BTreeSet<String>) -> Value {
    Value::Array(names.iter().cloned().map(Value::String).collect())
}

/// Names written, or `{"unresolved": reason}` when some write cannot be named.
fn writes_json(w: Result<&BTreeSet<String>, &String>) -> Value {
    match w {
        Ok(names) => names_json(names),
        Err(r) => json!({ "unresolved": r }),
    }
}

fn names_text(names: &BTreeSet<String>) -> String {
    let v: Vec<&str> = names.iter().map(String::as_str).collect();
    format!("{{{}}}", v.join(","))
}

/// One node and its subtree as JSON, as in [`to_json`].
pub fn node_json(n: &Node) -> Value {
    node_value(n, None)
}

/// `writes`: what CALL nodes may write when the JSON carries writes and buffers
/// ([`to_json_with_writes`]).
fn node_value(n: &Node, writes: Option<&CallWrites>) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), Value::String(n.kind().as_str().into()));
    m.insert("site".into(), json!(n.site.0));
    m.insert("line".into(), json!(n.line));
    if let Some(f) = &n.file {
        m.insert("file".into(), Value::String(f.clone()));
    }
    match &n.data {
        NodeData::Routine { name, .. } => {
            m.insert("name".into(), Value::String(name.clone()));
        }
        NodeData::Loop(l) => {
            if let Some(v) = &l.var {
                m.insert("var".into(), Value::String(v.clone()));
            }
            if let Some(a) = &l.array {
                m.insert("array".into(), Value::String(a.clone()));
            }
            if let Some(a) = &l.library {
                m.insert("library".into(), Value::String(a.clone()));
            }
            match &l.trip {
                Attr::Unresolved(r) => m.insert("unresolved".into(), Value::String(r.clone())),
                t => m.insert("trip".into(), Value::String(t.text())),
            };
            if let Some(c) = &l.cap {
                m.insert("cap".into(), attr_json(c));
            }
            if let Some(t) = &l.trip_total {
                m.insert("trip_total".into(), attr_json(t));
            }
            m.insert("compute".into(), Value::Bool(l.compute));
            if let Some(w) = &l.work {
                m.insert("work".into(), attr_json(w));
            }
            if writes.is_some() {
                if let Some(w) = &l.writes {
                    m.insert("writes".into(), writes_json(Ok(w)));
                }
                if let Some(r) = &l.writes_unknown {
                    m.insert("writes".into(), writes_json(Err(r)));
                }
            }
        }
        NodeData::If(i) => {
            m.insert("cond".into(), Value::String(i.cond.clone()));
            if let Some(r) = &i.unresolved {
                m.insert("unresolved".into(), Value::String(r.clone()));
            }
        }
        NodeData::Call { callee, .. } => {
            m.insert("callee".into(), Value::String(callee.clone()));
            if let Some(w) = writes.and_then(|c| c.get(&n.site)) {
                m.insert("writes".into(), writes_json(w.as_ref()));
            }
        }
        NodeData::Comm(c) => comm_json(&mut m, c, writes.is_some()),
    }
    m.insert(
        "children".into(),
        Value::Array(n.children.iter().map(|c| node_value(c, writes)).collect()),
    );
    if !n.else_children.is_empty() {
        m.insert(
            "else".into(),
            Value::Array(
                n.else_children
                    .iter()
                    .map(|c| node_value(c, writes))
                    .collect(),
            ),
        );
    }
    Value::Object(m)
}

/// The whole APT as JSON: the form each run directory saves as `apt.json` (without what
/// phases and calls may write and what sends read, which the recorded runs predate).
pub fn to_json(apt: &Apt) -> Value {
    apt_value(apt, None)
}

/// The whole APT as JSON with what phases and calls may write and the buffers sends read:
/// everything the text form shows (`augur apt --json`).
pub fn to_json_with_writes(apt: &Apt) -> Value {
    apt_value(apt, Some(&apt.call_writes))
}

fn apt_value(apt: &Apt, writes: Option<&CallWrites>) -> Value {
    let params: Vec<Value> = apt
        .params
        .iter()
        .map(|p| {
            let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("line".into(), json!(p.line));
            }
            v
        })
        .collect();
    let mut v = json!({
        "file": apt.file.display().to_string(),
        "language": match apt.language { frontend::Language::C => "c", frontend::Language::Fortran => "fortran" },
        "params": params,
        "routines": apt.routines.iter().map(|r| node_value(r, writes)).collect::<Vec<_>>(),
    });
    if !apt.divisions.is_empty() {
        let ds: Vec<Value> = apt
            .divisions
            .iter()
            .map(|d| {
                let mut v =
                    json!({"line": d.line, "num": d.num.to_string(), "den": d.den.to_string()});
                if let Some(f) = &d.file {
                    v["file"] = json!(f);
                }
                v
            })
            .collect();
        v["integer_divisions"] = Value::Array(ds);
    }
    if !apt.notes.is_empty() {
        let notes: Vec<Value> = apt
            .notes
            .iter()
            .map(|(line, text)| json!({"line": line, "text": text}))
            .collect();
        v["notes"] = Value::Array(notes);
    }
    v
}

fn opt(label: &str, a: &Option<Attr>, out: &mut String) {
    if let Some(a) = a {
        let _ = write!(out, " {label}={}", a.text());
    }
}

/// Where a node is: its line, `file:line` in an included file (relative to `dir`, the main
/// file's directory, when below it).
fn location(n: &Node, dir: &Path) -> String {
    match &n.file {
        Some(f) => {
            let f = Path::new(f);
            let shown = f.strip_prefix(dir).unwrap_or(f);
            format!("{}:{}", shown.display(), n.line)
        }
        None => n.line.to_string(),
    }
}

fn node_line(n: &Node, depth: usize, width: usize, apt: &Apt, dir: &Path, out: &mut String) {
    let indent = "  ".repeat(depth);
    let _ = write!(
        out,
        "{:>width$}  {indent}{} #{}",
        location(n, dir),
        n.kind().as_str(),
        n.site.0
    );
    match &n.data {
        NodeData::Routine { name, .. } => {
            let _ = write!(out, " {name}");
        }
        NodeData::Loop(l) => {
            if let Some(v) = &l.var {
                let _ = write!(out, " {v}");
            }
            if let Some(a) = &l.array {
                let _ = write!(out, " array {a}");
            }
            if let Some(a) = &l.library {
                let _ = write!(out, " library {a}");
            }
            let _ = write!(out, " trip={}", l.trip.text());
            opt("cap", &l.cap, out);
            opt("total", &l.trip_total, out);
            if l.compute {
                out.push_str(" compute");
                opt("work", &l.work, out);
                if let Some(w) = &l.writes {
                    let _ = write!(out, " writes={}", names_text(w));
                }
                if let Some(r) = &l.writes_unknown {
                    let _ = write!(out, " writes=? ({r})");
                }
            }
        }
        NodeData::If(i) => {
            let _ = write!(out, " {}", i.cond);
            if let Some(r) = &i.unresolved {
                let _ = write!(out, "  (unresolved: {r})");
            }
        }
        NodeData::Call { callee, .. } => {
            let _ = write!(out, " {callee}");
            match apt.call_writes.get(&n.site) {
                Some(Ok(w)) => {
                    let _ = write!(out, " writes={}", names_text(w));
                }
                Some(Err(r)) => {
                    let _ = write!(out, " writes=? ({r})");
                }
                None => {}
            }
        }
        NodeData::Comm(c) => {
            let _ = write!(out, " {}", c.op.name());
            opt("peer", &c.peer, out);
            opt("tag", &c.tag, out);
            opt("bytes", &c.bytes, out);
            opt("mean", &c.bytes_mean, out);
            opt("source", &c.source, out);
            opt("recv_tag", &c.recv_tag, out);
            opt("recv_bytes", &c.recv_bytes, out);
            opt("count", &c.count, out);
            match &c.buffer {
                Some(SendBuffer::Named(names)) => {
                    let _ = write!(out, " buffer={}", names_text(names));
                    if !c.buffer_from_start {
                        out.push_str(" (from an offset)");
                    }
                }
                Some(SendBuffer::Unknown(r)) => {
                    let _ = write!(out, " buffer=? ({r})");
                }
                None => {}
            }
        }
    }
    out.push('\n');
}

/// Indented text tree: one node per line (line number, kind, site, attributes).
pub fn to_text(apt: &Apt) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", apt.file.display());
    if !apt.params.is_empty() {
        let ps: Vec<String> = apt
            .params
            .iter()
            .map(|p| {
                let also: String = p.also_argv.iter().map(|i| format!(", {i}")).collect();
                format!("{} ({}{also})", p.name, p.origin.describe())
            })
            .collect();
        let _ = writeln!(out, "params: {}", ps.join(", "));
    }
    for (_, text) in &apt.notes {
        let _ = writeln!(out, "note: {text}");
    }
    if !apt.divisions.is_empty() {
        let ds: Vec<String> = apt
            .divisions
            .iter()
            .map(|d| format!("{} {}", d.at(), d.text()))
            .collect();
        let _ = writeln!(
            out,
            "integer divisions (the model takes the quotient, the program truncates it): {}",
            ds.join(", ")
        );
    }
    // the location column: 5 wide, wider when included files give `file:line`
    let dir = apt.file.parent().unwrap_or(Path::new(""));
    let width = apt
        .nodes()
        .iter()
        .map(|n| location(n, dir).chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    // explicit stack: (node, depth, is the first node of an else branch)
    let mut stack: Vec<(&Node, usize, bool)> =
        apt.routines.iter().rev().map(|r| (r, 0, false)).collect();
    while let Some((n, depth, first_else)) = stack.pop() {
        if first_else {
            let _ = writeln!(
                out,
                "{:>width$}  {}else",
                "",
                "  ".repeat(depth.saturating_sub(1))
            );
        }
        node_line(n, depth, width, apt, dir, &mut out);
        for (k, c) in n.else_children.iter().enumerate().rev() {
            stack.push((c, depth + 1, k == 0));
        }
        for c in n.children.iter().rev() {
            stack.push((c, depth + 1, false));
        }
    }
    out
}
