//! The module paths a file names with `crate::` or `super::`, in `use` trees and in code alike.

/// Every path, as its segments from the crate root, that the non-test code of `text` names;
/// `module` is the file's own module path, which `super::` counts from.
pub(crate) fn imported(module: &str, text: &str) -> Vec<Vec<String>> {
    let code = code_of(text);
    let chars: Vec<char> = code.chars().collect();
    let own: Vec<String> = module.split("::").map(str::to_owned).collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        if !starts_path(&chars, at) {
            at += 1;
            continue;
        }
        let mut prefix = own.clone();
        let mut first = true;
        let mut cursor = at;
        loop {
            if word_at(&chars, cursor, "crate::") && first {
                prefix.clear();
                cursor += "crate::".len();
            } else if word_at(&chars, cursor, "super::") {
                prefix.pop();
                cursor += "super::".len();
            } else {
                break;
            }
            first = false;
        }
        at = tree(&chars, cursor, prefix, &mut out);
    }
    out
}

/// `text` without its comment lines and without the tests that follow `#[cfg(test)]` and a `mod`.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::new();
    for (n, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" {
            let next = lines[n + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty());
            if next.is_some_and(|l| l.contains("mod ") && l.ends_with('{')) {
                break;
            }
        }
        if !trimmed.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
    code
}

fn starts_path(chars: &[char], at: usize) -> bool {
    let boundary = at == 0 || !(chars[at - 1].is_alphanumeric() || chars[at - 1] == '_');
    boundary && (word_at(chars, at, "crate::") || word_at(chars, at, "super::"))
}

fn word_at(chars: &[char], at: usize, word: &str) -> bool {
    word.chars()
        .enumerate()
        .all(|(i, c)| chars.get(at + i) == Some(&c))
}

/// Reads one use tree (`a::b`, `a::{b, c::d}`, `a::*`) after `prefix`; returns where it ends.
fn tree(
    chars: &[char],
    mut at: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        at = skip_space(chars, at);
        match chars.get(at) {
            Some('{') => return group(chars, at + 1, &prefix, out),
            Some(c) if c.is_alphabetic() || *c == '_' => {
                let start = at;
                while chars
                    .get(at)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    at += 1;
                }
                let segment: String = chars[start..at].iter().collect();
                if segment != "self" {
                    prefix.push(segment);
                }
                if !word_at(chars, at, "::") {
                    out.push(prefix);
                    return at;
                }
                at += 2;
            }
            _ => {
                out.push(prefix);
                return at;
            }
        }
    }
}

fn group(chars: &[char], mut at: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    loop {
        at = skip_space(chars, at);
        match chars.get(at) {
            None => return at,
            Some('}') => return at + 1,
            Some(',') => at += 1,
            Some(_) => {
                at = tree(chars, at, prefix.to_vec(), out);
                // What a tree leaves, such as `as Name`, up to the next item or the group's end.
                while chars.get(at).is_some_and(|c| *c != ',' && *c != '}') {
                    at += 1;
                }
            }
        }
    }
}

fn skip_space(chars: &[char], mut at: usize) -> usize {
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}
