//! Guarded file access, the one door every environment file goes through (METADATA, RECORD,
//! `direct_url.json`, `version.py`, `cpp_lib.json`, `pyvenv.cfg`, `/etc/ld.so.cache`, libraries):
//! a path is resolved (symlinks followed) before anything is opened, only regular files outside
//! `/proc`, `/sys` and `/dev` are read or mapped, every read stops at a byte cap whatever size
//! the file reports, and every failure becomes a message instead of a panic or a hang.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Text files (METADATA, RECORD, version.py …) larger than this are not read.
pub const MAX_TEXT: u64 = 64 << 20;
/// Shared libraries larger than this are not mapped (the largest real CUDA libraries are ~1.5 GB).
pub const MAX_LIB: u64 = 4 << 30;
/// Libraries up to this size are read into memory; larger ones are mapped.
const READ_LIB: u64 = 1 << 20;

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

/// Pseudo-filesystems whose files report sizes that mean nothing (0 for `/proc/self/pagemap`,
/// which streams hundreds of GB) or block (`/proc/kmsg`), and device nodes.
fn in_pseudo_fs(p: &Path) -> bool {
    p.starts_with("/proc") || p.starts_with("/sys") || p.starts_with("/dev")
}

/// Where `path` really is (every symlink followed) and its metadata, refusing anything that is
/// not a regular file or lies under `/proc`, `/sys` or `/dev` once resolved: a METADATA that is
/// a symlink to `/proc/self/pagemap` is judged by its target, not its name.
pub fn resolve_regular(path: &Path) -> Result<(PathBuf, Metadata), String> {
    let refuse = |p: &Path| -> Result<(), String> {
        if in_pseudo_fs(p) {
            let shown = if p == path {
                String::new()
            } else {
                format!(" ({})", p.display())
            };
            return Err(format!(
                "refusing to read a file under /proc, /sys or /dev{shown}"
            ));
        }
        Ok(())
    };
    // Checked before resolving too: canonicalize itself never reads a file's contents, but a
    // /proc path needs no resolution to be refused.
    refuse(path)?;
    let real = std::fs::canonicalize(path).map_err(|e| describe_io(&e))?;
    refuse(&real)?;
    let md = std::fs::metadata(&real).map_err(|e| describe_io(&e))?;
    if !md.is_file() {
        return Err(if md.is_dir() {
            "is a directory, not a file".into()
        } else {
            "not a regular file (device, FIFO or socket); not read".into()
        });
    }
    Ok((real, md))
}

/// Metadata of a path after following symlinks, refusing anything that is not a regular file
/// (see [`resolve_regular`]).
pub fn regular_file_metadata(path: &Path) -> Result<Metadata, String> {
    resolve_regular(path).map(|(_, md)| md)
}

fn describe_io(e: &std::io::Error) -> String {
    // ELOOP has no stable ErrorKind on every toolchain: match the raw errno as well.
    if e.raw_os_error() == Some(libc::ELOOP) {
        return "symlink loop (too many levels of symbolic links)".into();
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Opens a resolved regular file without following a last-moment symlink and without blocking
/// on a FIFO swapped in after the check, then checks again what was opened.
fn open_checked(real: &Path) -> Result<File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(real)
        .map_err(|e| describe_io(&e))?;
    let md = file.metadata().map_err(|e| describe_io(&e))?;
    if !md.is_file() {
        return Err("not a regular file; not read".into());
    }
    Ok(file)
}

/// Reads a regular file, at most `cap` bytes: the cap bounds the bytes read (`Read::take`), not
/// the size the file reports, which a pseudo-file or a file growing meanwhile makes meaningless.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let (real, md) = resolve_regular(path)?;
    if md.len() > cap {
        return Err(format!(
            "too large ({} bytes, more than the {cap} bytes read)",
            md.len()
        ));
    }
    let file = open_checked(&real)?;
    let mut v = Vec::with_capacity(usize::try_from(md.len()).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut v)
        .map_err(|e| describe_io(&e))?;
    if v.len() as u64 > cap {
        return Err(format!("grew past the {cap} bytes read while being read"));
    }
    Ok(v)
}

/// Reads a small text file (lossy UTF-8), capped at [`MAX_TEXT`].
pub fn read_text(path: &Path) -> Result<String, String> {
    read_text_capped(path, MAX_TEXT)
}

