//! Offline torch symbol index: which PyPI torch releases (2.0 to the newest indexed) export each
//! c10/at/torch/caffe2 symbol, from which library, and how a qualified name's mangled form changed
//! across releases. Built by `tools/torch-index/` from the real wheels; loaded lazily on first use.
//!
//! The repository keeps the index zstd-compressed; its layout is documented in
//! `tools/torch-index/build_index.py`. `build.rs` decompresses it at build time and the binary
//! embeds the result, read in place: the sorted symbol strings stay front-coded in the binary's
//! read-only data (only the pages a lookup touches are read); a lookup binary-searches the block
//! heads and decodes at most one block.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

#[cfg(test)]
use std::io::Read;

/// The decompressed index, as `build.rs` wrote it.
static RAW: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/torch_symbols.bin"));

/// The compressed file the repository keeps (the tests check `RAW` decodes from it).
#[cfg(test)]
static DATA: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/torch_index/torch_symbols.bin.zst"
));

/// One indexed PyPI torch release (Linux x86_64 wheel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// `2.3.1`.
    pub version: String,
    /// Whether the wheel's libraries were built with `_GLIBCXX_USE_CXX11_ABI=1` (read from the
    /// signatures libc10 exports).
    pub cxx11_abi: bool,
    /// CUDA version of the PyPI build (`12.1`), `None` for a CPU-only build.
    pub cuda: Option<String>,
}

impl Release {
    /// `(major, minor, patch)`; unparsable parts count as 0.
    pub fn version_key(&self) -> (u32, u32, u32) {
        version_key(&self.version)
    }
}

fn version_key(v: &str) -> (u32, u32, u32) {
    // Local versions (`2.3.1+cu121`) and pre-release tails compare by their numeric core.
    let core = v.split(['+', 'a', 'b', 'r']).next().unwrap_or(v);
    let mut it = core
        .split('.')
        .map(|p| p.trim().parse::<u32>().unwrap_or(0));
    (
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
    )
}

/// A set of indexed releases (bit `i` = `releases()[i]`, oldest first).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReleaseSet(u128);

impl ReleaseSet {
    pub const EMPTY: ReleaseSet = ReleaseSet(0);

    /// Every indexed release.
    pub fn all() -> ReleaseSet {
        let n = releases().len();
        if n >= 128 {
            ReleaseSet(u128::MAX)
        } else {
            ReleaseSet((1u128 << n) - 1)
        }
    }

    pub fn from_bits(bits: u128) -> ReleaseSet {
        ReleaseSet(bits)
    }

    pub fn bits(self) -> u128 {
        self.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the release at `index` in `releases()` is in the set.
    pub fn contains(self, index: usize) -> bool {
        index < 128 && self.0 & (1u128 << index) != 0
    }

    /// Whether the indexed release `version` (`2.3.1`, local suffix ignored) is in the set.
    pub fn contains_version(self, version: &str) -> bool {
        release_index(version).is_some_and(|i| self.contains(i))
    }

    pub fn intersect(self, other: ReleaseSet) -> ReleaseSet {
        ReleaseSet(self.0 & other.0)
    }

    pub fn union(self, other: ReleaseSet) -> ReleaseSet {
        ReleaseSet(self.0 | other.0)
    }

    pub fn difference(self, other: ReleaseSet) -> ReleaseSet {
        ReleaseSet(self.0 & !other.0)
    }

    /// Indices into `releases()`, oldest first.
    pub fn indices(self) -> impl Iterator<Item = usize> {
        (0..128usize).filter(move |&i| self.contains(i))
    }

    /// The releases in the set, oldest first.
    pub fn iter(self) -> impl Iterator<Item = &'static Release> {
        let all = releases();
        self.indices().filter_map(move |i| all.get(i))
    }

    pub fn first(self) -> Option<&'static Release> {
        self.iter().next()
    }

    pub fn last(self) -> Option<&'static Release> {
        self.iter().last()
    }

    /// Maximal runs of consecutive indexed releases.
    pub fn ranges(self) -> Vec<ReleaseRange> {
        let all = releases();
        let mut out = Vec::new();
        let mut i = 0;
        while i < all.len() {
            if !self.contains(i) {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < all.len() && self.contains(i + 1) {
                i += 1;
            }
            if let (Some(first), Some(last)) = (all.get(start), all.get(i)) {
                out.push(ReleaseRange { first, last });
            }
            i += 1;
        }
        out
    }

    /// The smallest range holding every release of the set.
    pub fn hull(self) -> Option<ReleaseRange> {
        Some(ReleaseRange {
            first: self.first()?,
            last: self.last()?,
        })
    }
}

impl fmt::Display for ReleaseSet {
    /// `2.0.0–2.2.2, 2.4.0`; `none` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ranges = self.ranges();
        if ranges.is_empty() {
            return f.write_str("none");
        }
        for (i, r) in ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ReleaseSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReleaseSet({self})")
    }
}

