//! Parsing ELF bytes into `ElfInfo`: never fails, never panics, allocations bounded by the input size.

use object::elf;
use object::read::elf::{Dyn as _, FileHeader, SectionTable, Sym as _, VersionTable};
use object::{Endianness, SymbolIndex};

use crate::convert::{apply_dynamic_string, convert_symbol};
use crate::model::{
    ByteOrder, ElfClass, ElfInfo, FileKind, Problem, ProblemKind, SymbolVersion, VersionDef,
    VersionNeed, host_machine, machine_name,
};

/// Hostile files may claim any number of verdef/verneed entries; real libraries have a few dozen.
const MAX_VERSION_ENTRIES: usize = 1 << 16;

/// Read the dynamic linking surface of an ELF file from its bytes (the caller reads or mmaps).
///
/// Returns what could be understood plus the problems met. `None` means the bytes are not a
/// usable ELF file at all (empty, another format, header truncated); the problems say why.
/// A file for another machine is returned with a `WrongArch` problem.
pub fn read(bytes: &[u8]) -> (Option<ElfInfo<'_>>, Vec<Problem>) {
    let mut problems = Vec::new();
    let info = read_inner(bytes, &mut problems);
    (info, problems)
}

fn read_inner<'a>(bytes: &'a [u8], problems: &mut Vec<Problem>) -> Option<ElfInfo<'a>> {
    if bytes.is_empty() {
        problems.push(Problem::new(ProblemKind::Empty, "empty file (0 bytes)"));
        return None;
    }
    if !bytes.starts_with(b"\x7fELF") {
        problems.push(sniff_other_format(bytes));
        return None;
    }
    if bytes.len() < 16 {
        problems.push(Problem::new(
            ProblemKind::Truncated,
            format!(
                "truncated ELF file: {} bytes, shorter than the ELF identification",
                bytes.len()
            ),
        ));
        return None;
    }
    match bytes[4] {
        1 => parse::<elf::FileHeader32<Endianness>>(bytes, ElfClass::Elf32, problems),
        2 => parse::<elf::FileHeader64<Endianness>>(bytes, ElfClass::Elf64, problems),
        c => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("invalid ELF class byte {c} (expected 1 for ELF32 or 2 for ELF64)"),
            ));
            None
        }
    }
}

fn sniff_other_format(bytes: &[u8]) -> Problem {
    let magic = bytes.get(..4).unwrap_or(bytes);
    match magic {
        [0xfe, 0xed, 0xfa, 0xce | 0xcf] | [0xce | 0xcf, 0xfa, 0xed, 0xfe] => Problem::new(
            ProblemKind::MachO,
            "Mach-O (macOS) binary, not ELF: this library was built for macOS",
        ),
        [0xca, 0xfe, 0xba, 0xbe] => Problem::new(
            ProblemKind::MachO,
            "universal Mach-O (macOS) binary, not ELF: this library was built for macOS",
        ),
        [b'M', b'Z', ..] => Problem::new(
            ProblemKind::Pe,
            "PE (Windows) binary, not ELF: this library was built for Windows",
        ),
        _ if bytes.len() < 4 => Problem::new(
            ProblemKind::Truncated,
            format!("truncated file: {} bytes, no ELF header", bytes.len()),
        ),
        _ if bytes.starts_with(b"!<arch>") => Problem::new(
            ProblemKind::NotElf,
            "static archive (.a), not a shared library",
        ),
        _ if bytes.starts_with(b"/* GNU ld script")
            || bytes.starts_with(b"INPUT(")
            || bytes.starts_with(b"GROUP") =>
        {
            Problem::new(
                ProblemKind::NotElf,
                "GNU ld linker script, not a shared library",
            )
        }
        _ => Problem::new(ProblemKind::NotElf, "not an ELF file (no ELF magic number)"),
    }
}

