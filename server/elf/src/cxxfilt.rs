//! The `c++filt` spelling of cpp_demangle's output, in one pass over it: special names in words,
//! the standard abbreviations spelled out, integer-literal casts as suffixes, a space between a
//! function type's return type and its parameters, no trailing `, ` for an empty pack.
//!
//! The pass jumps between candidate positions (`std::`, `(`, `, >`) with `memchr`/`memmem` and
//! copies the text in between in one piece, so a name with nothing to rewrite costs three scans.

use memchr::memmem;

/// Short spelling after `std::`, the template `c++filt` prints, and the template's own name (for
/// the constructor and destructor of the abbreviated class).
const ABBREVIATIONS: [(&str, &str, &str); 4] = [
    (
        "string",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        "basic_string",
    ),
    (
        "istream",
        "std::basic_istream<char, std::char_traits<char> >",
        "basic_istream",
    ),
    (
        "ostream",
        "std::basic_ostream<char, std::char_traits<char> >",
        "basic_ostream",
    ),
    (
        "iostream",
        "std::basic_iostream<char, std::char_traits<char> >",
        "basic_iostream",
    ),
];

/// Integer literals in template arguments: `(long)1` → `1l`.
const CASTS: [(&str, &str); 5] = [
    ("(unsigned long long)", "ull"),
    ("(unsigned long)", "ul"),
    ("(unsigned int)", "u"),
    ("(long long)", "ll"),
    ("(long)", "l"),
];

/// How far the pass looks for the `)` that closes a parenthesis (longer groups keep cpp_demangle's
/// spacing; real names stay far below).
const MAX_GROUP: usize = 8 * 1024;

/// Append the `c++filt` spelling of `s` (cpp_demangle output) to `out`.
pub(crate) fn rewrite(s: &str, out: &mut String) {
    out.reserve(s.len() + s.len() / 4);
    let body = match special_name(s) {
        Some((words, body)) => {
            out.push_str(words);
            body
        }
        None => s,
    };
    rewrite_body(body, out);
}

/// cpp_demangle writes vtables, VTTs and thunks as `{vtable(X)}` …; `c++filt` as `vtable for X`.
fn special_name(s: &str) -> Option<(&'static str, &str)> {
    let inner = s.strip_prefix('{')?.strip_suffix(")}")?;
    if let Some(t) = inner.strip_prefix("vtable(") {
        return Some(("vtable for ", t));
    }
    if let Some(t) = inner.strip_prefix("vtt(") {
        return Some(("VTT for ", t));
    }
    let mut rest = inner.strip_prefix("virtual override thunk(")?;
    // `{offset(N)}, F` | `{virtual offset(A, B)}, F` | covariant: two offsets then F.
    let mut offsets = 0;
    let mut first_is_fixed = false;
    while let Some(r) = rest.strip_prefix('{') {
        let Some(end) = r.find("}, ") else { break };
        if offsets == 0 {
            first_is_fixed = r.starts_with("offset(");
        }
        offsets += 1;
        rest = &r[end + 3..];
    }
    let words = match (offsets, first_is_fixed) {
        (1, true) => "non-virtual thunk to ",
        (1, false) => "virtual thunk to ",
        _ => "covariant return thunk to ",
    };
    Some((words, rest))
}

