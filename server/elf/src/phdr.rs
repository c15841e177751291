//! Fallback reading of the dynamic surface through program headers, as the loader does, for files
//! whose section headers are missing or damaged (absurd `e_shnum`, stripped section table).

use object::Endianness;
use object::elf;
use object::read::StringTable;
use object::read::elf::{Dyn as _, FileHeader, GnuHashTable, HashTable, ProgramHeader as _};

use crate::convert::{apply_dynamic_string, convert_symbol};
use crate::model::{ElfInfo, Problem, ProblemKind};

/// A symbol table larger than this many entries is certainly a misread hash table.
const MAX_SYMBOLS: u64 = 1 << 24;

pub(crate) fn read_dynamic_from_segments<'a, Elf: FileHeader<Endian = Endianness>>(
    header: &'a Elf,
    endian: Endianness,
    data: &'a [u8],
    info: &mut ElfInfo<'a>,
    problems: &mut Vec<Problem>,
) {
    let phdrs = match header.program_headers(endian, data) {
        Ok(p) => p,
        Err(e) => {
            problems.push(Problem::new(
                ProblemKind::Malformed,
                format!("unreadable program headers: {e}"),
            ));
            return;
        }
    };
    let dyns = phdrs
        .iter()
        .find_map(|ph| ph.dynamic(endian, data).ok().flatten());
    let Some(dyns) = dyns else {
        problems.push(Problem::new(
            ProblemKind::NotDynamic,
            "no readable dynamic segment",
        ));
        return;
    };
    // Translate a virtual address to a file offset through the PT_LOAD segments.
    let to_offset = |addr: u64| -> Option<u64> {
        phdrs.iter().find_map(|ph| {
            if ph.p_type(endian) != elf::PT_LOAD {
                return None;
            }
            let vaddr: u64 = ph.p_vaddr(endian).into();
            let filesz: u64 = ph.p_filesz(endian).into();
            let offset: u64 = ph.p_offset(endian).into();
            // A hostile p_offset near u64::MAX must not wrap into the file.
            (addr >= vaddr && addr - vaddr < filesz)
                .then(|| offset.checked_add(addr - vaddr))
                .flatten()
        })
    };
    let (mut strtab, mut strsz, mut symtab, mut hash, mut gnu_hash) =
        (None, None, None, None, None);
    for d in dyns {
        let tag = d.d_tag(endian);
        let val: u64 = d.d_val(endian).into();
        match tag {
            t if t == elf::DT_NULL => break,
            t if t == elf::DT_STRTAB => strtab = to_offset(val),
            t if t == elf::DT_STRSZ => strsz = Some(val),
            t if t == elf::DT_SYMTAB => symtab = to_offset(val),
            t if t == elf::DT_HASH => hash = to_offset(val),
            t if t == elf::DT_GNU_HASH => gnu_hash = to_offset(val),
            _ => {}
        }
    }
    let (Some(str_start), Some(str_size)) = (strtab, strsz) else {
        problems.push(Problem::new(
            ProblemKind::Malformed,
            "dynamic segment has no string table",
        ));
        return;
    };
    let strings = StringTable::new(data, str_start, str_start.saturating_add(str_size));
    for d in dyns {
        let tag = d.d_tag(endian);
        if tag == elf::DT_NULL {
            break;
        }
        let Ok(offset) = u32::try_from(d.d_val(endian).into()) else {
            continue;
        };
        if (tag == elf::DT_NEEDED
            || tag == elf::DT_SONAME
            || tag == elf::DT_RPATH
            || tag == elf::DT_RUNPATH)
            && let Ok(bytes) = strings.get(offset)
            && let Ok(s) = std::str::from_utf8(bytes)
        {
            apply_dynamic_string(info, tag, s);
        }
    }
    let Some(sym_start) = symtab else { return };
    let tail = |off: u64| usize::try_from(off).ok().and_then(|o| data.get(o..));
    let count = hash
        .and_then(tail)
        .and_then(|h| HashTable::<Elf>::parse(endian, h).ok())
        .map(|h| u64::from(h.symbol_table_length()))
        .or_else(|| {
            gnu_hash
                .and_then(tail)
                .and_then(|h| GnuHashTable::<Elf>::parse(endian, h).ok())
                .and_then(|h| h.symbol_table_length(endian))
                .map(u64::from)
        });
    let Some(count) = count.filter(|c| *c <= MAX_SYMBOLS) else {
        problems.push(Problem::new(
            ProblemKind::Malformed,
            "cannot size the dynamic symbol table (no usable hash table)",
        ));
        return;
    };
    let Some(bytes) = tail(sym_start) else {
        problems.push(Problem::new(
            ProblemKind::Truncated,
            "dynamic symbol table outside the file",
        ));
        return;
    };
    let Ok((syms, _)) = object::pod::slice_from_bytes::<Elf::Sym>(bytes, count as usize) else {
        problems.push(Problem::new(
            ProblemKind::Truncated,
            "dynamic symbol table runs past the end of the file",
        ));
        return;
    };
    info.symbols.reserve_exact(syms.len().saturating_sub(1));
    for sym in syms.iter().skip(1) {
        use object::read::elf::Sym as _;
        if let Ok(bytes) = strings.get(sym.st_name(endian))
            && let Ok(name) = std::str::from_utf8(bytes)
            && !name.is_empty()
        {
            info.symbols.push(convert_symbol(sym, endian, name, None));
        }
    }
    problems.push(Problem::new(
        ProblemKind::Malformed,
        "symbol versions not read (section headers unusable)",
    ));
}
