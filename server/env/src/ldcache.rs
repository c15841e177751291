//! `/etc/ld.so.cache`: the new `glibc-ld.so.cache1.1` format and the old `ld.so-1.7.0` format
//! (alone or followed by a new-format block). Every offset is bounds-checked; a damaged cache
//! yields the entries that could be read plus problems.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
const NEW_HEADER: usize = 48;
const NEW_ENTRY: usize = 24;
const OLD_ENTRY: usize = 12;
/// `FLAG_ELF_LIBC6`: the only entry type ld.so uses on current systems.
pub const FLAG_ELF_LIBC6: i32 = 0x0003;
pub const FLAG_TYPE_MASK: i32 = 0x00ff;
pub const FLAG_REQUIRED_MASK: i32 = 0xff00;
pub const FLAG_X8664_LIB64: i32 = 0x0300;
pub const FLAG_AARCH64_LIB64: i32 = 0x0a00;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CacheFormat {
    Old,
    New,
    /// An old-format block followed by a new-format block (glibc < 2.32 `ldconfig -c compat`).
    Compat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    pub flags: i32,
    /// The SONAME (`libstdc++.so.6`).
    pub key: String,
    /// The file path (`/usr/lib/x86_64-linux-gnu/libstdc++.so.6`).
    pub value: String,
    pub hwcap: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LdCache {
    pub format: CacheFormat,
    pub entries: Vec<CacheEntry>,
    pub problems: Vec<String>,
}

fn u32_at(b: &[u8], off: usize, big: bool) -> Option<u32> {
    let s: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
    Some(if big {
        u32::from_be_bytes(s)
    } else {
        u32::from_le_bytes(s)
    })
}

fn u64_at(b: &[u8], off: usize, big: bool) -> Option<u64> {
    let s: [u8; 8] = b.get(off..off.checked_add(8)?)?.try_into().ok()?;
    Some(if big {
        u64::from_be_bytes(s)
    } else {
        u64::from_le_bytes(s)
    })
}

fn cstr_at(b: &[u8], off: usize) -> Option<String> {
    let rest = b.get(off..)?;
    let end = memchr_zero(rest)?;
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

fn memchr_zero(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == 0)
}

impl LdCache {
    /// Parses cache bytes. Never panics; unknown magic gives an empty cache with a problem.
    pub fn parse(bytes: &[u8]) -> LdCache {
        let mut cache = LdCache {
            format: CacheFormat::New,
            entries: Vec::new(),
            problems: Vec::new(),
        };
        if bytes.starts_with(NEW_MAGIC) {
            cache.parse_new(bytes, 0);
        } else if bytes.starts_with(OLD_MAGIC) {
            cache.format = CacheFormat::Old;
            cache.parse_old(bytes);
        } else {
            cache
                .problems
                .push("not an ld.so cache (unknown magic)".to_string());
        }
        cache
    }

    fn parse_new(&mut self, bytes: &[u8], base: usize) {
        let Some(h) = bytes.get(base..).filter(|h| h.len() >= NEW_HEADER) else {
            self.problems.push("new-format header truncated".into());
            return;
        };
        // Byte 28 records the endianness ldconfig wrote: 2 little, 3 big, 0 unknown (assume host).
        let big = h[28] == 3;
        let (Some(nlibs), Some(len_strings)) = (u32_at(h, 20, big), u32_at(h, 24, big)) else {
            return;
        };
        let nlibs = nlibs as usize;
        let table_end = NEW_ENTRY
            .checked_mul(nlibs)
            .and_then(|n| n.checked_add(NEW_HEADER));
        let fits = table_end.is_some_and(|e| e <= h.len());
        if !fits {
            self.problems.push(format!(
                "new-format cache claims {nlibs} entries but holds {} bytes",
                h.len()
            ));
        }
        let max = (h.len().saturating_sub(NEW_HEADER)) / NEW_ENTRY;
        let _ = len_strings;
        for i in 0..nlibs.min(max) {
            let e = NEW_HEADER + i * NEW_ENTRY;
            let (Some(flags), Some(key), Some(value), Some(hwcap)) = (
                u32_at(h, e, big),
                u32_at(h, e + 4, big),
                u32_at(h, e + 8, big),
                u64_at(h, e + 16, big),
            ) else {
                break;
            };
            // New-format string offsets count from the start of the new header.
            match (cstr_at(h, key as usize), cstr_at(h, value as usize)) {
                (Some(key), Some(value)) => self.entries.push(CacheEntry {
                    flags: flags as i32,
                    key,
                    value,
                    hwcap,
                }),
                _ => self
                    .problems
                    .push(format!("entry {i}: string offset out of bounds")),
            }
        }
    }

    fn parse_old(&mut self, bytes: &[u8]) {
        // magic[11], 1 byte padding, u32 nlibs, then entries {i32 flags; u32 key, value}.
        let Some(nlibs) = u32_at(bytes, 12, false) else {
            self.problems.push("old-format header truncated".into());
            return;
        };
        let nlibs = nlibs as usize;
        let Some(strings) = nlibs
            .checked_mul(OLD_ENTRY)
            .and_then(|n| n.checked_add(16))
            .filter(|&s| s <= bytes.len())
        else {
            self.problems.push(format!(
                "old-format cache claims {nlibs} entries but holds {} bytes",
                bytes.len()
            ));
            return;
        };
        // A new-format block may follow the old table, aligned to 8 bytes.
        let aligned = (strings + 7) & !7;
        if bytes
            .get(aligned..)
            .is_some_and(|b| b.starts_with(NEW_MAGIC))
        {
            self.format = CacheFormat::Compat;
            self.parse_new(bytes, aligned);
            return;
        }
        for i in 0..nlibs {
            let e = 16 + i * OLD_ENTRY;
            let (Some(flags), Some(key), Some(value)) = (
                u32_at(bytes, e, false),
                u32_at(bytes, e + 4, false),
                u32_at(bytes, e + 8, false),
            ) else {
                break;
            };
            // Old-format string offsets count from the end of the entry table.
            let at = |o: u32| {
                strings
                    .checked_add(o as usize)
                    .and_then(|p| cstr_at(bytes, p))
            };
            match (at(key), at(value)) {
                (Some(key), Some(value)) => self.entries.push(CacheEntry {
                    flags: flags as i32,
                    key,
                    value,
                    hwcap: 0,
                }),
                _ => self
                    .problems
                    .push(format!("entry {i}: string offset out of bounds")),
            }
        }
    }

    /// SONAME → path for entries a 64-bit process of this architecture would use, first wins
    /// (ldconfig sorts the cache in the order ld.so prefers).
    pub fn index(&self, required: i32) -> HashMap<String, String> {
        let mut out = HashMap::new();
        for e in &self.entries {
            if e.flags & FLAG_TYPE_MASK != FLAG_ELF_LIBC6 {
                continue;
            }
            if e.flags & FLAG_REQUIRED_MASK != required {
                continue;
            }
            out.entry(e.key.clone()).or_insert_with(|| e.value.clone());
        }
        out
    }
}

/// The `FLAG_REQUIRED_MASK` bits a 64-bit process on this machine's architecture accepts.
pub const fn host_required_flags() -> i32 {
    if cfg!(target_arch = "aarch64") {
        FLAG_AARCH64_LIB64
    } else if cfg!(target_arch = "x86_64") {
        FLAG_X8664_LIB64
    } else {
        0
    }
}
