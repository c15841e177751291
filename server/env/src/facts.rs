//! The loader-relevant facts of one ELF shared object: SONAME, DT_NEEDED, RPATH/RUNPATH, defined
//! and undefined dynamic symbols with their versions, version definitions and requirements.
//! Read with `abidoc-elf`; a damaged file gives an error string, never a panic. Export names of a
//! mapped library stay in its mapping (offsets, pages given back after each pass over them);
//! everything else is owned.

/// A defined, visible dynamic symbol, borrowed from its [`LibFacts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Export<'a> {
    pub name: &'a str,
    /// Its version (`GLIBCXX_3.4.30`), if the object versions its symbols.
    pub version: Option<&'a str>,
    /// False for non-default (`@` rather than `@@`) versions, which only versioned references bind.
    pub default: bool,
}

/// One export as stored: 12 bytes instead of two boxed strings (a process model holds a few
/// hundred thousand, and libcusparseLt alone 26 MB of names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// Offset of the name in [`Names`] (the file, or the arena).
    name: u32,
    len: u32,
    /// Index into `LibFacts::versions`, or [`NO_VERSION`].
    version: u16,
    default: bool,
}

const NO_VERSION: u16 = u16::MAX;

/// Where export names live.
pub(crate) enum Names {
    /// The library's own mapping: names are read in place and the pages given back after each
    /// pass over them, so a process model's names cost resident memory only while read.
    Mapped(memmap2::Mmap),
    /// A file read into memory (small libraries) or bytes given by a caller: only the names,
    /// copied into one arena.
    Owned(Box<[u8]>),
}

impl Names {
    fn bytes(&self) -> &[u8] {
        match self {
            Names::Mapped(m) => m,
            Names::Owned(b) => b,
        }
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Names::Mapped(m) => write!(f, "Mapped({} bytes)", m.len()),
            Names::Owned(b) => write!(f, "Owned({} bytes)", b.len()),
        }
    }
}

/// An undefined dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub name: Box<str>,
    pub weak: bool,
    /// The required version and the SONAME it was taken from (verneed `vn_file`).
    pub version: Option<Box<str>>,
    pub version_file: Option<Box<str>>,
}

/// One verneed entry: a library by SONAME and the versions required from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionNeed {
    pub file: String,
    /// (version, weak)
    pub versions: Vec<(String, bool)>,
}

#[derive(Debug)]
pub struct LibFacts {
    pub is_64: bool,
    pub machine: u16,
    pub soname: Option<String>,
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
    /// `DF_1_NODEFLIB`: neither the cache nor the default directories are searched.
    pub nodeflib: bool,
    /// The file asks for an executable stack (`PT_GNU_STACK` with its executable bit, or no
    /// such header on x86, whose ABI then assumes one), which glibc 2.41's `dlopen` refuses.
    pub exec_stack: bool,
    /// Grouped by name (equal names adjacent, then by version), in the order of
    /// `export_hashes`: sorting 250k fixed-size keys is several times cheaper than sorting the
    /// strings, and lookups go by hash first anyway.
    pub(crate) rows: Vec<Row>,
    pub(crate) names: Names,
    /// The distinct version names exports are defined at.
    pub(crate) versions: Vec<Box<str>>,
    /// [`name_hash`] of each export's name, parallel to the exports, ascending.
    pub(crate) export_hashes: Vec<u64>,
    pub imports: Vec<Import>,
    /// Version names this object defines (not the base entry).
    pub verdefs: Vec<String>,
    pub verneeds: Vec<VersionNeed>,
    /// What `abidoc-elf` could not read but worked around (e.g. a damaged section table).
    pub problems: Vec<String>,
}

impl Default for LibFacts {
    fn default() -> Self {
        LibFacts {
            is_64: false,
            machine: 0,
            exec_stack: false,
            soname: None,
            needed: Vec::new(),
            rpath: Vec::new(),
            runpath: Vec::new(),
            nodeflib: false,
            rows: Vec::new(),
            names: Names::Owned(Box::default()),
            versions: Vec::new(),
            export_hashes: Vec::new(),
            imports: Vec::new(),
            verdefs: Vec::new(),
            verneeds: Vec::new(),
            problems: Vec::new(),
        }
    }
}

impl LibFacts {
    /// Reads an ELF shared object or executable with `abidoc-elf` and keeps what the loader model
    /// needs, owned (export names copied into one arena).
    pub fn parse(data: &[u8]) -> Result<LibFacts, String> {
        let mut arena = Vec::new();
        let mut facts = Self::parse_in(data, Some(&mut arena))?;
        facts.names = Names::Owned(arena.into_boxed_slice());
        Ok(facts)
    }

