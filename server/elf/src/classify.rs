//! Why a required symbol is missing: compared with what an `ExportIndex` exports instead
//! (changed signature, C++11 ABI flip, removed), and missing symbol versions.

use crate::demangle::{abi_flavor, demangle, normalize_cxx11, split_params, split_version};
use crate::index::{Export, ExportIndex};
use crate::model::ElfInfo;

/// The contract's `symbols[].status` values that this crate decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Exported as required: not missing.
    Resolved,
    /// Same qualified name exported with other parameters (or qualifiers).
    SignatureChanged,
    /// Same function exported, differing only by the `std::string` ABI (`Ss` vs
    /// `NSt7__cxx1112basic_string…`, `B5cxx11` tags).
    Cxx11Abi,
    /// Nothing with that qualified name is exported.
    Removed,
    /// The name is exported, or the library is found, but not at the required symbol version.
    VersionMissing,
    /// Not exported, and the name cannot be compared further (truncated in a log, or not
    /// demanglable); `nearest` is the export sharing the longest prefix with it, if any.
    Missing,
}

impl Status {
    /// The contract spelling (`signature-changed`, `cxx11-abi`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Resolved => "resolved",
            Status::SignatureChanged => "signature-changed",
            Status::Cxx11Abi => "cxx11-abi",
            Status::Removed => "removed",
            Status::VersionMissing => "version-missing",
            Status::Missing => "missing",
        }
    }
}

/// The verdict on one missing symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// The symbol as given, without `@VERSION`.
    pub symbol: String,
    pub demangled: Option<String>,
    pub status: Status,
    /// The nearest exported variant (mangled), for `SignatureChanged` / `Cxx11Abi` /
    /// `VersionMissing`.
    pub nearest: Option<String>,
    pub nearest_demangled: Option<String>,
    /// The library exporting `nearest`, as named when added to the index.
    pub nearest_library: Option<String>,
    /// One line saying how the two differ (or why nothing is near).
    pub difference: String,
}

