//! Text from input, made safe to show. Every layer quotes what it was sent in its errors (an
//! option value, a bad SFEN field, a command word), so this sits at the bottom of the crate,
//! below the rules core, and imports nothing.

/// `text` made safe to print: control characters (and the escape that starts terminal
/// sequences) are written as `\x..` or `\u{..}`, and it is cut to `max` characters.
pub fn sanitize(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i >= max {
            out.push_str("...");
            break;
        }
        if c.is_control() || c == '\u{feff}' {
            let code = c as u32;
            if code < 0x100 {
                out.push_str(&format!("\\x{code:02x}"));
            } else {
                out.push_str(&format!("\\u{{{code:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_escapes_controls_and_cuts() {
        assert_eq!(sanitize("ab\x1b[2Jc\r", 100), "ab\\x1b[2Jc\\x0d");
        assert_eq!(sanitize("abcdef", 3), "abc...");
        assert_eq!(sanitize("\u{85}", 5), "\\x85");
    }
}