/// A run of consecutive indexed releases, `first` ≤ `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseRange {
    pub first: &'static Release,
    pub last: &'static Release,
}

impl ReleaseRange {
    /// Whether the range starts at the oldest indexed release (the symbol may be older still).
    pub fn from_oldest(&self) -> bool {
        releases().first() == Some(self.first)
    }

    /// Whether the range reaches the newest indexed release.
    pub fn to_newest(&self) -> bool {
        releases().last() == Some(self.last)
    }
}

impl fmt::Display for ReleaseRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            f.write_str(&self.first.version)
        } else {
            write!(f, "{}–{}", self.first.version, self.last.version)
        }
    }
}

/// What the index knows about one exported symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolHistory {
    /// The releases whose wheel exports it.
    pub releases: ReleaseSet,
    /// The library that exports it (the first of `libraries` in load order: libc10 before
    /// libtorch_cpu before libtorch_python), e.g. `libc10_cuda.so`.
    pub library: &'static str,
    /// Every torch library that exports it in some release (inline templates are exported by
    /// several).
    pub libraries: Vec<&'static str>,
}

/// One mangled form of a qualified name and the releases that export it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub mangled: String,
    /// `c10::cuda::ExchangeDevice(signed char)`, when the demangler understands it.
    pub demangled: Option<String>,
    pub releases: ReleaseSet,
    pub library: &'static str,
}

/// The torch releases an extension was built for, judged from the torch symbols it imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltFor {
    /// Releases that export every known torch symbol: the "built for torch A–B" set. When
    /// `unknown` is not empty this is a best-effort answer from the known symbols alone.
    pub releases: ReleaseSet,
    /// Torch symbols some indexed release exports.
    pub known: usize,
    /// Torch-namespace symbols that no indexed release exports: the extension was built against
    /// a torch outside the indexed releases (older than the oldest, newer than the newest) or a
    /// non-PyPI build (e.g. a C++11-ABI build of a release PyPI ships with the old ABI).
    pub unknown: Vec<String>,
    /// Symbols that are not torch's (libc, libstdc++, CUDA, the extension's own).
    pub ignored: usize,
    /// Torch symbols exported by no release but the prefix of some that are: cut off when the
    /// log was pasted. Each counts with the union of the releases of its completions.
    pub truncated: Vec<String>,
    /// Some known symbol names a `std::__cxx11` type: only C++11-ABI builds export it.
    pub cxx11_form: bool,
    /// Some known symbol names the old-ABI `std::string` (`Ss`): only old-ABI builds export it.
    pub old_abi_form: bool,
    /// Set when every unknown symbol is the other-C++-ABI twin of an indexed one and some
    /// release exports all the twins and known symbols: the extension was built against a
    /// non-PyPI build of those releases with the other ABI (a C++11-ABI conda-forge/NGC/libtorch
    /// build of a release whose PyPI wheel uses the old ABI, or the reverse).
    pub other_abi: Option<OtherAbi>,
}

/// "Built for a C++11-ABI build of torch 2.0.0–2.3.1": see [`BuiltFor::other_abi`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OtherAbi {
    /// The extension's ABI: true when its unknown symbols use the C++11 ABI.
    pub cxx11: bool,
    /// Releases whose other-ABI build exports every torch symbol of the extension.
    pub releases: ReleaseSet,
}

impl BuiltFor {
    /// The hull of `releases`, if any release exports every known symbol.
    pub fn range(&self) -> Option<ReleaseRange> {
        self.releases.hull()
    }

    /// Every torch symbol is known and some release exports them all.
    pub fn is_exact(&self) -> bool {
        self.unknown.is_empty() && !self.releases.is_empty()
    }

    /// No torch symbol is exported by any indexed release.
    pub fn outside_index(&self) -> bool {
        self.known == 0 && !self.unknown.is_empty()
    }

    fn note_abi_form(&mut self, sym: &str) {
        self.cxx11_form |= has_cxx11_marker(sym);
        // `Ss` cannot come from a substitution (`S_`, `S<base36>_`); it is `std::string`.
        self.old_abi_form |= sym.contains("Ss");
    }