    /// [`LibFacts::parse`] over a library as [`crate::fsguard::map_library`] gives it: a mapped
    /// file keeps its export names in the mapping (whose pages are given back once read), a file
    /// read into memory keeps only its names.
    pub fn from_bytes(bytes: crate::fsguard::Bytes) -> Result<LibFacts, String> {
        match bytes {
            crate::fsguard::Bytes::Mapped(map) => {
                let mut facts = Self::parse_in(&map, None)?;
                facts.names = Names::Mapped(map);
                facts.release_pages();
                Ok(facts)
            }
            crate::fsguard::Bytes::Owned(v) => Self::parse(&v),
        }
    }

    /// Export names go to `arena` when given, else stay where they are in `data` (offsets).
    fn parse_in(data: &[u8], mut arena: Option<&mut Vec<u8>>) -> Result<LibFacts, String> {
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
            // No PT_GNU_STACK: x86-64's and i386's default stack permissions are executable.
            exec_stack: info.exec_stack.unwrap_or(matches!(info.machine, 62 | 3)),
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
        facts.rows.reserve_exact(exports);
        let mut hashes: Vec<u64> = Vec::with_capacity(exports);
        let base = data.as_ptr() as usize;
        let mut dropped = 0usize;
        let mut seen_versions = std::collections::HashMap::new();
        for s in &info.symbols {
            if s.is_versioned_export() {
                let version = match s.version {
                    None => Some(NO_VERSION),
                    Some(v) => facts.intern_version(&mut seen_versions, v.name),
                };
                // The name's place: in the arena, or where it lies in `data` (a name `read`
                // returned borrows from `data`, so the subtraction cannot underflow; checked all
                // the same).
                let at = match arena.as_deref_mut() {
                    Some(a) => {
                        let at = a.len();
                        a.extend_from_slice(s.name.as_bytes());
                        Some(at)
                    }
                    None => (s.name.as_ptr() as usize).checked_sub(base),
                };
                let (Some(version), Some(Ok(name)), Ok(len)) =
                    (version, at.map(u32::try_from), u32::try_from(s.name.len()))
                else {
                    dropped += 1;
                    continue;
                };
                facts.rows.push(Row {
                    name,
                    len,
                    version,
                    default: s.version.is_none_or(|v| !v.hidden),
                });
                hashes.push(name_hash(s.name));
            } else if !s.defined && s.binding != abidoc_elf::Binding::Local && !s.name.is_empty() {
                facts.imports.push(Import {
                    name: s.name.into(),
                    weak: s.binding == abidoc_elf::Binding::Weak,
                    version: s.version.map(|v| v.name.into()),
                    version_file: s.version.and_then(|v| v.file).map(Into::into),
                });
            }
        }
        if dropped > 0 {
            facts.problems.push(format!(
                "{dropped} export(s) beyond what can be indexed (over {} versions or 4 GiB of names) were ignored",
                NO_VERSION
            ));
        }
        // The symbol list goes before the sort, the largest transient of a big library.
        drop(info);
        facts.imports.shrink_to_fit();
        let bytes: &[u8] = match arena.as_deref() {
            Some(a) => a,
            None => data,
        };
        let rows = std::mem::take(&mut facts.rows);
        (facts.export_hashes, facts.rows) = sort_by_hash(rows, hashes, bytes, &facts.versions);
        if let Some(a) = arena {
            a.shrink_to_fit();
        }
        Ok(facts)
    }

