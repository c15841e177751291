//! Paths worth a document link in a traceback or loader error: `File "/x/y.py", line 3`, IPython's
//! `File /x/y.py:3`, and shared-library paths (`/…/lib.so`, `/…/lib.so.12`).
//!
//! Works on the raw text as the editor shows it, so the same scan serves logs and `.ipynb` JSON
//! (`File \"/x.py\"` and `\u001b[…m` colour escapes are skipped). Checking that a path exists is
//! the caller's job: this module never touches the filesystem.

use abidoc_syntax::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRef {
    /// Byte span of the path itself.
    pub span: Span,
    pub path: String,
    /// One-based line number the traceback names.
    pub line: Option<u32>,
}

/// Finds file paths in `text`, in text order, without duplicates.
pub fn find_paths(text: &str) -> Vec<PathRef> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("File ") {
        if let Some(found) = frame_path(text, at + "File ".len()) {
            out.push(found);
        }
    }
    for (at, _) in text.match_indices(".so") {
        if let Some(found) = library_path(text, at)
            && !out.iter().any(|p: &PathRef| p.span == found.span)
        {
            out.push(found);
        }
    }
    out.sort_by_key(|p| p.span.start);
    out
}

/// Skips colour escapes, as terminal bytes (`ESC [ … m`) or JSON-escaped (`\u001b[ … m`).
fn skip_escapes(bytes: &[u8], mut i: usize) -> usize {
    loop {
        let rest = bytes.get(i..).unwrap_or(&[]);
        let len = if rest.starts_with(b"\x1b[") {
            2
        } else if rest.starts_with(b"\\u001b[") || rest.starts_with(b"\\u001B[") {
            7
        } else {
            return i;
        };
        let mut j = i + len;
        while let Some(&b) = bytes.get(j) {
            j += 1;
            if b.is_ascii_alphabetic() {
                break;
            }
        }
        i = j;
    }
}

fn frame_path(text: &str, start: usize) -> Option<PathRef> {
    let bytes = text.as_bytes();
    let mut i = skip_escapes(bytes, start);
    let quoted = if bytes.get(i..)?.starts_with(b"\\\"") {
        i += 2;
        true
    } else if bytes.get(i) == Some(&b'"') {
        i += 1;
        true
    } else {
        false
    };
    i = skip_escapes(bytes, i);
    if bytes.get(i) != Some(&b'/') {
        return None;
    }
    let path_start = i;
    while let Some(&b) = bytes.get(i) {
        let stop = if quoted {
            b == b'"' || b == b'\\' || b == b'\n'
        } else {
            b.is_ascii_whitespace()
                || matches!(b, b'"' | b'\\' | b',' | 0x1b)
                || (b == b':' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        };
        if stop {
            break;
        }
        i += 1;
    }
    let path = text.get(path_start..i)?.to_owned();
    if path.len() < 2 {
        return None;
    }
    let span = Span::new(path_start, i);
    let line = if quoted {
        let mut j = i;
        if bytes.get(j..)?.starts_with(b"\\\"") {
            j += 2;
        } else if bytes.get(j) == Some(&b'"') {
            j += 1;
        }
        let rest = bytes.get(j..).unwrap_or(&[]);
        rest.strip_prefix(b", line ").and_then(leading_number)
    } else {
        bytes
            .get(i..)
            .and_then(|r| r.strip_prefix(b":"))
            .and_then(leading_number)
    };
    Some(PathRef { span, path, line })
}

fn leading_number(bytes: &[u8]) -> Option<u32> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(bytes.get(..digits)?).ok()?.parse().ok()
}

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'+' | b'-' | b'@' | b'~')
}

fn library_path(text: &str, dot: usize) -> Option<PathRef> {
    let bytes = text.as_bytes();
    let mut end = dot + ".so".len();
    // `.so` must end the name or be followed by a version: `libcudart.so.12`, `libc10.so`.
    while bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    if bytes
        .get(end)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let mut start = dot;
    while start > 0 && bytes.get(start - 1).copied().is_some_and(is_path_byte) {
        start -= 1;
    }
    // A JSON-escaped `\u001b[0m/path` or `\n/path` leaves letters glued to the path: cut at the
    // first slash so the link covers the path only.
    let slash = text.get(start..dot)?.find('/')? + start;
    if slash != start && bytes.get(slash - 1) != Some(&b':') {
        let glued = text.get(start..slash)?;
        if !(glued.starts_with("u001b") || glued.starts_with('n') || glued.ends_with('m')) {
            return None;
        }
    }
    let path = text.get(slash..end)?.to_owned();
    if !path.contains('/') || path.starts_with("//") {
        return None;
    }
    Some(PathRef {
        span: Span::new(slash, end),
        path,
        line: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, Option<u32>)> {
        find_paths(text)
            .into_iter()
            .map(|p| {
                assert_eq!(p.span.slice(text), p.path);
                (p.path, p.line)
            })
            .collect()
    }

    #[test]
    fn cpython_ipython_json_and_library_paths() {
        let log = "  File \"/usr/lib/python3.12/site-packages/mamba_ssm/__init__.py\", line 3, in <module>\n\
                   ImportError: /opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c10\n\
                   File \x1b[0;32m/x/y.py:17\x1b[0m, in \x1b[0;36mf\x1b[0m\n\
                   OSError: libcudart.so.12: cannot open shared object file\n\
                   OSError: /usr/local/cuda/lib64/libcudart.so.12: cannot\n";
        assert_eq!(
            paths(log),
            vec![
                ("/usr/lib/python3.12/site-packages/mamba_ssm/__init__.py".into(), Some(3)),
                (
                    "/opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so"
                        .into(),
                    None
                ),
                ("/x/y.py".into(), Some(17)),
                ("/usr/local/cuda/lib64/libcudart.so.12".into(), None),
            ]
        );
        let json = r#"    "  File \"/a/b.py\", line 12, in f\n",
    "\u001b[0;32mFile \u001b[0;32m/c/d.py:5\u001b[0m, in \u001b[0;36mg\u001b[0m\n",
    "ImportError: \u001b[0m/e/libf.so: undefined symbol\n""#;
        assert_eq!(
            paths(json),
            vec![
                ("/a/b.py".into(), Some(12)),
                ("/c/d.py".into(), Some(5)),
                ("/e/libf.so".into(), None)
            ]
        );
        assert!(paths("pip install foo.so-thing; File x.py").is_empty());
    }
}
