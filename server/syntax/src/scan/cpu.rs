//! Binaries that do not fit the process or the CPU running them: a library built for another
//! architecture (macOS' `mach-o file, but is an incompatible architecture (have 'x86_64', need
//! 'arm64')`, glibc's `wrong ELF class: ELFCLASS32`, Windows' `%1 is not a valid Win32
//! application`), instructions the CPU lacks (`Illegal instruction (core dumped)`, zsh's
//! `illegal hardware instruction`, jaxlib's and TensorFlow's AVX checks), and a second OpenMP
//! runtime initialized in one process (`OMP: Error #15`).
//!
//! Each reader takes what its form names (the file, the two architectures, the instruction set,
//! the two runtimes) from where that form puts it, so a prefixed, quoted or cut line still reads.

use super::winstatus::{NtStatus, windows_status};
use super::{Line, Out, cap, non_empty};
use crate::EventKind;

/// A library of another architecture than the process loading it.
pub(super) fn wrong_architecture(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let (at, library, have, need) = if let Some(p) = s
        .find("incompatible architecture")
        .or_else(|| s.find("mach-o file, but is an incompatible"))
    {
        // macOS 12+: `tried: '/x/y.so' (mach-o file, but is an incompatible architecture (have
        // 'x86_64', need 'arm64'))`; older dyld: `(have (x86_64), need (arm64e))`.
        let before = &s[..p];
        let library = before
            .rfind(" (mach-o")
            .or_else(|| before.rfind("(mach-o"))
            .and_then(|q| last_quoted(&before[..q]));
        let rest = &s[p..];
        (
            p,
            library,
            arch_after(rest, "have "),
            arch_after(rest, "need "),
        )
    } else if let Some(p) = s.find("but wrong architecture") {
        // Older dyld: `Did find: /x/y.so: mach-o, but wrong architecture`.
        let before = s[..p].trim_end().trim_end_matches(',').trim_end();
        let before = before.strip_suffix("mach-o").unwrap_or(before).trim_end();
        let before = before.strip_suffix(':').unwrap_or(before);
        let library = last_path(before);
        (p, library, None, None)
    } else if let Some(p) = s.find("wrong ELF class: ELFCLASS") {
        // glibc: `/x/libfoo.so: wrong ELF class: ELFCLASS32` — the file's class, not the
        // process's.
        let bits = &s[p + 25..];
        let have = if bits.starts_with("32") {
            Some("32-bit".to_owned())
        } else if bits.starts_with("64") {
            Some("64-bit".to_owned())
        } else {
            None
        };
        let need = match have.as_deref() {
            Some("32-bit") => Some("64-bit".to_owned()),
            Some(_) => Some("32-bit".to_owned()),
            None => None,
        };
        let before = s[..p].trim_end().trim_end_matches(':');
        (p, last_path(before), have, need)
    } else if let Some(p) = s.find("x86_64 build of Python on an Apple Silicon") {
        // MuJoCo's own check (and gymnasium quoting it): the process is the x86_64 side, under
        // Rosetta, of a machine whose libraries are arm64.
        (p, None, Some("arm64".to_owned()), Some("x86_64".to_owned()))
    } else if let Some(p) = s.find("not a valid Win32 application") {
        // `[WinError 193] %1 is not a valid Win32 application. Error loading "C:\…\x.dll"`, or
        // `DLL load failed while importing _C: %1 is not a valid Win32 application.`
        let library = quoted_after(s, "Error loading ").or_else(|| {
            let r = s.find("while importing ")?;
            let m = &s[r + 16..];
            let n = m
                .bytes()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                .count();
            non_empty(m[..n].trim_end_matches('.'))
        });
        // Error 193 is also what `subprocess` raises for a file that is no program: only a load
        // (a DLL or module the line names) is a library of another architecture.
        let lower = s.to_ascii_lowercase();
        if library.is_none()
            && !lower.contains(".dll")
            && !lower.contains(".pyd")
            && !lower.contains("dll load failed")
        {
            return;
        }
        (p, library, None, None)
    } else if let Some(p) = s.find("unknown file type, first eight bytes: ") {
        // dyld meeting a file that is no Mach-O: `Did find: /x/libmxnet.so: unknown file type,
        // first eight bytes: 0x7F 0x45 0x4C 0x46 …`. ELF's magic is a Linux library installed
        // on a Mac (a wheel tagged for any platform); PE's (`MZ`) a Windows one. Other bytes are
        // a damaged file, not another architecture.
        let magic = s[p + 38..].trim_start().to_ascii_uppercase();
        let have = if magic.starts_with("0X7F 0X45 0X4C 0X46") {
            "Linux (an ELF file)"
        } else if magic.starts_with("0X4D 0X5A") {
            "Windows (a PE file)"
        } else {
            return;
        };
        let before = s[..p].trim_end().trim_end_matches(':');
        (
            p,
            last_path(before),
            Some(have.to_owned()),
            Some("macOS".to_owned()),
        )
    } else if let Some(p) = s
        .find(": exec format error")
        .filter(|&p| s[..p].contains("exec ") && !s.contains("cannot execute binary file"))
    {
        // A container's runtime starting a program built for another CPU (an amd64 image on
        // an arm64 host, without emulation): `exec /code/.venv/bin/alembic: exec format error`.
        let before = &s[..p];
        let file = before
            .rfind("exec ")
            .map(|q| before[q + 5..].trim())
            .filter(|f| !f.is_empty() && !f.contains(' ') && f.len() <= 512)
            .map(str::to_owned);
        (p, file, None, None)
    } else if let Some(p) = s.find("cannot execute binary file: Exec format error") {
        // bash on a binary built for another CPU (an x86-64 tool or library on an ARM board):
        // `bash: ./x: cannot execute binary file: Exec format error`. A script without its
        // interpreter line is no binary file and says otherwise.
        let before = s[..p].trim_end().trim_end_matches(':');
        (p, last_path(before), None, None)
    } else {
        return;
    };
    let start = s[..at].rfind(['(', '\'']).map_or(at, |q| q.min(at));
    let start = start.max(l.content).min(at);
    out.push(
        l.span(start, s.trim_end().len().max(at)),
        EventKind::WrongArchitecture {
            library,
            have,
            need,
            detail: l.content_text(),
        },
    );
}

