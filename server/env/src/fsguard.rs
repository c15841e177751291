//! Guarded file access: only regular files are read or mapped, sizes are capped, and every failure
//! becomes a message instead of a panic or a hang (devices, FIFOs, `/proc`, symlink loops).

use std::fs::{File, Metadata};
use std::path::Path;

/// Text files (METADATA, RECORD, version.py …) larger than this are not read.
pub const MAX_TEXT: u64 = 64 << 20;
/// Shared libraries larger than this are not mapped (the largest real CUDA libraries are ~1.5 GB).
pub const MAX_LIB: u64 = 4 << 30;

/// A read-only view of a file: mapped when large, read into memory when small.
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.as_ref().len())
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Metadata of a path after following symlinks, refusing anything that is not a regular file.
pub fn regular_file_metadata(path: &Path) -> Result<Metadata, String> {
    if path.starts_with("/proc") || path.starts_with("/sys") || path.starts_with("/dev") {
        return Err("refusing to read a file under /proc, /sys or /dev".into());
    }
    let md = std::fs::metadata(path).map_err(|e| describe_io(&e))?;
    if !md.is_file() {
        return Err(if md.is_dir() {
            "is a directory, not a file".into()
        } else {
            "not a regular file (device, FIFO or socket); not read".into()
        });
    }
    Ok(md)
}

fn describe_io(e: &std::io::Error) -> String {
    // ELOOP has no stable ErrorKind on every toolchain: match the raw errno as well.
    if e.raw_os_error() == Some(40) {
        return "symlink loop (too many levels of symbolic links)".into();
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Reads a small text file (lossy UTF-8), capped at [`MAX_TEXT`].
pub fn read_text(path: &Path) -> Result<String, String> {
    let md = regular_file_metadata(path)?;
    if md.len() > MAX_TEXT {
        return Err(format!(
            "too large to be a metadata file ({} bytes)",
            md.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| describe_io(&e))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Maps (or, when small, reads) a library file, refusing non-regular files and absurd sizes.
pub fn map_library(path: &Path) -> Result<Bytes, String> {
    let md = regular_file_metadata(path)?;
    if md.len() > MAX_LIB {
        return Err(format!(
            "too large to be a shared library ({} bytes)",
            md.len()
        ));
    }
    if md.len() < 64 {
        return Err(format!(
            "truncated: {} bytes is smaller than an ELF header",
            md.len()
        ));
    }
    let file = File::open(path).map_err(|e| describe_io(&e))?;
    // The file is re-checked after open: it could have been swapped for a FIFO in between.
    let md2 = file.metadata().map_err(|e| describe_io(&e))?;
    if !md2.is_file() {
        return Err("not a regular file; not read".into());
    }
    if md2.len() <= 1 << 20 {
        use std::io::Read;
        let mut v = Vec::with_capacity(md2.len() as usize);
        (&file)
            .take(md2.len())
            .read_to_end(&mut v)
            .map_err(|e| describe_io(&e))?;
        return Ok(Bytes::Owned(v));
    }
    map_file(&file).map(Bytes::Mapped)
}

#[allow(unsafe_code)]
fn map_file(file: &File) -> Result<memmap2::Mmap, String> {
    // SAFETY: the mapping is read-only and private to this process. Another process truncating the
    // file while it is mapped could raise SIGBUS; site-packages are not rewritten during a scan, and
    // the file was checked to be a regular file just before.
    unsafe { memmap2::Mmap::map(file) }.map_err(|e| describe_io(&e))
}

/// Size and modification time (nanoseconds) of a regular file, for cache keys.
pub fn stamp(md: &Metadata) -> (u64, i128) {
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    (md.len(), mtime)
}
