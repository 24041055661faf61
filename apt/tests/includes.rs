//! Nodes from an included file carry that file (trial-c #9: `#include "ops.c"` gave lines of
//! ops.c with no file name), in JSON (`file`) and in the text tree (`file:line`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use apt::{AptOptions, NodeData};

#[test]
fn nodes_of_included_files_name_their_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/incl.c");
    let (_, tree) =
        apt::load(&path, &frontend::Options::default(), &AptOptions::default()).unwrap();
    let at = |name: &str| {
        tree.nodes()
            .into_iter()
            .find(|n| match &n.data {
                NodeData::Routine { name: r, .. } => r == name,
                NodeData::Call { callee, .. } => callee == name,
                NodeData::Comm(_) => name == "send",
                NodeData::Loop(_) => name == "loop",
                NodeData::If(_) => name == "if",
            })
            .map(|n| {
                let file = n.file.as_deref().map(|f| {
                    Path::new(f)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                });
                (file, n.line)
            })
            .unwrap()
    };
    let ops = Some("incl_ops.c".to_string());
    assert_eq!(at("exchange"), (ops.clone(), 2), "routine");
    assert_eq!(at("send"), (ops.clone(), 3));
    assert_eq!(at("scale"), (ops.clone(), 6), "routine");
    assert_eq!(at("loop"), (ops, 7));
    assert_eq!(at("main"), (None, 3), "the main file's nodes have no file");
    assert_eq!(at("if"), (None, 9));

    let json = apt::render::to_json(&tree);
    let routines = json["routines"].as_array().unwrap();
    assert!(routines[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("incl_ops.c"));
    assert!(routines[2].get("file").is_none(), "{}", routines[2]);

    let text = apt::render::to_text(&tree);
    let send = text.lines().find(|l| l.contains("comm #")).unwrap();
    assert!(send.starts_with("incl_ops.c:3    comm #1 send"), "{text}");
    let main = text
        .lines()
        .find(|l| l.ends_with("routine #4 main"))
        .unwrap();
    let width = send.find("  ").unwrap();
    assert_eq!(
        main.find("3  routine"),
        Some(width - 1),
        "locations right-aligned:\n{text}"
    );
}
