//! The loader-relevant facts of one ELF shared object: SONAME, DT_NEEDED, RPATH/RUNPATH, defined
//! and undefined dynamic symbols with their versions, version definitions and requirements.
//! Everything is read from bytes; a damaged file gives an error string, never a panic.

use object::elf;
use object::read::elf::{Dyn, FileHeader, Sym};
use object::{Endianness, SymbolIndex};
use serde::{Deserialize, Serialize};

/// A defined, visible dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Export {
    pub name: String,
    /// Its version (`GLIBCXX_3.4.30`), if the object versions its symbols.
    pub version: Option<String>,
    /// False for non-default (`@` rather than `@@`) versions, which only versioned references bind.
    pub default: bool,
}

/// An undefined dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub name: String,
    pub weak: bool,
    /// The required version and the SONAME it was taken from (verneed `vn_file`).
    pub version: Option<String>,
    pub version_file: Option<String>,
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
    /// Sorted by name, then version.
    pub exports: Vec<Export>,
    pub imports: Vec<Import>,
    /// Version names this object defines (not the base entry).
    pub verdefs: Vec<String>,
    pub verneeds: Vec<VersionNeed>,
}

impl LibFacts {
    /// Reads an ELF shared object or executable.
    pub fn parse(data: &[u8]) -> Result<LibFacts, String> {
        if data.len() < 16 || &data[..4] != b"\x7fELF" {
            return Err(describe_not_elf(data));
        }
        match data[4] {
            1 => parse_generic::<elf::FileHeader32<Endianness>>(data),
            2 => parse_generic::<elf::FileHeader64<Endianness>>(data),
            c => Err(format!("ELF file with unknown class {c}")),
        }
    }

    /// Whether some export satisfies a reference to `name` (with `version`, when versioned).
    /// Mirrors ld.so: a versioned reference binds the exact version, or an unversioned definition;
    /// an unversioned reference binds the default version.
    pub fn defines(&self, name: &str, version: Option<&str>) -> bool {
        let start = self.exports.partition_point(|e| e.name.as_str() < name);
        let mut any = false;
        for e in self.exports[start..].iter().take_while(|e| e.name == name) {
            any = true;
            match (version, &e.version) {
                (Some(v), Some(ev)) if v == ev => return true,
                (Some(_), None) => return true,
                (None, _) if e.default => return true,
                _ => {}
            }
        }
        // A versioned reference to an object without version definitions binds by name alone.
        any && version.is_some() && self.verdefs.is_empty()
    }

    /// Names of all exported symbols (deduplicated, sorted).
    pub fn export_names(&self) -> impl Iterator<Item = &str> {
        let mut prev: Option<&str> = None;
        self.exports.iter().filter_map(move |e| {
            let n = e.name.as_str();
            if prev == Some(n) {
                None
            } else {
                prev = Some(n);
                Some(n)
            }
        })
    }
}

