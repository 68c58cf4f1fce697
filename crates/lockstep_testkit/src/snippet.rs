//! Inferring a source file's path from its text, for `compile_snippet`.
//!
//! javac insists that a public top-level type `X` in package `p.q` lives in
//! `p/q/X.java` (the directory part matters only for our own layout, but
//! keeping it makes the snippet's classes land where a fixture's would).

use crate::lex::lex_lines;

/// A token of code at any depth; only what the name search looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    for line in lex_lines(text) {
        let chars: Vec<char> = line.code.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_alphabetic() || c == '_' || c == '$' {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    i += 1;
                }
                out.push(Tok::Ident(chars[start..i].iter().collect()));
            } else {
                if !c.is_whitespace() {
                    out.push(Tok::Punct(c));
                }
                i += 1;
            }
        }
    }
    out
}

/// Returns `(package, type name)` for the file: the first public top-level
/// type if there is one (javac requires the file to be named after it),
/// otherwise the first top-level type of any kind.
pub(crate) fn primary_type(text: &str) -> Option<(Option<String>, String)> {
    let toks = tokens(text);
    let mut depth = 0usize;
    let mut package: Option<String> = None;
    let mut first_any: Option<String> = None;
    // Modifiers seen since the last top-level declaration boundary.
    let mut saw_public = false;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    saw_public = false;
                }
            }
            Tok::Punct(';') if depth == 0 => saw_public = false,
            Tok::Ident(word) if depth == 0 => match word.as_str() {
                "package" if package.is_none() => {
                    let mut name = String::new();
                    let mut j = i + 1;
                    while let Some(t) = toks.get(j) {
                        match t {
                            Tok::Ident(part) => name.push_str(part),
                            Tok::Punct('.') => name.push('.'),
                            _ => break,
                        }
                        j += 1;
                    }
                    if !name.is_empty() {
                        package = Some(name);
                    }
                    i = j;
                    continue;
                }
                "public" => saw_public = true,
                "class" | "interface" | "enum" | "record" => {
                    // `Foo.class` in a top-level annotation is not a declaration.
                    let after_dot = i > 0 && toks[i - 1] == Tok::Punct('.');
                    if let (false, Some(Tok::Ident(name))) = (after_dot, toks.get(i + 1)) {
                        if saw_public {
                            return Some((package, name.clone()));
                        }
                        if first_any.is_none() {
                            first_any = Some(name.clone());
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    first_any.map(|name| (package, name))
}

/// The relative path (`p/q/X.java`) a snippet should be written to.
pub(crate) fn snippet_path(text: &str) -> Option<String> {
    let (package, name) = primary_type(text)?;
    Some(match package {
        Some(p) => format!("{}/{name}.java", p.replace('.', "/")),
        None => format!("{name}.java"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_class() {
        assert_eq!(snippet_path("class A { }").as_deref(), Some("A.java"));
    }

    #[test]
    fn package_and_public_type_win() {
        let src = "// class Comment {}\npackage com.x;\nimport java.util.List;\n\
                   class Helper { String s = \"class Nope\"; }\n\
                   @Anno(Foo.class) public final class Main { class Inner {} }\n";
        assert_eq!(snippet_path(src).as_deref(), Some("com/x/Main.java"));
    }

    #[test]
    fn interface_enum_record_and_annotation_types() {
        assert_eq!(snippet_path("interface I {}").as_deref(), Some("I.java"));
        assert_eq!(
            snippet_path("public enum E { A, B }").as_deref(),
            Some("E.java")
        );
        assert_eq!(
            snippet_path("record R(int x) {}").as_deref(),
            Some("R.java")
        );
        assert_eq!(
            snippet_path("public @interface Ann {}").as_deref(),
            Some("Ann.java")
        );
    }

    #[test]
    fn modifiers_do_not_leak_across_declarations() {
        // `public` belongs to the method inside A, not to B.
        let src = "class A { public void m() {} }\nclass B {}";
        assert_eq!(snippet_path(src).as_deref(), Some("A.java"));
    }

    #[test]
    fn no_type() {
        assert_eq!(snippet_path("int x = 1;"), None);
    }
}