/// [`read_text`] with its own cap.
pub fn read_text_capped(path: &Path, cap: u64) -> Result<String, String> {
    let bytes = read_capped(path, cap)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The first `cap` bytes of a text file (lossy UTF-8; a char cut at the end becomes U+FFFD), for
/// files only searched, never parsed whole (a package's Python sources).
pub fn read_text_prefix(path: &Path, cap: u64) -> Result<String, String> {
    let (real, _) = resolve_regular(path)?;
    let file = open_checked(&real)?;
    let mut v = Vec::new();
    file.take(cap)
        .read_to_end(&mut v)
        .map_err(|e| describe_io(&e))?;
    Ok(String::from_utf8_lossy(&v).into_owned())
}

/// Where the NVIDIA kernel module states its version.
const NVIDIA_DRIVER_VERSION: &str = "/proc/driver/nvidia/version";

/// The text of `/proc/driver/nvidia/version` (the driver's version, for the GPU codes): one of
/// the driver's files under `/proc` read (with [`read_nvidia_gpu_information`]), by this fixed
/// path only (never a path from input), opened
/// non-blocking without following links, checked to be a regular file, and read up to 4 KiB.
/// `None` on a machine without the NVIDIA driver.
pub fn read_nvidia_driver_version() -> Option<String> {
    let file = open_checked(Path::new(NVIDIA_DRIVER_VERSION)).ok()?;
    let mut v = Vec::new();
    file.take(4096).read_to_end(&mut v).ok()?;
    Some(String::from_utf8_lossy(&v).into_owned())
}

/// Where the NVIDIA kernel module describes each GPU (`<PCI bus id>/information`).
const NVIDIA_GPUS: &str = "/proc/driver/nvidia/gpus";

/// The texts of `/proc/driver/nvidia/gpus/*/information` (one per GPU: its `Model:` line names
/// it), by that fixed directory only, at most 16 GPUs, each opened like the version file and
/// read up to 4 KiB. Empty on a machine without the NVIDIA driver.
pub fn read_nvidia_gpu_information() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(NVIDIA_GPUS) else {
        return Vec::new();
    };
    let mut names: Vec<_> = dir.flatten().map(|e| e.file_name()).take(16).collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let file = open_checked(&Path::new(NVIDIA_GPUS).join(n).join("information")).ok()?;
            let mut v = Vec::new();
            file.take(4096).read_to_end(&mut v).ok()?;
            Some(String::from_utf8_lossy(&v).into_owned())
        })
        .collect()
}

/// Maps (or, when small, reads) a library file, refusing non-regular files and absurd sizes.
pub fn map_library(path: &Path) -> Result<Bytes, String> {
    let (real, md) = resolve_regular(path)?;
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
    read_or_map(&open_checked(&real)?, MAX_LIB, "to be a shared library")
}

/// Reads a small opened file, maps a larger one; the size is the opened file's (it could have
/// been replaced since it was checked), refused above `max`.
fn read_or_map(file: &File, max: u64, what: &str) -> Result<Bytes, String> {
    let len = file.metadata().map_err(|e| describe_io(&e))?.len();
    if len <= READ_LIB {
        let mut v = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(len)
            .read_to_end(&mut v)
            .map_err(|e| describe_io(&e))?;
        return Ok(Bytes::Owned(v));
    }
    if len > max {
        return Err(format!("too large {what} ({len} bytes)"));
    }
    map_file(file).map(Bytes::Mapped)
}

/// Archives (wheels) larger than this are not mapped.
pub const MAX_ARCHIVE: u64 = 64 << 30;

/// Maps (or, when small, reads) an archive file such as a wheel, refusing non-regular files and
/// absurd sizes; what it holds is judged by the archive reader.
pub fn map_archive(path: &Path) -> Result<Bytes, String> {
    let (real, md) = resolve_regular(path)?;
    if md.len() > MAX_ARCHIVE {
        return Err(format!("too large for an archive ({} bytes)", md.len()));
    }
    read_or_map(&open_checked(&real)?, MAX_ARCHIVE, "for an archive")
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

/// What identifies one version of a file for the scan cache: size, modification time
/// (nanoseconds), change time and inode. A package manager replacing a file by renaming a new
/// one into place gives it a new inode even when it keeps size and mtime (`cp -p`, wheels with
/// fixed timestamps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    pub size: u64,
    pub mtime: i128,
    pub ino: u64,
    pub dev: u64,
}

impl FileStamp {
    pub fn of(md: &Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        let (size, mtime) = stamp(md);
        FileStamp {
            size,
            mtime,
            ino: md.ino(),
            dev: md.dev(),
        }
    }

    /// The stamp of `path` (symlinks followed), `None` when it does not exist.
    pub fn at(path: &Path) -> Option<FileStamp> {
        std::fs::metadata(path).ok().map(|m| FileStamp::of(&m))
    }
}
