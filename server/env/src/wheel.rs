//! Reading a wheel (a zip archive) in memory, without installing, extracting to disk or
//! executing anything: its central directory (zip64 included), its `*.dist-info/METADATA`, and
//! its ELF members inflated one at a time under a size bound and parsed into [`LibFacts`].
//! Hostile archives (zip bombs, absurd declared sizes, `..`/absolute member names, duplicate
//! names, encryption, truncation) become a message, never a panic or an unbounded allocation.

use crate::dist::{Metadata, parse_metadata_bytes};
use crate::facts::LibFacts;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bounds on what one archive may make this process read or allocate.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Members in the central directory (the largest real wheels, torch's, hold ~15k).
    pub max_members: usize,
    /// Inflated size of one member (the largest real CUDA libraries are ~1.5 GB).
    pub max_member: u64,
    /// Inflated size of every member read, together.
    pub max_total: u64,
    /// Inflated size of `METADATA`.
    pub max_metadata: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_members: 1 << 20,
            max_member: crate::fsguard::MAX_LIB,
            max_total: 32 << 30,
            max_metadata: 16 << 20,
        }
    }
}

/// One central-directory entry, as declared (sizes are checked when the member is read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's name as stored (UTF-8, lossy).
    pub name: String,
    /// 0 stored, 8 deflate; anything else is refused when read.
    pub method: u16,
    pub flags: u16,
    pub crc32: u32,
    pub compressed: u64,
    pub size: u64,
    /// Offset of the member's local header.
    pub offset: u64,
}

impl Member {
    /// Whether the loader could ever map this member: `*.so` and `*.so.N…` files.
    pub fn is_library_name(&self) -> bool {
        let base = self.name.rsplit('/').next().unwrap_or("");
        base.ends_with(".so") || base.contains(".so.")
    }
}

