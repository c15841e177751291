//! The loader-relevant facts of one ELF shared object: SONAME, DT_NEEDED, RPATH/RUNPATH, defined
//! and undefined dynamic symbols with their versions, version definitions and requirements.
//! Read with `abidoc-elf` and kept owned; a damaged file gives an error string, never a panic.

use serde::{Deserialize, Serialize};

/// A defined, visible dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Export {
    /// Boxed, not `String`: a process model holds a few hundred thousand of these.
    pub name: Box<str>,
    /// Its version (`GLIBCXX_3.4.30`), if the object versions its symbols.
    pub version: Option<Box<str>>,
    /// False for non-default (`@` rather than `@@`) versions, which only versioned references bind.
    pub default: bool,
}

/// An undefined dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub name: Box<str>,
    pub weak: bool,
    /// The required version and the SONAME it was taken from (verneed `vn_file`).
    pub version: Option<Box<str>>,
    pub version_file: Option<Box<str>>,
}

/// One verneed entry: a library by SONAME and the versions required from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionNeed {
    pub file: String,
    /// (version, weak)
    pub versions: Vec<(String, bool)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibFacts {
    pub is_64: bool,
    pub machine: u16,
    pub soname: Option<String>,
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
    /// `DF_1_NODEFLIB`: neither the cache nor the default directories are searched.
    pub nodeflib: bool,
    /// Grouped by name (equal names adjacent, then by version), in the order of
    /// `export_hashes`: sorting 250k fixed-size keys is several times cheaper than sorting the
    /// strings, and lookups go by hash first anyway.
    pub exports: Vec<Export>,
    /// [`crate::loader::name_hash`] of each export's name, parallel to `exports`, ascending.
    #[serde(skip)]
    pub export_hashes: Vec<u64>,
    pub imports: Vec<Import>,
    /// Version names this object defines (not the base entry).
    pub verdefs: Vec<String>,
    pub verneeds: Vec<VersionNeed>,
    /// What `abidoc-elf` could not read but worked around (e.g. a damaged section table).
    pub problems: Vec<String>,
}

impl LibFacts {
    /// Reads an ELF shared object or executable with `abidoc-elf` and keeps what the loader model
    /// needs, owned (so it can be shared between threads and outlive the mapping).
    pub fn parse(data: &[u8]) -> Result<LibFacts, String> {
        let (info, problems) = abidoc_elf::read(data);
        // ld.so maps segments, not sections: a broken section table alone does not stop it, but a
        // file that ends before its segments do ("file too short") does.
        if let Some(t) = problems
            .iter()
            .find(|p| p.kind == abidoc_elf::ProblemKind::Truncated)
        {
            return Err(t.message.clone());
        }
        let Some(info) = info else {
            let msg: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
            return Err(if msg.is_empty() {
                "not a readable ELF file".to_string()
            } else {
                msg.join("; ")
            });
        };
        let mut facts = LibFacts {
            is_64: info.class == abidoc_elf::ElfClass::Elf64,
            machine: info.machine,
            soname: info.soname.map(str::to_string),
            needed: info.needed.iter().map(ToString::to_string).collect(),
            rpath: info.rpath.iter().map(ToString::to_string).collect(),
            runpath: info.runpath.iter().map(ToString::to_string).collect(),
            // abidoc-elf does not report DT_FLAGS_1; DF_1_NODEFLIB is rare outside system builds.
            nodeflib: false,
            problems: problems.iter().map(|p| p.message.clone()).collect(),
            ..LibFacts::default()
        };
        facts.verdefs = info
            .version_defs
            .iter()
            .filter(|d| !d.base)
            .map(|d| d.name.to_string())
            .collect();
        facts.verneeds = info
            .version_needs
            .iter()
            .map(|n| VersionNeed {
                file: n.file.to_string(),
                // abidoc-elf does not keep VER_FLG_WEAK: every required version counts.
                versions: n.versions.iter().map(|v| (v.to_string(), false)).collect(),
            })
            .collect();
        let exports = info
            .symbols
            .iter()
            .filter(|s| s.is_versioned_export())
            .count();
        facts.exports.reserve_exact(exports);
        for s in &info.symbols {
            if s.is_versioned_export() {
                facts.exports.push(Export {
                    name: s.name.into(),
                    version: s.version.map(|v| v.name.into()),
                    default: s.version.is_none_or(|v| !v.hidden),
                });
            } else if !s.defined && s.binding != abidoc_elf::Binding::Local && !s.name.is_empty() {
                facts.imports.push(Import {
                    name: s.name.into(),
                    weak: s.binding == abidoc_elf::Binding::Weak,
                    version: s.version.map(|v| v.name.into()),
                    version_file: s.version.and_then(|v| v.file).map(Into::into),
                });
            }
        }
        // Everything borrowed from the file is copied: its symbol list goes before the sort, which
        // is the largest transient of a big library (libcusparseLt: 90k exports).
        drop(info);
        facts.imports.shrink_to_fit();
        (facts.export_hashes, facts.exports) = sort_by_hash(std::mem::take(&mut facts.exports));
        Ok(facts)
    }