    /// One human line: `built for torch 2.3.0–2.5.1`, with the caveats the evidence calls for.
    pub fn summary(&self) -> String {
        let all = releases();
        let span = match (all.first(), all.last()) {
            (Some(a), Some(b)) => format!("{}–{}", a.version, b.version),
            _ => "the indexed releases".to_owned(),
        };
        if let Some(o) = self.other_abi {
            let (theirs, pypi) = if o.cxx11 {
                ("C++11", "old")
            } else {
                ("old", "C++11")
            };
            return format!(
                "built for a {theirs}-ABI build of torch {} (not the PyPI wheel: it uses the \
                 {pypi} ABI there; {} symbol{} found only as {pypi}-ABI twins)",
                o.releases,
                self.unknown.len(),
                if self.unknown.len() == 1 { "" } else { "s" },
            );
        }
        if self.outside_index() {
            return format!(
                "built for a torch outside PyPI {span} (older, newer, or a non-PyPI build): \
                 no indexed release exports {}",
                plural(
                    self.unknown.len(),
                    "its torch symbol",
                    "any of its torch symbols"
                )
            );
        }
        if self.releases.is_empty() {
            return format!(
                "no single PyPI torch release in {span} exports all {} known torch symbols",
                self.known
            );
        }
        let mut s = format!("built for torch {}", self.releases);
        let mut notes: Vec<String> = Vec::new();
        if let Some(hull) = self.range() {
            let first_cxx11 = all.iter().find(|r| r.cxx11_abi);
            let last_old = all.iter().rev().find(|r| !r.cxx11_abi);
            if hull.from_oldest() {
                notes.push(format!(
                    "or older: the index starts at {}",
                    hull.first.version
                ));
            } else if self.cxx11_form && first_cxx11 == Some(hull.first) {
                notes.push(format!(
                    "or a C++11-ABI build of an older torch: PyPI wheels before {} use the old ABI",
                    hull.first.version
                ));
            }
            if self.old_abi_form && !hull.to_newest() && last_old == Some(hull.last) {
                notes.push(format!(
                    "or an old-ABI build of a newer torch: PyPI wheels after {} use the C++11 ABI",
                    hull.last.version
                ));
            }
        }
        if !self.truncated.is_empty() {
            notes.push(format!(
                "{} cut-off symbol{} matched by prefix",
                self.truncated.len(),
                if self.truncated.len() == 1 { "" } else { "s" }
            ));
        }
        if !self.unknown.is_empty() {
            notes.push(format!(
                "best effort: {} of {} torch symbols are exported by no indexed release",
                self.unknown.len(),
                self.unknown.len() + self.known
            ));
        }
        if !notes.is_empty() {
            s.push_str(&format!(" ({})", notes.join("; ")));
        }
        s
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        one.to_owned()
    } else {
        many.to_owned()
    }
}

/// The indexed releases, oldest first; empty if the embedded index could not be read.
pub fn releases() -> &'static [Release] {
    index().map_or(&[], |ix| ix.releases.as_slice())
}

/// The index of `version` (`2.3.1`, `2.3.1+cu121`) in `releases()`.
pub fn release_index(version: &str) -> Option<usize> {
    let key = version_key(version);
    releases().iter().position(|r| r.version_key() == key)
}

/// Why the embedded index could not be loaded, if it could not.
pub fn load_error() -> Option<&'static str> {
    INDEX.get_or_init(load).as_ref().err().map(String::as_str)
}

/// Parses the embedded index afresh, bypassing the cache; for the benchmark.
#[doc(hidden)]
pub fn bench_load() -> usize {
    load().map_or(0, |ix| ix.len)
}

/// Number of distinct symbols in the index.
pub fn symbol_count() -> usize {
    index().map_or(0, |ix| ix.len)
}

/// The history of one mangled symbol, `None` when no indexed release exports it.
pub fn lookup(mangled: &str) -> Option<SymbolHistory> {
    let mangled = normalize(mangled);
    let ix = index()?;
    let i = ix.find(mangled.as_bytes())?;
    Some(ix.history(i))
}

/// Whether `symbol` belongs to torch's ABI (a c10/at/torch/caffe2/c10d C++ symbol, a `TH*`
/// helper, or the `THP*`/`aoti_torch_*` C API), whether or not any release exports it.
pub fn is_torch_symbol(symbol: &str) -> bool {
    let symbol = normalize(symbol);
    if symbol.contains("_GLOBAL__N") {
        return false;
    }
    const NS: [&str; 5] = ["3c10", "4c10d", "2at", "5torch", "6caffe2"];
    let ns_at = |rest: &str| NS.iter().any(|n| rest.starts_with(n));
    if let Some(rest) = symbol.strip_prefix("_ZN") {
        let rest = rest.trim_start_matches(['r', 'V', 'K']);
        let rest = rest
            .strip_prefix('R')
            .or_else(|| rest.strip_prefix('O'))
            .unwrap_or(rest);
        return ns_at(rest);
    }
    if let Some(rest) = symbol.strip_prefix("_ZT") {
        let mut c = rest.chars();
        return matches!(c.next(), Some('V' | 'I' | 'S' | 'T'))
            && c.as_str().strip_prefix('N').is_some_and(ns_at);
    }
    if let Some(rest) = symbol.strip_prefix("_Z") {
        let name = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        return name.len() < rest.len() && name.starts_with("TH");
    }
    symbol.starts_with("THP") || symbol.starts_with("aoti_torch_") || symbol.starts_with("torch_")
}

/// macOS prefixes C++ symbols with one more underscore (`__ZN3c10...`); logs from there name them so.
fn normalize(symbol: &str) -> &str {
    match symbol.strip_prefix('_') {
        Some(rest) if rest.starts_with("_Z") => rest,
        _ => symbol,
    }
}

