//! Read-only ELF analysis over bytes: dynamic symbols, versions, needed libraries, demangling, and classification of missing symbols against exported ones.
//!
//! The caller reads or mmaps the file; everything here works on `&[u8]`, borrows names from it,
//! never panics on input and bounds every allocation by the input size.
//!
//! - [`read`]: bytes → ([`ElfInfo`], problems): symbols (defined/undefined/weak, versions),
//!   `DT_NEEDED`, `DT_SONAME`, `DT_RPATH`, `DT_RUNPATH`, verdefs, verneeds.
//! - [`demangle`], [`abi_flavor`], [`qualified_name`]: names.
//! - [`read_fatbin`], [`parse_fatbin`]: the CUDA fat binary (`.nv_fatbin`): which SM cubins and
//!   which PTX a library carries.
//! - [`ExportIndex`]: the exports of many libraries, by exact and by qualified name.
//! - [`classify`], [`check_version`]: why a required symbol or version is missing.

mod classify;
mod convert;
mod cxxfilt;
mod demangle;
mod fastdemangle;
mod fatbin;
mod index;
pub mod mangled;
mod model;
mod phdr;
mod read;

pub use classify::{Classification, Status, VersionCheck, check_version, classify, version_family};
pub use demangle::{
    AbiFlavor, Demangler, abi_flavor, demangle, demangle_into, normalize_cxx11, qualified_name,
    split_params, split_version,
};
/// Fixture writers for the tests of every crate (feature `test-writer`).
#[cfg(any(test, feature = "test-writer"))]
pub use fatbin::testing;
pub use fatbin::{FATBIN_MAGIC, FatBinary, GpuCode, GpuCodeKind, parse_fatbin, read_fatbin};
pub use index::{Export, ExportIndex, LibraryId, key_of as qualified_key};
pub use model::{
    Binding, ByteOrder, ElfClass, ElfInfo, FileKind, Problem, ProblemKind, Symbol, SymbolKind,
    SymbolVersion, VersionDef, VersionNeed, Visibility, host_machine, machine_name,
};
pub use read::read;
