//! An index of exported dynamic symbols from one or many libraries: exact lookup, and lookup by
//! qualified name computed lazily from the mangled form (demangling only what the fast reader
//! does not understand).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::demangle::split_version;
use crate::mangled::{self, Component};
use crate::model::{Binding, ElfInfo};

/// Which library (in the order added) an export comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LibraryId(pub u32);

/// One exported symbol. Strings borrow from the libraries' bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Export<'a> {
    /// Mangled name, without version.
    pub name: &'a str,
    pub library: LibraryId,
    /// The version it is defined at (`GLIBCXX_3.4.30`), if versioned.
    pub version: Option<&'a str>,
    pub binding: Binding,
    /// Defined at a non-default version (`sym@VER`): only a reference requiring `VER` binds.
    pub hidden: bool,
}

const NONE: u32 = u32::MAX;

/// Exported symbols of many libraries. Building is one hash insert per export; the qualified-name
/// table is built on first use.
#[derive(Debug, Default)]
pub struct ExportIndex<'a> {
    libraries: Vec<&'a str>,
    exports: Vec<Export<'a>>,
    /// Next export with the same name (another library or another version), or `NONE`.
    next_same_name: Vec<u32>,
    by_name: HashMap<&'a str, u32, FxBuild>,
    /// (qualified-name key, export id), sorted by key.
    by_qualified: OnceLock<Vec<(u64, u32)>>,
}

impl<'a> ExportIndex<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add every export of `info` (see `Symbol::is_versioned_export`: hidden versions included,
    /// flagged) under the library name `name` (a path or SONAME, as the caller wants it reported).
    pub fn add_library(&mut self, name: &'a str, info: &ElfInfo<'a>) -> LibraryId {
        let id = self.new_library(name);
        self.exports.reserve(info.symbols.len());
        self.next_same_name.reserve(info.symbols.len());
        self.by_name.reserve(info.symbols.len());
        for s in info.symbols.iter().filter(|s| s.is_versioned_export()) {
            self.push(Export {
                name: s.name,
                library: id,
                version: s.version.map(|v| v.name),
                binding: s.binding,
                hidden: s.version.is_some_and(|v| v.hidden),
            });
        }
        id
    }

    /// Add exports known only by name (e.g. an offline symbol list); `name@VER` is understood.
    pub fn add_names(
        &mut self,
        name: &'a str,
        symbols: impl IntoIterator<Item = &'a str>,
    ) -> LibraryId {
        let id = self.new_library(name);
        for s in symbols {
            let (n, version) = split_version(s);
            self.push(Export {
                name: n,
                library: id,
                version,
                binding: Binding::Global,
                hidden: false,
            });
        }
        id
    }

    fn new_library(&mut self, name: &'a str) -> LibraryId {
        // Any change invalidates the lazily built qualified-name table.
        self.by_qualified = OnceLock::new();
        let id = LibraryId(u32::try_from(self.libraries.len()).unwrap_or(u32::MAX));
        self.libraries.push(name);
        id
    }

    fn push(&mut self, e: Export<'a>) {
        let Ok(id) = u32::try_from(self.exports.len()) else {
            return;
        };
        if id == NONE {
            return;
        }
        self.exports.push(e);
        self.next_same_name.push(NONE);
        let first = *self.by_name.entry(e.name).or_insert(id);
        if first != id {
            // Append to the end of the chain so providers stay in insertion order.
            let mut cur = first;
            while let Some(&n) = self
                .next_same_name
                .get(cur as usize)
                .filter(|n| **n != NONE)
            {
                cur = n;
            }
            if let Some(slot) = self.next_same_name.get_mut(cur as usize) {
                *slot = id;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.exports.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exports.is_empty()
    }

    /// All exports, in insertion order.
    pub fn exports(&self) -> &[Export<'a>] {
        &self.exports
    }

    /// Libraries, in insertion order (index = `LibraryId.0`).
    pub fn libraries(&self) -> &[&'a str] {
        &self.libraries
    }

    pub fn library_name(&self, id: LibraryId) -> &'a str {
        self.libraries.get(id.0 as usize).copied().unwrap_or("")
    }

    /// Whether an unversioned reference to `mangled` binds (a trailing `@VER` is ignored): some
    /// library exports it at its default version or unversioned.
    pub fn contains(&self, mangled: &str) -> bool {
        self.lookup(mangled).any(|e| !e.hidden)
    }

    /// Every export named `mangled` (one per providing library/version), in insertion order.
    pub fn lookup<'s>(&'s self, mangled: &str) -> impl Iterator<Item = &'s Export<'a>> + 's {
        let mut cur = self
            .by_name
            .get(split_version(mangled).0)
            .copied()
            .unwrap_or(NONE);
        std::iter::from_fn(move || {
            if cur == NONE {
                return None;
            }
            let e = self.exports.get(cur as usize)?;
            cur = self
                .next_same_name
                .get(cur as usize)
                .copied()
                .unwrap_or(NONE);
            Some(e)
        })
    }

    /// The export that satisfies `name` required at `version` (`None`: any version): what the
    /// loader would bind to.
    pub fn resolve(&self, name: &str, version: Option<&str>) -> Option<&Export<'a>> {
        let mut found = None;
        for e in self.lookup(name) {
            match (version, e.version) {
                (Some(need), Some(have)) if need != have => continue,
                (None, _) if e.hidden => continue,
                _ => {}
            }
            found = Some(e);
            break;
        }
        found
    }

    /// Exports with the same qualified name as `mangled` (any parameters), excluding `mangled`
    /// itself. The first call builds the qualified-name table.
    pub fn same_qualified_name(&self, mangled: &str) -> Vec<&Export<'a>> {
        let name = split_version(mangled).0;
        let Some(key) = key_of(name) else {
            return Vec::new();
        };
        self.by_key(key).filter(|e| e.name != name).collect()
    }

    /// Exports whose qualified name (as `qualified_name` spells it) is `qualified`.
    pub fn by_qualified_name(&self, qualified: &str) -> Vec<&Export<'a>> {
        self.by_key(key_of_qualified(qualified)).collect()
    }

    fn by_key(&self, key: u64) -> impl Iterator<Item = &Export<'a>> + '_ {
        let table = self.qualified_table();
        let start = table.partition_point(|(k, _)| *k < key);
        table[start..]
            .iter()
            .take_while(move |(k, _)| *k == key)
            .filter_map(|(_, id)| self.exports.get(*id as usize))
    }

    fn qualified_table(&self) -> &[(u64, u32)] {
        self.by_qualified.get_or_init(|| {
            let mut table: Vec<(u64, u32)> = Vec::with_capacity(self.by_name.len());
            // One key per distinct name: the chain shares it.
            for (name, &first) in &self.by_name {
                let Some(key) = key_of(name) else { continue };
                let mut cur = first;
                while cur != NONE {
                    table.push((key, cur));
                    cur = self
                        .next_same_name
                        .get(cur as usize)
                        .copied()
                        .unwrap_or(NONE);
                }
            }
            table.sort_unstable();
            table
        })
    }
}

