//! CUDA fat binaries (`.nv_fatbin`): which GPU code a library carries — SASS cubins for which SM
//! architectures, PTX for which virtual ones — read statically, never by loading the library.
//!
//! Layout (little-endian; no public NVIDIA specification, so checked against several independent
//! readings: CUDA's `fatbinary.h` as quoted by the `fatbinary` crate, the Kaitai description in
//! gpgpu-sim-derived tools, and GrigoryEvko/nvopen-tools' `fatbin/FORMAT_SPECIFICATION.md`,
//! reverse-engineered from cuobjdump and validated on CUDA 11–13 binaries):
//!
//! - The section holds one or more containers, each a 16-byte header — magic `0xBA55ED50` (u32),
//!   version 1 (u16), header size 16 (u16), `fat_size` (u64: the bytes of entries that follow) —
//!   followed by its entries. Containers may be separated by zero padding.
//! - Each entry: kind (u16 at 0: 1 = PTX, 2 = ELF cubin, 0x10 = ELF too), a u16 at 2, header size
//!   (u32 at 4: 64, or 80/112 for newer architectures), payload size (u64 at 8, padded), the
//!   compressed size (u32 at 16), the code version minor/major (u16 at 24/26), the SM
//!   architecture (u32 at 28: `86` for sm_86), flags (u64 at 40: bit 0x2000 the older LZ4-style
//!   compression, 0x8000 the zstd compression of CUDA 12.8+), and the decompressed size (u64 at
//!   56). The payload follows the entry's header; the next entry follows the payload.
//!
//! Every offset and size is checked against the bytes given: truncated or hostile data ends the
//! reading with a problem, never a panic, and the number of entries is bounded.

use layout::{ENTRY_MIN, HEADER_LEN};

#[cfg(any(test, feature = "test-writer"))]
pub mod testing;

/// The magic of a fat binary container header.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Real libraries hold thousands of entries (libcublasLt: ~5,400); beyond this the data is hostile.
const MAX_ENTRIES: usize = 1 << 16;
const MAX_CONTAINERS: usize = 1 << 14;
const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;

/// Where the fields lie (the module's doc says what they mean): the one description of the
/// layout, which the fixture writer (`testing`) shares so that it cannot drift from the reader.
mod layout {
    /// A container header's length, and its fields: version (u16), header length (u16), the
    /// bytes of entries that follow it (u64).
    pub(super) const HEADER_LEN: usize = 16;
    // The reader needs neither the container's version nor an entry's compressed size; the
    // writer sets them as nvcc does.
    #[cfg_attr(not(any(test, feature = "test-writer")), allow(dead_code))]
    pub(super) const HEADER_VERSION: usize = 4;
    pub(super) const HEADER_HEADER_LEN: usize = 6;
    pub(super) const HEADER_FAT_SIZE: usize = 8;
    /// An entry header's shortest length (nvcc's; newer architectures' are longer), and its
    /// fields: kind (u16), header length (u32), payload size (u64), compressed size (u32), code
    /// version minor and major (u16 each), SM architecture (u32), flags (u64).
    pub(super) const ENTRY_MIN: usize = 64;
    pub(super) const ENTRY_KIND: usize = 0;
    pub(super) const ENTRY_HEADER_LEN: usize = 4;
    pub(super) const ENTRY_SIZE: usize = 8;
    #[cfg_attr(not(any(test, feature = "test-writer")), allow(dead_code))]
    pub(super) const ENTRY_COMPRESSED_SIZE: usize = 16;
    pub(super) const ENTRY_VERSION_MINOR: usize = 24;
    pub(super) const ENTRY_VERSION_MAJOR: usize = 26;
    pub(super) const ENTRY_ARCH: usize = 28;
    pub(super) const ENTRY_FLAGS: usize = 40;
    /// Entry kinds: PTX, and the two that hold an ELF cubin.
    pub(super) const KIND_PTX: u16 = 1;
    pub(super) const KIND_CUBIN: u16 = 2;
    pub(super) const KIND_CUBIN_ELF: u16 = 0x10;
}

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GpuCodeKind {
    /// Machine code (SASS) for one SM architecture: runs on that major, same or newer minor.
    Cubin,
    /// PTX for a virtual architecture: the driver compiles it for any GPU at least as new.
    Ptx,
}