fn u16_at(d: &[u8], at: usize) -> Option<u16> {
    let b = d.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    let b = d.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(d: &[u8], at: usize) -> Option<u64> {
    let b = d.get(at..at.checked_add(8)?)?;
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    Some(u64::from_le_bytes(w))
}

const EOCD: u32 = 0x0605_4b50;
const EOCD64: u32 = 0x0606_4b50;
const EOCD64_LOCATOR: u32 = 0x0706_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

fn to_usize(v: u64, what: &str) -> Result<usize, String> {
    usize::try_from(v).map_err(|_| format!("{what} ({v}) is beyond what this machine can address"))
}

/// Reads the central directory. Errors say why the file is not a readable zip archive.
pub fn read_directory(data: &[u8], limits: &Limits) -> Result<Vec<Member>, String> {
    if data.len() < 22 {
        return Err(format!(
            "not a zip archive: {} bytes is shorter than the end-of-directory record",
            data.len()
        ));
    }
    // The end record is the last 22 bytes plus a comment of at most 65535 bytes.
    let lowest = data.len().saturating_sub(22 + 0xffff);
    let eocd = (lowest..=data.len() - 22)
        .rev()
        .find(|&i| u32_at(data, i) == Some(EOCD))
        .ok_or_else(|| {
            "not a zip archive, or a truncated one: no end-of-central-directory record".to_string()
        })?;
    let field = |off: usize| u16_at(data, eocd + off).map(u64::from);
    let field32 = |off: usize| u32_at(data, eocd + off).map(u64::from);
    let (Some(disk), Some(entries), Some(cd_size), Some(cd_offset)) =
        (field(4), field(10), field32(12), field32(16))
    else {
        return Err("truncated end-of-central-directory record".into());
    };
    let (mut entries, mut cd_size, mut cd_offset) = (entries, cd_size, cd_offset);
    if disk != 0 {
        return Err("a multi-part (spanned) zip archive: not a wheel".into());
    }
    if entries == 0xffff || cd_size == 0xffff_ffff || cd_offset == 0xffff_ffff {
        // Zip64: the locator sits just before the end record and points at the zip64 record.
        let loc = eocd
            .checked_sub(20)
            .filter(|&l| u32_at(data, l) == Some(EOCD64_LOCATOR))
            .ok_or("zip64 fields without a zip64 end-of-directory locator")?;
        let rec = u64_at(data, loc + 8)
            .ok_or("truncated zip64 locator")
            .and_then(|o| usize::try_from(o).map_err(|_| "zip64 record beyond the file"))?;
        if u32_at(data, rec) != Some(EOCD64) {
            return Err("the zip64 locator points at no zip64 end-of-directory record".into());
        }
        let (Some(e), Some(s), Some(o)) = (
            u64_at(data, rec + 32),
            u64_at(data, rec + 40),
            u64_at(data, rec + 48),
        ) else {
            return Err("truncated zip64 end-of-directory record".into());
        };
        (entries, cd_size, cd_offset) = (e, s, o);
    }
    if entries > limits.max_members as u64 {
        return Err(format!(
            "declares {entries} members, more than the {} this reader accepts",
            limits.max_members
        ));
    }
    let start = to_usize(cd_offset, "central directory offset")?;
    let end = start
        .checked_add(to_usize(cd_size, "central directory size")?)
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            format!(
                "truncated: the central directory ({cd_size} bytes at {cd_offset}) runs past the \
                 end of the file ({} bytes)",
                data.len()
            )
        })?;
    let cd = data.get(start..end).unwrap_or(&[]);
    // Each entry takes at least 46 bytes: a declared count the directory cannot hold is a lie.
    if entries.saturating_mul(46) > cd.len() as u64 {
        return Err(format!(
            "declares {entries} members in a central directory of {} bytes",
            cd.len()
        ));
    }
    let mut out = Vec::with_capacity(to_usize(entries, "member count")?);
    let mut at = 0usize;
    for n in 0..entries {
        if u32_at(cd, at) != Some(CENTRAL) {
            return Err(format!(
                "central directory entry {n} is damaged (bad signature)"
            ));
        }
        let (
            Some(flags),
            Some(method),
            Some(crc32),
            Some(csize),
            Some(usize_),
            Some(nlen),
            Some(elen),
            Some(clen),
            Some(offset),
        ) = (
            u16_at(cd, at + 8),
            u16_at(cd, at + 10),
            u32_at(cd, at + 16),
            u32_at(cd, at + 20),
            u32_at(cd, at + 24),
            u16_at(cd, at + 28),
            u16_at(cd, at + 30),
            u16_at(cd, at + 32),
            u32_at(cd, at + 42),
        )
        else {
            return Err(format!("central directory entry {n} is truncated"));
        };
        let name_at = at + 46;
        let extra_at = name_at + usize::from(nlen);
        let next = extra_at + usize::from(elen) + usize::from(clen);
        let (Some(name), Some(extra)) = (
            cd.get(name_at..extra_at),
            cd.get(extra_at..extra_at + usize::from(elen)),
        ) else {
            return Err(format!("central directory entry {n} is truncated"));
        };
        let mut m = Member {
            name: String::from_utf8_lossy(name).into_owned(),
            method,
            flags,
            crc32,
            compressed: u64::from(csize),
            size: u64::from(usize_),
            offset: u64::from(offset),
        };
        zip64_extra(extra, &mut m);
        out.push(m);
        at = next;
    }
    Ok(out)
}

/// Applies a zip64 extended-information extra field (id 1): the 64-bit values of the fields
/// saturated at `0xffffffff`, in the order size, compressed size, offset.
fn zip64_extra(extra: &[u8], m: &mut Member) {
    let mut at = 0usize;
    while let (Some(id), Some(len)) = (u16_at(extra, at), u16_at(extra, at + 2)) {
        let body = extra.get(at + 4..at + 4 + usize::from(len)).unwrap_or(&[]);
        if id == 1 {
            let mut k = 0usize;
            for slot in [&mut m.size, &mut m.compressed, &mut m.offset] {
                if *slot == 0xffff_ffff {
                    if let Some(v) = u64_at(body, k) {
                        *slot = v;
                    }
                    k += 8;
                }
            }
            return;
        }
        at += 4 + usize::from(len);
    }
}

