//! A line-oriented Java lexer, just precise enough for the kit's two needs:
//! finding `//` comments (for expectations) and finding top-level type names
//! (for snippets).
//!
//! Doing this with a plain `find("//")` would misread `"http://x"` as a
//! comment, and a regex for `class X` would match inside strings and comments,
//! so string literals, char literals, text blocks and block comments are
//! tracked across lines. Unicode escapes (`\u0022`) are not decoded; fixtures
//! have no reason to use them.

/// One physical source line, split into its code and its `//` comment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LexLine {
    /// The code on the line: block comments become a space and the contents
    /// of string and char literals are dropped (the quotes stay), so
    /// keywords inside them are not seen.
    pub code: String,
    /// The text after `//`, if the line ends in a line comment.
    pub comment: Option<String>,
}

impl LexLine {
    /// True when the line holds anything besides whitespace and comments.
    pub fn has_code(&self) -> bool {
        !self.code.trim().is_empty()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    BlockComment,
    TextBlock,
}

/// Splits `text` into lines (`\n`, with an optional `\r` before it) and lexes
/// each. Line `i` of the result is source line `i + 1`.
pub(crate) fn lex_lines(text: &str) -> Vec<LexLine> {
    let mut state = State::Code;
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let line: Vec<char> = raw.strip_suffix('\r').unwrap_or(raw).chars().collect();
        let mut lex = LexLine::default();
        if state == State::TextBlock {
            // A line inside a text block is part of an expression, so it
            // counts as code for "next code line" purposes.
            lex.code.push('"');
        }
        let mut i = 0;
        while i < line.len() {
            let c = line[i];
            let next = line.get(i + 1).copied();
            match state {
                State::BlockComment => {
                    if c == '*' && next == Some('/') {
                        state = State::Code;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                State::TextBlock => {
                    if c == '\\' {
                        i += 2;
                    } else if starts_with(&line, i, "\"\"\"") {
                        lex.code.push_str("\"\"\"");
                        state = State::Code;
                        i += 3;
                    } else {
                        i += 1;
                    }
                }
                State::Code => {
                    if c == '/' && next == Some('/') {
                        lex.comment = Some(line[i + 2..].iter().collect());
                        break;
                    } else if c == '/' && next == Some('*') {
                        lex.code.push(' ');
                        state = State::BlockComment;
                        i += 2;
                    } else if starts_with(&line, i, "\"\"\"") {
                        lex.code.push_str("\"\"\"");
                        state = State::TextBlock;
                        i += 3;
                    } else if c == '"' || c == '\'' {
                        // Ordinary string and char literals end on the same
                        // line; an unterminated one is a javac error, so
                        // stopping at the end of the line is good enough.
                        lex.code.push(c);
                        i += 1;
                        while i < line.len() {
                            if line[i] == '\\' {
                                i += 2;
                            } else if line[i] == c {
                                break;
                            } else {
                                i += 1;
                            }
                        }
                        lex.code.push(c);
                        i += 1;
                    } else {
                        lex.code.push(c);
                        i += 1;
                    }
                }
            }
        }
        out.push(lex);
    }
    out
}

fn starts_with(line: &[char], at: usize, pat: &str) -> bool {
    pat.chars()
        .enumerate()
        .all(|(k, p)| line.get(at + k) == Some(&p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_after_code_and_url_in_string() {
        let l = lex_lines("String u = \"http://x\"; // note: y");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].code, "String u = \"\"; ");
        assert_eq!(l[0].comment.as_deref(), Some(" note: y"));
    }

    #[test]
    fn block_comments_span_lines() {
        let l = lex_lines("a /* x\n // not a line comment\n */ b // c\n");
        assert_eq!(l.len(), 4);
        assert!(l[0].has_code());
        assert_eq!(l[1].comment, None);
        assert!(!l[1].has_code());
        assert_eq!(l[2].code.trim(), "b");
        assert_eq!(l[2].comment.as_deref(), Some(" c"));
        assert!(!l[3].has_code());
    }

    #[test]
    fn char_literals_and_escapes() {
        let l = lex_lines("char q = '\"'; char s = '\\''; String t = \"a\\\"//b\"; // c");
        assert_eq!(l[0].comment.as_deref(), Some(" c"));
        assert!(!l[0].code.contains("//"));
    }

    #[test]
    fn text_blocks() {
        let l = lex_lines("String s = \"\"\"\n  // inside\n  class Fake {}\n  \"\"\"; // after\nx");
        assert_eq!(l[1].comment, None);
        assert!(l[1].has_code());
        assert!(!l[2].code.contains("class"));
        assert_eq!(l[3].comment.as_deref(), Some(" after"));
        assert_eq!(l[4].code, "x");
    }

    #[test]
    fn crlf_line_endings() {
        let l = lex_lines("a // x\r\nb\r\n");
        assert_eq!(l[0].comment.as_deref(), Some(" x"));
        assert_eq!(l[1].code, "b");
    }
}
