//! Reading the inputs of `check`: regular files and standard input, bounded in size, any bytes.

use std::io::Read;
use std::path::Path;

/// Inputs larger than this are cut (a note says so): a log of gigabytes is read up to here.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// Files at least this large are mapped instead of read: the text then lives in the page cache,
/// not in the process's own memory, so a gigabyte log costs what its diagnoses cost.
const MAP_THRESHOLD: u64 = 32 << 20;

/// How often the pages of a mapped input are handed back to the page cache (see [`Mapped`]).
const RELEASE_EVERY: std::time::Duration = std::time::Duration::from_millis(2);

/// Granularity of the newline counts a mapped input keeps (see [`Text::line_pages`]).
pub const PAGE: usize = 4096;

/// The input's bytes as text: owned, or borrowed from a read-only mapping of the file.
pub enum Text {
    Owned(String),
    Mapped(Mapped),
}

impl Text {
    /// Newlines before each [`PAGE`] of the text (entry `i`: in `[0, i * PAGE)`, one entry past
    /// the last page), counted while the text was checked; empty when not known (read inputs).
    pub fn line_pages(&self) -> &[u64] {
        match self {
            Text::Owned(_) => &[],
            Text::Mapped(m) => &m.pages,
        }
    }

    /// Hands the pages of `[offset, offset + len)` of a mapped text back to the page cache now
    /// (see [`Mapped`]), for a reader that jumps through the text faster than the helper thread
    /// releases; nothing for read texts.
    pub fn release(&self, offset: usize, len: usize) {
        if let Text::Mapped(m) = self {
            let end = offset.saturating_add(len).min(m.len);
            if offset < end {
                m.release(offset, end - offset);
            }
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            Text::Mapped(m) => m.text(),
        }
    }
}

/// A read-only mapping of a file's first `len` bytes, checked to be UTF-8 once.
///
/// Pages of a mapping that were read count in the process's resident memory until the kernel
/// takes them back, so a scan of a 1 GB file would end with 1 GB resident. A helper thread
/// drops the mapping's pages from the process (`MADV_DONTNEED`) every few milliseconds: they stay
/// in the page cache, and a later read maps them again (a minor fault, same bytes), so what is
/// read never changes, and resident memory stays what the scan touched in the last interval.
pub struct Mapped {
    map: std::sync::Arc<memmap2::Mmap>,
    len: usize,
    /// See [`Text::line_pages`].
    pages: Vec<u64>,
    stop: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    releaser: Option<std::thread::JoinHandle<()>>,
}

impl Mapped {
    fn new(map: memmap2::Mmap, len: usize) -> Self {
        let map = std::sync::Arc::new(map);
        let stop = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let releaser = {
            let (map, stop) = (map.clone(), stop.clone());
            std::thread::Builder::new()
                .name("release-pages".into())
                .spawn(move || release_pages(&map, &stop))
                .ok()
        };
        Self {
            map,
            len,
            pages: Vec::new(),
            stop,
            releaser,
        }
    }

    /// Drops the pages of `[offset, offset + len)` from the process (see [`release_pages`]).
    #[allow(unsafe_code)]
    fn release(&self, offset: usize, len: usize) {
        // SAFETY: as in `release_pages` (memmap2 aligns the start to a page).
        let _ = unsafe {
            self.map
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
        };
    }

    #[allow(unsafe_code)]
    fn text(&self) -> &str {
        let bytes = self.map.get(..self.len).unwrap_or(&[]);
        // SAFETY: `Mapped` is only built after `str::from_utf8` succeeded on exactly these bytes
        // (`map_utf8`), and the mapping is read-only. (A file rewritten by another process while
        // mapped is the accepted risk of every mmap reader; validating again on each access, as
        // before, cost a full pass over the file per use and did not remove that risk.)
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if let Ok(mut stopped) = self.stop.0.lock() {
            *stopped = true;
        }
        self.stop.1.notify_all();
        if let Some(h) = self.releaser.take() {
            let _ = h.join();
        }
    }
}