/// Why a member name could not be installed as the path it names (pip refuses these too), or
/// `None` for a plain relative path.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("an empty name");
    }
    if name.starts_with('/') || name.as_bytes().get(1) == Some(&b':') {
        return Some("an absolute path");
    }
    if name.contains('\\') {
        return Some("a backslash (a Windows path separator)");
    }
    if name.chars().any(char::is_control) {
        return Some("a control character");
    }
    if name.split('/').any(|c| c == "..") {
        return Some("a `..` component (it would be written outside site-packages)");
    }
    None
}

/// The bytes of one member, inflated, bounded by `cap` and checked against its declared size
/// and CRC-32.
pub fn read_member(data: &[u8], m: &Member, cap: u64) -> Result<Vec<u8>, String> {
    if m.flags & 1 != 0 {
        return Err("encrypted".into());
    }
    if m.size > cap {
        return Err(format!(
            "declares {} bytes inflated, more than the {cap} this reader accepts",
            m.size
        ));
    }
    let off = to_usize(m.offset, "local header offset")?;
    if u32_at(data, off) != Some(LOCAL) {
        return Err("its local header is missing or damaged (truncated archive?)".into());
    }
    let (Some(nlen), Some(elen)) = (u16_at(data, off + 26), u16_at(data, off + 28)) else {
        return Err("its local header is truncated".into());
    };
    let body = off + 30 + usize::from(nlen) + usize::from(elen);
    let raw = body
        .checked_add(to_usize(m.compressed, "compressed size")?)
        .and_then(|end| data.get(body..end))
        .ok_or_else(|| {
            format!(
                "truncated: its {} compressed bytes run past the end of the archive",
                m.compressed
            )
        })?;
    let size = to_usize(m.size, "declared size")?;
    let out = match m.method {
        0 => {
            if raw.len() != size {
                return Err(format!(
                    "stored with {} bytes but declares {size}",
                    raw.len()
                ));
            }
            raw.to_vec()
        }
        8 => {
            // One byte past the declared size: inflating further proves the declaration false
            // (a zip bomb) without inflating the rest.
            match miniz_oxide::inflate::decompress_to_vec_with_limit(raw, size.saturating_add(1)) {
                Ok(v) if v.len() == size => v,
                Ok(v) if v.len() > size => {
                    return Err(format!(
                        "inflates past its declared {size} bytes (a zip bomb, or a damaged archive)"
                    ));
                }
                Ok(v) => {
                    return Err(format!("inflates to {} bytes but declares {size}", v.len()));
                }
                Err(e) if e.output.len() > size => {
                    return Err(format!(
                        "inflates past its declared {size} bytes (a zip bomb, or a damaged archive)"
                    ));
                }
                Err(e) => return Err(format!("cannot be inflated: {e}")),
            }
        }
        other => {
            return Err(format!(
                "compressed with method {other}; wheels use stored (0) or deflate (8)"
            ));
        }
    };
    if crc32(&out) != m.crc32 {
        return Err("CRC-32 mismatch: the member is damaged".into());
    }
    Ok(out)
}

