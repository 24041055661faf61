//! Fixed-form Fortran → free-form text tree-sitter-fortran can parse, keeping the line count
//! (REFERENCE.md): column-1 comments become `!`, column-6 continuations become `     &` with
//! ` &` appended to the previous code line, text past column 72 becomes a comment when `cut`.
use crate::ir::FileId;
use crate::source_map::Assembled;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Comment,
    Preproc,
    Code,
}

struct Line {
    start: usize,
    bytes: Vec<u8>,
    newline_len: usize,
    kind: Kind,
    /// Where ` &` goes when the next code line continues this one.
    code_end: usize,
    amp: bool,
    /// A bare `PROGRAM` statement (no name), which tree-sitter-fortran cannot parse: a
    /// synthetic name is inserted at `code_end`.
    nameless_program: bool,
}

/// Byte index of the `n`-th character (0-based) of `s`, if it has that many.
fn char_index(s: &str, n: usize) -> Option<(usize, usize)> {
    s.char_indices().nth(n).map(|(i, c)| (i, c.len_utf8()))
}

/// End of the code part: the first `!` outside quotes at or after `from`, else `end`.
fn code_end(bytes: &[u8], from: usize, end: usize) -> usize {
    let mut quote: Option<u8> = None;
    let mut i = from;
    while i < end {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'!' => return i,
            None => {}
        }
        i += 1;
    }
    end
}

fn classify(text: &str, start: usize, newline_len: usize, cut: bool) -> Line {
    let mut bytes = text.as_bytes().to_vec();
    let mut line = Line {
        start,
        bytes: Vec::new(),
        newline_len,
        kind: Kind::Code,
        code_end: 0,
        amp: false,
        nameless_program: false,
    };
    let first = bytes.first().copied();
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        line.kind = Kind::Blank;
    } else if matches!(first, Some(b'c' | b'C' | b'*' | b'd' | b'D' | b'!')) {
        bytes[0] = b'!';
        line.kind = Kind::Comment;
    } else if first == Some(b'#') {
        line.kind = Kind::Preproc;
    }
    if line.kind != Kind::Code {
        line.bytes = bytes;
        return line;
    }
    // column 72 cut: the 73rd character starts a comment (same byte length)
    let mut end = bytes.len();
    if cut {
        if let Some((i, len)) = char_index(text, 72) {
            bytes[i] = b'!';
            for b in bytes.iter_mut().skip(i + 1).take(len - 1) {
                *b = b' ';
            }
            end = i;
        }
    }
    // continuation marks
    let mut from = 6.min(end);
    if bytes.first() == Some(&b'\t') {
        from = 1;
        if matches!(bytes.get(1), Some(b'1'..=b'9')) {
            bytes[1] = b'&';
            line.amp = true; // reused below as "is continuation"
            from = 2;
        }
    } else if bytes.len() >= 6
        && bytes[..5].iter().all(|&b| b == b' ')
        && bytes[5] != b' '
        && bytes[5] != b'0'
        && bytes[5] != b'\t'
    {
        bytes[5] = b'&';
        line.amp = true;
    } else if let Some(tab) = bytes.iter().take(6).position(|&b| b == b'\t') {
        from = tab + 1;
    }
    line.code_end = code_end(&bytes, from.min(end), end);
    let code = bytes
        .get(from.min(line.code_end)..line.code_end)
        .unwrap_or_default();
    line.nameless_program = !line.amp && code.trim_ascii().eq_ignore_ascii_case(b"program");
    if line.nameless_program {
        // insert right after the keyword, not after trailing blanks
        line.code_end = from.min(line.code_end) + code.trim_ascii_end().len();
    }
    line.bytes = bytes;
    line
}

/// Normalises fixed-form `text` of `file`. Same line count; offsets map back exactly.
pub fn fixed_form(file: FileId, text: &str, cut: bool) -> Assembled {
    let mut lines: Vec<Line> = Vec::new();
    let mut pos = 0usize;
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches(['\n', '\r']);
        let mut line = classify(content, pos, raw.len() - content.len(), cut);
        let is_cont = line.kind == Kind::Code && line.amp;
        line.amp = false;
        if is_cont {
            if let Some(prev) = lines.iter_mut().rev().find(|l| l.kind == Kind::Code) {
                prev.amp = true;
            }
        }
        lines.push(line);
        pos += raw.len();
    }
    let mut out = Assembled::new();
    for line in &lines {
        let s = String::from_utf8_lossy(&line.bytes);
        let start = u32::try_from(line.start).unwrap_or(u32::MAX);
        if line.nameless_program && s.is_char_boundary(line.code_end) {
            let (a, b) = s.split_at(line.code_end);
            out.push_orig(file, start, a);
            let at = start + u32::try_from(a.len()).unwrap_or(0);
            out.push_synth(file, at, 0, " main");
            out.push_orig(file, at, b);
        } else if line.amp && s.is_char_boundary(line.code_end) {
            let (a, b) = s.split_at(line.code_end);
            out.push_orig(file, start, a);
            let at = start + u32::try_from(a.len()).unwrap_or(0);
            out.push_synth(file, at, 0, " &");
            out.push_orig(file, at, b);
        } else {
            out.push_orig(file, start, &s);
        }
        if line.newline_len > 0 {
            let nl_at = start + u32::try_from(line.bytes.len()).unwrap_or(0);
            let nl = if line.newline_len == 2 { "\r\n" } else { "\n" };
            out.push_orig(file, nl_at, nl);
        }
    }
    out
}

