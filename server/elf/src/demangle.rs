//! Demangling (c++filt style), the C++11 ABI flavor of a mangled name, and its qualified name.

use std::borrow::Cow;

use crate::mangled::{self, Component};

/// The `std::string` ABI a mangled name was compiled with, read from the mangled form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AbiFlavor {
    /// `_GLIBCXX_USE_CXX11_ABI=1`: `St7__cxx11` or a `B5cxx11` tag.
    Cxx11,
    /// `_GLIBCXX_USE_CXX11_ABI=0`: `Ss`, `Sb`, or `std::basic_string` (and the other dual-ABI
    /// classes) without `__cxx11`.
    PreCxx11,
    /// Nothing in the name depends on the flag (including `std::istream`/`ostream`, `Si`/`So`/`Sd`,
    /// which are the same class in both ABIs).
    Neutral,
}

impl AbiFlavor {
    /// The value of `_GLIBCXX_USE_CXX11_ABI` this flavor implies, if any.
    pub fn flag(self) -> Option<bool> {
        match self {
            AbiFlavor::Cxx11 => Some(true),
            AbiFlavor::PreCxx11 => Some(false),
            AbiFlavor::Neutral => None,
        }
    }
}

/// cpp_demangle's recursion limit, for parsing and printing.
///
/// Besides the stack, it bounds backtracking that [`MAX_FALLBACK_WORK`] does not see: each
/// level with another reading costs the parser several levels of recursion, so the limit caps
/// how many such levels can nest. A fuzzed 714-byte name (`…IDpsr1AC1…S_ILS_IL__Z…`, nesting
/// 8, work 148,401, both under the bounds) took 1 s at opt-level 1 with the limit at 256 and
/// 160, 0.24 s at 128, 0.1 ms at 96. Of the 168,127 real names of [`MAX_FALLBACK_WORK`], some
/// need more than 64 (2,972 of them change at 64) and none more than 72: all demangle and give
/// their qualified names at 72 exactly as at 256.
const RECURSION_LIMIT: u32 = 96;
/// Names longer than this are not demangled (real ones stay far below; hostile ones explode).
const MAX_MANGLED_LEN: usize = 16 * 1024;
/// The deepest nesting ([`mangled::backtrack_nesting`]) of a name handed to cpp_demangle.
///
/// Its parser backtracks: a name that fails to parse deep inside is parsed again by every
/// enclosing group that has another reading, about twice the work per level, so a 471-byte
/// fuzzed name of nested `St7variantIJ…` took 0.6 s in release and seconds in the fuzz build.
/// The time goes into parsing (printing is capped by [`CappedString`]), which cpp_demangle
/// offers no budget for. [`MAX_FALLBACK_WORK`] bounds it; this depth keeps that estimate honest
/// should some level cost more than double. Real names reach cpp_demangle nested at most 8 when
/// the fast path fails, and 11 when only the component reader fails (`qualified_name` of a
/// torch CUDA kernel whose template arguments hold a lambda, `index_elementwise_kernel`): this
/// leaves three levels (about what the work bound leaves) for those. A refused name stays
/// mangled, like any name that does not demangle.
const MAX_FALLBACK_NESTING: usize = 14;
/// The most parsing ([`mangled::Backtrack::work`]) a name handed to cpp_demangle may cost.
///
/// Depth alone does not bound the time: 12 levels around 15 KB of `i`, cut off, took 80 ms in
/// release, and 5 levels around 8,000 `T_` 150 ms (a unit of work costs cpp_demangle up to
/// about 160 ns, whatever the build). Of 168,127 real mangled names (`nm -D` of libstdc++,
/// LLVM 14, clang 14, z3 and the JVM on this machine, the torch index, the test corpora;
/// measured by the ignored test `real_names_measure`), the 50,201 that reach cpp_demangle (the
/// fast path or the component reader fails) cost at most 39,810 (a 403-byte torch CUDA kernel,
/// 101 per byte). This allows 6.6 times that: the costliest of 37,376 generated names under it
/// took 19–46 ms in release and 28–68 ms at opt-level 1, by the machine's load (8 KB of `T_`
/// under 4 levels).
const MAX_FALLBACK_WORK: u64 = 1 << 18;
/// The most work per byte of the name: a short name must not cost what a long one may. Ten
/// times the real names' 101; it binds only names shorter than 256 bytes.
const MAX_FALLBACK_WORK_PER_BYTE: u64 = 1024;