/// Classify `missing` (mangled, optionally `name@VERSION`) against the exports in `index`.
///
/// Candidates come from the index's qualified-name table; only they are demangled. When several
/// variants exist, the nearest is the one with the fewest differing parameters.
pub fn classify(missing: &str, index: &ExportIndex<'_>) -> Classification {
    let (name, version) = split_version(missing);
    let demangled = demangle(name);
    let mut out = Classification {
        symbol: name.to_string(),
        demangled: demangled.clone(),
        status: Status::Removed,
        nearest: None,
        nearest_demangled: None,
        nearest_library: None,
        difference: String::new(),
    };
    // Without a required version, hidden (`sym@VER`) definitions do not bind.
    let exact: Vec<&Export<'_>> = index
        .lookup(name)
        .filter(|e| version.is_some() || !e.hidden)
        .collect();
    if !exact.is_empty() {
        match version {
            Some(v)
                if exact
                    .iter()
                    .all(|e| e.version.is_some_and(|have| have != v)) =>
            {
                let have: Vec<&str> = exact.iter().filter_map(|e| e.version).collect();
                out.status = Status::VersionMissing;
                out.nearest = Some(name.to_string());
                out.nearest_demangled = demangled;
                out.nearest_library = Some(index.library_name(exact[0].library).to_string());
                out.difference = format!("needs version {v}; exported at {}", have.join(", "));
            }
            _ => {
                out.status = Status::Resolved;
                out.nearest_library = Some(index.library_name(exact[0].library).to_string());
                out.difference = "exported".to_string();
            }
        }
        return out;
    }

    // The index keys on the fast reading of names; confirm each candidate's qualified name.
    let want_q = qualified_key(name);
    let candidates: Vec<&Export<'_>> = index
        .same_qualified_name(name)
        .into_iter()
        .filter(|c| want_q.is_none() || qualified_key(c.name) == want_q)
        .collect();
    let display = demangled.as_deref().unwrap_or(name);
    if candidates.is_empty() {
        out.difference = match crate::demangle::qualified_name(name) {
            Some(q) if q != name => format!("no library exports anything named {q}"),
            _ => format!("no library exports {display}"),
        };
        return out;
    }

    if demangled.is_none() && crate::mangled::strip_prefix(name).is_some() {
        // Truncated (or broken) C++ name: compare by mangled prefix, the only thing left.
        let best = candidates
            .iter()
            .max_by_key(|c| (common_prefix(name, c.name), std::cmp::Reverse(c.name)))
            .copied();
        out.status = Status::Missing;
        if let Some(b) = best {
            let whole = b.name.starts_with(name);
            out.difference = if whole {
                format!(
                    "the name is truncated; {} is exported and starts with it",
                    b.name
                )
            } else {
                "the name is truncated or not demanglable; nearest export by prefix".to_string()
            };
            out.nearest = Some(b.name.to_string());
            out.nearest_demangled = demangle(b.name);
            out.nearest_library = Some(index.library_name(b.library).to_string());
        }
        return out;
    }

    // A C++11 ABI flip: equal once both spellings are normalized to the old ABI.
    let want_norm = demangled.as_deref().map(normalize_cxx11);
    let mut scored: Vec<(Score, &Export<'_>, Option<String>)> =
        Vec::with_capacity(candidates.len());
    // Several variants can demangle alike (a constructor's complete and base-object forms,
    // C1/C2): the twin is the one whose mangled name shares most with the wanted one, whatever
    // order the index holds them in.
    let mut twin: Option<(usize, &Export<'_>, Option<String>)> = None;
    for c in candidates {
        let cd = demangle(c.name);
        if let (Some(w), Some(d)) = (want_norm.as_deref(), cd.as_deref())
            && normalize_cxx11(d) == w
        {
            let shared = common_prefix(name, c.name);
            let better = twin
                .as_ref()
                .is_none_or(|(s, t, _)| shared > *s || (shared == *s && c.name < t.name));
            if better {
                twin = Some((shared, c, cd));
            }
            continue;
        }
        let score = score(demangled.as_deref(), cd.as_deref(), name, c.name);
        scored.push((score, c, cd));
    }
    if let Some((_, c, cd)) = twin {
        out.status = Status::Cxx11Abi;
        out.difference = cxx11_difference(name, c.name);
        out.nearest = Some(c.name.to_string());
        out.nearest_demangled = cd;
        out.nearest_library = Some(index.library_name(c.library).to_string());
        return out;
    }
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(b.1.name)));
    let Some((_, best, best_demangled)) = scored.into_iter().next() else {
        return out;
    };
    out.status = Status::SignatureChanged;
    out.difference = match (demangled.as_deref(), best_demangled.as_deref()) {
        (Some(a), Some(b)) => signature_difference(a, b),
        _ => format!("{name} vs {}", best.name),
    };
    out.nearest = Some(best.name.to_string());
    out.nearest_demangled = best_demangled;
    out.nearest_library = Some(index.library_name(best.library).to_string());
    out
}