/// The releases in which every torch symbol of `symbols` is exported. `None` when none of them
/// is a torch symbol.
pub fn built_for(symbols: &[&str]) -> Option<BuiltFor> {
    let mut out = BuiltFor {
        releases: ReleaseSet::all(),
        known: 0,
        unknown: Vec::new(),
        ignored: 0,
        truncated: Vec::new(),
        cxx11_form: false,
        old_abi_form: false,
        other_abi: None,
    };
    // Intersection of the releases exporting the other-ABI twins, and their ABI; `None` once
    // an unknown symbol has no twin.
    let mut twins: Option<(ReleaseSet, Option<bool>)> = Some((ReleaseSet::all(), None));
    for s in symbols {
        if !is_torch_symbol(s) {
            out.ignored += 1;
            continue;
        }
        match lookup(s) {
            Some(h) => {
                out.known += 1;
                out.releases = out.releases.intersect(h.releases);
                out.note_abi_form(s);
            }
            None => {
                let by_prefix = cut_off_completions(s);
                if !by_prefix.is_empty() && by_prefix.len() < COMPLETION_LIMIT {
                    let any = by_prefix
                        .iter()
                        .fold(ReleaseSet::EMPTY, |m, (_, h)| m.union(h.releases));
                    out.known += 1;
                    out.releases = out.releases.intersect(any);
                    out.truncated.push((*s).to_owned());
                    for (m, _) in &by_prefix {
                        out.note_abi_form(m);
                    }
                } else if !out.unknown.iter().any(|u| u == s) {
                    out.unknown.push((*s).to_owned());
                    let cxx11 = has_cxx11_marker(s);
                    twins = match (twins, abi_twin(s)) {
                        (Some((rs, abi)), Some(t)) if abi.is_none_or(|a| a == cxx11) => {
                            Some((rs.intersect(t.releases), Some(cxx11)))
                        }
                        _ => None,
                    };
                }
            }
        }
    }
    if let Some((rs, Some(cxx11))) = twins {
        let rs = rs.intersect(out.releases);
        if !rs.is_empty() {
            out.other_abi = Some(OtherAbi {
                cxx11,
                releases: rs,
            });
        }
    }
    if out.known == 0 {
        if out.unknown.is_empty() {
            return None;
        }
        out.releases = ReleaseSet::EMPTY;
    }
    Some(out)
}

fn has_cxx11_marker(sym: &str) -> bool {
    sym.contains("7__cxx11") || sym.contains("B5cxx11")
}

/// The same function mangled for the other C++ ABI (`std::string` as `Ss` or as
/// `std::__cxx11::basic_string`, with or without the `[abi:cxx11]` tag), if some indexed release
/// exports it. Compared on the demangled names, since the two manglings number their
/// substitutions differently.
pub fn abi_twin(mangled: &str) -> Option<Variant> {
    let mangled = normalize(mangled);
    let own_cxx11 = has_cxx11_marker(mangled);
    if !own_cxx11 && !mangled.contains("Ss") {
        return None;
    }
    let own = abi_neutral(&demangle(mangled)?);
    // C1/C2 constructor copies demangle alike: a twin must carry the other ABI's marker, and
    // of the copies the one closest to `mangled` (same constructor kind) wins.
    let common = |v: &Variant| {
        v.mangled
            .bytes()
            .zip(mangled.bytes())
            .take_while(|(a, b)| a == b)
            .count()
    };
    variants(mangled)
        .into_iter()
        .filter(|v| {
            has_cxx11_marker(&v.mangled) != own_cxx11
                && v.demangled.as_deref().map(abi_neutral).as_ref() == Some(&own)
        })
        .max_by_key(common)
}

fn abi_neutral(demangled: &str) -> String {
    demangled
        .replace(
            "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
            "std::string",
        )
        .replace("std::__cxx11::", "std::")
        .replace("[abi:cxx11]", "")
}

/// A cut-off symbol matching more indexed symbols than this says too little to count.
const COMPLETION_LIMIT: usize = 64;

/// Indexed symbols starting with `prefix` (at most `limit`), for symbols cut off in a pasted log.
pub fn completions(prefix: &str, limit: usize) -> Vec<(String, SymbolHistory)> {
    let prefix = normalize(prefix);
    let Some(ix) = index() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    ix.scan_prefix(prefix.as_bytes(), |i, _| {
        if found.len() < limit {
            found.push(i);
        }
        found.len() < limit
    });
    found
        .into_iter()
        .filter_map(|i| Some((ix.symbol(i)?, ix.history(i))))
        .collect()
}

/// Completions of a symbol that was cut off when the log was pasted. A complete symbol that no
/// release exports can still be the prefix of one that some release does (`…SetDeviceEa` of
/// `…SetDeviceEab`), so only symbols the demangler rejects count as cut off.
fn cut_off_completions(symbol: &str) -> Vec<(String, SymbolHistory)> {
    if demangle(normalize(symbol)).is_some() {
        return Vec::new();
    }
    completions(symbol, COMPLETION_LIMIT)
}