/// Stand-in for a Fortran variable named `class`, which tree-sitter-fortran cannot parse
/// (it is an F2003 keyword); same length, so offsets do not move. [`crate::lower`] maps it
/// back to `class`.
pub const CLASS_STAND_IN: &str = "clas_";

/// Replaces the identifier `class` (any case, outside strings and `!` comments) with
/// [`CLASS_STAND_IN`] unless it starts an F2003 `class(...)` declaration or `class default`
/// / `class is` guard, and non-standard `X'1F'` literals with `Z'1F'`. `None` when nothing
/// was replaced.
pub fn rename_class_variables(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("class") && !lower.contains("x'") && !lower.contains("x\"") {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut changed = false;
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            quote = None;
            comment = false;
        } else if comment {
        } else if let Some(q) = quote {
            if b == q {
                quote = None;
            }
        } else if b == b'\'' || b == b'"' {
            // non-standard `X'1F'` hex literal: the standard spelling is `Z'1F'`
            if i > 0
                && (bytes[i - 1] == b'x' || bytes[i - 1] == b'X')
                && (i < 2 || !ident(bytes[i - 2]))
            {
                out[i - 1] = b'Z';
                changed = true;
            }
            quote = Some(b);
        } else if b == b'!' {
            comment = true;
        } else if lower.as_bytes()[i..].starts_with(b"class")
            && (i == 0 || !ident(bytes[i - 1]))
            && !bytes.get(i + 5).is_some_and(|c| ident(*c))
        {
            let rest = lower[i + 5..].trim_start_matches([' ', '\t']);
            let keyword =
                rest.starts_with('(') || rest.starts_with("default") || rest.starts_with("is");
            if !keyword {
                out[i..i + 5].copy_from_slice(CLASS_STAND_IN.as_bytes());
                changed = true;
            }
            i += 5;
            continue;
        }
        i += 1;
    }
    if changed {
        String::from_utf8(out).ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str, cut: bool) -> String {
        fixed_form(FileId(0), s, cut).text
    }

    #[test]
    fn comments_and_continuations() {
        let src =
            "C comment\n      X = A +\n     1    B ! tail\n*     more\n     &    + C\n      END\n";
        let out = norm(src, true);
        assert_eq!(
            out,
            "! comment\n      X = A + &\n     &    B  &! tail\n!     more\n     &    + C\n      END\n"
        );
        assert_eq!(out.lines().count(), src.lines().count());
    }

    #[test]
    fn string_with_bang_is_not_a_comment() {
        let out = norm("      PRINT *, 'A!B'\n     +  , X\n", true);
        assert_eq!(out, "      PRINT *, 'A!B' &\n     &  , X\n");
    }

    #[test]
    fn column_72_cut_and_tab_continuation() {
        let long = format!("      X = 1{}SEQ00010\n", " ".repeat(61));
        let out = norm(&long, true);
        assert_eq!(out.find('!'), Some(72));
        assert!(!norm(&long, false).contains('!'));
        assert_eq!(norm("\tX = 1 +\n\t1 2\n", true), "\tX = 1 + &\n\t& 2\n");
    }

    #[test]
    fn label_zero_in_column_6_is_not_continuation() {
        assert_eq!(
            norm("   10 CONTINUE\n     0X = 1\n", true),
            "   10 CONTINUE\n     0X = 1\n"
        );
    }

    #[test]
    fn nameless_program_gets_a_name() {
        assert_eq!(
            norm("      PROGRAM\n      END\n", true),
            "      PROGRAM main\n      END\n"
        );
        assert_eq!(norm("      PROGRAM P\n", true), "      PROGRAM P\n");
    }

    #[test]
    fn class_variables_are_renamed_but_not_class_declarations() {
        let src = "      CHARACTER CLASS\n      CLASS = 'class'\n      CALL P(CLASS) ! class\n      class(t), intent(in) :: x\n      class default\n";
        let out = rename_class_variables(src).unwrap_or_default();
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out,
            "      CHARACTER clas_\n      clas_ = 'class'\n      CALL P(clas_) ! class\n      class(t), intent(in) :: x\n      class default\n"
        );
        assert!(rename_class_variables("x = 1\n").is_none());
    }

    #[test]
    fn offsets_map_back() {
        let src = "      X = A +\n     1    B\n";
        let a = fixed_form(FileId(0), src, true);
        let b_in_buf = a.text.find('B').unwrap_or(0);
        let b_in_src = src.find('B').unwrap_or(0);
        assert_eq!(
            a.map(u32::try_from(b_in_buf).unwrap_or(0)),
            Some((FileId(0), u32::try_from(b_in_src).unwrap_or(0)))
        );
    }
}
