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
    pub fn apply(mut self, orig: &str, path: &std::path::Path) -> Result<String, CodegenError> {
        self.list.sort_by_key(|e| (e.start, e.key, e.seq));
        // identical edits can come from one statement reached twice (an include used twice)
        self.list.dedup_by(|b, a| {
            a.start == b.start && a.end == b.end && a.text == b.text && a.key == b.key
        });
        let extra: usize = self.list.iter().map(|e| e.text.len()).sum();
        let mut out = String::with_capacity(orig.len() + extra);
        let mut cursor = 0usize;
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
            out.push_str(piece);
            out.push_str(&e.text);
            cursor = e.end;
        }
        out.push_str(orig.get(cursor..).unwrap_or(""));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
