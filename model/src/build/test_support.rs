//! What the build's tests share: a C program's APT from its text, and its sites by line.
#![allow(clippy::unwrap_used)]

use apt::{Apt, NodeData};

/// The APT of the C program `text`, written to a file `name` that is gone afterwards.
pub(super) fn apt_of(name: &str, text: &str) -> Apt {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    apt::load(&path, &Default::default(), &Default::default())
        .unwrap()
        .1
}

/// The site of the loop at `line`.
pub(super) fn loop_at(apt: &Apt, line: u32) -> u32 {
    apt.nodes()
        .iter()
        .find(|n| n.line == line && matches!(n.data, NodeData::Loop(_)))
        .map(|n| n.site.0)
        .unwrap()
}