    fn intern_version<'a>(
        &mut self,
        seen: &mut std::collections::HashMap<&'a str, u16>,
        v: &'a str,
    ) -> Option<u16> {
        if let Some(&i) = seen.get(v) {
            return Some(i);
        }
        let i = u16::try_from(self.versions.len())
            .ok()
            .filter(|&i| i < NO_VERSION)?;
        self.versions.push(v.into());
        seen.insert(v, i);
        Some(i)
    }

    /// Number of exports (one per distinct name and version).
    pub fn export_count(&self) -> usize {
        self.rows.len()
    }

    /// [`name_hash`] of each export's name, in export order (ascending).
    pub fn export_hashes(&self) -> &[u64] {
        &self.export_hashes
    }

    fn name_bytes(&self, r: &Row) -> &[u8] {
        row_name(self.names.bytes(), r)
    }

    /// Whether the `i`-th export is the first of its name. Equal names are adjacent in export
    /// order; names are compared only when hashes meet (another version of the same name, or a
    /// collision), so a pass asking this of every export reads no name from the file.
    pub fn first_of_name(&self, i: usize) -> bool {
        i == 0
            || self.export_hashes.get(i - 1) != self.export_hashes.get(i)
            || self.rows.get(i - 1).map(|r| self.name_bytes(r))
                != self.rows.get(i).map(|r| self.name_bytes(r))
    }

    fn row_export(&self, r: &Row) -> Export<'_> {
        Export {
            // Names were UTF-8 when read (`abidoc-elf` hands out `str`s); checked again because
            // a mapping is only bytes.
            name: std::str::from_utf8(self.name_bytes(r)).unwrap_or(""),
            version: self.versions.get(usize::from(r.version)).map(|v| &**v),
            default: r.default,
        }
    }

    /// The `i`-th export.
    pub fn export(&self, i: usize) -> Option<Export<'_>> {
        self.rows.get(i).map(|r| self.row_export(r))
    }

    /// The name of the `i`-th export.
    pub fn export_name(&self, i: usize) -> Option<&str> {
        self.export(i).map(|e| e.name)
    }

    /// Every export, in export order.
    pub fn exports(&self) -> impl ExactSizeIterator<Item = Export<'_>> + '_ {
        self.rows.iter().map(|r| self.row_export(r))
    }

    /// Gives back the resident pages of a mapped library's names after a pass over all of them
    /// (parsing, keying by qualified name): the next lookup reads its page from the page cache
    /// again. Nothing to do for owned names.
    pub fn release_pages(&self) {
        if let Names::Mapped(m) = &self.names {
            release(m);
        }
    }

    /// Calls `f(position, name)` for the first export of each distinct name, reading the names
    /// in file order and giving back a mapped library's pages behind the reading every few
    /// MiB: a pass over every name of libcusparseLt (26 MB of them) holds a few MiB resident
    /// instead of all of it.
    pub fn scan_names(&self, mut f: impl FnMut(usize, &str)) {
        const RELEASE_EVERY: usize = 4 << 20;
        let mut order: Vec<u32> = (0..self.rows.len())
            .filter(|&i| self.first_of_name(i))
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        order.sort_unstable_by_key(|&i| self.rows.get(i as usize).map_or(0, |r| r.name));
        let mapped = match &self.names {
            Names::Mapped(m) => Some(m),
            Names::Owned(_) => None,
        };
        let mut released_to = 0usize;
        for i in order {
            let Some(e) = self.export(i as usize) else {
                continue;
            };
            f(i as usize, e.name);
            if let (Some(m), Some(r)) = (mapped, self.rows.get(i as usize)) {
                let at = r.name as usize;
                if at >= released_to + RELEASE_EVERY {
                    release_range(m, released_to, at - released_to);
                    released_to = at;
                }
            }
        }
        self.release_pages();
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
        let h = name_hash(name);
        let from = self.export_hashes.partition_point(|&k| k < h);
        (from..self.export_hashes.len())
            .take_while(|&i| self.export_hashes[i] == h)
            .find(|&i| {
                self.rows
                    .get(i)
                    .is_some_and(|r| self.name_bytes(r) == name.as_bytes())
            })
    }

    /// [`LibFacts::defines`] when the first export named `name`, if any, is known to be at
    /// `start` (an index keeps the position; any other position answers false).
    pub fn defines_from(&self, start: usize, name: &str, version: Option<&str>) -> bool {
        let mut any = false;
        let rest = self.rows.get(start..).unwrap_or(&[]);
        for r in rest
            .iter()
            .take_while(|r| self.name_bytes(r) == name.as_bytes())
        {
            any = true;
            let ev = self.versions.get(usize::from(r.version)).map(|v| &**v);
            match (version, ev) {
                (Some(v), Some(ev)) if v == ev => return true,
                (Some(_), None) => return true,
                (None, _) if r.default => return true,
                _ => {}
            }
        }
        // A versioned reference to an object without version definitions binds by name alone.
        any && version.is_some() && self.verdefs.is_empty()
    }

    /// Names of all exported symbols, deduplicated, in no particular order (hash order): for
    /// callers that look at every name or sort them themselves.
    pub fn export_names_unordered(&self) -> impl Iterator<Item = &str> {
        (0..self.rows.len())
            .filter(|&i| self.first_of_name(i))
            .filter_map(|i| self.export_name(i))
    }

    /// Names of all exported symbols, deduplicated and sorted: an index built from them lists
    /// same-name candidates in the same order whatever the library's symbol table order.
    pub fn export_names(&self) -> impl Iterator<Item = &str> {
        let mut v: Vec<&str> = self.export_names_unordered().collect();
        v.sort_unstable();
        v.into_iter()
    }
}

/// The bytes of `r`'s name in `names` (empty if it lies outside, which parsing never makes).
fn row_name<'n>(names: &'n [u8], r: &Row) -> &'n [u8] {
    let start = r.name as usize;
    names.get(start..start + r.len as usize).unwrap_or(&[])
}