/// The CPU met an instruction it does not have.
pub(super) fn illegal_instruction(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let lower_hit = [
        "Illegal instruction",
        "illegal instruction",
        "ILLEGAL INSTRUCTION",
    ]
    .iter()
    .find_map(|w| s.find(w));
    let hit = lower_hit
        .or_else(|| s.find("illegal hardware instruction"))
        .or_else(|| s.find("SIGILL"))
        .or_else(|| s.find("trap invalid opcode"))
        .or_else(|| s.find("by signal 4)"))
        // 132 itself, not 1320–1329.
        .or_else(|| {
            s.find("exited with code 132").filter(|&p| {
                !s[p + "exited with code 132".len()..].starts_with(|c: char| c.is_ascii_digit())
            })
        })
        .or_else(|| s.find("非法指令"))
        .or_else(|| s.find("不正な命令"))
        .or_else(|| {
            // Windows' STATUS_ILLEGAL_INSTRUCTION, as ctypes' OSError (`[WinError -1073741795]
            // Windows Error 0xc000001d`) or an exit code prints it.
            windows_status(s)
                .filter(|(_, code)| *code == NtStatus::IllegalInstruction)
                .map(|(p, _)| p)
        });
    // jaxlib: `This version of jaxlib was built using AVX instructions, which your CPU and/or
    // operating system do not support.`; TensorFlow: `The TensorFlow library was compiled to use
    // AVX instructions, but these aren't available on your machine.` (never TensorFlow's
    // information line about instructions a build could use).
    let avx = s.find(" instructions, which your CPU").or_else(|| {
        s.find(" instructions, but these aren")
            .filter(|_| s.contains("compiled to use"))
    });
    let Some(p) = avx.or(hit) else {
        return;
    };
    // A GPU kernel's `an illegal instruction was encountered` is CUDA's, not the CPU's.
    if avx.is_none()
        && (s.contains("was encountered")
            || s.contains("CUDA error")
            || s.contains("cudaError")
            || s.contains("hipError"))
    {
        return;
    }
    let feature = avx.and_then(|a| {
        let before = s[..a].trim_end();
        let word = before.rsplit(' ').next()?;
        let ok = !word.is_empty()
            && word.len() <= 12
            && word
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'-');
        ok.then(|| word.to_owned())
    });
    out.push(
        l.span(p.max(l.content), s.trim_end().len().max(p)),
        EventKind::IllegalInstruction {
            feature,
            detail: l.content_text(),
        },
    );
}

