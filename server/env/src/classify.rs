//! Classifying a missing mangled symbol against exported names, on mangled text alone: same
//! qualified name with other parameters (`signature-changed`), a difference only in the C++11
//! `std::string` ABI (`cxx11-abi`), or gone (`removed`). A fallback until `abidoc-elf`'s
//! demangling classifier is wired in; it only needs the sorted export names.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SymbolStatus {
    Resolved,
    Missing,
    SignatureChanged,
    Cxx11Abi,
    Removed,
    VersionMissing,
}

impl SymbolStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolStatus::Resolved => "resolved",
            SymbolStatus::Missing => "missing",
            SymbolStatus::SignatureChanged => "signature-changed",
            SymbolStatus::Cxx11Abi => "cxx11-abi",
            SymbolStatus::Removed => "removed",
            SymbolStatus::VersionMissing => "version-missing",
        }
    }
}

/// The mangled qualified-name prefix (`_ZN3c104cuda29c10_cuda_check_implementationE`), and the
/// root namespace (`c10`), or `None` for names that are not plain Itanium function names.
pub fn qualified_prefix(m: &str) -> Option<(String, String)> {
    let rest = m.strip_prefix("_Z")?;
    let b = rest.as_bytes();
    let (nested, mut i) = if b.first() == Some(&b'N') { (true, 1) } else { (false, 0) };
    // CV- and ref-qualifiers of member functions.
    while nested && i < b.len() && matches!(b[i], b'r' | b'V' | b'K' | b'R' | b'O') {
        i += 1;
    }
    let mut root: Option<String> = None;
    loop {
        if rest[i..].starts_with("St") {
            root.get_or_insert_with(|| "std".into());
            i += 2;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            // C1/C2/D0/D1/D2: constructors and destructors end the name.
            if nested && i + 1 < b.len() && matches!(b[i], b'C' | b'D') && b[i + 1].is_ascii_digit() {
                i += 2;
            }
            break;
        }
        let len: usize = rest[start..i].parse().ok()?;
        let end = i.checked_add(len).filter(|&e| e <= b.len())?;
        root.get_or_insert_with(|| rest[i..end].to_string());
        i = end;
        // `B5cxx11` ABI tags belong to the name but must not split it.
        while rest[i..].starts_with('B') {
            let s = i + 1;
            let mut j = s;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let l: usize = rest[s..j].parse().ok()?;
            i = j.checked_add(l).filter(|&e| e <= b.len())?;
        }
        if !nested {
            break;
        }
    }
    if nested && b.get(i) != Some(&b'E') {
        // Templates and other shapes: only the part read so far is comparable.
        return root.map(|r| (format!("_Z{}", &rest[..i]), r));
    }
    let end = if nested { i + 1 } else { i };
    Some((format!("_Z{}", strip_tags(&rest[..end])), root?))
}

fn strip_tags(s: &str) -> String {
    s.replace("B5cxx11", "")
}

fn string_abi_normalized(m: &str) -> String {
    m.replace("NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "Ss")
        .replace("St7__cxx11", "St")
        .replace("B5cxx11", "")
}

fn has_cxx11(m: &str) -> bool {
    m.contains("St7__cxx11") || m.contains("B5cxx11")
}

/// Classifies `missing` against `exports` (sorted, deduplicated names). Returns the status and the
/// nearest exported variant (mangled).
pub fn classify(missing: &str, exports: &[&[&str]]) -> (SymbolStatus, Option<String>) {
    let Some((prefix, _)) = qualified_prefix(missing) else {
        return (SymbolStatus::Removed, None);
    };
    let mut candidates: Vec<&str> = Vec::new();
    for list in exports {
        // Exports may carry a `B5cxx11` tag inside the name: search the untagged prefix too.
        let start = list.partition_point(|e| *e < prefix.as_str());
        for e in list[start..].iter().take_while(|e| e.starts_with(prefix.as_str())) {
            candidates.push(e);
        }
    }
    if candidates.is_empty() {
        // The tag can sit inside the prefix of the export (`…3strB5cxx11Ev`): compare untagged.
        for list in exports {
            for e in list.iter() {
                if e.contains("B5cxx11") && qualified_prefix(e).is_some_and(|(p, _)| p == prefix) {
                    candidates.push(e);
                }
            }
        }
    }
    candidates.retain(|c| *c != missing);
    if candidates.is_empty() {
        return (SymbolStatus::Removed, None);
    }
    let norm = string_abi_normalized(missing);
    if let Some(c) = candidates.iter().find(|c| string_abi_normalized(c) == norm) {
        return (SymbolStatus::Cxx11Abi, Some(c.to_string()));
    }
    if candidates.iter().any(|c| has_cxx11(c) != has_cxx11(missing)) && (missing.contains("Ss") || has_cxx11(missing)) {
        let c = candidates
            .iter()
            .find(|c| has_cxx11(c) != has_cxx11(missing))
            .map(|c| c.to_string());
        return (SymbolStatus::Cxx11Abi, c);
    }
    let best = candidates
        .iter()
        .min_by_key(|c| (c.len().abs_diff(missing.len()), c.to_string()))
        .map(|c| c.to_string());
    (SymbolStatus::SignatureChanged, best)
}

/// Root namespaces that belong to torch or the C++ runtime, never to an extension's own sources.
pub const FOREIGN_ROOTS: &[&str] = &[
    "c10", "at", "torch", "caffe2", "std", "__gnu_cxx", "__cxxabiv1", "pybind11", "cudnn", "cublas", "thrust", "cub",
];

/// True when a missing mangled symbol looks like it belongs to the extension's own sources.
pub fn is_own_symbol(missing: &str) -> bool {
    match qualified_prefix(missing) {
        Some((_, root)) => !FOREIGN_ROOTS.contains(&root.as_str()),
        None => false,
    }
}