/// The qualified name with `__cxx11` inline namespaces dropped: both ABIs of a name agree.
fn qualified_key(name: &str) -> Option<String> {
    let q = crate::demangle::qualified_name(name)?;
    Some(q.replace("::__cxx11", ""))
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// (differing parameter positions + arity difference, arity difference, qualifiers differ,
/// length difference of the mangled names): smaller is nearer.
type Score = (usize, usize, bool, usize);

fn score(want: Option<&str>, have: Option<&str>, want_m: &str, have_m: &str) -> Score {
    let len_diff = want_m.len().abs_diff(have_m.len());
    let (Some((wp, wt)), Some((hp, ht))) =
        (want.and_then(split_params), have.and_then(split_params))
    else {
        return (usize::MAX / 2, usize::MAX / 2, true, len_diff);
    };
    let arity = wp.len().abs_diff(hp.len());
    let differing = wp.iter().zip(&hp).filter(|(a, b)| a != b).count();
    (differing + arity, arity, wt != ht, len_diff)
}

/// `(…, int, bool) vs (…, unsigned int, bool)`: the parameter lists from the first difference,
/// or the qualifiers when only they differ.
fn signature_difference(want: &str, have: &str) -> String {
    let (Some((wp, wt)), Some((hp, ht))) = (split_params(want), split_params(have)) else {
        return format!("{want} vs {have}");
    };
    let common = wp.iter().zip(&hp).take_while(|(a, b)| a == b).count();
    if common == wp.len() && common == hp.len() {
        return format!("({}){wt} vs ({}){ht}", wp.join(", "), hp.join(", "));
    }
    // Elide the common leading parameters only when both lists go on after them.
    let elide = common > 0 && common < wp.len() && common < hp.len();
    let render = |p: &[&str], tail: &str| {
        if elide {
            format!("(…, {}){tail}", p[common..].join(", "))
        } else {
            format!("({}){tail}", p.join(", "))
        }
    };
    format!("{} vs {}", render(&wp, wt), render(&hp, ht))
}

fn cxx11_difference(want: &str, have: &str) -> String {
    use crate::demangle::AbiFlavor::{Cxx11, Neutral, PreCxx11};
    // A name without evidence of either ABI, next to one with it, was built with the other flag.
    let (w, h) = match (abi_flavor(want), abi_flavor(have)) {
        (Neutral, Cxx11) => (PreCxx11, Cxx11),
        (Neutral, PreCxx11) => (Cxx11, PreCxx11),
        (Cxx11, Neutral) => (Cxx11, PreCxx11),
        (PreCxx11, Neutral) => (PreCxx11, Cxx11),
        pair => pair,
    };
    let describe = |f| match f {
        Cxx11 => "the C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1)",
        PreCxx11 => "the pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0)",
        Neutral => "an ABI-neutral spelling",
    };
    format!(
        "required with {}, exported with {}",
        describe(w),
        describe(h)
    )
}

/// The verdict on one required symbol version (e.g. `GLIBCXX_3.4.30` from `libstdc++.so.6`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionCheck {
    pub required: String,
    /// `Resolved` or `VersionMissing`.
    pub status: Status,
    /// The newest version of the same family the provider defines (`GLIBCXX_3.4.29`).
    pub newest_defined: Option<String>,
    pub difference: String,
}

/// Does `provider` define version `required` (from the needer's `.gnu.version_r`)?
pub fn check_version(required: &str, provider: &ElfInfo<'_>) -> VersionCheck {
    let family = version_family(required).map(|(f, _)| f);
    let newest = provider
        .version_defs
        .iter()
        .filter(|d| !d.base)
        .filter_map(|d| version_family(d.name).map(|(f, nums)| (f, nums, d.name)))
        .filter(|(f, _, _)| Some(*f) == family)
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(_, _, n)| n.to_string());
    if provider.defines_version(required) {
        return VersionCheck {
            required: required.to_string(),
            status: Status::Resolved,
            newest_defined: newest,
            difference: "defined".to_string(),
        };
    }
    let where_ = provider.soname.unwrap_or("the library found");
    let difference = match &newest {
        Some(n) => format!("{where_} defines versions up to {n}, not {required}"),
        None if provider.version_defs.is_empty() => format!("{where_} defines no symbol versions"),
        None => format!(
            "{where_} defines no {} versions",
            family.unwrap_or(required)
        ),
    };
    VersionCheck {
        required: required.to_string(),
        status: Status::VersionMissing,
        newest_defined: newest,
        difference,
    }
}

/// `GLIBCXX_3.4.30` → (`GLIBCXX`, [3, 4, 30]).
pub fn version_family(name: &str) -> Option<(&str, Vec<u32>)> {
    let (family, nums) = name.rsplit_once('_')?;
    let parsed: Option<Vec<u32>> = nums.split('.').map(|n| n.parse().ok()).collect();
    Some((family, parsed?))
}