    /// Whether some export satisfies a reference to `name` (with `version`, when versioned).
    /// Mirrors ld.so: a versioned reference binds the exact version, or an unversioned definition;
    /// an unversioned reference binds the default version.
    pub fn defines(&self, name: &str, version: Option<&str>) -> bool {
        self.first_export(name)
            .is_some_and(|start| self.defines_from(start, name, version))
    }

    /// Position of the first export named `name`, if any.
    pub fn first_export(&self, name: &str) -> Option<usize> {
        let h = crate::loader::name_hash(name);
        let from = self.export_hashes.partition_point(|&k| k < h);
        (from..self.export_hashes.len())
            .take_while(|&i| self.export_hashes[i] == h)
            .find(|&i| self.exports.get(i).is_some_and(|e| &*e.name == name))
    }

    /// [`LibFacts::defines`] when the first export named `name`, if any, is known to be at
    /// `start` (an index keeps the position; any other position answers false).
    pub fn defines_from(&self, start: usize, name: &str, version: Option<&str>) -> bool {
        let mut any = false;
        let rest = self.exports.get(start..).unwrap_or(&[]);
        for e in rest.iter().take_while(|e| &*e.name == name) {
            any = true;
            match (version, &e.version) {
                (Some(v), Some(ev)) if v == &**ev => return true,
                (Some(_), None) => return true,
                (None, _) if e.default => return true,
                _ => {}
            }
        }
        // A versioned reference to an object without version definitions binds by name alone.
        any && version.is_some() && self.verdefs.is_empty()
    }

    /// Names of all exported symbols, deduplicated, in no particular order (hash order): for
    /// callers that look at every name or sort them themselves.
    pub fn export_names_unordered(&self) -> impl Iterator<Item = &str> {
        let mut prev: Option<&str> = None;
        self.exports.iter().filter_map(move |e| {
            let n = &*e.name;
            if prev == Some(n) {
                None
            } else {
                prev = Some(n);
                Some(n)
            }
        })
    }

    /// Names of all exported symbols, deduplicated and sorted: an index built from them lists
    /// same-name candidates in the same order whatever the library's symbol table order.
    pub fn export_names(&self) -> impl Iterator<Item = &str> {
        let mut v: Vec<&str> = self.export_names_unordered().collect();
        v.sort_unstable();
        v.into_iter()
    }
}

/// `exports` ordered by (name hash, export), duplicates dropped, with their hashes: equal names
/// meet, and only hash collisions compare strings. Sorted as (hash, position) pairs and then
/// permuted in place, so that no second copy of the exports is ever held.
fn sort_by_hash(mut exports: Vec<Export>) -> (Vec<u64>, Vec<Export>) {
    let mut order: Vec<(u64, u32)> = exports
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                crate::loader::name_hash(&e.name),
                u32::try_from(i).unwrap_or(u32::MAX),
            )
        })
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| exports.get(a.1 as usize).cmp(&exports.get(b.1 as usize)))
    });
    let mut hashes: Vec<u64> = order.iter().map(|o| o.0).collect();
    let mut from: Vec<u32> = order.iter().map(|o| o.1).collect();
    drop(order);
    // Position `i` takes the export at `from[i]`: follow each cycle once, marking done slots.
    for start in 0..from.len() {
        let mut cur = start;
        loop {
            let src = from[cur] as usize;
            from[cur] = u32::MAX;
            if src == start || src >= exports.len() {
                break;
            }
            exports.swap(cur, src);
            cur = src;
        }
    }
    drop(from);
    // Equal exports are identical; keep the first of each run.
    let mut w = 0;
    for r in 0..exports.len() {
        if w > 0 && exports[r] == exports[w - 1] {
            continue;
        }
        exports.swap(w, r);
        hashes[w] = hashes[r];
        w += 1;
    }
    exports.truncate(w);
    hashes.truncate(w);
    (hashes, exports)
}

#[cfg(test)]
mod tests {
    use super::{Export, sort_by_hash};

    /// The in-place permutation must give exactly what sorting (hash, export) pairs and
    /// dropping repeats gives, duplicates and equal names at other versions included.
    #[test]
    fn sort_by_hash_matches_a_plain_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for n in [0usize, 1, 2, 5, 64, 1000] {
            let exports: Vec<Export> = (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    Export {
                        name: format!("_Z{}", seed % 97).into(),
                        version: seed
                            .is_multiple_of(3)
                            .then(|| format!("V{}", seed % 2).into()),
                        default: !seed.is_multiple_of(5),
                    }
                })
                .collect();
            let mut want: Vec<(u64, Export)> = exports
                .iter()
                .map(|e| (crate::loader::name_hash(&e.name), e.clone()))
                .collect();
            want.sort();
            want.dedup();
            let (hashes, sorted) = sort_by_hash(exports);
            let got: Vec<(u64, Export)> = hashes.into_iter().zip(sorted).collect();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
