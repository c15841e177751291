//! Plain data describing one ELF file's dynamic linking surface, borrowed from the file's bytes.

use std::fmt;

/// What `read` understood of one ELF file. Every string borrows from the bytes passed to `read`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfInfo<'a> {
    pub class: ElfClass,
    pub endian: ByteOrder,
    /// `e_machine` (62 = x86-64, 183 = AArch64, 3 = i386, 21 = ppc64 ...).
    pub machine: u16,
    pub kind: FileKind,
    /// `DT_SONAME`.
    pub soname: Option<&'a str>,
    /// `DT_NEEDED`, in file order.
    pub needed: Vec<&'a str>,
    /// `DT_RPATH`, split on `:` (tokens such as `$ORIGIN` are left unexpanded).
    pub rpath: Vec<&'a str>,
    /// `DT_RUNPATH`, split on `:`.
    pub runpath: Vec<&'a str>,
    /// Dynamic symbols (`.dynsym`) without the null entry, in table order.
    pub symbols: Vec<Symbol<'a>>,
    /// Versions this file defines (`.gnu.version_d`), the base (file name) entry included.
    pub version_defs: Vec<VersionDef<'a>>,
    /// Versions this file requires, grouped by the file that must define them (`.gnu.version_r`).
    pub version_needs: Vec<VersionNeed<'a>>,
    /// `PT_GNU_STACK`'s executable bit: `Some(true)` when the file asks for an executable stack,
    /// `Some(false)` when it says it needs none, `None` when it has no such header (which the
    /// x86 ABIs read as executable).
    pub exec_stack: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElfClass {
    Elf32,
    Elf64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Relocatable,
    Executable,
    SharedObject,
    Core,
    Other(u16),
}

/// One dynamic symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol<'a> {
    /// The raw (mangled) name, without any `@VERSION` suffix.
    pub name: &'a str,
    /// Defined in this file (`st_shndx != SHN_UNDEF`).
    pub defined: bool,
    pub binding: Binding,
    pub kind: SymbolKind,
    pub visibility: Visibility,
    /// From `.gnu.version`: for an undefined symbol the version it requires (and the file that
    /// must define it); for a defined symbol the version it is defined at.
    pub version: Option<SymbolVersion<'a>>,
}

impl Symbol<'_> {
    /// Undefined and not weak: the loader fails when nothing provides it.
    pub fn is_required(&self) -> bool {
        !self.defined && self.binding != Binding::Weak && self.binding != Binding::Local
    }

    /// Defined, global/weak/unique, default or protected visibility, not a hidden (`@`) version:
    /// what an unversioned reference from another library can bind to.
    pub fn is_export(&self) -> bool {
        self.is_versioned_export() && self.version.is_none_or(|v| !v.hidden)
    }

    /// Like `is_export`, but including hidden (`sym@VER`, non-default) versions, which a
    /// reference that requires exactly `VER` still binds to (old glibc/libstdc++ symbols).
    pub fn is_versioned_export(&self) -> bool {
        self.defined
            && self.binding != Binding::Local
            && matches!(self.visibility, Visibility::Default | Visibility::Protected)
            && !matches!(self.kind, SymbolKind::Section | SymbolKind::File)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    Local,
    Global,
    Weak,
    /// `STB_GNU_UNIQUE`.
    Unique,
    Other(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    NoType,
    Object,
    Func,
    Section,
    File,
    Common,
    Tls,
    /// `STT_GNU_IFUNC`.
    IFunc,
    Other(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    Default,
    Internal,
    Hidden,
    Protected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolVersion<'a> {
    /// e.g. `GLIBCXX_3.4.30`.
    pub name: &'a str,
    /// For a requirement: the `DT_NEEDED` entry that must define the version (e.g. `libstdc++.so.6`).
    pub file: Option<&'a str>,
    /// `VERSYM_HIDDEN`: for a definition, `sym@VER` (not the default `sym@@VER`).
    pub hidden: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionDef<'a> {
    pub name: &'a str,
    /// The `VER_FLG_BASE` entry names the file itself, not a version symbols use.
    pub base: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionNeed<'a> {
    /// e.g. `libstdc++.so.6`.
    pub file: &'a str,
    /// e.g. `["GLIBCXX_3.4", "GLIBCXX_3.4.30"]`.
    pub versions: Vec<&'a str>,
}

impl<'a> ElfInfo<'a> {
    /// Symbols that must be resolved for the file to load (undefined, not weak).
    pub fn required(&self) -> impl Iterator<Item = &Symbol<'a>> + '_ {
        self.symbols.iter().filter(|s| s.is_required())
    }

    /// Undefined weak symbols: they never make loading fail.
    pub fn weak_undefined(&self) -> impl Iterator<Item = &Symbol<'a>> + '_ {
        self.symbols
            .iter()
            .filter(|s| !s.defined && s.binding == Binding::Weak)
    }

    /// Symbols other libraries can bind to.
    pub fn exports(&self) -> impl Iterator<Item = &Symbol<'a>> + '_ {
        self.symbols.iter().filter(|s| s.is_export())
    }

    /// Whether this file defines version `name` (e.g. `GLIBCXX_3.4.30`).
    pub fn defines_version(&self, name: &str) -> bool {
        self.version_defs.iter().any(|d| !d.base && d.name == name)
    }

    /// Every (file, version) this file requires, flattened.
    pub fn required_versions(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        self.version_needs
            .iter()
            .flat_map(|n| n.versions.iter().map(move |v| (n.file, *v)))
    }

    /// Human name of `machine`.
    pub fn machine_name(&self) -> &'static str {
        machine_name(self.machine)
    }
}

/// Something `read` could not understand, per file. Never fatal to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// Zero bytes.
    Empty,
    /// No ELF magic (random bytes, a script, a text file ...).
    NotElf,
    /// A Mach-O (macOS) binary.
    MachO,
    /// A PE (Windows) binary.
    Pe,
    /// The file ends before the structure the headers describe.
    Truncated,
    /// Headers or tables that cannot be right (absurd counts, offsets outside the file ...).
    Malformed,
    /// A valid ELF file for another machine than this one (e.g. aarch64 on x86-64).
    WrongArch,
    /// No dynamic section: a static executable or an object file, not a shared library.
    NotDynamic,
}

impl Problem {
    pub(crate) fn new(kind: ProblemKind, message: impl Into<String>) -> Self {
        Problem {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Human name of an `e_machine` value.
pub fn machine_name(machine: u16) -> &'static str {
    match machine {
        3 => "i386",
        8 => "mips",
        20 => "ppc",
        21 => "ppc64",
        22 => "s390x",
        40 => "arm",
        62 => "x86-64",
        183 => "aarch64",
        243 => "riscv",
        258 => "loongarch",
        _ => "unknown machine",
    }
}

/// `e_machine` of the machine this program runs on, when known.
pub fn host_machine() -> Option<u16> {
    if cfg!(target_arch = "x86_64") {
        Some(62)
    } else if cfg!(target_arch = "aarch64") {
        Some(183)
    } else if cfg!(target_arch = "x86") {
        Some(3)
    } else if cfg!(target_arch = "powerpc64") {
        Some(21)
    } else if cfg!(target_arch = "s390x") {
        Some(22)
    } else if cfg!(target_arch = "riscv64") {
        Some(243)
    } else {
        None
    }
}
