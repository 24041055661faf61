//! Text edits at byte offsets of an original file, applied back to front in one pass.
//!
//! Invariants: edits never overlap except insertions at the boundary of a replacement; at one
//! offset the order is fixed by [`Key`]: whatever *ends* there (closing markers, deeper first)
//! comes before whatever *starts* there (opening markers, shallower first), then inline
//! rewrites, then replacements of original text.
use crate::CodegenError;

/// Ordering class of an edit at a given offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Text closing a construct that ends here (exit markers, closing braces).
    After = 0,
    /// Text opening a construct that starts here (enter markers, opening braces).
    Before = 1,
    /// Inline text inside a statement (the `augur_` prefix, indentation).
    Inline = 2,
    /// Replacement of original text.
    Replace = 3,
}

/// Sort key among edits at the same offset: phase, then `sub` ascending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub phase: Phase,
    pub sub: i64,
}

impl Key {
    /// Closing text of a construct at nesting `depth`: deeper constructs close first.
    pub fn after(depth: i64) -> Key {
        Key {
            phase: Phase::After,
            sub: -depth,
        }
    }
    /// Opening text of a construct at nesting `depth`: shallower constructs open first.
    pub fn before(depth: i64) -> Key {
        Key {
            phase: Phase::Before,
            sub: depth,
        }
    }
    pub fn inline(sub: i64) -> Key {
        Key {
            phase: Phase::Inline,
            sub,
        }
    }
    pub fn replace() -> Key {
        Key {
            phase: Phase::Replace,
            sub: 0,
        }
    }
}

/// Replace original bytes `start..end` with `text` (an insertion when `start == end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub key: Key,
    /// Insertion order, the last tie-breaker (keeps output deterministic).
    pub seq: usize,
}

/// The edits of one file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Edits {
    list: Vec<Edit>,
}

impl Edits {
    pub fn insert(&mut self, at: usize, text: impl Into<String>, key: Key) {
        self.replace(at, at, text, key);
    }

    pub fn replace(&mut self, start: usize, end: usize, text: impl Into<String>, key: Key) {
        let seq = self.list.len();
        self.list.push(Edit {
            start,
            end: end.max(start),
            text: text.into(),
            key,
            seq,
        });
    }

    /// Applies every edit to `orig`. Fails on overlapping replacements or offsets outside the
    /// text or inside a UTF-8 character (`path` names the file in the error).
    #[cfg(test)]
    pub fn apply(self, orig: &str, path: &std::path::Path) -> Result<String, CodegenError> {
        self.apply_mapped(orig, path).map(|(text, _)| text)
    }

    /// [`Edits::apply`], also giving for each line of the result the 1-based line of `orig`
    /// it comes from (an inserted line: the line it was inserted at).
    pub fn apply_mapped(
        mut self,
        orig: &str,
        path: &std::path::Path,
    ) -> Result<(String, Vec<u32>), CodegenError> {
        self.list.sort_by_key(|e| (e.start, e.key, e.seq));
        // identical edits can come from one statement reached twice (an include used twice)
        self.list.dedup_by(|b, a| {
            a.start == b.start && a.end == b.end && a.text == b.text && a.key == b.key
        });
        let extra: usize = self.list.iter().map(|e| e.text.len()).sum();
        let mut out = String::with_capacity(orig.len() + extra);
        let mut cursor = 0usize;
        let line_of = |at: usize| {
            let n = orig.get(..at).map_or(0, |t| t.matches('\n').count());
            u32::try_from(n + 1).unwrap_or(u32::MAX)
        };
        let mut map = vec![1u32];
        for e in &self.list {
            if e.start < cursor || e.end > orig.len() {
                return Err(CodegenError::Conflict {
                    path: path.to_path_buf(),
                    offset: e.start,
                    reason: if e.end > orig.len() {
                        "an edit lies past the end of the file".into()
                    } else {
                        format!("two edits overlap (the later one inserts {:?})", e.text)
                    },
                });
            }
            let piece = orig
                .get(cursor..e.start)
                .ok_or_else(|| CodegenError::Conflict {
                    path: path.to_path_buf(),
                    offset: e.start,
                    reason: "an edit splits a UTF-8 character".into(),
                })?;
            push_mapped(&mut map, piece, line_of(cursor), true);
            out.push_str(piece);
            push_mapped(&mut map, &e.text, line_of(e.start), false);
            out.push_str(&e.text);
            cursor = e.end;
        }
        let rest = orig.get(cursor..).unwrap_or("");
        push_mapped(&mut map, rest, line_of(cursor), true);
        out.push_str(rest);
        if out.ends_with('\n') {
            map.pop();
        }
        Ok((out, map))
    }
}

/// Extends `map` (the source line of each output line, the last one open) by `text`, which
/// starts on source line `line`: original text moves to the next source line at each newline,
/// inserted text stays on the line it was inserted at.
fn push_mapped(map: &mut Vec<u32>, text: &str, line: u32, original: bool) {
    let mut line = line;
    for _ in text.matches('\n') {
        if original {
            line += 1;
        }
        map.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn line_map_gives_inserted_lines_the_line_they_were_inserted_at() {
        let mut e = Edits::default();
        e.insert(2, "X\n", Key::before(0));
        e.insert(3, "\nY", Key::after(0));
        let (text, map) = e.apply_mapped("a\nb\nc\n", Path::new("f")).unwrap();
        assert_eq!(text, "a\nX\nb\nY\nc\n");
        assert_eq!(map, [1, 2, 2, 2, 3]);
        let (_, map) = Edits::default()
            .apply_mapped("a\nb", Path::new("f"))
            .unwrap();
        assert_eq!(map, [1, 2]);
    }

    #[test]
    fn closers_before_openers_and_depth_order() {
        let mut e = Edits::default();
        e.insert(1, "<b0>", Key::before(0));
        e.insert(1, "<b1>", Key::before(1));
        e.insert(1, "</a1>", Key::after(1));
        e.insert(1, "</a0>", Key::after(0));
        e.insert(1, "|", Key::inline(0));
        assert_eq!(
            e.apply("xy", Path::new("f")).ok(),
            Some("x</a1></a0><b0><b1>|y".into())
        );
    }

    #[test]
    fn replacement_after_insertion_at_same_start() {
        let mut e = Edits::default();
        e.replace(0, 2, "  ", Key::replace());
        e.insert(0, "10 x\n", Key::before(0));
        assert_eq!(
            e.apply("10 y", Path::new("f")).ok(),
            Some("10 x\n   y".into())
        );
    }

    #[test]
    fn overlap_is_an_error() {
        let mut e = Edits::default();
        e.replace(0, 3, "a", Key::replace());
        e.replace(2, 4, "b", Key::replace());
        let err = e.apply("abcdef", Path::new("f.c"));
        assert!(
            matches!(err, Err(CodegenError::Conflict { offset: 2, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn out_of_range_is_an_error() {
        let mut e = Edits::default();
        e.insert(10, "x", Key::inline(0));
        assert!(e.apply("abc", Path::new("f.c")).is_err());
    }
}