/// `c10::cuda::ExchangeDevice` for `_ZN3c104cuda14ExchangeDeviceEa`; `None` for names this
/// small parser does not cover (templates, operators, substitutions).
pub fn qualified_name(mangled: &str) -> Option<String> {
    let n = parse_nested(mangled)?;
    let mut parts = n.parts.clone();
    if let Some(class) = n.parts.last() {
        match n.kind {
            Kind::Ctor => parts.push(class.clone()),
            Kind::Dtor => parts.push(format!("~{class}")),
            Kind::Plain => {}
        }
    }
    Some(parts.join("::"))
}

/// Every mangled form of a qualified name the indexed releases export, oldest first. `name` may
/// be a qualified name (`c10::cuda::ExchangeDevice`), a demangled signature
/// (`c10::cuda::ExchangeDevice(int)`), or a mangled symbol (its qualified name is used).
pub fn variants(name: &str) -> Vec<Variant> {
    let Some(ix) = index() else {
        return Vec::new();
    };
    let key = if name.starts_with("_Z") {
        match parse_nested(name) {
            Some(n) => Some(NameKey {
                prefix: n.prefix.to_owned(),
                kind: n.kind,
                global: false,
            }),
            None => global_key(name),
        }
    } else {
        key_from_qualified(name)
    };
    let mut found: Vec<usize> = Vec::new();
    match key {
        Some(k) if k.global => {
            let p = format!("_Z{}", k.prefix);
            ix.scan_prefix(p.as_bytes(), |i, _| {
                found.push(i);
                true
            });
        }
        Some(k) => {
            for q in QUALS {
                let p = format!("_ZN{q}{}", k.prefix);
                ix.scan_prefix(p.as_bytes(), |i, s| {
                    let same = std::str::from_utf8(s)
                        .ok()
                        .and_then(parse_nested)
                        .is_some_and(|c| c.prefix == k.prefix && c.kind == k.kind);
                    if same {
                        found.push(i);
                    }
                    true
                });
            }
        }
        None => {}
    }
    if found.is_empty()
        && let Some(i) = ix.find(name.as_bytes())
    {
        found.push(i);
    }
    let mut out: Vec<Variant> = found
        .into_iter()
        .filter_map(|i| {
            let mangled = ix.symbol(i)?;
            let h = ix.history(i);
            Some(Variant {
                demangled: demangle(&mangled),
                mangled,
                releases: h.releases,
                library: h.library,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.releases
            .bits()
            .trailing_zeros()
            .cmp(&b.releases.bits().trailing_zeros())
            .then_with(|| a.mangled.cmp(&b.mangled))
    });
    out
}

/// `c++filt` for one symbol, without running anything.
pub fn demangle(mangled: &str) -> Option<String> {
    cpp_demangle::Symbol::new(mangled.as_bytes())
        .ok()?
        .demangle()
        .ok()
}

/// One line for `explain --no-env` and hover: which releases export `mangled`, and how its
/// qualified name's other forms fared, e.g. `exported by torch 2.3.0–2.15.0 (libc10_cuda.so);
/// c10::cuda::ExchangeDevice: (int) in 2.1.0–2.2.2; (signed char) in 2.3.0–2.15.0`.
pub fn describe(mangled: &str) -> Option<String> {
    index()?;
    let history = lookup(mangled);
    let torch = is_torch_symbol(mangled);
    if history.is_none() && !torch {
        return None;
    }
    let mut s = match &history {
        Some(h) => format!("exported by torch {} ({})", h.releases, h.library),
        None => {
            let all = ReleaseSet::all();
            format!("exported by no PyPI torch release in {}", all)
        }
    };
    if history.is_none()
        && let Some(t) = abi_twin(mangled)
    {
        let (own, other) = if has_cxx11_marker(mangled) {
            ("C++11", "old")
        } else {
            ("old", "C++11")
        };
        s.push_str(&format!(
            "; its {other}-ABI twin is exported by torch {}, so a {own}-ABI build of those \
             releases exports this one",
            t.releases
        ));
    }
    if history.is_none() {
        let more = cut_off_completions(mangled);
        if !more.is_empty() && more.len() < COMPLETION_LIMIT {
            let any = more
                .iter()
                .fold(ReleaseSet::EMPTY, |m, (_, h)| m.union(h.releases));
            s.push_str(&format!(
                "; looks cut off: {} indexed symbol{} start{} with it, exported by torch {any}",
                more.len(),
                if more.len() == 1 { "" } else { "s" },
                if more.len() == 1 { "s" } else { "" },
            ));
        }
    }
    let forms = signature_forms(mangled, &variants(mangled));
    if let Some(last) = history.as_ref().and_then(|h| h.releases.last()) {
        let all = releases();
        let next = all
            .iter()
            .position(|r| r == last)
            .and_then(|i| all.get(i + 1).map(|r| (i + 1, r)));
        if let Some((i, next)) = next {
            let own = demangle(mangled).map(|d| signature(&d));
            let successor = forms
                .iter()
                .find(|(sig, rs)| rs.contains(i) && Some(sig) != own.as_ref());
            match successor {
                Some((sig, _)) => {
                    s.push_str(&format!("; changed in {} to {sig}", next.version));
                    if next.cxx11_abi != last.cxx11_abi {
                        s.push_str(&format!(
                            " (PyPI wheels switch to the {} ABI in {})",
                            if next.cxx11_abi { "C++11" } else { "old C++" },
                            next.version
                        ));
                    }
                }
                None => s.push_str(&format!("; not exported from {} on", next.version)),
            }
        }
    }
    if forms.len() > 1 || (history.is_none() && !forms.is_empty()) {
        let name = qualified_name(mangled).unwrap_or_else(|| mangled.to_owned());
        let list: Vec<String> = forms
            .iter()
            .map(|(sig, rs)| format!("{sig} in {rs}"))
            .collect();
        s.push_str(&format!("; {name}: {}", list.join("; ")));
    }
    Some(s)
}

/// The variants as `(signature, releases)`, one per distinct signature (C1/C2 constructor
/// copies merged), oldest first. Overloads with another parameter count than `mangled`'s are
/// left out when there are many, so the line tells the story of this function, not of every
/// overload.
fn signature_forms(mangled: &str, vs: &[Variant]) -> Vec<(String, ReleaseSet)> {
    let sig_of = |v: &Variant| -> String {
        v.demangled
            .as_deref()
            .map_or_else(|| v.mangled.clone(), signature)
    };
    let mut forms: Vec<(String, ReleaseSet)> = Vec::new();
    for v in vs {
        let sig = sig_of(v);
        match forms.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, rs)) => *rs = rs.union(v.releases),
            None => forms.push((sig, v.releases)),
        }
    }
    if forms.len() > 6 {
        let arity = |sig: &str| param_count(sig);
        let mine = demangle(mangled).map(|d| arity(d.find('(').map_or("", |p| &d[p..])));
        if let Some(n) = mine {
            forms.retain(|(sig, _)| arity(sig.trim_start_matches("[abi:cxx11]")) == n);
        }
    }
    forms.sort_by_key(|(_, rs)| rs.bits().trailing_zeros());
    forms
}