/// Hash of the qualified name's components, `__cxx11` inline namespaces dropped (so both ABIs of
/// a name share a key). Fast path: no allocation, no demangle. Public so that callers keeping
/// their own tables of exports (the scan's shared global scope) key them the same way.
pub fn key_of(name: &str) -> Option<u64> {
    let Some(body) = mangled::strip_prefix(name) else {
        return (!name.is_empty()).then(|| key_of_qualified(name));
    };
    // Vtables, typeinfo, thunks and guard variables have no parameters to compare: exact lookup
    // is all they need, and they are a fifth of a large C++ library's exports.
    if body.starts_with('T') || body.starts_with("GV") {
        return None;
    }
    let mut h = FxHasher::default();
    let mut parts = 0usize;
    let complete = mangled::for_each_component(name, &mut |c| {
        parts += 1;
        match c {
            Component::Name("__cxx11") => {}
            Component::Name(n) | Component::Ctor(n) => hash_component(&mut h, &[n]),
            Component::Dtor(n) => hash_component(&mut h, &["~", n]),
            Component::Operator(o) => hash_component(&mut h, &[o]),
        }
    });
    if complete.is_none() {
        // Not understood past `parts` components (lambdas, conversion operators, local names):
        // key on that prefix instead of demangling. Variants of one function fail at the same
        // place, so they still meet; `classify` checks candidates' full qualified names.
        if parts == 0 {
            return None;
        }
        hash_component(&mut h, &["\u{0}partial"]);
    }
    Some(h.finish())
}

fn key_of_qualified(q: &str) -> u64 {
    let mut h = FxHasher::default();
    for part in q.split("::") {
        if part == "__cxx11" || part.is_empty() {
            continue;
        }
        hash_component(&mut h, &[part]);
    }
    h.finish()
}

fn hash_component(h: &mut FxHasher, parts: &[&str]) {
    for p in parts {
        h.write(p.as_bytes());
    }
    h.write_u8(0xff);
}

/// The rustc hasher: a multiply-rotate per word, several times faster than SipHash on symbol
/// names; keys here are not attacker-chosen in a way that matters (worst case: slower lookups).
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    /// The multiply only carries entropy upwards; hash tables index by the low bits, so fold
    /// the high bits down (murmur3's finalizer).
    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