/// `OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.`,
/// and mkl-service's `MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1 library.`
pub(super) fn openmp_duplicate(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    if let Some(p) = s.find(" is incompatible with libgomp") {
        let before = &s[..p];
        // mkl-service's words only: the layer it names (`MKL_THREADING_LAYER=INTEL`), else no
        // reading (LLVM's libomp beside libgomp is another message).
        let Some(layer) = before
            .rsplit_once("MKL_THREADING_LAYER=")
            .map(|(_, v)| v)
            .filter(|v| {
                !v.is_empty() && v.len() <= 16 && v.bytes().all(|c| c.is_ascii_alphanumeric())
            })
        else {
            return;
        };
        let after = &s[p + " is incompatible with ".len()..];
        let n = after
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
            .count();
        let start = before.rfind("MKL_THREADING_LAYER=").unwrap_or(p);
        out.push(
            l.span(start, s.trim_end().len().max(start)),
            EventKind::OpenmpDuplicate {
                initializing: Some("libiomp5".to_owned()),
                found: non_empty(after[..n].trim_end_matches('.')),
                mkl_layer: Some(layer.to_owned()),
            },
        );
        return;
    }
    // The error's own line, or — where a paste kept only part of it — its words without the
    // `OMP: Error #15:` prefix, or the hint line that follows it.
    let Some(p) = s
        .find("OMP: Error #15")
        .or_else(|| {
            s.find("Initializing lib")
                .filter(|_| s.contains("already initialized") && s.contains("omp"))
        })
        .or_else(|| s.find("copies of the OpenMP runtime"))
    else {
        return;
    };
    let rest = &s[p..];
    let name = |intro: &str| {
        let r = rest.find(intro)?;
        let r = &rest[r + intro.len()..];
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
            .count();
        non_empty(r[..n].trim_end_matches('.'))
    };
    out.push(
        l.span(p, s.trim_end().len().max(p)),
        EventKind::OpenmpDuplicate {
            initializing: name("Initializing "),
            found: name("but found "),
            mkl_layer: None,
        },
    );
}

/// The architecture dyld names after `have ` or `need `: `'x86_64'` or `(arm64e)`, the `e`
/// (pointer authentication) dropped, since the wheel tags say `arm64`.
fn arch_after(rest: &str, intro: &str) -> Option<String> {
    let r = rest.find(intro)?;
    let r = rest[r + intro.len()..].trim_start_matches(['\'', '(', '"']);
    let n = r
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_')
        .count();
    let a = r.get(..n)?;
    let a = if a == "arm64e" { "arm64" } else { a };
    (!a.is_empty() && a.len() <= 16).then(|| a.to_owned())
}

/// The last `'…'` quoted text before the end of `s`.
fn last_quoted(s: &str) -> Option<String> {
    let s = s.trim_end();
    let e = s.rfind('\'')?;
    let b = s[..e].rfind('\'')?;
    non_empty(cap(&s[b + 1..e]))
}

/// The text after `intro` up to its closing quote (`"` or `'`).
fn quoted_after(s: &str, intro: &str) -> Option<String> {
    let p = s.find(intro)?;
    let r = &s[p + intro.len()..];
    let q = r.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let r = &r[1..];
    let e = r.find(q)?;
    non_empty(cap(&r[..e]))
}