/// The parameter list of a demangled name, with the C++11 `std::string` spelled short and an ABI
/// tag kept (it is what tells two otherwise equal forms apart).
fn signature(demangled: &str) -> String {
    let params = demangled.find('(').map_or(demangled, |p| &demangled[p..]);
    let params = params.replace(
        "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        "std::__cxx11::string",
    );
    if demangled.contains("[abi:cxx11]") {
        format!("[abi:cxx11]{params}")
    } else {
        params
    }
}

/// Number of top-level parameters in `(a, b<c, d>, e)`.
fn param_count(params: &str) -> usize {
    let inner = params
        .strip_prefix('(')
        .and_then(|p| p.rfind(')').map(|e| &p[..e]))
        .unwrap_or("");
    if inner.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut n = 1;
    for c in inner.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

// ---------------------------------------------------------------------------------------------
// Loading and searching the embedded file.

static INDEX: OnceLock<Result<Index, String>> = OnceLock::new();

fn index() -> Option<&'static Index> {
    INDEX.get_or_init(load).as_ref().ok()
}

struct Index {
    releases: Vec<Release>,
    libraries: Vec<String>,
    len: usize,
    /// Restart interval of the front coding.
    block: usize,
    data: Cow<'static, [u8]>,
    /// Offset in `data` of each block's first entry (whose shared-prefix length is 0).
    block_starts: Vec<usize>,
    masks: Vec<u128>,
    libs: Vec<u64>,
}

const QUALS: [&str; 9] = ["", "K", "R", "O", "KR", "KO", "V", "VK", "r"];

fn load() -> Result<Index, String> {
    parse(RAW)
}