/// One entry of a fat binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuCode {
    pub kind: GpuCodeKind,
    /// The SM number as CUDA writes it: `86` for sm_86, `120` for sm_120.
    pub arch: u32,
    /// The entry's code version (major, minor), as `cuobjdump` prints `code version = [1,7]`.
    pub version: (u16, u16),
    pub compressed: bool,
    /// The payload's size in the file.
    pub size: u64,
}

/// What a library's `.nv_fatbin` section holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FatBinary {
    pub entries: Vec<GpuCode>,
    pub containers: usize,
    /// What could not be read (truncated container, bad header); what came before is kept.
    pub problems: Vec<String>,
}

impl FatBinary {
    /// The SM architectures with a cubin, sorted and distinct.
    pub fn cubin_archs(&self) -> Vec<u32> {
        self.archs(GpuCodeKind::Cubin)
    }

    /// The virtual architectures with PTX, sorted and distinct.
    pub fn ptx_archs(&self) -> Vec<u32> {
        self.archs(GpuCodeKind::Ptx)
    }

    fn archs(&self, kind: GpuCodeKind) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.arch)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether code for a GPU of compute capability `major.minor` is inside: a cubin of the same
    /// major and a minor not above the GPU's, or PTX of a virtual architecture not above it (the
    /// driver compiles it at load). Architecture-specific cubins (`sm_90a`) are written with the
    /// same number and are counted like the plain ones.
    pub fn runs_on(&self, major: u32, minor: u32) -> bool {
        let gpu = major.saturating_mul(10).saturating_add(minor);
        self.entries.iter().any(|e| match e.kind {
            GpuCodeKind::Cubin => e.arch / 10 == major && e.arch % 10 <= minor,
            GpuCodeKind::Ptx => e.arch <= gpu,
        })
    }

    /// `sm_80 sm_90 + PTX compute_90`, or `no GPU code` when empty.
    pub fn describe(&self) -> String {
        let cubins: Vec<String> = self
            .cubin_archs()
            .iter()
            .map(|a| format!("sm_{a}"))
            .collect();
        let ptx: Vec<String> = self
            .ptx_archs()
            .iter()
            .map(|a| format!("compute_{a}"))
            .collect();
        match (cubins.is_empty(), ptx.is_empty()) {
            (true, true) => "no GPU code".into(),
            (false, true) => cubins.join(" "),
            (true, false) => format!("PTX only: {}", ptx.join(" ")),
            (false, false) => format!("{} + PTX {}", cubins.join(" "), ptx.join(" ")),
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Reads the contents of a `.nv_fatbin` section (or a standalone `.fatbin` file).
pub fn parse_fatbin(bytes: &[u8]) -> FatBinary {
    let mut out = FatBinary::default();
    let mut at = 0usize;
    while at < bytes.len() {
        // Containers are 8-byte aligned in the section; padding between them is zeros.
        let Some(found) = find_magic(bytes, at) else {
            break;
        };
        if out.containers >= MAX_CONTAINERS {
            out.problems.push(format!(
                "more than {MAX_CONTAINERS} containers: the rest not read"
            ));
            break;
        }
        out.containers += 1;
        match container(bytes, found, &mut out) {
            Some(next) => at = next,
            None => break,
        }
    }
    out
}

fn find_magic(bytes: &[u8], from: usize) -> Option<usize> {
    let magic = FATBIN_MAGIC.to_le_bytes();
    let rest = bytes.get(from..)?;
    memchr::memmem::find(rest, &magic).map(|p| from + p)
}

/// Reads one container at `at`; returns where the next may start, `None` when reading must stop.
fn container(bytes: &[u8], at: usize, out: &mut FatBinary) -> Option<usize> {
    let (Some(header_len), Some(fat_size)) = (
        u16_at(bytes, at + layout::HEADER_HEADER_LEN),
        u64_at(bytes, at + layout::HEADER_FAT_SIZE),
    ) else {
        out.problems
            .push(format!("fat binary header at offset {at} is truncated"));
        return None;
    };
    let header_len = usize::from(header_len);
    if header_len < HEADER_LEN {
        out.problems.push(format!(
            "fat binary header at offset {at} claims {header_len} bytes (at least {HEADER_LEN})"
        ));
        // Not a header after all (the magic inside other data): look further on.
        return Some(at + 4);
    }
    let start = at.checked_add(header_len)?;
    let declared_end = usize::try_from(fat_size)
        .ok()
        .and_then(|s| start.checked_add(s));
    let end = match declared_end {
        Some(e) if e <= bytes.len() => e,
        _ => {
            out.problems.push(format!(
                "fat binary at offset {at} claims {fat_size} bytes of entries, {} are there: read up to the end",
                bytes.len().saturating_sub(start)
            ));
            bytes.len()
        }
    };
    let mut p = start;
    while p < end {
        if out.entries.len() >= MAX_ENTRIES {
            out.problems.push(format!(
                "more than {MAX_ENTRIES} entries: the rest not read"
            ));
            return None;
        }
        let Some(entry) = bytes.get(p..end) else {
            break;
        };
        let (Some(kind), Some(hlen), Some(size)) = (
            u16_at(entry, layout::ENTRY_KIND),
            u32_at(entry, layout::ENTRY_HEADER_LEN),
            u64_at(entry, layout::ENTRY_SIZE),
        ) else {
            out.problems
                .push(format!("fat binary entry at offset {p} is truncated"));
            break;
        };
        let hlen = usize::try_from(hlen).unwrap_or(usize::MAX);
        if hlen < ENTRY_MIN || hlen > entry.len() {
            // All-zero padding at a container's end is not an entry.
            if kind != 0 {
                out.problems.push(format!(
                    "fat binary entry at offset {p} has a header of {hlen} bytes: not read further"
                ));
            }
            break;
        }
        let version = (
            u16_at(entry, layout::ENTRY_VERSION_MAJOR).unwrap_or(0),
            u16_at(entry, layout::ENTRY_VERSION_MINOR).unwrap_or(0),
        );
        let arch = u32_at(entry, layout::ENTRY_ARCH).unwrap_or(0);
        let flags = u64_at(entry, layout::ENTRY_FLAGS).unwrap_or(0);
        let code_kind = match kind {
            layout::KIND_PTX => Some(GpuCodeKind::Ptx),
            layout::KIND_CUBIN | layout::KIND_CUBIN_ELF => Some(GpuCodeKind::Cubin),
            _ => None,
        };
        let next = usize::try_from(size)
            .ok()
            .and_then(|s| p.checked_add(hlen)?.checked_add(s));
        match next {
            Some(n) if n <= end => {
                // Counted only whole: a cut payload is not code the driver could load.
                if let Some(kind) = code_kind {
                    out.entries.push(GpuCode {
                        kind,
                        arch,
                        version,
                        compressed: flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD) != 0,
                        size,
                    });
                }
                p = n;
            }
            _ => {
                out.problems.push(format!(
                    "fat binary entry at offset {p} claims {size} bytes past the end of its container"
                ));
                break;
            }
        }
    }
    Some(end.max(at + 4))
}

/// Reads the `.nv_fatbin` section of an ELF file, if it has one. `None` for bytes that are not
/// ELF or a library without GPU code.
pub fn read_fatbin(elf: &[u8]) -> Option<FatBinary> {
    use object::{Object as _, ObjectSection as _};
    let file = object::File::parse(elf).ok()?;
    let section = file.section_by_name(".nv_fatbin")?;
    match section.data() {
        Ok(data) => Some(parse_fatbin(data)),
        Err(e) => Some(FatBinary {
            problems: vec![format!("the .nv_fatbin section cannot be read: {e}")],
            ..FatBinary::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{fatbin_container as container, fatbin_entry as entry};
    use super::*;
    use GpuCodeKind::{Cubin, Ptx};

    #[test]
    fn reads_cubins_and_ptx_of_several_containers() {
        let mut s = container(&[
            entry(Cubin, 80, &[1; 24], 0x11),
            entry(Cubin, 90, &[2; 16], 0x8011),
        ]);
        s.extend_from_slice(&[0; 8]);
        s.extend(container(&[entry(Ptx, 90, b".version 8.0\0\0\0\0", 0)]));
        let f = parse_fatbin(&s);
        assert_eq!(f.containers, 2);
        assert_eq!(f.cubin_archs(), vec![80, 90]);
        assert_eq!(f.ptx_archs(), vec![90]);
        assert_eq!(f.describe(), "sm_80 sm_90 + PTX compute_90");
        assert!(f.entries[1].compressed && !f.entries[0].compressed);
        assert_eq!(f.entries[0].version, (1, 7));
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert!(f.runs_on(8, 6), "sm_80 cubin runs on 8.6");
        assert!(f.runs_on(12, 0), "compute_90 PTX is compiled for 12.0");
        assert!(!f.runs_on(7, 5));
    }

    #[test]
    fn cubins_need_the_same_major() {
        let f = parse_fatbin(&container(&[entry(Cubin, 86, &[0; 8], 0)]));
        assert!(f.runs_on(8, 9) && f.runs_on(8, 6));
        assert!(!f.runs_on(8, 0) && !f.runs_on(9, 0) && !f.runs_on(12, 0));
    }

    #[test]
    fn truncated_and_hostile_data_end_with_a_problem() {
        let full = container(&[entry(Cubin, 80, &[1; 24], 0), entry(Cubin, 90, &[2; 24], 0)]);
        for cut in 0..full.len() {
            let f = parse_fatbin(full.get(..cut).unwrap_or_default());
            assert!(f.entries.len() <= 2);
        }
        let f = parse_fatbin(full.get(..full.len() - 10).unwrap_or_default());
        assert_eq!(f.cubin_archs(), vec![80]);
        assert!(!f.problems.is_empty());
        // Sizes that overflow every addition.
        let mut hostile = container(&[entry(Cubin, 80, &[0; 8], 0)]);
        let fat_size = layout::HEADER_FAT_SIZE;
        let entry_size = HEADER_LEN + layout::ENTRY_SIZE;
        let entry_header_len = HEADER_LEN + layout::ENTRY_HEADER_LEN;
        hostile[fat_size..fat_size + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        hostile[entry_size..entry_size + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let f = parse_fatbin(&hostile);
        assert!(!f.problems.is_empty());
        hostile[entry_header_len..entry_header_len + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let _ = parse_fatbin(&hostile);
        assert_eq!(parse_fatbin(b""), FatBinary::default());
        assert_eq!(read_fatbin(b"not an elf"), None);
    }

    #[test]
    fn mutated_containers_never_panic() {
        let base = container(&[
            entry(Cubin, 80, &[1; 24], 0x11),
            entry(Ptx, 90, &[2; 16], 0),
            entry(Cubin, 120, &[3; 8], 0x8000),
        ]);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut m = base.clone();
            for _ in 0..4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x as usize) % m.len();
                m[at] = (x >> 32) as u8;
            }
            let f = parse_fatbin(&m);
            assert!(f.entries.len() <= 3);
            let _ = f.describe();
            let _ = f.runs_on(u32::MAX, u32::MAX);
        }
    }
}