/// The last whitespace-free word of `s` that looks like a path (`/x/y.so`, `C:\x\y.dll`).
fn last_path(s: &str) -> Option<String> {
    let w = s.trim_end().rsplit([' ', '\t', '\'', '"']).next()?;
    let w = w.trim_end_matches(':');
    (w.contains('/') || w.contains('\\')).then(|| cap(w).to_owned())
}

/// pip's `X.whl is not a supported wheel on this platform.`: a wheel built for another Python,
/// OS or architecture than the interpreter installing it.
pub(super) fn wheel_unsupported(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find(" is not a supported wheel on this platform") else {
        return;
    };
    let before = s[..p].trim_end();
    let word = before
        .rsplit([' ', '\t', '\'', '"', '/', '\\'])
        .next()
        .unwrap_or("");
    if !word.ends_with(".whl") || word.len() > 256 {
        return;
    }
    // `word` ends `before`, which is `s[..p]` without trailing spaces: it starts there.
    out.push(
        l.span(before.len() - word.len(), s.trim_end().len()),
        EventKind::WheelUnsupported {
            wheel: word.to_owned(),
        },
    );
}

/// pip's resolver finding no release of a requirement (see
/// `EventKind::NoMatchingDistribution`). pip prints its two lines together: the first, with the
/// versions it saw, is read; `No matching distribution` alone where it stands alone.
pub(super) fn no_matching_distribution(l: &Line<'_>, out: &mut Out) {
    const FORMS: &[&str] = &[
        "Could not find a version that satisfies the requirement ",
        "No matching distribution found for ",
        "Because there is no version of ",
    ];
    let s = l.s();
    // uv, when a release exists but has nothing for this platform: ``Distribution
    // `onnxruntime-gpu==1.27.0 @ registry+https://pypi.org/simple` can't be installed because it
    // doesn't have a source distribution or wheel for the current platform``.
    // (Older uv prints the requirement without the backticks: `Distribution rdkit==2024.3.5 @
    // registry+https://pypi.org/simple can't be installed …`.)
    // The requirement is uv's `NAME==VERSION @ INDEX` (a hint's `Distribution found but …` is
    // prose).
    if let Some(q) = s.find("doesn't have a source distribution or wheel")
        && let Some(p) = s[..q].rfind("Distribution ")
        && s[p..q].contains(" @ ")
    {
        let req = s[p + 13..q]
            .trim_start_matches('`')
            .split(['`', ' '])
            .next()
            .unwrap_or("")
            .to_owned();
        if !req.is_empty()
            && req.len() <= 200
            && req.starts_with(|c: char| c.is_ascii_alphanumeric())
        {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::NoMatchingDistribution {
                    requirement: cap(&req).to_owned(),
                    available: None,
                },
            );
        }
        return;
    }
    // conda's solver on a release built for no Python like this one: `UnsatisfiableError: The
    // following specifications were found to be incompatible with the existing python
    // installation …` and, for each, `  - tensorflow==1.13.1 -> python[version='>=3.7,<3.8.0a0']`.
    if let Some(q) = s.find(" -> python[version=") {
        let req = s[..q].trim().trim_start_matches('-').trim();
        if !req.is_empty()
            && req.len() <= 200
            && req.starts_with(|c: char| c.is_ascii_alphanumeric())
            && !req.contains(' ')
        {
            let p = s.find(req).unwrap_or(q);
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::NoMatchingDistribution {
                    requirement: cap(req).to_owned(),
                    available: None,
                },
            );
            // The Pythons the release is built for, as conda's ranges (`>=3.7,<3.8.0a0|…`):
            // the newest one's lower bound is the newest Python it runs on.
            let newest = s[q..]
                .split(['|', '\'', '[', ']', '='])
                .filter_map(|r| {
                    let r = r.trim_start_matches(['>', ' ']);
                    let (a, b) = r.split(',').next()?.split_once('.')?;
                    let b: String = b.chars().take_while(char::is_ascii_digit).collect();
                    Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?))
                })
                .max();
            if let Some((a, b)) = newest {
                out.push(
                    l.span(q, s.trim_end().len()),
                    EventKind::Version {
                        subject: "release-newest-python".into(),
                        version: format!("{a}.{b}"),
                    },
                );
            }
        }
        return;
    }
    // Poetry: `Unable to find installation candidates for torch (2.5.1+cu124)`: the locked
    // release has no file for this platform or Python among its sources.
    if let Some(p) = s.find("Unable to find installation candidates for ") {
        let rest = &s[p + 43..];
        let name = rest.split([' ', '(']).next().unwrap_or("");
        let version = rest
            .split_once('(')
            .and_then(|(_, v)| v.split(')').next())
            .map(str::trim)
            .filter(|v| !v.is_empty() && !v.contains(' '));
        if !name.is_empty()
            && name.len() <= 100
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        {
            let req = match version {
                Some(v) if v.len() <= 60 => format!("{name}=={v}"),
                _ => name.to_owned(),
            };
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::NoMatchingDistribution {
                    requirement: req,
                    available: None,
                },
            );
        }
        out.push(
            l.span(p, p + 42),
            EventKind::Installer {
                name: "poetry".into(),
            },
        );
        return;
    }
    let Some((p, form)) = FORMS.iter().find_map(|f| s.find(f).map(|p| (p, *f))) else {
        return;
    };
    let rest = &s[p + form.len()..];
    // The requirement runs to its markers (`; platform_system == …`), pip's version list, or
    // uv's `and you require`; a name and version never hold spaces.
    let req: String = rest
        .split([';', ' ', '\t', ','])
        .next()
        .unwrap_or("")
        .trim_end_matches(['.', ':'])
        .trim_matches(['\'', '"', '`'])
        .to_owned();
    if req.is_empty() || req.len() > 200 || !req.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return;
    }
    let available = rest.find("(from versions:").map(|v| {
        let list = &rest[v + 15..];
        let list = list.split(')').next().unwrap_or(list);
        list.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty() && *x != "none")
            .take(400)
            .map(|x| cap(x).to_owned())
            .collect::<Vec<_>>()
    });
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::NoMatchingDistribution {
            requirement: cap(&req).to_owned(),
            available,
        },
    );
}