fn parse(data: impl Into<Cow<'static, [u8]>>) -> Result<Index, String> {
    let data = data.into();
    let bad = |what: &str| format!("torch index: truncated or corrupt ({what})");
    let mut r = Reader { buf: &data, pos: 0 };
    if r.bytes(4) != Some(b"ABTI".as_slice()) {
        return Err("torch index: bad magic".to_owned());
    }
    if r.varint() != Some(1) {
        return Err("torch index: unsupported format version".to_owned());
    }
    let n_rel = r.usize().ok_or_else(|| bad("releases"))?;
    if n_rel > 128 {
        return Err("torch index: more than 128 releases".to_owned());
    }
    let mut releases = Vec::with_capacity(n_rel);
    for _ in 0..n_rel {
        let version = r.string().ok_or_else(|| bad("release"))?;
        let cxx11_abi = r.bytes(1).ok_or_else(|| bad("release"))? != [0];
        let cuda = r.string().ok_or_else(|| bad("release"))?;
        releases.push(Release {
            version,
            cxx11_abi,
            cuda: (!cuda.is_empty()).then_some(cuda),
        });
    }
    let n_lib = r.usize().ok_or_else(|| bad("libraries"))?;
    let mut libraries = Vec::with_capacity(n_lib.min(64));
    for _ in 0..n_lib {
        libraries.push(r.string().ok_or_else(|| bad("library"))?);
    }
    let len = r.usize().ok_or_else(|| bad("symbol count"))?;
    let block = r.usize().filter(|&b| b > 0).ok_or_else(|| bad("block"))?;
    let mut block_starts = Vec::with_capacity(len / block + 1);
    for i in 0..len {
        let at = r.pos;
        let shared = r.usize().ok_or_else(|| bad("entry"))?;
        if i % block == 0 {
            if shared != 0 {
                return Err(bad("block head"));
            }
            block_starts.push(at);
        }
        let n = r.usize().ok_or_else(|| bad("entry"))?;
        r.bytes(n).ok_or_else(|| bad("entry"))?;
    }
    let mut masks = Vec::with_capacity(len);
    for _ in 0..len {
        masks.push(r.varint().ok_or_else(|| bad("release mask"))?);
    }
    let mut libs = Vec::with_capacity(len);
    for _ in 0..len {
        let m = r.varint().ok_or_else(|| bad("library mask"))?;
        libs.push(u64::try_from(m).map_err(|_| bad("library mask"))?);
    }
    Ok(Index {
        releases,
        libraries,
        len,
        block,
        data,
        block_starts,
        masks,
        libs,
    })
}

impl Index {
    fn block_head(&self, b: usize) -> &[u8] {
        let Some(&at) = self.block_starts.get(b) else {
            return &[];
        };
        let mut r = Reader {
            buf: &self.data,
            pos: at,
        };
        let _shared = r.varint();
        r.usize().and_then(|n| r.bytes(n)).unwrap_or(&[])
    }

    /// Position of `key` in the sorted symbol list.
    fn find(&self, key: &[u8]) -> Option<usize> {
        let p = partition(self.block_starts.len(), |b| self.block_head(b) <= key);
        let b = p.checked_sub(1)?;
        let mut c = Cursor::at_block(self, b);
        let end = ((b + 1) * self.block).min(self.len);
        while c.i < end {
            let i = c.next()?;
            match c.cur.as_slice().cmp(key) {
                std::cmp::Ordering::Equal => return Some(i),
                std::cmp::Ordering::Greater => return None,
                std::cmp::Ordering::Less => {}
            }
        }
        None
    }

    /// Calls `f(index, symbol)` for every symbol starting with `prefix`, in order, while `f`
    /// returns true.
    fn scan_prefix(&self, prefix: &[u8], mut f: impl FnMut(usize, &[u8]) -> bool) {
        let p = partition(self.block_starts.len(), |b| self.block_head(b) < prefix);
        let mut c = Cursor::at_block(self, p.saturating_sub(1));
        while c.i < self.len {
            let Some(i) = c.next() else { return };
            if c.cur.as_slice() < prefix {
                continue;
            }
            if !c.cur.starts_with(prefix) {
                return;
            }
            if !f(i, &c.cur) {
                return;
            }
        }
    }

    fn symbol(&self, i: usize) -> Option<String> {
        let b = i / self.block;
        let mut c = Cursor::at_block(self, b);
        loop {
            let j = c.next()?;
            if j == i {
                return String::from_utf8(c.cur).ok();
            }
            if j > i {
                return None;
            }
        }
    }

    fn history(&'static self, i: usize) -> SymbolHistory {
        let lib_mask = self.libs.get(i).copied().unwrap_or(0);
        let libraries: Vec<&'static str> = self
            .libraries
            .iter()
            .enumerate()
            .filter(|(j, _)| *j < 64 && lib_mask & (1u64 << j) != 0)
            .map(|(_, l)| l.as_str())
            .collect();
        SymbolHistory {
            releases: ReleaseSet(self.masks.get(i).copied().unwrap_or(0)),
            library: libraries.first().copied().unwrap_or(""),
            libraries,
        }
    }
}

/// Number of leading items (of `n`) for which `pred` holds; `pred` must be monotone.
fn partition(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Sequential decoder over the front-coded entries, starting at a block head.
struct Cursor<'a> {
    r: Reader<'a>,
    /// Index of the next entry `next()` decodes.
    i: usize,
    cur: Vec<u8>,
}