fn describe_not_elf(data: &[u8]) -> String {
    if data.len() < 16 {
        format!(
            "truncated: {} bytes is too small for an ELF header",
            data.len()
        )
    } else if data.starts_with(&[0xcf, 0xfa, 0xed, 0xfe])
        || data.starts_with(&[0xce, 0xfa, 0xed, 0xfe])
    {
        "a Mach-O file (macOS), not an ELF shared library".into()
    } else if data.starts_with(b"MZ") {
        "a Windows PE file, not an ELF shared library".into()
    } else if data.starts_with(b"!<arch>") {
        "a static archive (.a), not a shared library".into()
    } else {
        "not an ELF file (no ELF magic)".into()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn parse_generic<H: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<LibFacts, String> {
    let header = H::parse(data).map_err(|e| format!("invalid ELF header: {e}"))?;
    let endian = header
        .endian()
        .map_err(|e| format!("invalid ELF header: {e}"))?;
    let sections = header
        .sections(endian, data)
        .map_err(|e| format!("invalid ELF section table: {e}"))?;
    let mut facts = LibFacts {
        is_64: header.is_class_64(),
        machine: header.e_machine(endian).0,
        ..LibFacts::default()
    };
    match sections.dynamic(endian, data) {
        Ok(Some((dyns, link))) => {
            let strings = sections
                .strings(endian, data, link)
                .map_err(|e| format!("invalid dynamic string table: {e}"))?;
            for d in dyns {
                let tag = d.d_tag(endian);
                if tag == elf::DT_NULL {
                    break;
                }
                let val: u64 = d.d_val(endian).into();
                let s = || {
                    u32::try_from(val)
                        .ok()
                        .and_then(|v| strings.get(v).ok())
                        .map(text)
                };
                if tag == elf::DT_NEEDED {
                    facts.needed.extend(s());
                } else if tag == elf::DT_SONAME {
                    facts.soname = s();
                } else if tag == elf::DT_RPATH {
                    facts.rpath.extend(s().iter().flat_map(|p| split_path(p)));
                } else if tag == elf::DT_RUNPATH {
                    facts.runpath.extend(s().iter().flat_map(|p| split_path(p)));
                } else if tag == elf::DT_FLAGS_1 {
                    facts.nodeflib = val & elf::DF_1_NODEFLIB.0 != 0;
                }
            }
        }
        Ok(None) => {}
        Err(e) => return Err(format!("invalid dynamic section: {e}")),
    }
    let versions = sections.versions(endian, data).ok().flatten();
    let symtab = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(|e| format!("invalid dynamic symbol table: {e}"))?;
    let strings = symtab.strings();
    for (i, sym) in symtab.iter().enumerate() {
        if i == 0 {
            continue;
        }
        let bind = sym.st_bind();
        if bind == elf::STB_LOCAL {
            continue;
        }
        let Ok(name) = sym.name(endian, strings) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let vidx = versions
            .as_ref()
            .map(|v| v.version_index(endian, SymbolIndex(i)));
        let version = versions.as_ref().zip(vidx).and_then(|(v, idx)| {
            v.version(idx.index())
                .ok()
                .flatten()
                .map(|ver| (text(ver.name()), ver.file().map(text)))
        });
        if sym.is_undefined(endian) {
            let (version, version_file) = match version {
                Some((v, f)) => (Some(v), f),
                None => (None, None),
            };
            facts.imports.push(Import {
                name: text(name),
                weak: bind == elf::STB_WEAK,
                version,
                version_file,
            });
        } else {
            let vis = sym.st_visibility();
            if vis == elf::STV_HIDDEN || vis == elf::STV_INTERNAL {
                continue;
            }
            facts.exports.push(Export {
                name: text(name),
                version: version.map(|(v, _)| v),
                default: !vidx.is_some_and(|i| i.is_hidden()),
            });
        }
    }
    facts.exports.sort();
    facts.exports.dedup();
    if let Ok(Some((mut defs, link))) = sections.gnu_verdef(endian, data)
        && let Ok(strs) = sections.strings(endian, data, link)
    {
        while let Ok(Some((def, mut aux))) = defs.next() {
            if def.vd_flags.get(endian).0 & elf::VER_FLG_BASE.0 != 0 {
                continue;
            }
            if let Ok(Some(a)) = aux.next()
                && let Ok(n) = a.name(endian, strs)
            {
                facts.verdefs.push(text(n));
            }
        }
    }
    if let Ok(Some((mut needs, link))) = sections.gnu_verneed(endian, data)
        && let Ok(strs) = sections.strings(endian, data, link)
    {
        while let Ok(Some((need, mut aux))) = needs.next() {
            let Ok(file) = need.file(endian, strs) else {
                continue;
            };
            let mut vn = VersionNeed {
                file: text(file),
                versions: Vec::new(),
            };
            while let Ok(Some(a)) = aux.next() {
                if let Ok(n) = a.name(endian, strs) {
                    let weak = a.vna_flags.get(endian).0 & elf::VER_FLG_WEAK.0 != 0;
                    vn.versions.push((text(n), weak));
                }
            }
            facts.verneeds.push(vn);
        }
    }
    Ok(facts)
}

fn split_path(p: &str) -> Vec<String> {
    p.split(':')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}
