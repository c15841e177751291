//! Raw ELF entries (a dynamic tag's string, a symbol table entry) turned into the model's types,
//! for both readers: through section headers (`read`) and through program headers (`phdr`).

use object::Endianness;
use object::elf;

use crate::model::{Binding, ElfInfo, Symbol, SymbolKind, SymbolVersion, Visibility};

pub(crate) fn apply_dynamic_string<'a>(info: &mut ElfInfo<'a>, tag: elf::DynamicTag, s: &'a str) {
    if tag == elf::DT_NEEDED {
        info.needed.push(s);
    } else if tag == elf::DT_SONAME {
        info.soname = Some(s);
    } else if tag == elf::DT_RPATH {
        info.rpath.extend(split_path_list(s));
    } else if tag == elf::DT_RUNPATH {
        info.runpath.extend(split_path_list(s));
    }
}

fn split_path_list(s: &str) -> Vec<&str> {
    s.split(':').filter(|p| !p.is_empty()).collect()
}

pub(crate) fn convert_symbol<'a, S: object::read::elf::Sym<Endian = Endianness>>(
    sym: &S,
    endian: Endianness,
    name: &'a str,
    version: Option<SymbolVersion<'a>>,
) -> Symbol<'a> {
    let binding = match sym.st_bind().0 {
        0 => Binding::Local,
        1 => Binding::Global,
        2 => Binding::Weak,
        10 => Binding::Unique,
        other => Binding::Other(other),
    };
    let kind = match sym.st_type().0 {
        0 => SymbolKind::NoType,
        1 => SymbolKind::Object,
        2 => SymbolKind::Func,
        3 => SymbolKind::Section,
        4 => SymbolKind::File,
        5 => SymbolKind::Common,
        6 => SymbolKind::Tls,
        10 => SymbolKind::IFunc,
        other => SymbolKind::Other(other),
    };
    let visibility = match sym.st_visibility().0 {
        1 => Visibility::Internal,
        2 => Visibility::Hidden,
        3 => Visibility::Protected,
        _ => Visibility::Default,
    };
    Symbol {
        name,
        defined: sym.st_shndx(endian) != elf::SHN_UNDEF,
        binding,
        kind,
        visibility,
        version,
    }
}
