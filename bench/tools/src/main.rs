//! Bench-only helpers that expose abidoc-elf's hot paths as plain commands, so `bench/run.sh`
//! can time them against `nm -D --defined-only` and `c++filt` on identical inputs.
//!
//!   abidoc-bench-tools exports FILE...   print every defined dynamic symbol (name@version), like nm -D
//!   abidoc-bench-tools demangle          read mangled names on stdin, print demangled names (like c++filt)
//!                                        with one `abidoc_elf::Demangler` on one thread (fast path,
//!                                        cpp_demangle + rewriting as fallback)
//!   abidoc-bench-tools demangle-raw      the same with cpp_demangle alone (no fast path, no
//!                                        c++filt-compatible rewriting)

use std::io::{BufRead, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("exports") => exports(&args[1..]),
        Some("demangle") => demangle(false),
        Some("demangle-raw") => demangle(true),
        _ => Err("usage: abidoc-bench-tools exports FILE... | demangle | demangle-raw".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("abidoc-bench-tools: {e}");
            ExitCode::from(2)
        }
    }
}

fn exports(paths: &[String]) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    for path in paths {
        let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        // Same access pattern as abidoc-env (mmap, read-only): only the touched pages are read.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{path}: {e}"))?;
        let (info, problems) = abidoc_elf::read(&map);
        let Some(info) = info else {
            return Err(format!(
                "{path}: not an ELF file ({} problems)",
                problems.len()
            ));
        };
        for sym in info.symbols.iter().filter(|s| s.defined) {
            let _ = out.write_all(sym.name.as_bytes());
            if let Some(v) = &sym.version {
                let _ = out.write_all(if v.hidden { b"@" } else { b"@@" });
                let _ = out.write_all(v.name.as_bytes());
            }
            let _ = out.write_all(b"\n");
        }
    }
    out.flush().map_err(|e| e.to_string())
}

fn demangle(raw: bool) -> Result<(), String> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut line = String::new();
    let mut demangled = String::new();
    let mut demangler = abidoc_elf::Demangler::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        let n = input.read_line(&mut line).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        let sym = line.trim_end_matches(['\n', '\r']);
        demangled.clear();
        let ok = if raw {
            cpp_demangle::Symbol::new(sym.as_bytes())
                .ok()
                .and_then(|s| {
                    s.structured_demangle(&mut demangled, &Default::default())
                        .ok()
                })
                .is_some()
        } else {
            demangler.demangle_into(sym, &mut demangled)
        };
        let _ = out.write_all(if ok {
            demangled.as_bytes()
        } else {
            sym.as_bytes()
        });
        let _ = out.write_all(b"\n");
    }
    out.flush().map_err(|e| e.to_string())
}