fn parse<'a, Elf>(
    data: &'a [u8],
    class: ElfClass,
    problems: &mut Vec<Problem>,
) -> Option<ElfInfo<'a>>
where
    Elf: FileHeader<Endian = Endianness>,
{
    let header = match Elf::parse(data) {
        Ok(h) => h,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Truncated,
                format!(
                    "truncated or invalid ELF header ({} bytes): {e}",
                    data.len()
                ),
            ));
            return None;
        }
    };
    let endian = match header.endian() {
        Ok(e) => e,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("invalid ELF byte order: {e}"),
            ));
            return None;
        }
    };
    let machine = header.e_machine(endian).0;
    if let Some(host) = host_machine()
        && host != machine
    {
        problems.push(Problem::new(
            ProblemKind::WrongArch,
            format!(
                "built for {} (e_machine {machine}), this machine is {}",
                machine_name(machine),
                machine_name(host)
            ),
        ));
    }
    let kind = match header.e_type(endian).0 {
        1 => FileKind::Relocatable,
        2 => FileKind::Executable,
        3 => FileKind::SharedObject,
        4 => FileKind::Core,
        other => FileKind::Other(other),
    };
    let mut info = ElfInfo {
        class,
        endian: if endian == Endianness::Little {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        },
        machine,
        kind,
        soname: None,
        needed: Vec::new(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        symbols: Vec::new(),
        version_defs: Vec::new(),
        version_needs: Vec::new(),
        exec_stack: gnu_stack(header, endian, data),
    };
    let sections = match header.sections(endian, data) {
        Ok(s) if !s.is_empty() => s,
        Ok(_) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                "no section headers (stripped of them): dynamic symbols read from program headers",
            ));
            crate::phdr::read_dynamic_from_segments(header, endian, data, &mut info, problems);
            return Some(info);
        }
        Err(e) => {
            problems.push(Problem::new(
                section_problem_kind(e, data.len()),
                format!(
                    "unreadable section headers ({e}): dynamic symbols read from program headers"
                ),
            ));
            crate::phdr::read_dynamic_from_segments(header, endian, data, &mut info, problems);
            return Some(info);
        }
    };
    read_dynamic(&sections, endian, data, &mut info, problems);
    read_versions_defs_needs(&sections, endian, data, &mut info, problems);
    read_symbols(&sections, endian, data, &mut info, problems);
    Some(info)
}

/// The executable bit of `PT_GNU_STACK`, read from the program headers as the loader reads it;
/// `None` when there is no such header (or the headers cannot be read).
fn gnu_stack<Elf>(header: &Elf, endian: Elf::Endian, data: &[u8]) -> Option<bool>
where
    Elf: FileHeader<Endian = Endianness>,
{
    use object::read::elf::ProgramHeader as _;
    let phdrs = header.program_headers(endian, data).ok()?;
    phdrs
        .iter()
        .find(|ph| ph.p_type(endian) == object::elf::PT_GNU_STACK)
        .map(|ph| ph.p_flags(endian).0 & object::elf::PF_X.0 != 0)
}

fn section_problem_kind(e: object::read::Error, len: usize) -> ProblemKind {
    // object reports both "out of bounds" for truncation and for absurd offsets; a file that
    // stops early is the common case for a half-copied library.
    let msg = e.to_string();
    if msg.contains("size") || msg.contains("offset") || len < 4096 {
        ProblemKind::Truncated
    } else {
        ProblemKind::Malformed
    }
}

fn utf8<'a>(bytes: &'a [u8], what: &str, problems: &mut Vec<Problem>) -> Option<&'a str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Some(s),
        Err(_) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("{what} is not valid UTF-8"),
            ));
            None
        }
    }
}

fn read_dynamic<'a, Elf: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'a, Elf>,
    endian: Endianness,
    data: &'a [u8],
    info: &mut ElfInfo<'a>,
    problems: &mut Vec<Problem>,
) {
    let (dyns, link) = match sections.dynamic(endian, data) {
        Ok(Some(d)) => d,
        Ok(None) => {
            problems.push(Problem::new(
                ProblemKind::NotDynamic,
                "no dynamic section: not a shared library (static executable or object file)",
            ));
            return;
        }
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Truncated,
                format!("unreadable dynamic section: {e}"),
            ));
            return;
        }
    };
    let strings = match sections.strings(endian, data, link) {
        Ok(s) => s,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("unreadable dynamic string table: {e}"),
            ));
            return;
        }
    };
    for d in dyns {
        let tag = d.d_tag(endian);
        if tag == elf::DT_NULL {
            break;
        }
        let is_string = tag == elf::DT_NEEDED
            || tag == elf::DT_SONAME
            || tag == elf::DT_RPATH
            || tag == elf::DT_RUNPATH;
        if !is_string {
            continue;
        }
        let Ok(offset) = u32::try_from(d.d_val(endian).into()) else {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                "dynamic string offset out of range",
            ));
            continue;
        };
        let Ok(bytes) = strings.get(offset) else {
            problems.push(Problem::new(
                ProblemKind::Truncated,
                "dynamic entry names a string outside the string table",
            ));
            continue;
        };
        let Some(s) = utf8(bytes, "dynamic string", problems) else {
            continue;
        };
        apply_dynamic_string(info, tag, s);
    }
}

