//! `abidoc demangle`: a `c++filt`-compatible filter that demangles every `_Z…` token of its input
//! on all cores, keeping the input's order, optionally tagging each name with its C++11 ABI.
//!
//! Input is read in blocks of whole lines; a block large enough is split at line boundaries
//! between one worker per core, and the workers' outputs are written in order. Small reads (a
//! terminal, a slow pipe) are answered at once by the calling thread, so interactive use works
//! line by line like `c++filt`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use abidoc_elf::{AbiFlavor, Demangler, abi_flavor};

/// Bytes read per block (whole lines are processed, the tail waits for the next read).
const BLOCK: usize = 4 << 20;
/// Blocks smaller than this are demangled on the calling thread.
const PARALLEL_MIN: usize = 64 << 10;
/// A line longer than this is passed through in pieces (tokens cut at the piece boundary are
/// left as they are), so memory stays bounded on input without newlines.
const MAX_LINE: usize = 16 << 20;

/// Run the filter over `paths` (nothing or `-`: standard input) to standard output.
pub fn run(paths: &[PathBuf], abi: bool) -> Result<ExitCode, String> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if paths.is_empty() {
        filter(std::io::stdin().lock(), &mut out, abi, workers).map_err(|e| e.to_string())?;
    }
    for path in paths {
        let result = if path.as_os_str() == "-" {
            filter(std::io::stdin().lock(), &mut out, abi, workers)
        } else {
            let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            filter(file, &mut out, abi, workers)
        };
        result.map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Copy `input` to `out`, demangling every mangled token.
pub fn filter(
    mut input: impl Read,
    out: &mut impl Write,
    abi: bool,
    workers: usize,
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut pool: Vec<Worker> = (0..workers.max(1)).map(|_| Worker::default()).collect();
    loop {
        let filled = buf.len();
        if buf.capacity() - filled < BLOCK / 2 {
            buf.reserve(BLOCK);
        }
        buf.resize(buf.capacity().min(filled + BLOCK), 0);
        let n = loop {
            match input.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        buf.truncate(filled + n);
        let eof = n == 0;
        // Whole lines now; the rest (a line still being read) waits, unless input ended or
        // the line is unreasonably long.
        let cut = if eof || buf.len() >= MAX_LINE {
            buf.len()
        } else {
            memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)
        };
        if cut > 0 {
            process(&buf[..cut], &mut pool, abi, out)?;
            out.flush()?;
            buf.drain(..cut);
        }
        if eof {
            return Ok(());
        }
    }
}

#[derive(Default)]
struct Worker {
    demangler: Demangler,
    name: String,
    out: Vec<u8>,
}

/// Demangle the whole lines of `block` (in parallel when it is large) and write them in order.
fn process(
    block: &[u8],
    pool: &mut [Worker],
    abi: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if block.len() < PARALLEL_MIN || pool.len() == 1 {
        let w = &mut pool[0];
        w.out.clear();
        w.filter_lines(block, abi);
        return out.write_all(&w.out);
    }
    // Split at line boundaries into one part per worker.
    let mut parts = Vec::with_capacity(pool.len());
    let mut start = 0;
    for i in 1..=pool.len() {
        let target = (block.len() * i / pool.len()).max(start);
        let end = if i == pool.len() {
            block.len()
        } else {
            memchr::memchr(b'\n', &block[target..]).map_or(block.len(), |j| target + j + 1)
        };
        parts.push(&block[start..end]);
        start = end;
    }
    std::thread::scope(|scope| {
        for (w, part) in pool.iter_mut().zip(&parts) {
            scope.spawn(move || {
                w.out.clear();
                w.filter_lines(part, abi);
            });
        }
    });
    for w in pool.iter() {
        out.write_all(&w.out)?;
    }
    Ok(())
}

/// Bytes `c++filt` treats as part of a symbol: a token made of them is demangled as a whole.
fn is_symbol_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

impl Worker {
    /// Append `text` to `self.out` with every mangled token demangled.
    fn filter_lines(&mut self, text: &[u8], abi: bool) {
        self.out.reserve(text.len() * 2);
        let finder = memchr::memmem::Finder::new("_Z");
        let mut copied = 0;
        let mut from = 0;
        while let Some(i) = finder.find(&text[from..]).map(|i| i + from) {
            // The token must start at `_Z` (or macOS' `__Z`).
            let mut start = i;
            if start > 0 && text[start - 1] == b'_' {
                start -= 1;
            }
            if start > 0 && is_symbol_byte(text[start - 1]) {
                from = i + 2;
                continue;
            }
            let end = text[i..]
                .iter()
                .position(|&b| !is_symbol_byte(b))
                .map_or(text.len(), |n| i + n);
            from = end.max(i + 2);
            // Symbol bytes are ASCII.
            let Ok(token) = std::str::from_utf8(&text[start..end]) else {
                continue;
            };
            self.name.clear();
            if !self.demangler.demangle_into(token, &mut self.name) {
                continue;
            }
            self.out.extend_from_slice(&text[copied..start]);
            self.out.extend_from_slice(self.name.as_bytes());
            if abi {
                match abi_flavor(token) {
                    AbiFlavor::Cxx11 => self.out.extend_from_slice(b" [_GLIBCXX_USE_CXX11_ABI=1]"),
                    AbiFlavor::PreCxx11 => {
                        self.out.extend_from_slice(b" [_GLIBCXX_USE_CXX11_ABI=0]");
                    }
                    AbiFlavor::Neutral => {}
                }
            }
            copied = end;
        }
        self.out.extend_from_slice(&text[copied..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_filter(input: &str, abi: bool, workers: usize) -> String {
        let mut out = Vec::new();
        filter(input.as_bytes(), &mut out, abi, workers).unwrap_or_default();
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn tokens_in_text() {
        assert_eq!(
            run_filter(
                "undefined symbol: _ZN3c104cuda9SetDeviceEab, x_Zfoo __ZN3c104cuda9warp_sizeEv\n_Z\nno newline _ZN3c105ErrorD1Ev",
                false,
                1
            ),
            "undefined symbol: c10::cuda::SetDevice(signed char, bool), x_Zfoo c10::cuda::warp_size()\n_Z\nno newline c10::Error::~Error()"
        );
    }

    #[test]
    fn parallel_blocks_keep_order() {
        let names = [
            "_ZN3c105ErrorD1Ev",
            "plain text",
            "_ZN3c104cuda9warp_sizeEv",
            "",
        ];
        let input: String = (0..20_000)
            .map(|i| format!("{i} {}\n", names[i % names.len()]))
            .collect();
        let one = run_filter(&input, false, 1);
        assert_eq!(run_filter(&input, false, 3), one);
        assert_eq!(one.lines().count(), 20_000);
        assert!(one.starts_with("0 c10::Error::~Error()\n1 plain text\n"));
    }
}