/// Demangle an Itanium C++ name the way `c++filt` prints it (`char const*`, `unsigned int`,
/// `std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >`).
/// Accepts `_Z…`, macOS `__Z…`, and a trailing `@VERSION`/`@@VERSION`. `None` for names that are
/// not mangled C++ or cannot be demangled.
pub fn demangle(mangled: &str) -> Option<String> {
    let mut out = String::new();
    demangle_into(mangled, &mut out).then_some(out)
}

/// [`demangle`] appending to `out` (which keeps its allocation across calls): `false`, and `out`
/// unchanged, for names that are not mangled C++ or cannot be demangled.
pub fn demangle_into(mangled: &str, out: &mut String) -> bool {
    thread_local! {
        static DEMANGLER: std::cell::RefCell<Demangler> = std::cell::RefCell::new(Demangler::new());
    }
    DEMANGLER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) => d.demangle_into(mangled, out),
        Err(_) => Demangler::new().demangle_into(mangled, out),
    })
}

/// A demangler that keeps its scratch buffers between names: for loops over many symbols.
#[derive(Debug, Default)]
pub struct Demangler {
    /// cpp_demangle's output, before the `c++filt` rewriting.
    scratch: String,
    /// The mangled name with a work-around applied (see [`mangled::template_ctor_params`]).
    patched: String,
    /// The fast path's buffers.
    fast: crate::fastdemangle::Scratch,
}

impl Demangler {
    pub fn new() -> Self {
        Self::default()
    }

    /// [`demangle_into`] with this demangler's buffers.
    pub fn demangle_into(&mut self, mangled: &str, out: &mut String) -> bool {
        let (name, _version) = split_version(mangled);
        if name.starts_with("_Z")
            && name.len() <= MAX_MANGLED_LEN
            && crate::fastdemangle::demangle_with(&mut self.fast, name, out)
        {
            return true;
        }
        let options = cpp_demangle::DemangleOptions::new();
        if !self.raw(mangled, options) {
            return false;
        }
        crate::cxxfilt::rewrite(&self.scratch, out);
        true
    }

    /// cpp_demangle's output for `mangled` into `self.scratch`.
    fn raw(&mut self, mangled: &str, options: cpp_demangle::DemangleOptions) -> bool {
        let (name, _version) = split_version(mangled);
        if mangled::strip_prefix(name).is_none() || name.len() > MAX_MANGLED_LEN {
            return false;
        }
        // cpp_demangle wants exactly one leading `_Z`.
        let name = name
            .strip_prefix('_')
            .filter(|n| n.starts_with("_Z"))
            .unwrap_or(name);
        let nesting = mangled::backtrack_nesting(name.as_bytes().get(2..).unwrap_or_default());
        let per_byte = MAX_FALLBACK_WORK_PER_BYTE.saturating_mul(name.len() as u64);
        if nesting.is_none_or(|n| {
            n.deepest > MAX_FALLBACK_NESTING || n.work > MAX_FALLBACK_WORK.min(per_byte)
        }) {
            return false;
        }
        let Demangler {
            scratch, patched, ..
        } = self;
        let input = match mangled::template_ctor_params(name) {
            // A `void` return type for cpp_demangle to skip, so that it prints every parameter.
            Some(at) => {
                patched.clear();
                patched.push_str(&name[..at]);
                patched.push('v');
                patched.push_str(&name[at..]);
                patched.as_str()
            }
            None => name,
        };
        // `c++filt` prints the enclosing function of a local entity without its return type.
        let body = &input.as_bytes()[2..];
        let local = [&b"Z"[..], b"GVZ", b"TIZ", b"TSZ"]
            .iter()
            .any(|p| body.starts_with(p));
        let options = if local {
            options.no_return_type()
        } else {
            options
        };
        let parse = cpp_demangle::ParseOptions::default().recursion_limit(RECURSION_LIMIT);
        let Ok(sym) = cpp_demangle::Symbol::new_with_options(input.as_bytes(), &parse) else {
            return false;
        };
        scratch.clear();
        // Substitutions can make the output exponentially longer than the input: cap it.
        let mut capped = CappedString(scratch);
        sym.structured_demangle(&mut capped, &options.recursion_limit(RECURSION_LIMIT))
            .is_ok()
    }
}

