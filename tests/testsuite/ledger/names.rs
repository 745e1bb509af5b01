//! The names in a line of a code block, found with patterns rather than a parser (good enough
//! for a book whose blocks are statements and small items): its code without strings and
//! comments, the names it uses, and the names it defines (bindings, items, imports, parameters).

use std::sync::LazyLock;

use regex::Regex;

/// The languages whose blocks the check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Language {
    Rust,
    Python,
    TypeScript,
}

pub(super) fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

pub(super) static WORD: LazyLock<Regex> = LazyLock::new(|| regex(r"[A-Za-z_][A-Za-z0-9_]*"));
static INTERPOLATED: LazyLock<Regex> = LazyLock::new(|| regex(r"\{([^{}]*)\}"));

/// The code of a line with string literals and comments left out; what a string interpolates
/// (`{name}` in Rust format strings and Python f-strings, `${name}` in TypeScript templates)
/// stays, since it is code.
pub(super) fn code_of(text: &str, language: Language) -> String {
    let mut code = String::new();
    let mut chars = text.chars().peekable();
    let mut previous = ' ';
    while let Some(ch) = chars.next() {
        let comment = match language {
            Language::Rust | Language::TypeScript => ch == '/' && chars.peek() == Some(&'/'),
            Language::Python => ch == '#',
        };
        if comment {
            break;
        }
        let quote = matches!(
            (language, ch),
            (_, '"')
                | (Language::Python | Language::TypeScript, '\'')
                | (Language::TypeScript, '`')
        );
        // A Rust char literal or lifetime is not a string; neither is a word's apostrophe.
        if !quote || previous.is_alphanumeric() && ch == '\'' {
            code.push(ch);
            previous = ch;
            continue;
        }
        code.push(' ');
        let mut inside = String::new();
        let mut escaped = false;
        for next in chars.by_ref() {
            if escaped {
                escaped = false;
                continue;
            }
            if next == '\\' {
                escaped = true;
                continue;
            }
            if next == ch {
                break;
            }
            inside.push(next);
        }
        for interpolated in INTERPOLATED.captures_iter(&inside) {
            let part = interpolated[1].split(':').next().unwrap_or_default();
            code.push(' ');
            code.push_str(part);
            code.push(' ');
        }
        previous = ' ';
    }
    code
}

/// The words of `code` used as names: not a field, method or path segment (`.name`, `::name`)
/// and not a keyword argument or object key (`name=`, `name:` in Python and TypeScript). An
/// import (`use`, `import`, `from ... import`) defines names; it uses none.
pub(super) fn used_names(code: &str, language: Language) -> Vec<String> {
    let mut names = Vec::new();
    let trimmed = code.trim_start();
    let import = match language {
        Language::Rust => trimmed.starts_with("use ") || trimmed.starts_with("pub use "),
        Language::Python => trimmed.starts_with("import ") || trimmed.starts_with("from "),
        Language::TypeScript => trimmed.starts_with("import "),
    };
    if import {
        return names;
    }
    for word in WORD.find_iter(code) {
        let before = code[..word.start()].trim_end();
        let after = code[word.end()..].trim_start();
        if before.ends_with('.') && !before.ends_with("..") || before.ends_with("::") {
            continue;
        }
        let keyword_argument = match language {
            Language::Rust => false,
            Language::Python => after.starts_with('=') && !after.starts_with("=="),
            Language::TypeScript => after.starts_with(':') && !before.ends_with('?'),
        };
        if !keyword_argument {
            names.push(word.as_str().to_owned());
        }
    }
    names
}

/// Type names a parameter list or annotation mentions, which a pattern may take for bindings.
const TYPE_WORDS: &[&str] = &[
    "_", "any", "Array", "bool", "boolean", "bytes", "dict", "float", "int", "list", "never",
    "None", "number", "object", "Promise", "Record", "str", "string", "unknown", "void",
];

/// The names a line defines (bindings, items, imports, parameters), by pattern.
pub(super) fn defined_names(code: &str, language: Language) -> Vec<String> {
    static RUST: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"\blet\s+(?:mut\s+)?([^=;]+?)\s*(?::[^=]*)?=",
            r"\blet\s+(?:mut\s+)?(\w+)\s*;",
            r"\b(?:fn|struct|enum|trait|type|const|static|mod)\s+(\w+)",
            r"\bfor\s+(.+?)\s+in\b",
            r"\|([^|]*)\|",
            r"(?:^|[(,])\s*(?:mut\s+)?(\w+)\s*:[^:]",
            r"\b(?:Some|Ok|Err)\(([^)]*)\)\s*=>",
            r"^\s*(?:pub\s+)?use\s+(.*)$",
        ]
        .iter()
        .map(|p| regex(p))
        .collect()
    });
    static PYTHON: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"^\s*(?:async\s+)?def\s+(\w+)\s*\(([^)]*)",
            r"^\s*class\s+(\w+)",
            r"^\s*([\w\s,]+?)\s*(?::[^=]+)?=[^=]",
            r"\bimport\s+(.+)$",
            r"\bfor\s+(.+?)\s+in\b",
            r"\bas\s+(\w+)",
            r"\blambda\s+([^:]*):",
        ]
        .iter()
        .map(|p| regex(p))
        .collect()
    });
    static TYPESCRIPT: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"\b(?:const|let|var)\s+(\{[^}]*\}|\[[^\]]*\]|\w+)",
            r"\bfunction\s+(\w+)\s*(?:<[^>]*>)?\s*\(([^)]*)",
            r"\bimport\s+(?:type\s+)?(\{[^}]*\}|\w+|\*\s+as\s+\w+)",
            r"\bcatch\s*\((\w+)",
            r"\(([^()]*)\)\s*(?::\s*[^=]+)?=>",
            r"(\w+)\s*=>",
            r"\bfor\s*\(\s*(?:const|let)\s+(\[[^\]]*\]|\w+)",
            r"\b(\w+)\s*!?:\s*\(\)\s*=>",
        ]
        .iter()
        .map(|p| regex(p))
        .collect()
    });
    let patterns = match language {
        Language::Rust => &*RUST,
        Language::Python => &*PYTHON,
        Language::TypeScript => &*TYPESCRIPT,
    };
    let mut names = Vec::new();
    for (index, pattern) in patterns.iter().enumerate() {
        // In a Rust `let`, `for` or match pattern, capitalised words are types and variants.
        let bindings_only = language == Language::Rust && index != 2 && index != 7;
        for found in pattern.captures_iter(code) {
            for group in found.iter().skip(1).flatten() {
                let text = group.as_str();
                // In a `use` path only the last segments are names: `a::b::{C, D}` defines C, D.
                let import = language == Language::Rust && index == 7;
                let words = WORD
                    .find_iter(text)
                    .filter(|w| !import || !text[w.end()..].trim_start().starts_with("::"))
                    .map(|w| w.as_str())
                    .filter(|w| !import || !["self", "crate", "super", "as"].contains(w));
                names.extend(
                    words
                        .filter(|w| !bindings_only || !w.starts_with(char::is_uppercase))
                        .filter(|w| !TYPE_WORDS.contains(w))
                        .map(str::to_owned),
                );
            }
        }
    }
    names
}