/// CRC-32 (IEEE, reflected), as zip stores it.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[[u32; 256]; 8]> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = [[0u32; 256]; 8];
        for i in 0..256u32 {
            let mut c = i;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            t[0][i as usize] = c;
        }
        for i in 0..256usize {
            for k in 1..8 {
                let prev = t[k - 1][i];
                t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            }
        }
        t
    });
    let mut c = !0u32;
    // Slicing by 8: a 1 GB library is checked in about a second instead of four.
    let mut chunks = data.chunks_exact(8);
    for ch in &mut chunks {
        let lo = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) ^ c;
        let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xff) as usize]
            ^ t[2][((hi >> 8) & 0xff) as usize]
            ^ t[1][((hi >> 16) & 0xff) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        c = t[0][((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// One library member of a wheel.
#[derive(Debug, Clone)]
pub struct WheelLibrary {
    /// Where installing puts it, relative to site-packages (`pkg/_C.so`; a `*.data/platlib/`
    /// or `purelib/` prefix removed).
    pub install_path: String,
    /// Its inflated size.
    pub size: u64,
    /// Parsed, or why not.
    pub facts: Result<Arc<LibFacts>, String>,
    /// Its CUDA fat binary (`.nv_fatbin`): the GPU code it carries, read from the same bytes.
    pub gpu: Option<abidoc_elf::FatBinary>,
}

/// A wheel as read: name, version and requirements from its METADATA, its libraries, and what
/// could not be read.
#[derive(Debug, Clone, Default)]
pub struct Wheel {
    pub path: PathBuf,
    /// From METADATA, else from the file name.
    pub name: Option<String>,
    pub version: Option<String>,
    pub metadata: Metadata,
    /// Tags from the file name: (python, abi, platform).
    pub tags: Option<(String, String, String)>,
    pub members: usize,
    pub libraries: Vec<WheelLibrary>,
    /// Python members (`*.py`), not read: [`python_sources`] reads them when a verdict needs
    /// to know whether the package loads a library itself.
    pub python_members: Vec<Member>,
    /// Problems that do not stop the reading (one member damaged, a hostile name).
    pub problems: Vec<String>,
}

impl Wheel {
    /// The PEP 503 name, when known.
    pub fn normalized(&self) -> Option<String> {
        self.name.as_deref().map(crate::dist::normalize_name)
    }
}

/// `name-version(-build)?-py-abi-platform.whl` parts, when the file name has that shape.
pub fn parse_file_name(file: &str) -> Option<(String, String, (String, String, String))> {
    let stem = file.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if !(5..=6).contains(&parts.len()) {
        return None;
    }
    let n = parts.len();
    Some((
        parts.first()?.to_string(),
        parts.get(1)?.to_string(),
        (
            parts.get(n - 3)?.to_string(),
            parts.get(n - 2)?.to_string(),
            parts.get(n - 1)?.to_string(),
        ),
    ))
}

/// Reads the wheel at `path` (a regular file, mapped; never extracted). `Err` when it is not a
/// readable zip archive at all; damage to single members is in `problems`.
pub fn read_wheel(path: &Path, limits: &Limits) -> Result<Wheel, String> {
    let bytes = crate::fsguard::map_archive(path)?;
    let mut w = read_wheel_bytes(bytes.as_ref(), limits)?;
    w.path = path.to_path_buf();
    if let Some((name, version, tags)) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_file_name)
    {
        w.name.get_or_insert(name);
        w.version.get_or_insert(version);
        w.tags = Some(tags);
    }
    Ok(w)
}

/// [`read_wheel`] over bytes already in memory (the fuzz target drives this).
pub fn read_wheel_bytes(data: &[u8], limits: &Limits) -> Result<Wheel, String> {
    let members = read_directory(data, limits)?;
    let mut w = Wheel {
        members: members.len(),
        ..Wheel::default()
    };
    let mut seen = std::collections::HashSet::with_capacity(members.len());
    let mut total = 0u64;
    // The dist-info directory: the top-level `*.dist-info/` holding METADATA.
    let metadata = members.iter().find(|m| {
        let mut parts = m.name.split('/');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(d), Some("METADATA"), None) if d.ends_with(".dist-info")
        )
    });
    match metadata {
        Some(m) => match read_member(data, m, limits.max_metadata) {
            Ok(b) => {
                w.metadata = parse_metadata_bytes(&b);
                w.name.clone_from(&w.metadata.name);
                w.version.clone_from(&w.metadata.version);
            }
            Err(e) => w.problems.push(format!("{}: {e}", m.name)),
        },
        None => w
            .problems
            .push("no *.dist-info/METADATA: not a wheel pip would install".into()),
    }
    for m in &members {
        if let Some(why) = unsafe_name(&m.name) {
            w.problems.push(format!(
                "member {:?} has {why}: pip refuses to install this wheel",
                m.name
            ));
            continue;
        }
        if !seen.insert(m.name.as_str()) {
            w.problems.push(format!(
                "member {:?} appears twice: which copy an installer writes is not defined",
                m.name
            ));
            continue;
        }
        if m.name.ends_with(".py") && install_path(&m.name).is_some() {
            w.python_members.push(m.clone());
            continue;
        }
        if !m.is_library_name() || m.name.ends_with('/') {
            continue;
        }
        let Some(install_path) = install_path(&m.name) else {
            continue;
        };
        if total.saturating_add(m.size) > limits.max_total {
            w.problems.push(format!(
                "{}: not read: the libraries read so far and this one exceed {} bytes inflated",
                m.name, limits.max_total
            ));
            continue;
        }
        total = total.saturating_add(m.size);
        let mut gpu = None;
        let facts = read_member(data, m, limits.max_member).and_then(|b| {
            if b.get(..4) != Some(b"\x7fELF") {
                return Err("not an ELF file".into());
            }
            gpu = abidoc_elf::read_fatbin(&b).filter(|f| !f.entries.is_empty());
            LibFacts::parse(&b).map(Arc::new)
        });
        if let Err(e) = &facts {
            w.problems.push(format!("{}: {e}", m.name));
        }
        w.libraries.push(WheelLibrary {
            install_path,
            size: m.size,
            facts,
            gpu,
        });
    }
    Ok(w)
}

/// The text of the wheel's Python members that mention `needle` (lossy UTF-8), each read up to
/// 1 MiB, at most 5000 of them; the wheel is mapped again for it.
pub fn python_sources(w: &Wheel, needle: &str) -> Vec<(String, String)> {
    const MAX_SOURCE: u64 = 1 << 20;
    const MAX_FILES: usize = 5_000;
    let Ok(bytes) = crate::fsguard::map_archive(&w.path) else {
        return Vec::new();
    };
    w.python_members
        .iter()
        .take(MAX_FILES)
        .filter_map(|m| {
            let b = read_member(bytes.as_ref(), m, MAX_SOURCE).ok()?;
            let t = String::from_utf8_lossy(&b).into_owned();
            t.contains(needle).then(|| (m.name.clone(), t))
        })
        .collect()
}

/// Where a member lands relative to site-packages: as named, or its `*.data/platlib|purelib/`
/// prefix removed; `None` for `*.data/scripts|headers|data/` members (outside site-packages).
fn install_path(name: &str) -> Option<String> {
    let mut parts = name.splitn(3, '/');
    let first = parts.next()?;
    if !first.ends_with(".data") {
        return Some(name.to_string());
    }
    match (parts.next(), parts.next()) {
        (Some("platlib" | "purelib"), Some(rest)) if !rest.is_empty() => Some(rest.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn crc_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        // Every length around the 8-byte stride.
        let data: Vec<u8> = (0..100u8).collect();
        for n in 0..data.len() {
            let mut c = !0u32;
            for &b in &data[..n] {
                c ^= u32::from(b);
                for _ in 0..8 {
                    c = if c & 1 != 0 {
                        0xedb8_8320 ^ (c >> 1)
                    } else {
                        c >> 1
                    };
                }
            }
            assert_eq!(crc32(&data[..n]), !c, "n = {n}");
        }
    }

    #[test]
    fn member_names() {
        assert!(unsafe_name("pkg/_C.so").is_none());
        for bad in [
            "/etc/x.so",
            "../x.so",
            "a/../../x.so",
            "a\\b.so",
            "C:x",
            "a\nb",
            "",
        ] {
            assert!(unsafe_name(bad).is_some(), "{bad:?}");
        }
        assert_eq!(
            install_path("x-1.data/platlib/y/z.so").as_deref(),
            Some("y/z.so")
        );
        assert_eq!(install_path("x-1.data/scripts/z.so"), None);
        assert_eq!(
            parse_file_name("flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl").map(|p| p.0),
            Some("flash_attn".into())
        );
    }
}
