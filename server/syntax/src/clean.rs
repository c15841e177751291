//! Stripping of terminal colour codes, the HTML anchors VS Code's Jupyter view puts in
//! tracebacks, the backslashes of quotes escaped by a repr or a JSON copy (`version
//! \'GLIBC_2.27\'`) and of Markdown's `\_`/`\*`, HTML entities read as their characters, and
//! re-joining text a terminal or chat client hard-wrapped at a fixed column, keeping a
//! [`SourceMap`] back to the original text.

use crate::span::SourceMap;

#[derive(Debug, Clone, Default)]
pub struct Cleaned {
    pub text: String,
    /// Maps offsets in `text` to offsets in the input. Identity when nothing was removed.
    pub map: SourceMap,
}

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// Returns the text without ANSI escape sequences (CSI, OSC, two-byte escapes), without the
/// `<a href=…>`/`</a>` tags of HTML anchors (their inner text is kept), without the backslash
/// of an escaped quote (`\'`, `\"`: the error went through a repr or a JSON string before it was
/// pasted; a Windows path's backslash is followed by a name, never by a quote it closes) or of
/// Markdown's `\_` and `\*` (off a Windows path), and with HTML entities as their characters.
pub fn clean(text: &str) -> Cleaned {
    let bytes = text.as_bytes();
    if !needs_cleaning(text) {
        return Cleaned {
            text: text.to_owned(),
            map: SourceMap::identity(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut map = SourceMap::default();
    let mut keep_from = 0;
    let mut i = 0;
    let mut removed_any = false;
    let markdown = markdown_escaped(text);
    let entities = has_entity(bytes);
    let autolinks = has_autolink(bytes);
    while let Some(off) = bytes[i..].iter().position(|&b| {
        matches!(b, ESC | b'<' | b'\\')
            || matches!(b, b'&' | 0xE2 | 0xEF) && entities
            || b == b'[' && autolinks
    }) {
        let at = i + off;
        // An HTML entity stands for one character (`&quot;` is `"`): removed, and the character
        // put in its place, mapped to the entity. A Markdown link GitHub made of a file name
        // (`[libcudnn.so](http://libcudnn.so/)`) stands for its text likewise.
        let entity: Option<(usize, &str)> = match bytes[at] {
            b'&' | 0xE2 | 0xEF => entity_at(&bytes[at..]),
            b'[' => autolink_at(text, at),
            _ => None,
        };
        let skip = match (bytes[at], entity) {
            (_, Some((len, _))) => len,
            (ESC, _) => escape_len(&bytes[at..]),
            (b'\\', _) => usize::from(match bytes.get(at + 1) {
                Some(b'\'' | b'"') => true,
                Some(b'_' | b'*') => markdown,
                _ => false,
            }),
            (b'<', _) => anchor_tag_len(&bytes[at..]),
            _ => 0,
        };
        if skip == 0 {
            i = at + 1;
            continue;
        }
        // Escapes, entities and tags are ASCII from their first byte to their last, so `at` and
        // `at + skip` are char boundaries; `get` keeps this panic-free should that ever be wrong.
        if let Some(kept) = text.get(keep_from..at) {
            map.push_verbatim(out.len(), keep_from, kept.len());
            out.push_str(kept);
        }
        if let Some((len, with)) = entity {
            map.push_escape(out.len(), at, len);
            out.push_str(with);
        }
        removed_any = true;
        i = at + skip;
        keep_from = i;
    }
    if !removed_any {
        return Cleaned {
            text: text.to_owned(),
            map: SourceMap::identity(),
        };
    }
    if let Some(kept) = text.get(keep_from..) {
        map.push_verbatim(out.len(), keep_from, kept.len());
        out.push_str(kept);
    }
    if out.is_empty() {
        // Everything was markup: map the empty text to the end so spans stay in range.
        map.push_escape(0, text.len(), 0);
    }
    Cleaned { text: out, map }
}

/// The text with HTML entities, typographic quotes and Markdown's escapes decoded (and whatever
/// else [`clean`] removes), when it has any of those three: they hide phrases from a scan of the
/// raw text. `None` when there is nothing of them, or the text is too long to copy whole.
pub fn decode(text: &str) -> Option<Cleaned> {
    if text.len() > MAX_UNWRAP || !(has_entity(text.as_bytes()) || markdown_escaped(text)) {
        return None;
    }
    let c = clean(text);
    (c.text != text).then_some(c)
}

/// Phrases of the failures users meet, as their programs write them, for lines a title or a
/// chat client lowercased whole (`importerror dll load failed while importing lib`,
/// `the detected cuda version (11.8) mismatches …`).
const CANONICAL: &[&str] = &[
    "DLL load failed",
    "ModuleNotFoundError",
    "ImportError",
    "OSError",
    "RuntimeError",
    "The detected CUDA version",
    "the version that was used to compile PyTorch",
    "CUDA_HOME environment variable is not set",
    "Torch not compiled with CUDA enabled",
    "No CUDA GPUs are available",
    "The NVIDIA driver on your system is too old",
    "CUDA driver version is insufficient for CUDA runtime version",
    "Symbol not found",
    "GLIBCXX_",
    "GLIBC_",
    "CXXABI_",
    "WinError",
];

/// Loaders' phrases distinctive enough to be read in any case on any line: a person retyping
/// one capitalizes a word (`DLL Load failed while importing cuda_utils`) and no other text
/// holds them.
const ANY_CASE: &[&str] = &[
    "DLL load failed",
    "cannot open shared object file",
    "The specified module could not be found",
    "The specified procedure could not be found",
    "no kernel image is available for execution on the device",
];

/// The text with the failure phrases of [`CANONICAL`] written in their programs' case on lines
/// that have no uppercase letter at all (and those of [`ANY_CASE`] on any line), or `None` when
/// no line holds one in another case. Only ASCII letters change case, so every offset stays
/// where it was.
pub fn recase(text: &str) -> Option<String> {
    if text.len() > MAX_UNWRAP {
        return None;
    }
    static LOWER: std::sync::OnceLock<Vec<(String, &'static str)>> = std::sync::OnceLock::new();
    let table = LOWER.get_or_init(|| {
        CANONICAL
            .iter()
            .map(|p| (p.to_ascii_lowercase(), *p))
            .collect()
    });
    static ANY: std::sync::OnceLock<Vec<(String, &'static str)>> = std::sync::OnceLock::new();
    let any_case = ANY.get_or_init(|| {
        ANY_CASE
            .iter()
            .map(|p| (p.to_ascii_lowercase(), *p))
            .collect()
    });
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        // The shortest phrase is 6 bytes; a line shorter than that holds none.
        if line.len() >= 6 {
            let lowered = line
                .bytes()
                .any(|b| b.is_ascii_uppercase())
                .then(|| line.to_ascii_lowercase());
            let (hay, phrases): (&str, &[(String, &str)]) = match &lowered {
                None => (line, table),
                Some(l) => (l, any_case),
            };
            for (lower, phrase) in phrases {
                let mut from = 0;
                while let Some(at) = hay.get(from..).and_then(|r| r.find(lower.as_str())) {
                    let abs = start + from + at;
                    if let Some(dst) = out.get_mut(abs..abs + phrase.len())
                        && dst != phrase.as_bytes()
                    {
                        dst.copy_from_slice(phrase.as_bytes());
                        changed = true;
                    }
                    from += at + lower.len();
                }
            }
        }
        start += line.len();
    }
    if !changed {
        return None;
    }
    String::from_utf8(out).ok()
}

/// Texts longer than this are never treated as hard-wrapped (captures that size are logs,
/// written by programs, not pasted through a terminal's width).
const MAX_UNWRAP: usize = 4 << 20;
/// Narrowest wrap width recognized: below it, equal-length lines are common by chance.
const MIN_WRAP: usize = 60;

/// The text re-joined where a terminal or chat client hard-wrapped it at a fixed column, or
/// `None` when it does not look wrapped. Wrapped means: the longest lines all have the same
/// length W (at least [`MIN_WRAP`] characters), at least two of them differ (a repeated log line
/// is not a wrap), and they are not table rows (`| … |`, `+---+`). Every line of length W is
/// then joined with the line after it; the map points back into `text`.
pub fn unwrap(text: &str) -> Option<Cleaned> {
    if text.len() > MAX_UNWRAP {
        return None;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    fn content(l: &str) -> &str {
        l.trim_end_matches(['\n', '\r'])
    }
    let width = |l: &str| content(l).chars().count();
    let table = |l: &str| {
        let c = content(l);
        c.starts_with(['|', '+']) || c.ends_with(['|', '+', '-', '='])
    };
    let w = lines.iter().map(|l| width(l)).max()?;
    if w < MIN_WRAP {
        return None;
    }
    let wrapped: Vec<bool> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| width(l) == w && !table(l) && i + 1 < lines.len())
        .collect();
    let mut distinct: Vec<&str> = lines
        .iter()
        .zip(&wrapped)
        .filter(|(_, w)| **w)
        .map(|(l, _)| content(l))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut map = SourceMap::default();
    let mut raw = 0;
    for (l, join) in lines.iter().zip(&wrapped) {
        let keep = if *join { content(l) } else { l };
        map.push_verbatim(out.len(), raw, keep.len());
        out.push_str(keep);
        raw += l.len();
    }
    Some(Cleaned { text: out, map })
}

/// Short texts only are read a second way by [`unwrap_once`].
const MAX_UNWRAP_ONCE: usize = 64 << 10;

/// The text with its one longest line joined to the next, when that line may have been cut at a
/// terminal's width: it is the only line that long (at least [`MIN_WRAP`] characters), not a
/// table row, and the cut falls inside a word (no space on either side). A single wrap leaves
/// no second line of the same length to prove it, so the caller keeps this reading only when
/// it finds more than the text as given.
pub fn unwrap_once(text: &str) -> Option<Cleaned> {
    if text.len() > MAX_UNWRAP_ONCE {
        return None;
    }
    fn content(l: &str) -> &str {
        l.trim_end_matches(['\n', '\r'])
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let widths: Vec<usize> = lines.iter().map(|l| content(l).chars().count()).collect();
    let w = widths.iter().copied().max()?;
    // The last line has nothing after it to join: at the width too, it is the wrap's tail.
    let mut at = widths
        .iter()
        .enumerate()
        .filter(|(i, x)| **x == w && i + 1 < widths.len())
        .map(|(i, _)| i);
    let (i, None) = (at.next()?, at.next()) else {
        return None;
    };
    let line = content(lines.get(i)?);
    let next = content(lines.get(i + 1)?);
    // Inside a word or a path: a sentence's end (`…path!` then `Invalid …`) is no cut.
    // A cut right after a space keeps that space at the line's end (`libcudart.so.12: ` then
    // `cannot open …`), which a line ended by hand seldom has: a cut between words.
    // A cut right before a space moves that one space to the next line (` an unsupported
    // toolchain`), which an indented line (two spaces and more) does not start with.
    // (Its next word may be capitalized: ` No such file or directory`.)
    let space_moved = next.starts_with(' ')
        && next[1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic());
    let cut_in_word = line.chars().last().is_some_and(|c| {
        c == ' ' && !line.ends_with("  ")
            || !c.is_whitespace() && !matches!(c, '!' | '?' | ';' | ',' | ')' | '"')
    }) && (space_moved
        || next.chars().next().is_some_and(|c| !c.is_whitespace()));
    if w < MIN_WRAP || !cut_in_word || line.starts_with(['|', '+']) || line.ends_with('|') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut map = SourceMap::default();
    let mut raw = 0;
    for (k, l) in lines.iter().enumerate() {
        let keep = if k == i { content(l) } else { l };
        map.push_verbatim(out.len(), raw, keep.len());
        out.push_str(keep);
        raw += l.len();
    }
    Some(Cleaned { text: out, map })
}

/// Whether [`clean`] would remove anything: an escape, a tag's `<`, or an escaped quote (a
/// Windows path's backslashes alone cost nothing).
pub fn needs_cleaning(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr2(ESC, b'<', bytes).is_some()
        || has_autolink(bytes)
        || memchr::memmem::find(bytes, b"\\'").is_some()
        || memchr::memmem::find(bytes, b"\\\"").is_some()
        || markdown_escaped(text)
        || has_entity(bytes)
}

/// The HTML entities a traceback copied from a web page or an HTML notebook export carries.
const ENTITIES: &[(&[u8], &str)] = &[
    // Typographic quotes a word processor or chat client put for the program's own
    // (`version ‘GLIBCXX_3.4.29’ not found`, `No module named “x”`).
    ("\u{2018}".as_bytes(), "'"),
    ("\u{2019}".as_bytes(), "'"),
    ("\u{201C}".as_bytes(), "\""),
    ("\u{201D}".as_bytes(), "\""),
    // A Chinese input method's full-width colon after an exception's name (`OSError：…`).
    ("\u{FF1A}".as_bytes(), ": "),
    (b"&quot;", "\""),
    (b"&#39;", "'"),
    (b"&#x27;", "'"),
    (b"&apos;", "'"),
    (b"&#96;", "`"),
    (b"&lt;", "<"),
    (b"&gt;", ">"),
    (b"&amp;", "&"),
];

fn has_entity(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(b'&', 0xE2, 0xEF, bytes).any(|i| entity_at(&bytes[i..]).is_some())
}

/// The entity `b` starts with: its length and the text it stands for.
/// Whether the text has a Markdown link to a web address (`](http`): GitHub turns a name that
/// ends like a domain (`libcudnn.so`, `.so` being Somalia's) into one, and a copy of the issue's
/// source keeps the link.
fn has_autolink(b: &[u8]) -> bool {
    memchr::memmem::find(b, b"](http").is_some()
}

/// At `[`: a Markdown link whose address is its own text as a domain
/// (`[libcudnn.so](http://libcudnn.so/)`, `[torch.so](https://torch.so)`), its length and its
/// text. A link to anywhere else is the writer's, and stays.
fn autolink_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let rest = text.get(at + 1..)?;
    let close = rest.get(..rest.len().min(256))?.find("](")?;
    let inner = &rest[..close];
    if inner.is_empty() || inner.contains(['[', ']', '(', ')', ' ', '\n']) {
        return None;
    }
    let after = &rest[close + 2..];
    let end = after.get(..after.len().min(300))?.find(')')?;
    let url = &after[..end];
    let host = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?
        .trim_end_matches('/');
    host.eq_ignore_ascii_case(inner)
        .then_some((1 + close + 2 + end + 1, inner))
}

fn entity_at(b: &[u8]) -> Option<(usize, &'static str)> {
    ENTITIES
        .iter()
        .find(|(e, _)| b.starts_with(e))
        .map(|(e, c)| (e.len(), *c))
}

/// Markdown's escapes of `_` and `*` (`undefined symbol: \_ZN3c10…`, `flash\_attn`), as text
/// copied from a Markdown source arrives; never on a line with a Windows path (`D:\a\_work\`),
/// whose backslashes are separators.
fn markdown_escaped(text: &str) -> bool {
    let bytes = text.as_bytes();
    (memchr::memmem::find(bytes, b"\\_").is_some() || memchr::memmem::find(bytes, b"\\*").is_some())
        && !bytes
            .windows(3)
            .any(|w| w[0].is_ascii_alphabetic() && w[1] == b':' && w[2] == b'\\')
        && memchr::memmem::find(bytes, b"\\\\").is_none()
        && memchr::memmem::find(bytes, b"\\site-packages").is_none()
        && memchr::memmem::find(bytes, b"\\Lib\\").is_none()
}

/// Length of the escape sequence starting at `b[0] == ESC`, or 0 when it is not one we remove.
fn escape_len(b: &[u8]) -> usize {
    match b.get(1) {
        // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
        Some(b'[') => {
            let mut j = 2;
            while j < b.len() && (0x20..=0x3f).contains(&b[j]) {
                j += 1;
            }
            if j < b.len() && (0x40..=0x7e).contains(&b[j]) {
                j + 1
            } else {
                j.min(b.len())
            }
        }
        // OSC (hyperlinks, titles): ends at BEL or ESC \ ; an unterminated one is cut at the line end.
        Some(b']') => {
            let mut j = 2;
            while j < b.len() {
                match b[j] {
                    BEL => return j + 1,
                    ESC if b.get(j + 1) == Some(&b'\\') => return j + 2,
                    b'\n' => return j,
                    _ => j += 1,
                }
            }
            j
        }
        // Character-set selection `ESC ( B` and friends.
        Some(b'(' | b')' | b'*' | b'+') => {
            if b.get(2).is_some_and(u8::is_ascii_graphic) {
                3
            } else {
                2
            }
        }
        Some(c) if (0x40..=0x5f).contains(c) || *c == b'=' || *c == b'>' => 2,
        _ => 1,
    }
}

/// Length of an `<a …>` opening tag or `</a>` closing tag at `b[0] == '<'`, else 0.
fn anchor_tag_len(b: &[u8]) -> usize {
    if b.starts_with(b"</a>") {
        return 4;
    }
    if !(b.starts_with(b"<a ") || b.starts_with(b"<a\t")) {
        return 0;
    }
    // The tag ends at the first '>' outside quotes, on the same line and within a sane length.
    let mut quote = None;
    for (j, &c) in b.iter().enumerate().take(4096).skip(2) {
        match (quote, c) {
            (_, b'\n') => return 0,
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, b'>') => return j + 1,
            _ => {}
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Span;

    #[test]
    fn hard_wrapped_text_is_rejoined_and_maps_back() {
        // A real report (mochi#30) as an 80-column terminal prints it.
        let line = "transformer_engine_extensions.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
        let chars: Vec<char> = line.chars().collect();
        let wrapped: String = chars
            .chunks(80)
            .map(|c| c.iter().collect::<String>() + "\n")
            .collect();
        let u = unwrap(&wrapped).expect("two distinct 80-column lines are a wrap");
        assert_eq!(u.text.trim_end(), line);
        let at = u.text.find("undefined symbol").unwrap_or(0);
        let raw = u.map.span_to_raw(Span::new(at, at + 16));
        assert_eq!(raw.slice(&wrapped), "undefined symbol");
        let sym = u.text.find("_ZN5torch").unwrap_or(0);
        let raw = u.map.span_to_raw(Span::new(sym, u.text.trim_end().len()));
        assert_eq!(raw.slice(&wrapped).replace('\n', ""), &line[sym..]);
    }

    #[test]
    fn html_entities_become_their_characters() {
        let html = "version &#96;GLIBCXX_3.4.29&#39; not found, Error loading &quot;c10.dll&quot; &lt;x&gt; &amp;";
        let c = clean(html);
        assert_eq!(
            c.text,
            "version `GLIBCXX_3.4.29' not found, Error loading \"c10.dll\" <x> &"
        );
        let at = c.text.find("GLIBCXX").unwrap_or(0);
        assert_eq!(
            c.map.span_to_raw(Span::new(at, at + 7)).slice(html),
            "GLIBCXX"
        );
        // A bare ampersand is text.
        assert!(!needs_cleaning("cmake && make"));
        let typo = "version ‘GLIBCXX_3.4.29’ not found, No module named “x”";
        assert_eq!(
            clean(typo).text,
            "version 'GLIBCXX_3.4.29' not found, No module named \"x\""
        );
    }

    #[test]
    fn file_names_github_linked_as_domains_are_their_text() {
        // A real report (poetry#9291): GitHub linked `libcudnn.so` as Somalia's domain.
        let md =
            "ImportError: [libcudnn.so](http://libcudnn.so/).8: cannot open shared object file";
        let c = clean(md);
        assert_eq!(
            c.text,
            "ImportError: libcudnn.so.8: cannot open shared object file"
        );
        let at = c.text.find("cannot").unwrap_or(0);
        assert_eq!(c.map.span_to_raw(Span::new(at, at + 6)).slice(md), "cannot");
        // A link the writer made to somewhere else stays as written.
        let own = "see [the docs](https://pytorch.org/get-started/) for libcudnn.so.8";
        assert_eq!(clean(own).text, own);
        // Unclosed or hostile brackets are text.
        for t in [
            "[libx.so](http://libx.so",
            "[](http://)",
            "[a](http://b)",
            "[x]]](http://x)",
        ] {
            assert_eq!(clean(t).text, t);
        }
    }

    #[test]
    fn markdown_escapes_are_removed_outside_windows_paths() {
        let md = "ImportError: /x/flash\\_attn\\_2\\_cuda.so: undefined symbol: \\_ZN3c104cuda9SetDeviceEi";
        assert_eq!(
            clean(md).text,
            "ImportError: /x/flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
        );
        // A Windows path's backslash before an underscore is a separator.
        let win = r"D:\a\_work\1\s\onnxruntime\core\session\provider_bridge_ort.cc:1209";
        assert!(!needs_cleaning(win));
        let rel = r"venv\Lib\site-packages\_cffi_backend.pyd";
        assert!(!needs_cleaning(rel));
    }

    #[test]
    fn one_line_cut_inside_a_word_is_joined_once() {
        let text = "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64\n-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n";
        let u = unwrap_once(text).expect("the only long line is cut inside a word");
        assert!(u.text.contains("x86_64-linux-gnu.so"));
        // A sentence that ends at the width, the next one below: not a cut.
        assert!(unwrap_once("Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n").is_none());
        // Cut right before a space, which the next line starts with (one space, then a word):
        // a terminal's wrap between words.
        let moved = unwrap_once("ImportError: libcudart.so.12: cannot open shared object file: No such file or\n directory\n").expect("one space moved to the next line");
        assert!(moved.text.contains("No such file or directory"));
        // An indented next line (a traceback's `  File …`) is a line of its own.
        assert!(unwrap_once("ImportError: libcudart.so.12: cannot open shared object file: No such file or\n  File \"x.py\", line 1\n").is_none());
        // Cut right after a space, which the line keeps at its end: a wrap between words.
        let spaced = "RuntimeError: Failed to load shared library '.../libllama.so': libcudart.so.12: \ncannot open shared object file: No such file or directory\n";
        let u = unwrap_once(spaced).expect("a trailing space at the cut");
        assert!(u.text.contains("libcudart.so.12: cannot open"));
    }

    #[test]
    fn unwrapped_text_tables_and_repeated_lines_are_left_alone() {
        assert!(unwrap("short\nlines\n").is_none());
        let repeated = "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n";
        assert!(unwrap(&format!("{repeated}{repeated}{repeated}")).is_none());
        let table = "| 0   N/A  N/A    398114      C   python inference.py                      6322MiB |\n| 0   N/A  N/A    405560      C   python inference.py                      6322MiB |\n";
        assert!(unwrap(table).is_none());
    }

    fn check(input: &str, want: &str) {
        let c = clean(input);
        assert_eq!(c.text, want);
        // Every kept character maps back to the same character in the input.
        for (i, ch) in c.text.char_indices() {
            let sp = c.map.span_to_raw(Span::new(i, i + ch.len_utf8()));
            assert_eq!(sp.slice(input), ch.to_string(), "offset {i}");
        }
    }

    #[test]
    fn strips_csi_osc_and_anchors() {
        check("\x1b[0;31mImportError\x1b[0m: boom", "ImportError: boom");
        check(
            "Cell \x1b[0;32mIn[26], line 3\x1b[0m",
            "Cell In[26], line 3",
        );
        check("\x1b]8;;file:///x.py\x07x.py\x1b]8;;\x07 ok", "x.py ok");
        check(
            "File <a href='file:///opt/x.py:17'>/opt/x.py:17</a>, in f()",
            "File /opt/x.py:17, in f()",
        );
        check("a < b and <abbr>", "a < b and <abbr>");
        check("é\x1b[1mü\x1b[", "éü");
        check("plain", "plain");
        check("\x1b[0m", "");
        check("\x1b(Bx", "x");
    }
}

#[cfg(test)]
mod recase_tests {
    use super::recase;

    #[test]
    fn lowercased_lines_get_their_phrases_back_at_the_same_offsets() {
        let t = "Title\nimporterror dll load failed while importing lib\nthe detected cuda version (11.8) mismatches the version that was used to compile pytorch (12.6).\n";
        let r = recase(t).expect("recased");
        assert_eq!(r.len(), t.len());
        assert!(r.contains("ImportError DLL load failed while importing lib"));
        assert!(r.contains("The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.6)"));
        assert!(r.starts_with("Title\n"));
        // A line with any uppercase letter is as its program wrote it, but for a loader's
        // distinctive phrase.
        assert_eq!(recase("Error: the detected cuda version\n"), None);
        assert_eq!(
            recase("import error: DLL Load failed while importing x\n").as_deref(),
            Some("import error: DLL load failed while importing x\n")
        );
        assert_eq!(recase("ImportError: DLL load failed\n"), None);
        assert_eq!(recase("nothing here\n"), None);
    }
}