impl<'a> Cursor<'a> {
    fn at_block(ix: &'a Index, b: usize) -> Cursor<'a> {
        let pos = ix.block_starts.get(b).copied().unwrap_or(ix.data.len());
        Cursor {
            r: Reader { buf: &ix.data, pos },
            i: b * ix.block,
            cur: Vec::with_capacity(256),
        }
    }

    fn next(&mut self) -> Option<usize> {
        let shared = self.r.usize()?;
        let n = self.r.usize()?;
        let suffix = self.r.bytes(n)?;
        if shared > self.cur.len() {
            return None;
        }
        self.cur.truncate(shared);
        self.cur.extend_from_slice(suffix);
        self.i += 1;
        Some(self.i - 1)
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn varint(&mut self) -> Option<u128> {
        // Most varints of the index (prefix and suffix lengths) are one byte.
        let b = *self.buf.get(self.pos)?;
        if b & 0x80 == 0 {
            self.pos += 1;
            return Some(u128::from(b));
        }
        self.varint_long()
    }

    fn varint_long(&mut self) -> Option<u128> {
        let mut v: u128 = 0;
        let mut shift = 0u32;
        loop {
            let b = *self.buf.get(self.pos)?;
            self.pos += 1;
            if shift >= 128 {
                return None;
            }
            v |= u128::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift += 7;
        }
    }

    #[inline]
    fn usize(&mut self) -> Option<usize> {
        self.varint().and_then(|v| usize::try_from(v).ok())
    }

    #[inline]
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn string(&mut self) -> Option<String> {
        let n = self.usize()?;
        String::from_utf8(self.bytes(n)?.to_vec()).ok()
    }
}

// ---------------------------------------------------------------------------------------------
// Qualified names of mangled symbols, enough to group the forms of one function.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Ctor,
    Dtor,
}

struct Nested<'a> {
    /// The mangled nested name after `_ZN` and its cv/ref qualifiers, up to the end of the last
    /// source name (ABI tags and the ctor/dtor marker excluded): the key all forms share.
    prefix: &'a str,
    parts: Vec<String>,
    kind: Kind,
}

struct NameKey {
    prefix: String,
    kind: Kind,
    global: bool,
}

fn parse_nested(sym: &str) -> Option<Nested<'_>> {
    let rest = sym.strip_prefix("_ZN")?;
    let quals = rest.len() - rest.trim_start_matches(['r', 'V', 'K']).len();
    let mut pos = quals;
    let b = rest.as_bytes();
    if matches!(b.get(pos), Some(b'R' | b'O')) {
        pos += 1;
    }
    let start = pos;
    let mut end = pos;
    let mut parts = Vec::new();
    let mut kind = Kind::Plain;
    loop {
        match b.get(pos)? {
            b'0'..=b'9' => {
                let (name, next) = source_name(rest, pos)?;
                parts.push(name.to_owned());
                pos = next;
                end = pos;
                while b.get(pos) == Some(&b'B') {
                    let (_, next) = source_name(rest, pos + 1)?;
                    pos = next;
                }
            }
            b'C' if matches!(b.get(pos + 1), Some(b'1'..=b'5' | b'I')) => {
                kind = Kind::Ctor;
                break;
            }
            b'D' if matches!(b.get(pos + 1), Some(b'0'..=b'5')) => {
                kind = Kind::Dtor;
                break;
            }
            b'E' => break,
            _ => return None,
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Nested {
        prefix: rest.get(start..end)?,
        parts,
        kind,
    })
}

fn source_name(s: &str, pos: usize) -> Option<(&str, usize)> {
    let digits = s.get(pos..)?.bytes().take_while(u8::is_ascii_digit).count();
    let n: usize = s.get(pos..pos + digits)?.parse().ok()?;
    let from = pos + digits;
    let name = s.get(from..from.checked_add(n)?)?;
    Some((name, from + n))
}

fn global_key(sym: &str) -> Option<NameKey> {
    let rest = sym.strip_prefix("_Z")?;
    let (name, _) = source_name(rest, 0)?;
    Some(NameKey {
        prefix: format!("{}{name}", name.len()),
        kind: Kind::Plain,
        global: true,
    })
}

fn key_from_qualified(name: &str) -> Option<NameKey> {
    let name = name.trim();
    // Drop the parameter list and anything after it (`const`, `&`).
    let name = name.split('(').next()?.trim();
    // A return type before the name (`void at::foo`) is not part of it.
    let name = name.rsplit(' ').next()?;
    if name.is_empty() || name.contains(['<', '>', ' ']) || name.contains("operator") {
        return None;
    }
    let mut parts: Vec<&str> = name.split("::").collect();
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    if parts.len() == 1 {
        return Some(NameKey {
            prefix: format!("{}{}", name.len(), name),
            kind: Kind::Plain,
            global: true,
        });
    }
    let mut kind = Kind::Plain;
    let n = parts.len();
    if let (Some(last), Some(class)) = (parts.get(n - 1), parts.get(n - 2)) {
        if last == class {
            kind = Kind::Ctor;
        } else if last.strip_prefix('~') == Some(class) {
            kind = Kind::Dtor;
        }
    }
    if kind != Kind::Plain {
        parts.pop();
    }
    let prefix: String = parts.iter().map(|p| format!("{}{p}", p.len())).collect();
    Some(NameKey {
        prefix,
        kind,
        global: false,
    })
}

#[cfg(test)]
mod tests;