fn demangle_with(name: &str, options: cpp_demangle::DemangleOptions) -> Option<String> {
    let mut d = Demangler::new();
    if !d.raw(name, options) {
        return None;
    }
    let mut out = String::with_capacity(d.scratch.len());
    crate::cxxfilt::rewrite(&d.scratch, &mut out);
    Some(out)
}

/// Demangled names longer than this are hostile (the longest real torch names are a few KiB).
const MAX_DEMANGLED_LEN: usize = 64 * 1024;

struct CappedString<'a>(&'a mut String);

impl cpp_demangle::DemangleWrite for CappedString<'_> {
    fn write_string(&mut self, s: &str) -> std::fmt::Result {
        if self.0.len() + s.len() > MAX_DEMANGLED_LEN {
            return Err(std::fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

/// Split `name@VER` / `name@@VER` into the name and the version.
pub fn split_version(symbol: &str) -> (&str, Option<&str>) {
    match symbol.find('@') {
        Some(i) => (&symbol[..i], Some(symbol[i..].trim_start_matches('@'))),
        None => (symbol, None),
    }
}

/// The C++11 ABI flavor of a mangled name, read from the mangled form (before demangling):
/// `St7__cxx11` / `B5cxx11` → `Cxx11`; `Ss`, `Sb`, `St12basic_string…` without `__cxx11` →
/// `PreCxx11`; anything else (including plain C names) → `Neutral`.
pub fn abi_flavor(mangled: &str) -> AbiFlavor {
    let (name, _) = split_version(mangled);
    if mangled::strip_prefix(name).is_none() {
        return AbiFlavor::Neutral;
    }
    match mangled::scan_abi(name) {
        (true, _) => AbiFlavor::Cxx11,
        (false, true) => AbiFlavor::PreCxx11,
        (false, false) => AbiFlavor::Neutral,
    }
}

/// The qualified name of a symbol without parameters, template arguments or ABI tags:
/// `_ZN3c104cuda14ExchangeDeviceEa` → `c10::cuda::ExchangeDevice`,
/// `_ZN3c105ErrorC1E…` → `c10::Error::Error`, `_ZNK3c106Device3strB5cxx11Ev` →
/// `c10::Device::str`; a plain C name is returned as is.
///
/// Read from the mangled form without demangling when possible, falling back to `cpp_demangle`.
/// `None` for a truncated or otherwise undemanglable C++ name.
pub fn qualified_name(mangled: &str) -> Option<Cow<'_, str>> {
    let (name, _) = split_version(mangled);
    if mangled::strip_prefix(name).is_none() {
        return (!name.is_empty()).then_some(Cow::Borrowed(name));
    }
    let mut out = String::new();
    let fast = mangled::for_each_component(name, &mut |c| {
        if !out.is_empty() {
            out.push_str("::");
        }
        match c {
            Component::Name(n) | Component::Ctor(n) => out.push_str(n),
            Component::Dtor(n) => {
                out.push('~');
                out.push_str(n);
            }
            Component::Operator(o) => out.push_str(o),
        }
    });
    if fast.is_some() {
        return Some(Cow::Owned(out));
    }
    qualified_name_slow(name).map(Cow::Owned)
}

/// The qualified name through a full demangle (`no_params`, `no_return_type`), then template
/// arguments and ABI tags removed so that it agrees with the fast path.
pub(crate) fn qualified_name_slow(name: &str) -> Option<String> {
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    let d = demangle_with(name, options)?;
    let q = strip_template_args(&d.replace("[abi:cxx11]", ""));
    Some(q.trim_end().to_string())
}

/// Remove `<…>` groups (balanced), leaving `operator<`-style names intact.
fn strip_template_args(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &s[i..];
        if depth == 0 && rest.starts_with("operator") {
            // Copy the operator token (`operator<<`, `operator<`, `operator()`); a `<` after it
            // opens template arguments.
            const OPS: [&str; 39] = [
                "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
                "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->", "()", "[]", "<", ">",
                "=", "!", "+", "-", "*", "/", "%", "&", "|", "^", "~", ",",
            ];
            let after = &rest["operator".len()..];
            let op = OPS
                .iter()
                .find(|op| after.starts_with(**op))
                .map_or(0, |op| op.len());
            let end = "operator".len() + op;
            out.push_str(&rest[..end]);
            i += end;
            continue;
        }
        // Whole characters, inside template arguments too: a name may carry non-ASCII bytes
        // (a fuzzed one did), and `&s[i..]` must stay on a character boundary.
        let ch_len = rest.chars().next().map_or(1, char::len_utf8);
        match bytes[i] {
            b'<' => depth += 1,
            b'>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push_str(&rest[..ch_len]),
            _ => {}
        }
        i += ch_len;
    }
    out
}

/// Normalize a demangled name (as `demangle` prints it) to the pre-C++11 spelling of every
/// dual-ABI type, so two names that differ only by the `std::string` ABI compare equal.
pub fn normalize_cxx11(demangled: &str) -> Cow<'_, str> {
    if !demangled.contains("__cxx11") && !demangled.contains("[abi:cxx11]") {
        return Cow::Borrowed(demangled);
    }
    let s = demangled
        .replace("std::__cxx11::", "std::")
        .replace("[abi:cxx11]", "");
    Cow::Owned(s)
}