#[allow(unsafe_code)]
fn release(map: &memmap2::Mmap) {
    // SAFETY: a private read-only mapping of a regular file (`fsguard::map_library`): dropping
    // its pages loses nothing, the next read maps the same bytes from the page cache again.
    // (`DontNeed` is unchecked in memmap2 because on writable private mappings it discards
    // writes; there are none here.)
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

#[allow(unsafe_code)]
fn release_range(map: &memmap2::Mmap, offset: usize, len: usize) {
    if offset.checked_add(len).is_none_or(|end| end > map.len()) {
        return;
    }
    // SAFETY: as in `release` (memmap2 aligns the start down to a page).
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len) };
}

/// `rows` ordered by (name hash, name, version, default), duplicates dropped, with their hashes:
/// equal names meet, and only hash collisions compare strings. Sorted as (hash, position) pairs
/// and then permuted in place, so that no second copy of the rows is ever held.
fn sort_by_hash(
    mut rows: Vec<Row>,
    hashes: Vec<u64>,
    names: &[u8],
    versions: &[Box<str>],
) -> (Vec<u64>, Vec<Row>) {
    let key = |r: &Row| {
        (
            row_name(names, r),
            versions.get(usize::from(r.version)).map(|v| &**v),
            r.default,
        )
    };
    let mut order: Vec<(u64, u32)> = hashes
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    drop(hashes);
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            rows.get(a.1 as usize)
                .map(key)
                .cmp(&rows.get(b.1 as usize).map(key))
        })
    });
    let mut hashes: Vec<u64> = order.iter().map(|o| o.0).collect();
    let mut from: Vec<u32> = order.iter().map(|o| o.1).collect();
    drop(order);
    // Position `i` takes the row at `from[i]`: follow each cycle once, marking done slots.
    for start in 0..from.len() {
        let mut cur = start;
        loop {
            let src = from[cur] as usize;
            from[cur] = u32::MAX;
            if src == start || src >= rows.len() {
                break;
            }
            rows.swap(cur, src);
            cur = src;
        }
    }
    drop(from);
    // Equal exports are identical; keep the first of each run.
    let mut w = 0;
    for r in 0..rows.len() {
        if w > 0 && hashes[r] == hashes[w - 1] && key(&rows[r]) == key(&rows[w - 1]) {
            continue;
        }
        rows.swap(w, r);
        hashes[w] = hashes[r];
        w += 1;
    }
    rows.truncate(w);
    hashes.truncate(w);
    rows.shrink_to_fit();
    hashes.shrink_to_fit();
    (hashes, rows)
}

/// A word-at-a-time hash of a symbol name (the rustc "Fx" mix with a murmur3 finish): hundreds
/// of thousands of names are hashed when the process model is built.
pub fn name_hash(name: &str) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h: u64 = 0;
    let mut chunks = name.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
    }
    let rest = chunks.remainder();
    let mut w = [0u8; 8];
    w[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56)).wrapping_mul(SEED);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::{Row, name_hash, sort_by_hash};

    /// The in-place permutation must give exactly what sorting (hash, export) pairs and
    /// dropping repeats gives, duplicates and equal names at other versions included.
    #[test]
    fn sort_by_hash_matches_a_plain_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let versions: Vec<Box<str>> = vec!["V0".into(), "V1".into()];
        for n in [0usize, 1, 2, 5, 64, 1000] {
            let mut names = Vec::new();
            let mut rows = Vec::new();
            let mut hashes = Vec::new();
            let mut want = Vec::new();
            for _ in 0..n {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let name = format!("_Z{}", seed % 97);
                let version = if seed.is_multiple_of(3) {
                    (seed % 2) as u16
                } else {
                    super::NO_VERSION
                };
                let default = !seed.is_multiple_of(5);
                rows.push(Row {
                    name: names.len() as u32,
                    len: name.len() as u32,
                    version,
                    default,
                });
                names.extend_from_slice(name.as_bytes());
                let h = name_hash(&name);
                hashes.push(h);
                let v = versions.get(usize::from(version)).cloned();
                want.push((h, name, v, default));
            }
            want.sort();
            want.dedup();
            let (hashes, sorted) = sort_by_hash(rows, hashes, &names, &versions);
            let got: Vec<_> = hashes
                .into_iter()
                .zip(sorted)
                .map(|(h, r)| {
                    let name =
                        std::str::from_utf8(&names[r.name as usize..(r.name + r.len) as usize])
                            .unwrap()
                            .to_string();
                    (
                        h,
                        name,
                        versions.get(usize::from(r.version)).cloned(),
                        r.default,
                    )
                })
                .collect();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
