//! Java `.properties` text, as `java.util.Properties.load` reads it, for `mm2.properties` files.
//!
//! Supported: `#`/`!` comment lines, `=`/`:`/whitespace key separators, backslash line
//! continuation (the next line's leading whitespace is dropped), and the escapes `\t \n \r \f
//! \uXXXX`; any other escaped character stands for itself (`\\`, `\=`, `\:`, `\ `, `\#`).
//! Java reads the file as ISO-8859-1; we take text that is already decoded, so non-ASCII UTF-8
//! is kept as written rather than turned into Latin-1 mojibake.

use crate::error::ConfigError;
use crate::secrets::is_sensitive_key;

/// Parses `.properties` text into `(key, value)` pairs in file order.
///
/// Duplicate keys are all returned; the caller decides (MM2, like `Properties`, keeps the last).
/// The only error is a malformed `\uXXXX` escape, reported against the key it appeared in (or
/// `line N` when the key itself is malformed).
pub fn parse_properties(text: &str) -> Result<Vec<(String, String)>, ConfigError> {
    let mut pairs = Vec::new();
    for (line_no, logical) in logical_lines(text) {
        let (raw_key, raw_value) = split_key_value(&logical);
        let key = unescape(raw_key).map_err(|reason| {
            ConfigError::new(format!("line {line_no}"), format!("bad key: {reason}"))
        })?;
        let value = unescape(raw_value).map_err(|reason| {
            // The escape is part of the secret: say only that one is malformed.
            let reason = match is_sensitive_key(&key) {
                true => "malformed \\uXXXX escape in a secret value".to_string(),
                false => reason,
            };
            ConfigError::new(key.clone(), reason)
        })?;
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// Java's whitespace for `.properties`: space, tab and form feed (line ends are handled apart).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// Joins continued lines and drops blank and comment lines; yields each logical line with the
/// 1-based number of its first natural line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut natural = split_natural_lines(text).into_iter().enumerate();
    while let Some((index, first)) = natural.next() {
        let first = first.trim_start_matches(is_blank);
        // A comment line never continues, even when it ends in a backslash (Java does the same).
        if first.is_empty() || first.starts_with('#') || first.starts_with('!') {
            continue;
        }
        let mut logical = String::new();
        let mut current = first;
        loop {
            if ends_with_odd_backslashes(current) {
                logical.push_str(&current[..current.len() - 1]);
                match natural.next() {
                    Some((_, next)) => current = next.trim_start_matches(is_blank),
                    None => break,
                }
            } else {
                logical.push_str(current);
                break;
            }
        }
        out.push((index + 1, logical));
    }
    out
}

/// Splits on `\n`, `\r` and `\r\n`, the three line terminators `Properties` accepts.
fn split_natural_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// A line continues when it ends in an odd number of backslashes (an even run is escaped `\\`s).
fn ends_with_odd_backslashes(line: &str) -> bool {
    line.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// Splits a logical line at the first unescaped `=`, `:` or whitespace. After whitespace, one
/// `=` or `:` may still follow and belongs to the separator; the value keeps trailing blanks.
fn split_key_value(line: &str) -> (&str, &str) {
    let mut escaped = false;
    let mut key_end = line.len();
    let mut separator = None;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
        } else if c == '=' || c == ':' || is_blank(c) {
            key_end = i;
            separator = Some(c);
            break;
        }
    }
    let key = &line[..key_end];
    let Some(sep) = separator else {
        return (key, "");
    };
    let mut rest = &line[key_end + sep.len_utf8()..];
    if is_blank(sep) {
        rest = rest.trim_start_matches(is_blank);
        if let Some(after) = rest.strip_prefix(['=', ':']) {
            rest = after;
        }
    }
    (key, rest.trim_start_matches(is_blank))
}

