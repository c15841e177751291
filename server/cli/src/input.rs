//! Reading the inputs of `check`: regular files and standard input, bounded in size, any bytes.

use std::io::Read;
use std::path::Path;

/// Inputs larger than this are cut (a note says so): a log of gigabytes is read up to here.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// Files at least this large are mapped instead of read: the text then lives in the page cache,
/// not in the process's own memory, so a gigabyte log costs what its diagnoses cost.
const MAP_THRESHOLD: u64 = 32 << 20;

/// The input's bytes as text: owned, or borrowed from a read-only mapping of the file.
pub enum Text {
    Owned(String),
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            // Only constructed after `str::from_utf8` succeeded on exactly these bytes.
            Text::Mapped(m) => std::str::from_utf8(m).unwrap_or(""),
        }
    }
}

pub struct Input {
    pub display_name: String,
    pub path: Option<String>,
    pub text: Text,
    pub is_notebook: bool,
    /// Things the user should know about how the input was read (truncation, invalid UTF-8).
    pub notes: Vec<String>,
}

pub fn read_file(path: &Path, max_bytes: u64) -> Result<Input, String> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    // Devices, FIFOs and directories are refused: reading /dev/zero would never end.
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let is_notebook = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
    if meta.len() >= MAP_THRESHOLD
        && meta.len() <= max_bytes
        && let Some(m) = map_utf8(&file)
    {
        return Ok(Input {
            display_name: shown.clone(),
            path: Some(shown),
            text: Text::Mapped(m),
            is_notebook,
            notes: Vec::new(),
        });
    }
    let (bytes, truncated) = read_bounded(file, max_bytes).map_err(|e| format!("{shown}: {e}"))?;
    Ok(finish(
        shown.clone(),
        Some(shown),
        bytes,
        truncated,
        max_bytes,
        is_notebook,
    ))
}

/// Maps a regular file read-only; `None` when it cannot be mapped or is not UTF-8 (then it is
/// read and repaired instead).
#[allow(unsafe_code)]
fn map_utf8(file: &std::fs::File) -> Option<memmap2::Mmap> {
    // SAFETY: the mapping is read-only and only read through `&[u8]`/`&str`; a file truncated by
    // another process while mapped would fault, the accepted risk of every mmap reader (ripgrep,
    // git). The caller checked it is a regular file.
    let m = unsafe { memmap2::Mmap::map(file) }.ok()?;
    std::str::from_utf8(&m).is_ok().then_some(m)
}

pub fn read_stdin(max_bytes: u64) -> Result<Input, String> {
    let (bytes, truncated) =
        read_bounded(std::io::stdin().lock(), max_bytes).map_err(|e| format!("<stdin>: {e}"))?;
    // A notebook piped in is still a notebook.
    let is_notebook = looks_like_notebook(&bytes);
    Ok(finish(
        "<stdin>".into(),
        None,
        bytes,
        truncated,
        max_bytes,
        is_notebook,
    ))
}

fn read_bounded(reader: impl Read, max_bytes: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let mut bytes = Vec::new();
    reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    let truncated = bytes.len() as u64 > max_bytes;
    if truncated {
        bytes.truncate(max_bytes as usize);
    }
    Ok((bytes, truncated))
}

fn looks_like_notebook(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') && memchr_find(head, b"\"cells\"")
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn finish(
    display_name: String,
    path: Option<String>,
    bytes: Vec<u8>,
    truncated: bool,
    max: u64,
    is_notebook: bool,
) -> Input {
    let mut notes = Vec::new();
    if truncated {
        notes.push(format!("input larger than {max} bytes: read the first {max} bytes only (--max-bytes raises the limit)"));
    }
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            notes.push("input is not valid UTF-8: invalid bytes were replaced".into());
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    Input {
        display_name,
        path,
        text: Text::Owned(text),
        is_notebook,
        notes,
    }
}
