//! Symbol statuses as the contract spells them, and telling an extension's own symbols (a partial
//! build) from torch's or the C++ runtime's by the root namespace of the mangled name. The
//! signature/ABI classification itself is `abidoc_elf::classify`.

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
    let (nested, mut i) = if b.first() == Some(&b'N') {
        (true, 1)
    } else {
        (false, 0)
    };
    // CV- and ref-qualifiers of member functions.
    while nested && i < b.len() && matches!(b[i], b'r' | b'V' | b'K' | b'R' | b'O') {
        i += 1;
    }
    let mut root: Option<String> = None;
    loop {
        if b.get(i..).is_some_and(|r| r.starts_with(b"St")) {
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
            if nested && i + 1 < b.len() && matches!(b[i], b'C' | b'D') && b[i + 1].is_ascii_digit()
            {
                i += 2;
            }
            break;
        }
        let len: usize = rest.get(start..i)?.parse().ok()?;
        let end = i.checked_add(len).filter(|&e| e <= b.len())?;
        // A source name's length counts bytes: with non-ASCII it may end inside a char.
        let ident = rest.get(i..end)?;
        root.get_or_insert_with(|| ident.to_string());
        i = end;
        // `B5cxx11` ABI tags belong to the name but must not split it.
        while b.get(i) == Some(&b'B') {
            let s = i + 1;
            let mut j = s;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let l: usize = rest.get(s..j)?.parse().ok()?;
            i = j.checked_add(l).filter(|&e| e <= b.len())?;
        }
        if !nested {
            break;
        }
    }
    if nested && b.get(i) != Some(&b'E') {
        // Templates and other shapes: only the part read so far is comparable.
        return root.zip(rest.get(..i)).map(|(r, p)| (format!("_Z{p}"), r));
    }
    let end = if nested { i + 1 } else { i };
    Some((format!("_Z{}", strip_tags(rest.get(..end)?)), root?))
}

fn strip_tags(s: &str) -> String {
    s.replace("B5cxx11", "")
}

/// Root namespaces beside torch's ([`abidoc_knowledge::TORCH_CXX_NAMESPACES`]) that belong to
/// the C++ runtime or CUDA's header libraries, never to an extension's own sources.
const FOREIGN_ROOTS: &[&str] = &[
    "std",
    "__gnu_cxx",
    "__cxxabiv1",
    "pybind11",
    "cudnn",
    "cublas",
    "thrust",
    "cub",
];

/// True when a missing mangled symbol looks like it belongs to the extension's own sources.
pub fn is_own_symbol(missing: &str) -> bool {
    match qualified_prefix(missing) {
        Some((_, root)) => {
            !abidoc_knowledge::is_torch_namespace(&root) && !FOREIGN_ROOTS.contains(&root.as_str())
        }
        None => false,
    }
}

fn string_abi_normalized(m: &str) -> String {
    m.replace("NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "Ss")
        .replace("St7__cxx11", "St")
        .replace("B5cxx11", "")
}

/// Among `candidates` (exports sharing the missing symbol's qualified name), the one equal to
/// `missing` once both are rewritten to the old `std::string` ABI: proof of a pure C++11 ABI flip,
/// whatever a demangling comparison concludes about substitutions.
pub fn cxx11_twin<'a>(
    missing: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let norm = string_abi_normalized(missing);
    candidates
        .into_iter()
        .find(|c| *c != missing && string_abi_normalized(c) == norm)
}