fn rewrite_body(s: &str, out: &mut String) {
    let b = s.as_bytes();
    let std_finder = memmem::Finder::new("std::");
    let pack_finder = memmem::Finder::new(", >");
    let find_std = |from: usize| std_finder.find(&b[from..]).map(|i| i + from);
    let find_paren = |from: usize| memchr::memchr(b'(', &b[from..]).map(|i| i + from);
    let find_pack = |from: usize| pack_finder.find(&b[from..]).map(|i| i + from);
    let find_amp = |from: usize| memchr::memchr(b'&', &b[from..]).map(|i| i + from);
    let mut next_std = find_std(0);
    let mut next_paren = find_paren(0);
    let mut next_pack = find_pack(0);
    let mut next_amp = find_amp(0);
    // `s[..copied]` is in `out` (rewritten).
    let mut copied = 0;
    loop {
        let pos = [next_std, next_paren, next_pack, next_amp]
            .into_iter()
            .flatten()
            .min();
        let Some(pos) = pos else { break };
        if pos < copied {
            // Inside text an earlier rewrite consumed.
            if next_std == Some(pos) {
                next_std = find_std(copied);
            } else if next_paren == Some(pos) {
                next_paren = find_paren(copied);
            } else if next_amp == Some(pos) {
                next_amp = find_amp(copied);
            } else {
                next_pack = find_pack(copied);
            }
            continue;
        }
        if next_std == Some(pos) {
            if let Some(end) = abbreviation(s, pos, &s[copied..pos], out) {
                copied = end;
            }
            next_std = find_std(copied.max(pos + 1));
        } else if next_paren == Some(pos) {
            if let Some((digits, suffix)) = cast(s, pos) {
                out.push_str(&s[copied..pos]);
                out.push_str(digits.1);
                out.push_str(suffix);
                copied = digits.0;
            } else if needs_space_before_params(s, pos) {
                out.push_str(&s[copied..pos]);
                out.push(' ');
                copied = pos;
            }
            next_paren = find_paren(copied.max(pos + 1));
        } else if next_amp == Some(pos) {
            if let Some(end) = function_address(s, pos, &s[copied..pos], out) {
                copied = end;
            }
            next_amp = find_amp(copied.max(pos + 1));
        } else {
            // `T<A, >`: cpp_demangle's separator before an empty pack.
            out.push_str(&s[copied..pos]);
            copied = pos + 2;
            next_pack = find_pack(copied);
        }
    }
    out.push_str(&s[copied..]);
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A standard abbreviation at `pos` (`std::string` …): pushes `pending` and the spelled-out form to
/// `out` and returns where the abbreviation (and its constructor/destructor name) ends.
fn abbreviation(s: &str, pos: usize, pending: &str, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    if pos > 0 && (is_ident(b[pos - 1]) || b[pos - 1] == b':') {
        return None;
    }
    let after_std = &s[pos + "std::".len()..];
    let (short, long, template) = ABBREVIATIONS.iter().find(|(short, ..)| {
        after_std.starts_with(short)
            && !after_std
                .as_bytes()
                .get(short.len())
                .is_some_and(|&c| is_ident(c))
    })?;
    out.push_str(pending);
    out.push_str(long);
    let mut end = pos + "std::".len() + short.len();
    // The constructor and destructor of the abbreviated class are named after the template.
    let rest = &s[end..];
    for (sep, tilde) in [("::", ""), ("::~", "~")] {
        if let Some(r) = rest.strip_prefix(sep)
            && r.starts_with(short)
            && !r.as_bytes().get(short.len()).is_some_and(|&c| is_ident(c))
        {
            out.push_str("::");
            out.push_str(tilde);
            out.push_str(template);
            end += sep.len() + short.len();
            return Some(end);
        }
    }
    // `c++filt` separates closing angle brackets: `> >`.
    if rest.starts_with('>') {
        out.push(' ');
    }
    Some(end)
}

/// The address of a function as a template argument (`&f`), which cpp_demangle prints with the
/// function's parameters: `c++filt` prints `&ns::f` for a plain function and
/// `&(R ns::f<T>(A))` for a function template. Pushes `pending` and the rewritten argument and
/// returns where the argument ends.
fn function_address(s: &str, pos: usize, pending: &str, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let starts_arg = pos > 0 && b[pos - 1] == b'<' || pos > 1 && &b[pos - 2..pos] == b", ";
    if !starts_arg {
        return None;
    }
    let (mut angle, mut paren, mut brace) = (0usize, 0usize, 0usize);
    let mut params = None;
    let mut end = None;
    let mut i = pos + 1;
    while i < b.len().min(pos + MAX_GROUP) {
        match b[i] {
            b'(' if angle == 0 && paren == 0 && brace == 0 => {
                if s[i..].starts_with("(anonymous namespace)") {
                    i += "(anonymous namespace)".len();
                    continue;
                }
                params.get_or_insert(i);
                paren += 1;
            }
            b'(' => paren += 1,
            b')' => paren = paren.checked_sub(1)?,
            b'{' => brace += 1,
            b'}' => brace = brace.checked_sub(1)?,
            b'<' if paren == 0 && brace == 0 => angle += 1,
            b'>' | b',' if angle == 0 && paren == 0 && brace == 0 => {
                end = Some(i);
                break;
            }
            b'>' if paren == 0 && brace == 0 => angle -= 1,
            _ => {}
        }
        i += 1;
    }
    let (params, end) = (params?, end?);
    let name = s[pos + 1..params].trim_end();
    out.push_str(pending);
    // A qualified plain function loses its parameters; anything else is kept in parentheses.
    if name.ends_with('>') || !name.contains("::") {
        out.push_str("&(");
        rewrite_body(name, out);
        rewrite_body(&s[params..end], out);
        out.push(')');
    } else {
        out.push('&');
        rewrite_body(name, out);
    }
    Some(end)
}

/// `(long)-1` at `pos` → ((end, "-1"), "l").
fn cast(s: &str, pos: usize) -> Option<((usize, &str), &'static str)> {
    let rest = &s[pos..];
    CASTS.iter().find_map(|(cast, suffix)| {
        let after = rest.strip_prefix(cast)?;
        let a = after.as_bytes();
        let sign = usize::from(a.first() == Some(&b'-'));
        let digits = a[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
        (digits > 0).then(|| {
            let end = pos + cast.len() + sign + digits;
            ((end, &s[pos + cast.len()..end]), *suffix)
        })
    })
}

/// cpp_demangle prints a function type in a template argument without a space (`R(A)`);
/// `c++filt` writes `R (A)`. A `(` right after a type, whose group is followed by the end of the
/// template argument (`>` or `,`), opens such a parameter list; a function name's parameters are
/// followed by the end of the name, `::` or a qualifier instead.
fn needs_space_before_params(s: &str, pos: usize) -> bool {
    let b = s.as_bytes();
    let Some(&prev) = pos.checked_sub(1).and_then(|i| b.get(i)) else {
        return false;
    };
    if !(is_ident(prev) || matches!(prev, b'>' | b'*' | b'&')) {
        return false;
    }
    let head = &s[..pos];
    if matches!(prev, b'*' | b'&') {
        // `R const&(A)` is a function type; `(a)&&(b)` an expression.
        let before = head.trim_end_matches(['*', '&']).bytes().next_back();
        if !before.is_some_and(|c| is_ident(c) || c == b'>') {
            return false;
        }
    }
    if is_ident(prev) {
        let word_start = head
            .bytes()
            .rposition(|c| !is_ident(c))
            .map_or(0, |i| i + 1);
        if matches!(
            &head[word_start..],
            "lambda" | "decltype" | "sizeof" | "alignof" | "noexcept" | "typeid" | "throw"
        ) {
            return false;
        }
    }
    if head.ends_with("operator>") || head.ends_with("operator>>") || head.ends_with("operator->") {
        return false;
    }
    let mut depth = 0usize;
    for (i, &c) in b[pos..].iter().enumerate().take(MAX_GROUP) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return matches!(b.get(pos + i + 1), Some(b'>' | b','));
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> String {
        let mut out = String::new();
        rewrite(s, &mut out);
        out
    }

    #[test]
    fn abbreviations() {
        assert_eq!(
            rw("f(std::string const&)"),
            "f(std::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)"
        );
        assert_eq!(
            rw("std::vector<std::string>"),
            "std::vector<std::basic_string<char, std::char_traits<char>, std::allocator<char> > >"
        );
        assert_eq!(
            rw("std::string::~string()"),
            "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::~basic_string()"
        );
        assert_eq!(rw("my::std::string"), "my::std::string");
        assert_eq!(rw("std::strings"), "std::strings");
    }

    #[test]
    fn literals_and_function_types() {
        assert_eq!(rw("A<(long)-1, (unsigned int)2>"), "A<-1l, 2u>");
        assert_eq!(rw("(long)x"), "(long)x");
        assert_eq!(
            rw("std::function<at::Generator(signed char)> const&"),
            "std::function<at::Generator (signed char)> const&"
        );
        assert_eq!(rw("f<g()::{lambda()#1}>()"), "f<g()::{lambda()#1}>()");
        assert_eq!(rw("w<bool(float), >"), "w<bool (float)>");
        assert_eq!(rw("{vtable(c10::Error)}"), "vtable for c10::Error");
    }
}