/// Split the parameter list of a demangled function name into its top-level parameters and the
/// text after it (cv-qualifiers such as ` const`). `None` when there is no parameter list.
pub fn split_params(demangled: &str) -> Option<(Vec<&str>, &str)> {
    // The parameter list is the last top-level `( … )` group.
    let bytes = demangled.as_bytes();
    let mut depth_angle = 0i32;
    let mut depth_paren = 0i32;
    let mut open = None;
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth_angle += 1,
            b'>' => depth_angle -= 1,
            b'(' => {
                if depth_paren == 0 && depth_angle <= 0 {
                    open = Some(i);
                }
                depth_paren += 1;
            }
            b')' => {
                depth_paren -= 1;
                if depth_paren == 0 && depth_angle <= 0 {
                    close = Some(i);
                }
            }
            _ => {}
        }
    }
    let (open, close) = (open?, close?);
    if close < open {
        return None;
    }
    let inner = &demangled[open + 1..close];
    let mut params = Vec::new();
    if !inner.trim().is_empty() {
        let (mut a, mut p, mut start) = (0i32, 0i32, 0usize);
        for (i, b) in inner.bytes().enumerate() {
            match b {
                b'<' => a += 1,
                b'>' => a -= 1,
                b'(' | b'[' => p += 1,
                b')' | b']' => p -= 1,
                b',' if a == 0 && p == 0 => {
                    params.push(inner[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        params.push(inner[start..].trim());
    }
    if params == ["void"] {
        params.clear();
    }
    Some((params, &demangled[close + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_templates() {
        assert_eq!(
            strip_template_args("at::native::foo<float, std::vector<int> >"),
            "at::native::foo"
        );
        assert_eq!(strip_template_args("c10::operator<<"), "c10::operator<<");
        assert_eq!(
            strip_template_args("c10::operator< <int>"),
            "c10::operator< "
        );
        assert_eq!(
            strip_template_args("a::b<\u{133}, c>::\u{e9}"),
            "a::b::\u{e9}"
        );
        // A fuzz find: a non-ASCII byte inside template arguments panicked the slice.
        let fuzzed = "_ZN2at6native13reduce_kernelILi512ALi1ENS0_8ReduceOpIN31ESt1AIJC1ESt1AIJC1EScF07complexIfEENS0_14func_wrapper_tIS5_18__nv_hdl_wrapper_tILb0ELb1\u{133}b0E11__nv_dl_tagIMNS0_11sum_functorIS5_S5_S5_EEFvRNS_14TensorIteratorEEXadL_ZNSA_clESC_EELj1EEFS5_S5_S5_EJEEEEjS5_Li4ELi4EEEEEvT1_";
        let _ = qualified_name(fuzzed);
        let _ = demangle(fuzzed);
    }

    #[test]
    fn params() {
        let (p, tail) = split_params("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, unsigned int, bool)").unwrap();
        assert_eq!(
            p,
            ["int", "char const*", "char const*", "unsigned int", "bool"]
        );
        assert_eq!(tail, "");
        let (p, tail) = split_params("c10::Device::str[abi:cxx11]() const").unwrap();
        assert!(p.is_empty());
        assert_eq!(tail, " const");
        let (p, _) = split_params("f(std::map<int, int>, void (*)(int, int))").unwrap();
        assert_eq!(p, ["std::map<int, int>", "void (*)(int, int)"]);
        assert!(split_params("typeinfo for c10::Error").is_none());
    }

    #[test]
    fn substitution_bombs_are_capped() {
        // Each `S<n>_` doubles the previous template argument list.
        let mut m = String::from("_Z1fIiE");
        let mut bomb = String::from("_Z1fI1AIiE");
        for i in 0..40 {
            bomb.push_str(&format!("1AIS{i}_S{i}_E"));
        }
        bomb.push_str("Ev");
        m.push('v');
        assert!(demangle(&m).is_some());
        let started = std::time::Instant::now();
        let _ = demangle(&bomb);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn versions() {
        assert_eq!(
            split_version("foo@@GLIBCXX_3.4.30"),
            ("foo", Some("GLIBCXX_3.4.30"))
        );
        assert_eq!(
            split_version("foo@GLIBCXX_3.4"),
            ("foo", Some("GLIBCXX_3.4"))
        );
        assert_eq!(split_version("foo"), ("foo", None));
    }
}

#[cfg(test)]
mod corpus_tests {
    use super::*;

    /// (mangled, c++filt output) pairs; `None` is what c++filt leaves undemangled (truncated names).
    fn pairs() -> Vec<(&'static str, Option<&'static str>)> {
        let corpus = include_str!("../tests/data/corpus_demangled.tsv");
        let cxxfilt = include_str!("../tests/data/cxxfilt_pairs.tsv");
        corpus
            .lines()
            .chain(cxxfilt.lines())
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                let mut parts = l.split('\t');
                let m = parts.next()?;
                let d = parts.next()?;
                Some((m, (d != "None" && d != m).then_some(d)))
            })
            .collect()
    }

    #[test]
    fn demangle_matches_cxxfilt() {
        // cpp_demangle 0.5 drops the first parameter of a template constructor (it reads it as
        // a return type); `mangled::template_ctor_params` works around it.
        let mut mismatches = Vec::new();
        for (m, expected) in pairs() {
            let got = demangle(m);
            if got.as_deref() != expected {
                mismatches.push(format!("{m}\n  c++filt: {expected:?}\n  ours:    {got:?}"));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} mismatches:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
    }

    #[test]
    fn fast_qualified_name_agrees_with_demangler() {
        let mut mismatches = Vec::new();
        let mut fast_hits = 0;
        for (m, expected) in pairs() {
            let mut fast = String::new();
            let ok = crate::mangled::for_each_component(m, &mut |c| {
                if !fast.is_empty() {
                    fast.push_str("::");
                }
                match c {
                    Component::Name(n) | Component::Ctor(n) => fast.push_str(n),
                    Component::Dtor(n) => {
                        fast.push('~');
                        fast.push_str(n);
                    }
                    Component::Operator(o) => fast.push_str(o),
                }
            });
            if ok.is_none() {
                continue;
            }
            fast_hits += 1;
            if expected.is_none() {
                // A name cut off in its parameters still has a complete qualified name: the
                // partial answer is the useful one.
                continue;
            }
            let slow = qualified_name_slow(m);
            if slow.as_deref() != Some(fast.as_str()) {
                mismatches.push(format!("{m}\n  fast: {fast}\n  slow: {slow:?}"));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} mismatches:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
        assert!(
            fast_hits > 150,
            "fast path understood only {fast_hits} names"
        );
    }

    /// The flavor read from the mangled form agrees with what the demangled form spells out.
    #[test]
    fn abi_flavor_agrees_with_demangled() {
        let mut checked = 0;
        for (m, d) in pairs() {
            let Some(d) = d else { continue };
            let expected = if d.contains("__cxx11") || d.contains("[abi:cxx11]") {
                AbiFlavor::Cxx11
            } else if [
                "std::basic_string<",
                "std::basic_stringbuf<",
                "stringstream<",
                "std::list<",
            ]
            .iter()
            .any(|t| d.contains(t))
            {
                AbiFlavor::PreCxx11
            } else {
                AbiFlavor::Neutral
            };
            assert_eq!(abi_flavor(m), expected, "{m} = {d}");
            checked += 1;
        }
        assert!(checked > 200);
    }

    /// Every byte of every name replaced by a few others: no panic, and the fast path never
    /// accepts what cpp_demangle rejects outright as not a name at all.
    #[test]
    fn mutated_names_never_panic() {
        for (m, _) in pairs() {
            for (i, _) in m.char_indices().step_by(3) {
                for b in ["S_", "T_", "I", "E", "F", "Xad", "L_Z", "0", "9", "\u{e9}"] {
                    let mutated = format!("{}{b}{}", &m[..i], m.get(i + 1..).unwrap_or(""));
                    let _ = demangle(&mutated);
                }
            }
        }
    }

    /// Names that made cpp_demangle backtrack for seconds (the fuzz finds, and patterns that
    /// double its work per level) are refused before it parses them.
    #[test]
    fn hostile_nesting_is_refused_quickly() {
        let names = include_str!("../tests/data/demangle_hostile.txt");
        let mut checked = 0;
        for m in names
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let started = std::time::Instant::now();
            let demangled = demangle(m);
            let _ = qualified_name(m);
            let took = started.elapsed();
            assert!(demangled.is_none(), "{m}");
            assert!(
                took < std::time::Duration::from_millis(50),
                "{took:?} for {m}"
            );
            checked += 1;
        }
        assert!(checked >= 9);
    }

    /// The most deeply nested and the longest real torch names that the fast path leaves to
    /// cpp_demangle demangle as they did before the nesting bound, with room to spare under it.
    #[test]
    fn deep_real_names_still_demangle() {
        let rows = include_str!("../tests/data/deep_fallback.tsv");
        let mut checked = 0;
        for row in rows
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let Some((m, expected)) = row.split_once('\t') else {
                panic!("not mangled<TAB>demangled: {row}");
            };
            let mut fast = String::new();
            assert!(
                !crate::fastdemangle::demangle(m, &mut fast),
                "the fast path now takes {m}: pick a name that reaches cpp_demangle"
            );
            assert_eq!(demangle(m).as_deref(), Some(expected));
            let depth = mangled::backtrack_nesting(m.as_bytes().get(2..).unwrap_or_default());
            assert!(
                // Two levels' doubling to spare under the work bounds.
                depth.is_some_and(|d| d.deepest + 4 <= MAX_FALLBACK_NESTING
                    && d.work.saturating_mul(4)
                        <= MAX_FALLBACK_WORK.min(MAX_FALLBACK_WORK_PER_BYTE * m.len() as u64)),
                "{m} nests {depth:?}"
            );
            checked += 1;
        }
        assert!(checked >= 15);
    }

    /// The measure behind the fallback's bounds, over real names, one per line, in the files
    /// `ABIDOC_SYMBOLS` lists (colon-separated), e.g. `nm -D --defined-only LIB`'s last column:
    /// `ABIDOC_SYMBOLS=a.txt:b.txt cargo test -p abidoc-elf --lib -- --ignored --nocapture
    /// real_names_measure`.
    #[test]
    #[ignore = "reads symbol lists named by ABIDOC_SYMBOLS"]
    fn real_names_measure() {
        let Ok(files) = std::env::var("ABIDOC_SYMBOLS") else {
            return;
        };
        let (mut names, mut fallback) = (0usize, 0usize);
        let mut deepest: Vec<(usize, String)> = Vec::new();
        let mut costliest: Vec<(u64, String)> = Vec::new();
        let mut ratios: Vec<(u64, String)> = Vec::new();
        let mut deepest_demangled = 0;
        let mut slowest: Vec<(std::time::Duration, u64, String)> = Vec::new();
        for file in files.split(':') {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for m in text.lines().map(str::trim).filter(|m| m.starts_with("_Z")) {
                let (m, _) = split_version(m);
                names += 1;
                let mut out = String::new();
                let fast = crate::fastdemangle::demangle(m, &mut out);
                let components = mangled::for_each_component(m, &mut |_| {}).is_some();
                if fast && components {
                    continue;
                }
                fallback += 1;
                let Some(b) = mangled::backtrack_nesting(m.as_bytes().get(2..).unwrap_or_default())
                else {
                    deepest.push((usize::MAX, m.to_string()));
                    continue;
                };
                deepest.push((b.deepest, m.to_string()));
                if !fast {
                    deepest_demangled = deepest_demangled.max(b.deepest);
                }
                costliest.push((b.work, m.to_string()));
                ratios.push((b.work / m.len().max(1) as u64, m.to_string()));
                let mut d = Demangler::new();
                let started = std::time::Instant::now();
                let _ = d.raw(m, cpp_demangle::DemangleOptions::new());
                slowest.push((started.elapsed(), b.work, m.to_string()));
            }
        }
        deepest.sort();
        costliest.sort();
        slowest.sort();
        println!("{names} names, {fallback} reach cpp_demangle (fast path or components fail)");
        println!("deepest where the fast path fails: {deepest_demangled}");
        for (d, m) in deepest.iter().rev().take(3) {
            println!("deepest {d}: {m}");
        }
        for (w, m) in costliest.iter().rev().take(5) {
            println!("work {w}: {} bytes {m:.200}", m.len());
        }
        ratios.sort();
        for (r, m) in ratios.iter().rev().take(3) {
            println!("work per byte {r}: {} bytes {m:.200}", m.len());
        }
        for (t, w, m) in slowest.iter().rev().take(3) {
            println!("slowest {t:?} (work {w}): {m:.200}");
        }
    }

    /// Names grown from the fuzz finds and the doubling patterns of `demangle_hostile.txt`:
    /// spliced, repeated side by side (many groups each under the nesting bound), wrapped around
    /// long insides, cut off. Each one is demangled or refused within a bound that is loose for
    /// the test profile and far below libFuzzer's 20 s.
    #[test]
    fn generated_hostile_names_are_bounded() {
        let hostile: Vec<&str> = include_str!("../tests/data/demangle_hostile.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .collect();
        const PIECES: [&str; 16] = [
            "St7variantIJ",
            "S_IJ",
            "DTL",
            "LS_I",
            "srS_A1_",
            "IDpsr1AC1",
            "St1AIJC1E",
            "gC1E",
            "3cnN3cngC1E",
            "i",
            "E",
            "EE",
            "S0_",
            "T_",
            "XadL_Z1fE",
            "IiE",
        ];
        // xorshift64*: the same names on every run.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
        };
        let mut worst = (std::time::Duration::ZERO, String::new());
        let started = std::time::Instant::now();
        for round in 0..1000 {
            let mut m = String::from(["_Z1f", "_ZN3cnN3cngC1E", "_Z1fI"][next(3)]);
            match round % 4 {
                // Slices of the fuzz finds and patterns spliced together.
                0 => {
                    for _ in 0..1 + next(8) {
                        let h = hostile[next(hostile.len())];
                        let a = next(h.len());
                        let b = a + next(h.len() - a + 1);
                        m.push_str(h.get(a..b).unwrap_or_default());
                    }
                }
                // Up to 12 levels of one pattern around a long inside, then cut or closed.
                1 => {
                    let level = PIECES[next(9)];
                    m.push_str(&level.repeat(1 + next(8)));
                    m.push_str(&PIECES[next(PIECES.len())].repeat(next(4000)));
                    if next(2) == 0 {
                        m.push_str(&"E".repeat(next(14)));
                    }
                }
                // Many bounded groups side by side.
                2 => {
                    let level = PIECES[next(9)];
                    let group = format!("{}i{}", level.repeat(1 + next(8)), "E".repeat(next(13)));
                    m.push_str(&group.repeat(1 + next(16 * 1024 / group.len())));
                }
                // Random pieces.
                _ => {
                    for _ in 0..next(2000) {
                        m.push_str(PIECES[next(PIECES.len())]);
                    }
                }
            }
            if next(3) == 0 {
                m.truncate(next(m.len() + 1));
            }
            let t = std::time::Instant::now();
            let _ = demangle(&m);
            let _ = qualified_name(&m);
            let _ = abi_flavor(&m);
            let took = t.elapsed();
            if took > worst.0 {
                worst = (took, m);
            }
        }
        let total = started.elapsed();
        println!(
            "1000 names in {total:?}, the slowest {:?}: {:.300}",
            worst.0, worst.1
        );
        // The costliest name cpp_demangle may still get takes about 40 ms in release and 90 ms at
        // opt-level 1 (see `MAX_FALLBACK_WORK`); the rest leaves room for a loaded machine.
        assert!(
            worst.0 < std::time::Duration::from_millis(400),
            "{:?} for {}",
            worst.0,
            worst.1
        );
        assert!(total < std::time::Duration::from_secs(5), "{total:?}");
    }

    /// Few levels around a long inside: each level under the nesting bound, the whole parsed
    /// again per level (before the work bound: 81 ms and 151 ms in release).
    #[test]
    fn long_insides_are_refused_quickly() {
        for m in [
            format!("_Z1f{}{}", "St7variantIJ".repeat(6), "i".repeat(15000)),
            format!(
                "_ZN3cnN3cngC1E{}{}",
                "St1AIJC1E".repeat(5),
                "T_".repeat(8000)
            ),
            format!("_Z1f{}{}", "S_IJ".repeat(6), "S0_".repeat(5000)),
        ] {
            let started = std::time::Instant::now();
            assert!(demangle(&m).is_none(), "{m:.80}");
            let _ = qualified_name(&m);
            let took = started.elapsed();
            assert!(
                took < std::time::Duration::from_millis(50),
                "{took:?} for {m:.80}"
            );
        }
    }

    /// The most deeply nested real name seen that reaches cpp_demangle: the fast path demangles
    /// it, but the component reader stops at the lambda in its template arguments, so its
    /// qualified name comes from cpp_demangle, nested 11 deep.
    #[test]
    fn deepest_real_qualified_name() {
        let m = "_ZN2at6native24index_elementwise_kernelILi128ELi4E17__nv_dl_wrapper_tI11__nv_dl_tagIPFvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEES8_RKS2_IS3_IPFvS5_S8_S8_EXadL_ZNS0_17index_kernel_implINS0_10OpaqueTypeILi8EEEEEvS5_S8_S8_EELj1EEJEEbEXadL_ZNS0_16gpu_index_kernelISF_EEvS5_S8_S8_RKT_bEELj1EEJ16OffsetCalculatorILi3EjLb0EEKPcSS_KmSt5arrayISR_Lm25EESU_IlLm25EESW_SG_EEEEvlT1_";
        let depth = mangled::backtrack_nesting(m.as_bytes().get(2..).unwrap_or_default());
        assert_eq!(depth.map(|d| d.deepest), Some(11));
        assert_eq!(
            qualified_name(m).as_deref(),
            Some("at::native::index_elementwise_kernel")
        );
    }

    #[test]
    fn truncated_names_never_panic() {
        for (m, _) in pairs() {
            for end in 0..=m.len() {
                let Some(prefix) = m.get(..end) else { continue };
                let _ = qualified_name(prefix);
                let _ = abi_flavor(prefix);
                let _ = demangle(prefix);
            }
        }
    }
}