/// glibc's `X.so: cannot allocate memory in static TLS block`, older glibc's `cannot load any
/// more object with static TLS` (see
/// `EventKind::StaticTlsExhausted`).
pub(super) fn static_tls(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // Older glibc's words for it: `dlopen: cannot load any more object with static TLS`.
    let Some(p) = s
        .find("cannot allocate memory in static TLS block")
        .or_else(|| s.find("cannot load any more object with static TLS"))
    else {
        return;
    };
    let before = s[..p].trim_end().trim_end_matches(':');
    let word = before.rsplit([' ', '\t', '\'', '"']).next().unwrap_or("");
    let library = word.contains(".so").then(|| cap(word).to_owned());
    let start = if library.is_some() {
        before.len() - word.len()
    } else {
        p
    };
    out.push(
        l.span(start.min(p), s.trim_end().len().max(p)),
        EventKind::StaticTlsExhausted { library },
    );
}

/// glibc 2.41's `X.so: cannot enable executable stack as shared object requires: Invalid
/// argument`: the library's PT_GNU_STACK asks for an executable stack, which `dlopen` no longer
/// grants.
pub(super) fn executable_stack(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("cannot enable executable stack") else {
        return;
    };
    let before = s[..p].trim_end().trim_end_matches(':');
    let word = before.rsplit([' ', '\t', '\'', '"']).next().unwrap_or("");
    let library = (word.contains(".so") || word.contains('/')).then(|| cap(word).to_owned());
    let start = p - if library.is_some() {
        s[..p].len() - before.len() + word.len()
    } else {
        0
    };
    out.push(
        l.span(start.min(p), s.trim_end().len().max(p)),
        EventKind::ExecutableStack { library },
    );
}