fn read_versions_defs_needs<'a, Elf: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'a, Elf>,
    endian: Endianness,
    data: &'a [u8],
    info: &mut ElfInfo<'a>,
    problems: &mut Vec<Problem>,
) {
    match sections.gnu_verdef(endian, data) {
        Ok(Some((mut defs, link))) => {
            let strings = sections.strings(endian, data, link).unwrap_or_default();
            let mut count = 0;
            loop {
                count += 1;
                if count > MAX_VERSION_ENTRIES {
                    problems.push(Problem::new(
                        ProblemKind::Malformed,
                        "absurd number of version definitions",
                    ));
                    break;
                }
                match defs.next() {
                    Ok(Some((def, mut aux))) => {
                        let base = def.vd_flags.get(endian).contains(elf::VER_FLG_BASE);
                        if let Ok(Some(a)) = aux.next()
                            && let Ok(name) = a.name(endian, strings)
                            && let Some(name) = utf8(name, "version name", problems)
                        {
                            info.version_defs.push(VersionDef { name, base });
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        problems.push(Problem::new(
                            ProblemKind::Malformed,
                            format!("unreadable version definitions: {e}"),
                        ));
                        break;
                    }
                }
            }
        }
        Ok(None) => {}
        Err(e) => problems.push(Problem::new(
            ProblemKind::Malformed,
            format!("unreadable version definitions: {e}"),
        )),
    }
    match sections.gnu_verneed(endian, data) {
        Ok(Some((mut needs, link))) => {
            let strings = sections.strings(endian, data, link).unwrap_or_default();
            let mut count = 0;
            'outer: loop {
                match needs.next() {
                    Ok(Some((need, mut aux))) => {
                        let Ok(file) = need.file(endian, strings) else {
                            problems.push(Problem::new(
                                ProblemKind::Malformed,
                                "version requirement names no file",
                            ));
                            continue;
                        };
                        let Some(file) = utf8(file, "version requirement file", problems) else {
                            continue;
                        };
                        let mut versions = Vec::new();
                        loop {
                            count += 1;
                            if count > MAX_VERSION_ENTRIES {
                                problems.push(Problem::new(
                                    ProblemKind::Malformed,
                                    "absurd number of version requirements",
                                ));
                                info.version_needs.push(VersionNeed { file, versions });
                                break 'outer;
                            }
                            match aux.next() {
                                Ok(Some(a)) => {
                                    if let Ok(name) = a.name(endian, strings)
                                        && let Some(name) = utf8(name, "version name", problems)
                                    {
                                        versions.push(name);
                                    }
                                }
                                Ok(None) => break,
                                Err(e) => {
                                    problems.push(Problem::new(
                                        ProblemKind::Malformed,
                                        format!("unreadable version requirement: {e}"),
                                    ));
                                    break;
                                }
                            }
                        }
                        info.version_needs.push(VersionNeed { file, versions });
                    }
                    Ok(None) => break,
                    Err(e) => {
                        problems.push(Problem::new(
                            ProblemKind::Malformed,
                            format!("unreadable version requirements: {e}"),
                        ));
                        break;
                    }
                }
            }
        }
        Ok(None) => {}
        Err(e) => problems.push(Problem::new(
            ProblemKind::Malformed,
            format!("unreadable version requirements: {e}"),
        )),
    }
}

fn read_symbols<'a, Elf: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'a, Elf>,
    endian: Endianness,
    data: &'a [u8],
    info: &mut ElfInfo<'a>,
    problems: &mut Vec<Problem>,
) {
    let table = match sections.symbols(endian, data, elf::SHT_DYNSYM) {
        Ok(t) => t,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("unreadable dynamic symbol table: {e}"),
            ));
            return;
        }
    };
    let versions = match sections.versions(endian, data) {
        Ok(v) => v,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("unreadable symbol versions: {e}"),
            ));
            None
        }
    };
    let strings = table.strings();
    let mut bad_names = 0usize;
    info.symbols.reserve_exact(table.len().saturating_sub(1));
    for (index, sym) in table.enumerate().skip(1) {
        let name = match strings.get(sym.st_name(endian)).map(std::str::from_utf8) {
            Ok(Ok(n)) => n,
            _ => {
                bad_names += 1;
                continue;
            }
        };
        if name.is_empty() {
            continue;
        }
        let version = versions
            .as_ref()
            .and_then(|v| symbol_version(v, endian, index));
        info.symbols
            .push(convert_symbol(sym, endian, name, version));
    }
    if bad_names > 0 {
        problems.push(Problem::new(
            ProblemKind::Malformed,
            format!("{bad_names} dynamic symbol names are unreadable (outside the string table or not UTF-8)"),
        ));
    }
}

fn symbol_version<'a, Elf: FileHeader<Endian = Endianness>>(
    versions: &VersionTable<'a, Elf>,
    endian: Endianness,
    index: SymbolIndex,
) -> Option<SymbolVersion<'a>> {
    let vi = versions.version_index(endian, index);
    let v = versions.version(vi.index()).ok().flatten()?;
    Some(SymbolVersion {
        name: std::str::from_utf8(v.name()).ok()?,
        file: v.file().and_then(|f| std::str::from_utf8(f).ok()),
        hidden: vi.is_hidden(),
    })
}