#[allow(unsafe_code)]
fn release_pages(map: &memmap2::Mmap, stop: &(std::sync::Mutex<bool>, std::sync::Condvar)) {
    let Ok(mut stopped) = stop.0.lock() else {
        return;
    };
    while !*stopped {
        stopped = match stop.1.wait_timeout(stopped, RELEASE_EVERY) {
            Ok((g, _)) => g,
            Err(_) => return,
        };
        // SAFETY: the mapping is a read-only shared mapping of a regular file, so dropping its
        // pages loses nothing: the next read maps the same bytes from the page cache again.
        // (`DontNeed` is unchecked in memmap2 because on private writable mappings it would
        // discard writes; there are none here.)
        let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
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
        && let Some(m) = map_utf8(&file, max_bytes)
    {
        let mut notes = Vec::new();
        if meta.len() > max_bytes {
            notes.push(truncation_note(max_bytes));
        }
        return Ok(Input {
            display_name: shown.clone(),
            path: Some(shown),
            text: Text::Mapped(m),
            is_notebook,
            notes,
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

/// Maps a regular file read-only, up to `max_bytes`; `None` when it cannot be mapped or that
/// prefix is not UTF-8 (then it is read and repaired instead, as smaller files are).
#[allow(unsafe_code)]
fn map_utf8(file: &std::fs::File, max_bytes: u64) -> Option<Mapped> {
    // SAFETY: the mapping is read-only and only read through `&[u8]`/`&str`; a file truncated by
    // another process while mapped would fault, the accepted risk of every mmap reader (ripgrep,
    // git). The caller checked it is a regular file.
    let m = unsafe { memmap2::Mmap::map(file) }.ok()?;
    let len = m
        .len()
        .min(usize::try_from(max_bytes).unwrap_or(usize::MAX));
    // Pages are released from the start: checking the text reads all of it.
    let mut mapped = Mapped::new(m, len);
    mapped.pages = checked_utf8(&mapped, len)?;
    Some(mapped)
}

/// Whether `str::from_utf8` of the mapping's first `len` bytes succeeds, and if so the newlines
/// before each [`PAGE`] (see [`Text::line_pages`]), counted while the bytes are in cache so that
/// rendering never reads the whole text again. On two threads for large inputs (halves split at
/// the start of a character are valid exactly when the whole is), each releasing the pages it
/// checked as it goes (faster than the helper thread could).
fn checked_utf8(m: &Mapped, len: usize) -> Option<Vec<u64>> {
    let bytes = m.map.get(..len)?;
    let pages = len.div_ceil(PAGE);
    // Newlines in each page, of the bytes in `[from, to)`.
    let check = |from: usize, to: usize| -> Option<Vec<u32>> {
        const STEP: usize = 8 << 20;
        let mut counts = vec![0u32; pages];
        let mut at = from;
        while at < to {
            // A step ends at the start of a character, so each step is valid on its own.
            let mut end = (at + STEP).min(to);
            while end < to && bytes[end] & 0xc0 == 0x80 {
                end += 1;
            }
            std::str::from_utf8(&bytes[at..end]).ok()?;
            let mut p = at;
            while p < end {
                let q = ((p / PAGE + 1) * PAGE).min(end);
                let n = memchr::memchr_iter(b'\n', &bytes[p..q]).count();
                if let Some(c) = counts.get_mut(p / PAGE) {
                    // At most `PAGE` newlines in a page.
                    *c += u32::try_from(n).unwrap_or(u32::MAX);
                }
                p = q;
            }
            m.release(at, end - at);
            at = end;
        }
        Some(counts)
    };
    let counts = if bytes.len() < (8 << 20) {
        check(0, bytes.len())?
    } else {
        let mut mid = bytes.len() / 2;
        while mid < bytes.len() && bytes[mid] & 0xc0 == 0x80 {
            mid += 1;
        }
        let (first, other) = std::thread::scope(|s| {
            let other = s.spawn(|| check(mid, bytes.len()));
            (check(0, mid), other.join().ok().flatten())
        });
        let (mut first, other) = (first?, other?);
        // The page holding `mid` was counted by both halves, each its own bytes.
        for (a, b) in first.iter_mut().zip(other) {
            *a += b;
        }
        first
    };
    let mut before = Vec::with_capacity(pages + 1);
    let mut total = 0u64;
    before.push(0);
    for c in counts {
        total += u64::from(c);
        before.push(total);
    }
    Some(before)
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

fn truncation_note(max: u64) -> String {
    format!(
        "input larger than {max} bytes: read the first {max} bytes only (--max-bytes raises the limit)"
    )
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
        notes.push(truncation_note(max));
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
