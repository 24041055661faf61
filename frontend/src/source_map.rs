//! The text tree-sitter parses, assembled from pieces of original files, with a map from its
//! byte offsets back to (file, original offset).
//!
//! Invariant: every byte of `text` belongs to exactly one segment; original segments map
//! 1:1 (their text may differ from the file by same-length edits such as `c` → `!` in column
//! 1), synthetic segments (inserted ` &`, macro replacements, newlines) map every byte to one
//! anchor offset in the original file.
use crate::ir::{FileId, Span};

#[derive(Debug, Clone, Copy)]
struct Seg {
    buf_start: u32,
    len: u32,
    file: FileId,
    orig_start: u32,
    /// Synthetic: every byte maps to `orig_start`; `orig_len` is how many original bytes it
    /// replaced (for span ends).
    synthetic: bool,
    orig_len: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Assembled {
    pub text: String,
    segs: Vec<Seg>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Assembled {
    pub fn new() -> Self {
        Assembled::default()
    }

    /// Appends `text`, which stands 1:1 for original bytes `orig_start..` of `file`.
    pub fn push_orig(&mut self, file: FileId, orig_start: u32, text: &str) {
        if text.is_empty() {
            return;
        }
        let buf_start = to_u32(self.text.len());
        let len = to_u32(text.len());
        if let Some(last) = self.segs.last_mut() {
            if !last.synthetic
                && last.file == file
                && last.buf_start + last.len == buf_start
                && last.orig_start + last.len == orig_start
            {
                last.len += len;
                last.orig_len += len;
                self.text.push_str(text);
                return;
            }
        }
        self.segs.push(Seg {
            buf_start,
            len,
            file,
            orig_start,
            synthetic: false,
            orig_len: len,
        });
        self.text.push_str(text);
    }

    /// Appends synthetic `text` standing for original bytes `anchor..anchor+orig_len`.
    pub fn push_synth(&mut self, file: FileId, anchor: u32, orig_len: u32, text: &str) {
        if text.is_empty() {
            return;
        }
        let buf_start = to_u32(self.text.len());
        self.segs.push(Seg {
            buf_start,
            len: to_u32(text.len()),
            file,
            orig_start: anchor,
            synthetic: true,
            orig_len,
        });
        self.text.push_str(text);
    }

    /// Appends `other.text[range]` keeping its mapping.
    pub fn append_from(&mut self, other: &Assembled, start: usize, end: usize) {
        let (start, end) = (to_u32(start), to_u32(end.min(other.text.len())));
        if start >= end {
            return;
        }
        let first = other.seg_index(start);
        for seg in other.segs.iter().skip(first) {
            if seg.buf_start >= end {
                break;
            }
            let s = seg.buf_start.max(start);
            let e = (seg.buf_start + seg.len).min(end);
            if s >= e {
                continue;
            }
            let Some(piece) = other.text.get(s as usize..e as usize) else {
                continue;
            };
            if seg.synthetic {
                self.push_synth(seg.file, seg.orig_start, seg.orig_len, piece);
            } else {
                self.push_orig(seg.file, seg.orig_start + (s - seg.buf_start), piece);
            }
        }
    }

    fn seg_index(&self, off: u32) -> usize {
        match self.segs.binary_search_by(|s| s.buf_start.cmp(&off)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Original (file, offset) of buffer offset `off`.
    pub fn map(&self, off: u32) -> Option<(FileId, u32)> {
        let seg = self.segs.get(self.seg_index(off))?;
        if seg.synthetic {
            Some((seg.file, seg.orig_start))
        } else {
            Some((
                seg.file,
                seg.orig_start + off.saturating_sub(seg.buf_start).min(seg.len),
            ))
        }
    }

    /// Original end offset for a buffer range ending at `end` (exclusive), in `file`: the
    /// end of the last byte before `end` that comes from `file`.
    fn map_end(&self, file: FileId, start: u32, end: u32) -> Option<u32> {
        if end == 0 {
            return None;
        }
        let mut i = self.seg_index(end - 1);
        loop {
            let seg = self.segs.get(i)?;
            if seg.buf_start + seg.len <= start && seg.buf_start < start {
                return None;
            }
            if seg.file == file {
                return Some(if seg.synthetic {
                    seg.orig_start + seg.orig_len
                } else {
                    seg.orig_start + (end.min(seg.buf_start + seg.len) - seg.buf_start)
                });
            }
            if i == 0 {
                return None;
            }
            i -= 1;
        }
    }

    /// The original span of buffer range `start..end`; when the range crosses into included
    /// files, the span stays in the file where it starts.
    pub fn span(&self, start: usize, end: usize, fallback: FileId) -> Span {
        let (start, end) = (to_u32(start), to_u32(end));
        let Some((file, s)) = self.map(start) else {
            return Span::new(fallback, 0, 0);
        };
        let e = if end > start {
            self.map_end(file, start, end).unwrap_or(s)
        } else {
            s
        };
        Span::new(file, s, e.max(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_through_insertions_and_includes() {
        let f0 = FileId(0);
        let f1 = FileId(1);
        let mut a = Assembled::new();
        a.push_orig(f0, 0, "x = 1");
        a.push_synth(f0, 5, 0, " &");
        a.push_orig(f0, 5, "\n");
        a.push_orig(f1, 0, "y = 2\n");
        a.push_orig(f0, 20, "z = 3\n");
        assert_eq!(a.text, "x = 1 &\ny = 2\nz = 3\n");
        assert_eq!(a.map(0), Some((f0, 0)));
        assert_eq!(a.map(6), Some((f0, 5)));
        assert_eq!(a.map(7), Some((f0, 5)));
        assert_eq!(a.map(8), Some((f1, 0)));
        assert_eq!(a.map(14), Some((f0, 20)));
        assert_eq!(a.span(8, 13, f0), Span::new(f1, 0, 5));
        // a range from f0 across the include ends at the last f0 byte
        assert_eq!(a.span(0, 19, f0), Span::new(f0, 0, 25));
        assert_eq!(a.span(0, 7, f0), Span::new(f0, 0, 5));
    }

    #[test]
    fn append_from_keeps_mapping() {
        let f0 = FileId(0);
        let mut inner = Assembled::new();
        inner.push_orig(f0, 10, "abc");
        inner.push_synth(f0, 13, 0, "&");
        inner.push_orig(f0, 13, "def");
        let mut outer = Assembled::new();
        outer.append_from(&inner, 1, 6);
        assert_eq!(outer.text, "bc&de");
        assert_eq!(outer.map(0), Some((f0, 11)));
        assert_eq!(outer.map(2), Some((f0, 13)));
        assert_eq!(outer.map(4), Some((f0, 14)));
    }
}