/// Resolves backslash escapes. `\uXXXX` escapes are UTF-16 units, so a surrogate pair written as
/// two escapes becomes one character; a lone surrogate cannot be a Rust `char` and is an error.
fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escaped) = chars.next() else {
            // A trailing lone backslash only survives at end of input; Java drops it.
            break;
        };
        match escaped {
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            'f' => out.push('\u{c}'),
            'u' => {
                let unit = read_hex4(&mut chars)?;
                if (0xD800..0xDC00).contains(&unit) {
                    let low = read_low_surrogate(&mut chars).ok_or_else(|| {
                        format!("\\u{unit:04X} is a high surrogate without its low half")
                    })?;
                    let code =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    out.push(char::from_u32(code).ok_or_else(|| "bad surrogate pair".to_string())?);
                } else {
                    out.push(char::from_u32(u32::from(unit)).ok_or_else(|| {
                        format!("\\u{unit:04X} is a lone low surrogate, not a character")
                    })?);
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Reads the four hex digits of a `\u` escape, as Java's "Malformed \uxxxx encoding" check does.
fn read_hex4(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<u16, String> {
    let mut unit: u16 = 0;
    for _ in 0..4 {
        let digit = chars
            .next()
            .and_then(|c| c.to_digit(16))
            .ok_or_else(|| "malformed \\uxxxx escape (needs four hex digits)".to_string())?;
        unit = (unit << 4) | digit as u16;
    }
    Ok(unit)
}

/// Consumes a following `\uDC00`..`\uDFFF` escape if there is one.
fn read_low_surrogate(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u16> {
    let mut probe = chars.clone();
    if probe.next() != Some('\\') || probe.next() != Some('u') {
        return None;
    }
    let low = read_hex4(&mut probe).ok()?;
    if !(0xDC00..0xE000).contains(&low) {
        return None;
    }
    *chars = probe;
    Some(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        parse_properties(text).unwrap()
    }

    fn p(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn separators_equals_colon_and_whitespace() {
        let cases = [
            ("a=b", p("a", "b")),
            ("a = b", p("a", "b")),
            ("a:b", p("a", "b")),
            ("a : b", p("a", "b")),
            ("a b", p("a", "b")),
            ("a\t\tb", p("a", "b")),
            ("a   = b", p("a", "b")),
            ("a   :b", p("a", "b")),
            ("a", p("a", "")),
            ("a=", p("a", "")),
            ("   a.b.c   =   x y z", p("a.b.c", "x y z")),
            ("a==b", p("a", "=b")),
            ("a b = c", p("a", "b = c")),
            ("A->B.enabled = true", p("A->B.enabled", "true")),
        ];
        for (text, want) in cases {
            assert_eq!(pairs(text), vec![want], "{text:?}");
        }
    }

    #[test]
    fn value_keeps_trailing_whitespace_like_java() {
        assert_eq!(pairs("k = v  "), vec![p("k", "v  ")]);
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let text = "# comment\n! also comment\n   # indented comment\n\n   \nk=v # not a comment\n";
        assert_eq!(pairs(text), vec![p("k", "v # not a comment")]);
    }

    #[test]
    fn comment_line_ending_in_backslash_does_not_continue() {
        assert_eq!(pairs("# comment \\\nk=v"), vec![p("k", "v")]);
    }

    #[test]
    fn backslash_continues_the_line_and_drops_leading_blanks() {
        let text = "groups = a, \\\n     b, \\\n\tc\nnext = 1";
        assert_eq!(pairs(text), vec![p("groups", "a, b, c"), p("next", "1")]);
    }

    #[test]
    fn even_backslash_run_does_not_continue() {
        assert_eq!(pairs("a = x\\\\\nb = y"), vec![p("a", "x\\"), p("b", "y")]);
    }

    #[test]
    fn continuation_at_end_of_input_is_dropped() {
        assert_eq!(pairs("a = x\\"), vec![p("a", "x")]);
    }

    #[test]
    fn crlf_and_cr_line_ends() {
        assert_eq!(
            pairs("a=1\r\nb=2\rc=3"),
            vec![p("a", "1"), p("b", "2"), p("c", "3")]
        );
        assert_eq!(pairs("a=x\\\r\n  y"), vec![p("a", "xy")]);
    }

    #[test]
    fn escapes_in_keys_and_values() {
        let cases = [
            (r"k=a\tb", p("k", "a\tb")),
            (r"k=a\nb", p("k", "a\nb")),
            (r"k=a\\b", p("k", "a\\b")),
            (r"k=a\=b\:c", p("k", "a=b:c")),
            (r"k=\u0041\u00e9", p("k", "Aé")),
            (r"k=\uD83D\uDE00", p("k", "\u{1F600}")),
            (r"k\=x=v", p("k=x", "v")),
            (r"k\:x:v", p("k:x", "v")),
            (r"my\ key = v", p("my key", "v")),
            (r"k=\q", p("k", "q")),
            (r"k=\ lead", p("k", " lead")),
        ];
        for (text, want) in cases {
            assert_eq!(pairs(text), vec![want], "{text:?}");
        }
    }

    #[test]
    fn malformed_unicode_escape_names_the_key() {
        for text in [r"k=\u12", r"k=\uZZZZ", r"k=\uD83D", r"k=\uDE00"] {
            let err = parse_properties(text).unwrap_err();
            assert_eq!(err.key, "k", "{text:?}");
        }
        let err = parse_properties("a=1\n\nb\\u1=2").unwrap_err();
        assert_eq!(err.key, "line 3");
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        assert_eq!(pairs("a=1\na=2"), vec![p("a", "1"), p("a", "2")]);
    }

    /// Writes `s` so that `parse_properties` must read it back unchanged.
    fn escape(s: &str, is_key: bool) -> String {
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\u{c}' => out.push_str("\\f"),
                '=' | ':' | '#' | '!' => {
                    out.push('\\');
                    out.push(c);
                }
                ' ' if is_key || i == 0 => out.push_str("\\ "),
                _ => out.push(c),
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(text in "\\PC*") {
            let _ = parse_properties(&text);
        }

        #[test]
        fn escaped_pairs_round_trip(key in "[a-zA-Z0-9.=: #!\\\\\t\n-]{1,12}", value in "\\PC{0,16}") {
            let text = format!("{} = {}\n", escape(&key, true), escape(&value, false));
            proptest::prop_assert_eq!(parse_properties(&text).unwrap(), vec![(key, value)]);
        }
    }
}
