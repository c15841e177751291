//! The other forms in which a library that will not load is reported: Windows' loader
//! (`DLL load failed while importing X`, `[WinError 126] … Error loading "…\x.dll"`, ctypes'
//! `Could not find module 'x.dll'`), loaders that print the library inside their own sentence
//! (`Unable to load any of {a, b}`, `Could not load library X.`, `Library X is not found or
//! cannot be loaded`, Paddle's `Cannot load cudnn shared library`, DGL's `Cannot find DGL C++
//! sparse library at PATH` and GraphBolt's `There is no such file graphbolt_pytorch_X.dll`, macOS' `Library not loaded: @rpath/X`, torch's `Could not load this
//! library: PATH`), and operators that never registered (`No such operator torchvision::nms`).
//!
//! Each form is one small reader that finds its own words and takes the library name from where
//! that form puts it (after a quote, inside braces, at the end of a path with either slash), so a
//! form is recognized however the line around it was prefixed or localized.

use super::winstatus::{NtStatus, windows_status};
use super::{Line, Out, cap, non_empty};
use crate::{DllFailure, EventKind};

/// What Windows prints for "the specified module could not be found" (error 126), in the
/// languages reports come in (the system's message table: English, Chinese, Japanese, German,
/// French, Spanish, Italian, Russian, Korean, Portuguese, Hungarian, Polish, Turkish, Czech,
/// Dutch, Swedish, Ukrainian), each by the words its sentence cannot do without: the DLL, or
/// one it needs, is missing.
const MODULE_NOT_FOUND: &[&str] = &[
    // Windows' words, and retold (`The module was not found`).
    "module could not be found",
    "module was not found",
    // Retold from memory or another language (`The specified file cannot be found`).
    "specified file cannot be found",
    "specified file could not be found",
    "找不到指定的模块",
    "找不到指定的模組",
    "指定されたモジュールが見つかりません",
    "angegebene Modul wurde nicht gefunden",
    "module spécifié est introuvable",
    "No se puede encontrar el módulo especificado",
    "Impossibile trovare il modulo specificato",
    "Не найден указанный модуль",
    "지정된 모듈을 찾을 수 없습니다",
    "módulo especificado não pôde ser encontrado",
    "encontrar o módulo especificado",
    "megadott modul nem található",
    "odnaleźć określonego modułu",
    "Belirtilen modül bulunamad",
    "modul nebyl nalezen",
    "opgegeven module niet vinden",
    "hitta den angivna modulen",
    "знайти вказаний модуль",
];

/// Error 127, "the specified procedure could not be found": the DLL loaded but lacks a function
/// the module imports — Windows' undefined symbol.
const PROCEDURE_NOT_FOUND: &[&str] = &[
    "specified procedure could not be found",
    // Back-translated from 找不到指定的程序 in reports written in English.
    "specified program could not be found",
    "找不到指定的程序",
    "指定されたプロシージャが見つかりません",
    "angegebene Prozedur wurde nicht gefunden",
    "procédure spécifiée est introuvable",
    "No se encontró el proceso especificado",
    "Impossibile trovare la procedura specificata",
    "Не найдена указанная процедура",
    "지정된 프로시저를 찾을 수 없습니다",
    "procedimento especificado não foi encontrado",
    "encontrar o procedimento especificado",
    "No se encontró el procedimiento especificado",
    "megadott eljárás nem található",
    "odnaleźć określonej procedury",
    "Belirtilen yordam bulunamad",
    "procedura nebyla nalezena",
    "opgegeven procedure niet vinden",
    "hitta den angivna proceduren",
    "знайти вказану процедуру",
];

/// Error 1114, "a dynamic link library (DLL) initialization routine failed": the DLL loaded and
/// its start-up code failed.
const INIT_FAILED: &[&str] = &[
    "initialization routine failed",
    "动态链接库(DLL)初始化例程失败",
    "動態連結程式庫 (DLL) 初始化例行程序失敗",
    "初期化ルーチンの実行に失敗しました",
    "DLL-Initialisierungsroutine ist fehlgeschlagen",
    "routine d'initialisation d'une bibliothèque de liens dynamiques",
    "routine d’initialisation d’une bibliothèque de liens dynamiques",
    "rutina de inicialización de biblioteca de vínculos dinámicos",
    "routine di inizializzazione della libreria di collegamento dinamico",
    "программе инициализации библиотеки динамической компоновки",
    "초기화 루틴을 실패했습니다",
];

/// Windows' loader failures. One event per line: the forms repeat each other when they share a
/// line (`ImportError: DLL load failed … [WinError 126] …`).
pub(super) fn windows_dll(l: &Line<'_>, next: Option<&str>, out: &mut Out) {
    let s = l.s();
    // ctypes' sentence wrapped before its quoted path (`FileNotFoundError: Could not find
    // module` then `'C:\…\x.dll' (or one of its dependencies).`): read with the path.
    if let Some(p) = s
        .trim_end()
        .strip_suffix("Could not find module")
        .map(str::len)
        && let Some(n) = next.map(str::trim).filter(|n| n.starts_with(['\'', '"']))
        && let Some(dll) = quoted_after(
            &format!("Could not find module {n}"),
            "Could not find module ",
        )
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::DllLoadFailed {
                module: None,
                dll: Some(dll),
                why: DllFailure::Missing,
            },
        );
        return;
    }
    // A process Windows would not start (STATUS_DLL_NOT_FOUND, STATUS_ENTRYPOINT_NOT_FOUND).
    let status = windows_status(s).and_then(|(p, code)| match code {
        NtStatus::DllNotFound => Some((p, DllFailure::Missing)),
        NtStatus::EntryPointNotFound => Some((p, DllFailure::Procedure)),
        NtStatus::IllegalInstruction => None,
    });
    if let Some((p, why)) = status {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::DllLoadFailed {
                module: None,
                dll: None,
                why,
            },
        );
        return;
    }
    // Windows' reason wrapped onto the next line (`…while importing exllamav2_ext:` then `The
    // specified procedure could not be found.`): read with the line it explains.
    let wrapped_reason = next
        .filter(|_| {
            s.trim_end().ends_with(':')
                && (s.contains("DLL load failed") || s.contains("unable to load shared object '"))
        })
        .map(str::trim)
        .filter(|n| {
            PROCEDURE_NOT_FOUND
                .iter()
                .chain(INIT_FAILED)
                .chain(MODULE_NOT_FOUND)
                .any(|p| n.contains(p))
        })
        .unwrap_or("");
    let has = |p: &str| s.contains(p) || wrapped_reason.contains(p);
    // Windows' own dialog, retold in a console or an issue: `The code execution cannot proceed
    // because cudnn64_8.dll was not found.`, `The program can't start because MSVCP140.dll is
    // missing from your computer.`, a DLL named before `not found` or 找不到 ("cannot be found").
    // TensorFlow's loader (`Could not load dynamic library 'x.dll'; dlerror: x.dll not found`)
    // is read as its own form, a warning TensorFlow continues past.
    let tf_loader = s.contains("Could not load dynamic library");
    for w in [
        " was not found",
        " is missing from your computer",
        " not found",
        "找不到",
    ] {
        let Some(p) = s.find(w).filter(|_| !tf_loader) else {
            continue;
        };
        let head = s[..p].trim_end_matches(['\'', '"', '`']);
        // The file name: the ASCII name characters before the words (a path's directory, a
        // quote or a sentence in another script before it is not part of it).
        let name_len = head
            .bytes()
            .rev()
            .take_while(|&c| c.is_ascii_alphanumeric() || b"._+-".contains(&c))
            .count();
        let start = head.len() - name_len;
        let dll = &head[start..];
        if dll.len() > 4
            && dll.len() <= 128
            && dll.to_ascii_lowercase().ends_with(".dll")
            && is_library_name(dll)
        {
            out.push(
                l.span(start, s.trim_end().len()),
                EventKind::DllLoadFailed {
                    module: None,
                    dll: Some(dll.to_owned()),
                    why: DllFailure::Missing,
                },
            );
            return;
        }
    }
    // onnxruntime's Windows provider bridge when onnxruntime_providers_cuda.dll did not load
    // (the CUDA or cuDNN DLLs it needs are not found): `CUDA_PATH is set but CUDA wasn't able to
    // be loaded. Please install the correct version of CUDA and cuDNN …`.
    if let Some(p) = s
        .find("CUDA_PATH is set but CUDA wasn")
        .filter(|_| !s.contains("LoadLibrary failed with error"))
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::DllLoadFailed {
                module: None,
                dll: Some("onnxruntime_providers_cuda.dll".into()),
                why: DllFailure::Missing,
            },
        );
        return;
    }
    let dll_load = s.find("DLL load failed");
    // `[WinError 126]` as Python prints it, `WinError 127` as titles retell it.
    let win = s
        .find("WinError 126")
        .or_else(|| s.find("WinError 127"))
        .or_else(|| s.find("WinError 1114"))
        // Python 2's `WindowsError: [Error 126] …`.
        .or_else(|| s.find("[Error 126]").map(|p| p + 1))
        .or_else(|| s.find("[Error 127]").map(|p| p + 1));
    // Windows' sentence alone on a line that says a DLL or an import failed (`Import Error:
    // DLL failed. The specified module could not be found.`): its own words name the failure.
    // (Python's own `DLL load failed`, in any case, is read by its own readers.)
    let retold_126 = s.find("specified module could not be found").filter(|_| {
        let l = s.to_ascii_lowercase();
        !l.contains("dll load failed") && (l.contains("dll") || l.contains("import"))
    });
    // ctypes' `Could not find module 'C:\…\x.dll' (or one of its dependencies)`, also as people
    // retell it without the quotes.
    let ctypes = s.find("Could not find module '").or_else(|| {
        s.find("Could not find module ")
            .filter(|&p| s[p..].contains("(or one of its dependencies)"))
    });
    // cffi (soundfile, …): `cannot load library 'C:\…\libsndfile.dll': error 0x7e` — Windows'
    // error 126 (0x7e) and 127 (0x7f) in hex.
    let cffi = s
        .find("cannot load library '")
        .filter(|_| s.contains("error 0x7e") || s.contains("error 0x7f"));
    // onnxruntime's provider bridge: `LoadLibrary failed with error 126 "" when trying to load
    // "C:\…\onnxruntime_providers_cuda.dll"`.
    let loadlib = s
        .find("LoadLibrary failed with error 126")
        .or_else(|| s.find("LoadLibrary failed with error 127"));
    // torch's own wording retold without the WinError (a title, a translation, a typo):
    // `error loading fbgemm.dll`, `Erro loading “…\torch\lib\fbgemm.dll” or one of its
    // dependencies` — a DLL named right after it.
    let lower = s.to_ascii_lowercase();
    let retold = ["error loading ", "erro loading "]
        .iter()
        .find_map(|w| lower.find(w).map(|p| (p, w.len())))
        .filter(|&(p, n)| {
            let r = lower.get(p + n..).unwrap_or("");
            let end = r.find(" or one of").unwrap_or(r.len()).min(300);
            r.get(..end).is_some_and(|x| x.contains(".dll"))
        })
        .map(|(p, _)| p);
    // R's loader (`unable to load shared object 'C:/…/torchvision.dll':` then `LoadLibrary
    // failure:  The specified procedure could not be found.`), a DLL by its path.
    let r_load = s.find("unable to load shared object '").filter(|_| {
        lower.contains(".dll'") && (has("LoadLibrary failure") || !wrapped_reason.is_empty())
    });
    let Some(start) = [
        dll_load, win, ctypes, cffi, loadlib, retold, r_load, retold_126,
    ]
    .into_iter()
    .flatten()
    .min() else {
        return;
    };
    let procedure = s.contains("WinError 127")
        || s.contains("[Error 127]")
        || s.contains("LoadLibrary failed with error 127")
        || s.contains("error 0x7f")
        || PROCEDURE_NOT_FOUND.iter().any(|p| has(p));
    let init_failed = s.contains("WinError 1114") || INIT_FAILED.iter().any(|p| has(p));
    let module_missing = (retold.is_some() && !s.contains("WinError 1"))
        || s.contains("WinError 126")
        || s.contains("[Error 126]")
        || s.contains("LoadLibrary failed with error 126")
        || s.contains("error 0x7e")
        || ctypes.is_some()
        || MODULE_NOT_FOUND.iter().any(|p| has(p));
    // `DLL load failed while importing X:` cut off before Windows' reason still says a DLL did
    // not load; any other reason (an initialization routine failed, not a valid Win32
    // application) is another failure.
    // Only Python's own words count: nothing after them, or `while importing X` and a colon
    // (`I get DLL load failed every time` is prose).
    let reason_cut = dll_load.is_some_and(|p| {
        let rest = s.get(p + "DLL load failed".len()..).unwrap_or("").trim();
        let rest = rest.trim_end_matches(['"', '\'', '`', ')', '.']).trim_end();
        match rest.strip_prefix("while importing") {
            // A module name as Markdown escapes it (`onnxruntime\_pybind11\_state`) is the name.
            // A retelling may run on after the name (`… while importing onnx_cpp2py_export
            // onnx.onnx_cpp2py_export ...`): the name is the first word.
            // With Python's colon after the name, Windows' reason follows it: another reason
            // (`%1 is not a valid Win32 application`) is another failure, so the whole rest
            // must be the name.
            Some(m) => {
                let m = m.trim();
                let first = m.split_whitespace().next().unwrap_or("");
                let m = if first.ends_with(':') { m } else { first }
                    .trim_end_matches(':')
                    .replace("\\_", "_");
                !m.is_empty()
                    && m.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            }
            // Windows' reason in the console's code page, unreadable here
            // (`DLL load failed: ▒Ҳ▒▒▒ָ▒▒▒▒ģ▒顣`): a DLL did not load, the reason unknown.
            None => {
                rest.is_empty()
                    || rest == ":"
                    || rest.strip_prefix(':').is_some_and(|r| {
                        !r.trim().is_empty() && !r.bytes().any(|c| c.is_ascii_alphabetic())
                    })
                    || retold_module(rest).is_some()
            }
        }
    });
    if !(procedure || module_missing || init_failed || reason_cut) {
        return;
    }
    let module = dll_load.and_then(|p| {
        let r = s.get(p + "DLL load failed".len()..)?;
        let Some(r) = r.trim_start().strip_prefix("while importing") else {
            return retold_module(r.trim()).map(str::to_owned);
        };
        let r = r.trim_start();
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || b"_.\\".contains(&c))
            .count();
        non_empty(
            &r.get(..n)?
                .trim_end_matches(['.', '\\'])
                .replace("\\_", "_"),
        )
    });
    let dll = quoted_after(s, "Error loading ")
        .or_else(|| quoted_after(s, "error loading "))
        .or_else(|| quoted_after(s, "Erro loading "))
        .or_else(|| quoted_after(s, "when trying to load "))
        .or_else(|| quoted_after(s, "Could not find module "))
        .or_else(|| {
            // Unquoted: the file's name is the last word before Windows' `(or one of …`.
            let p = s.find("Could not find module ")?;
            let r = &s[p + "Could not find module ".len()..];
            let r = &r[..r.find(" (or one of")?];
            let last = r.rsplit([' ', '\\', '/']).next()?;
            let l = last.to_ascii_lowercase();
            (l.ends_with(".dll") || l.ends_with(".pyd"))
                .then(|| last.to_owned())
                .and_then(|x| non_empty(&x))
        })
        .or_else(|| quoted_after(s, "cannot load library "))
        .or_else(|| quoted_after(s, "unable to load shared object "));
    // `[WinError 126]`: the span takes the bracket too.
    let start = if start > 0 && s.as_bytes().get(start - 1) == Some(&b'[') {
        start - 1
    } else {
        start
    };
    out.push(
        l.span(start, s.trim_end().len()),
        EventKind::DllLoadFailed {
            module,
            dll,
            why: if procedure && !module_missing {
                DllFailure::Procedure
            } else if init_failed && !module_missing {
                DllFailure::InitFailed
            } else {
                DllFailure::Missing
            },
        },
    );
}

/// A title's retelling with the module right after the words (`DLL load failed
/// onnxruntime_pybind11`): one module-like word — with an underscore, as compiled modules'
/// names have, so that prose (`DLL load failed again`) is not read as one.
fn retold_module(rest: &str) -> Option<&str> {
    let w = rest.trim_end_matches(['"', '\'', '`', ')', '.']).trim();
    (!w.is_empty()
        && w.len() <= 64
        && w.contains('_')
        && w.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.'))
    .then_some(w)
}

/// The quoted string after `intro` (`Error loading "C:\…\x.dll"`, `module 'x.dll'`), also when
/// the closing quote was cut off.
fn quoted_after(s: &str, intro: &str) -> Option<String> {
    let p = s.find(intro)? + intro.len();
    let r = s.get(p..)?;
    let Some(q) = r
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '“' | '‘'))
    else {
        // Unquoted (retold in a title): up to Windows' own ending, else the first space.
        let e = r
            .find(" or one of its dependencies")
            .or_else(|| r.find(char::is_whitespace))
            .unwrap_or(r.len());
        let v = r.get(..e)?.trim_end_matches(['.', ',']);
        return is_library_name(v).then(|| cap(v).to_owned());
    };
    let r = r.get(q.len_utf8()..)?;
    // Typographic quotes close with their pair (`“…”`).
    let close = match q {
        '“' => '”',
        '‘' => '’',
        _ => q,
    };
    let e = r.find(close).unwrap_or(r.len());
    // A repr-quoted path doubles its backslashes: one is what the file system has.
    let v = r.get(..e)?.replace("\\\\", "\\");
    non_empty(cap(&v))
}

/// A token that names a library file (`libcudnn_ops.so.9.1`, `cublas64_11.dll`, `libc10.dylib`).
pub(super) fn is_library_name(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    l.ends_with(".so")
        || l.contains(".so.")
        || l.ends_with(".dll")
        || l.ends_with(".dylib")
        || l.ends_with(".pyd")
}

/// The file name at the end of a path written with either slash.
fn file_name(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// Library-loading sentences that name the library inside them. The loader's own
/// `X: cannot open shared object file` on the same line is the other reader's: the name is the
/// same, so nothing is pushed twice.
pub(super) fn library_sentences(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // llama-cpp-python's loader: `Shared library with base name 'llama' not found` — its own
    // library was never built (a source tree run in place, or a build that produced none).
    if let Some(p) = s.find("Shared library with base name '") {
        let r = &s[p + 31..];
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
            .count();
        if n > 0 && r[n..].starts_with("' not found") {
            out.push(
                l.span(p, p + 31 + n + 11),
                EventKind::CompiledModuleMissing {
                    module: format!("lib{}", &r[..n]),
                },
            );
        }
        return;
    }
    // torch's own loader of the nvidia-* wheels it depends on (`_preload_cuda_deps`, torch
    // 2.0–2.1): `ValueError: libcublas.so.*[0-9] not found in the system path [...]` — the
    // wheel is not installed; the glob's fixed part is the library's name.
    if let Some(p) = s.find(" not found in the system path") {
        let before = s[..p].trim_end();
        let word = before.rsplit([' ', ':', '\'', '"']).next().unwrap_or("");
        let name = word.split('*').next().unwrap_or("").trim_end_matches('.');
        if name.starts_with("lib") && name.contains(".so") {
            // `word` ends `before`, a prefix of `s`: it starts at their length difference.
            out.push(
                l.span(before.len() - word.len(), s.trim_end().len()),
                EventKind::MissingSharedLibrary {
                    name: cap(name).to_owned(),
                    required_by: None,
                },
            );
        }
        return;
    }
    // A loader's own words for a library it could not open, ending the line (glcontext:
    // `Exception: (detect) libX11.so not loaded`, `… /usr/lib/x86_64-linux-gnu/libEGL.so.1 not
    // loaded`): the library is the word before them. (A warning that goes on, `libtcmalloc.so
    // not loaded, using …`, is no failure.)
    if let Some(p) = s.find(" not loaded")
        && s[p + " not loaded".len()..]
            .trim()
            .trim_matches(['.', '!', '\'', '"', ')'])
            .is_empty()
    {
        let head = &s[..p];
        let word = head
            .rsplit(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '\'' | '"'))
            .next()
            .unwrap_or("");
        let name = file_name(word);
        if name.starts_with("lib") && is_library_name(name) {
            out.push(
                l.span(head.len() - word.len(), s.trim_end().len()),
                EventKind::MissingSharedLibrary {
                    name: cap(name).to_owned(),
                    required_by: None,
                },
            );
            return;
        }
    }
    let end = s.trim_end().len();
    let mut push = |at: usize, name: &str, required_by: Option<String>| {
        let name = name.trim_end_matches(['.', ',', ':', ';']);
        if !name.is_empty() {
            out.push(
                l.span(at, end),
                EventKind::MissingSharedLibrary {
                    name: cap(name).to_owned(),
                    required_by,
                },
            );
        }
    };
    // cpm_kernels (ChatGLM's int4 kernels) opening CUDA's libraries itself: `Library cudart is
    // not initialized` when no libcudart could be opened.
    // TensorFlow's dso_loader cut before its `; dlerror: …` (an issue's title): whole, it is a
    // warning TensorFlow follows with its CPU fallback, which the loader's own words (when they
    // are there) let the other readers weigh.
    // On Windows its dlerror is `X.dll not found`, which no loader reader takes; retold (a
    // title, a quote) it is the failure, while TensorFlow's own warning line (`W …
    // dso_loader.cc:64] …`) is followed by its CPU fallback and weighed with what follows.
    // A title cut right after the dlerror's library name (`…; dlerror: libcusolver.so.10`) is
    // retold the same way.
    if let Some(p) = s.find("Could not load dynamic library '")
        && s.find("dlerror").is_none_or(|d| {
            !s.contains("dso_loader")
                && s.get(d..).is_some_and(|r| {
                    r.contains(".dll not found")
                        || r.contains(".DLL not found")
                        || r.trim_end()
                            .rsplit([' ', ':'])
                            .next()
                            .is_some_and(|last| s[p + 32..].starts_with(&format!("{last}'")))
                })
        })
    {
        let r = &s[p + 32..];
        if let Some(e) = r.find('\'')
            && is_library_name(&r[..e])
        {
            push(p, &r[..e], None);
            return;
        }
    }
    // numba's CUDA JIT without the toolkit's NVVM library: `libNVVM cannot be found.`
    if let Some(p) = s.find("libNVVM cannot be found") {
        push(p, "libnvvm.so", None);
        return;
    }
    // Loaders that look a library up with ctypes.util.find_library and name the project when
    // nothing is found: sounddevice's `OSError: PortAudio library not found`, soundfile's
    // `OSError: sndfile library not found` (the library file is `lib` + the name, lower case).
    if let Some(head) = s
        .trim_end()
        .trim_end_matches('.')
        .strip_suffix(" library not found")
    {
        let start = head.rfind([' ', '\'', '"', ':']).map_or(0, |i| i + 1);
        let word = &head[start..];
        if (3..=32).contains(&word.len())
            && word.bytes().all(|c| c.is_ascii_alphanumeric())
            && head[..start].trim_end().ends_with("Error:")
        {
            push(start, &format!("lib{}.so", word.to_ascii_lowercase()), None);
            return;
        }
    }
    // A retold loader failure (an issue title): a Linux/macOS library file named right before
    // the `not found` / `cannot be found` that ends the line (`Tensorflow GPU library
    // Libcudart.so.11.0 not found`). Only at the end: a sentence that goes on (`libcudart.so not
    // found in any environmental path. Searching in backup paths...`) is a loader's progress.
    let lower = s
        .trim_end()
        .trim_end_matches(['.', '!'])
        .to_ascii_lowercase();
    let retold = [
        " not found",
        " cannot be found",
        " could not be found",
        " is missing",
    ]
    .iter()
    .find_map(|w| lower.strip_suffix(w))
    .and_then(|head| {
        let head = head.trim_end_matches(['\'', '"', '`', ':']);
        let start = head.rfind([' ', '\'', '"', '`', '/']).map_or(0, |i| i + 1);
        Some((start, s.get(start..head.len())?))
    });
    if let Some((at, tok)) = retold {
        let lib = tok
            .strip_prefix("Lib")
            .map_or(tok.to_owned(), |r| format!("lib{r}"));
        let elf = lib.starts_with("lib") && (lib.contains(".so") || lib.ends_with(".dylib"));
        if elf
            && is_library_name(&lib)
            && lib.len() <= 128
            && lib
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"._+-".contains(&c))
        {
            push(at, &lib, None);
            return;
        }
    }
    // torchaudio when libsox is not found: `load requires sox extension which is not
    // available.`
    if let Some(p) = s.find("sox extension which is not available") {
        push(p, "libsox.so", None);
        return;
    }
    // Rtree's loader: `Could not find libspatialindex_c library file`.
    if let Some(p) = s.find("Could not find lib")
        && let Some(e) = s[p + 15..].find(" library file")
    {
        let name = &s[p + 15..p + 15 + e];
        if name.len() > 3
            && name.len() <= 40
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            push(p, &format!("{name}.so"), None);
            return;
        }
    }
    // PaddlePaddle's loader: `The third-party dynamic library (cudnn64_7.dll) that Paddle
    // depends on is not configured correctly.`
    if let Some(p) = s.find("The third-party dynamic library (") {
        let r = &s[p + 33..];
        // Several names it tried, `;`-separated (`cublas64_102.dll;cublas64_10.dll`): the
        // first is the most specific.
        if let Some(e) = r.find(')')
            && let Some(first) = r[..e].split(';').next().map(str::trim)
            && is_library_name(first)
        {
            push(p, first, None);
            return;
        }
    }
    if let Some(p) = s.find(" is not initialized") {
        let before = s.get(..p).unwrap_or("");
        if let Some(i) = before.rfind("Library ") {
            let name = &before[i + 8..];
            if !name.is_empty()
                && name.len() <= 32
                && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            {
                push(i, &format!("lib{name}.so"), None);
                return;
            }
        }
    }
    // CTranslate2 / cuDNN's loader: `Unable to load any of {libcudnn_ops.so.9.1.0, …}`: the
    // first name is the most specific; all name one library.
    // PyTables' the same way: `Could not load any of ['hdf5.dll', 'hdf5dll.dll',
    // 'pytables_hdf5.dll']`.
    // Shapely 1.x's GEOS loader: `Could not find lib geos_c or load any of its variants
    // ['libgeos_c.so.1', 'libgeos_c.so']`.
    if let Some((p, n)) = [
        "Unable to load any of",
        "Could not load any of",
        "load any of its variants",
    ]
    .iter()
    .find_map(|w| s.find(w).map(|p| (p, w.len())))
    {
        let r = s.get(p + n..).unwrap_or("").trim_start();
        if let Some(r) = r.strip_prefix('{').or_else(|| r.strip_prefix('[')) {
            let inner = &r[..r.find(['}', ']']).unwrap_or(r.len())];
            let inner = inner.replace(['\'', '"'], "");
            let inner = inner.as_str();
            if let Some(first) = inner.split(',').map(str::trim).find(|t| is_library_name(t)) {
                push(p, first, None);
                return;
            }
        }
        // The variants not listed (`Could not find library geos_c or load any of its
        // variants`): the library by its linker name.
        if let Some(name) = ["Could not find library ", "Could not find lib "]
            .iter()
            .find_map(|w| s[..p].find(w).map(|k| s[k + w.len()..p].trim()))
            .and_then(|n| n.strip_suffix(" or"))
            .map(str::trim)
            .filter(|n| {
                !n.is_empty()
                    && n.len() <= 64
                    && n.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b"_-+.".contains(&c))
            })
        {
            let lib = if name.starts_with("lib") {
                format!("{name}.so")
            } else {
                format!("lib{name}.so")
            };
            push(p, &lib, None);
            return;
        }
    }
    // ONNX Runtime's own advice when its CUDA execution provider did not load: `Please install
    // the correct version of CUDA and cuDNN as mentioned in the GPU requirements page`.
    if let Some(p) = s.find("as mentioned in the GPU requirements page") {
        let st = s[..p].rfind("Please install").unwrap_or(p);
        out.push(
            l.span(st, s.trim_end().len()),
            EventKind::GpuLibrariesNotLoaded {
                framework: "onnxruntime".to_owned(),
                detail: cap(s[st..].trim_end()).to_owned(),
            },
        );
        return;
    }
    // TensorFlow's summary of its loader's failures (gpu_device.cc): `Cannot dlopen some GPU
    // libraries. Please make sure the missing libraries mentioned above are installed`.
    if let Some(p) = s.find("Cannot dlopen some GPU libraries") {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::GpuLibrariesNotLoaded {
                framework: "tensorflow".to_owned(),
                detail: cap(s[p..].trim_end()).to_owned(),
            },
        );
        return;
    }
    if s.contains("cannot open shared object file") {
        return;
    }
    // onnxruntime's provider bridge on Linux, cut off before the loader's reason: `Failed to
    // load library libonnxruntime_providers_cuda.so with error:` — the provider is there, some
    // CUDA or cuDNN library it needs is not (a reason naming one is read as that library).
    // Only the CUDA provider's: TensorRT's or OpenVINO's need other libraries, and the session
    // falls back to the CUDA provider, not the CPU.
    if let Some(p) = s.find("Failed to load library libonnxruntime_providers_cuda")
        && s[p..]
            .split_once("with error:")
            .is_none_or(|(_, why)| why.trim().is_empty())
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::GpuLibrariesNotLoaded {
                framework: "onnxruntime".to_owned(),
                detail: cap(s[p..].trim_end()).to_owned(),
            },
        );
        return;
    }
    // cuda-pathfinder's search (cudnn-frontend, cuda-python): `Unable to load any
    // libcudart.so.* library`; the glob's fixed part is the library.
    if let Some(p) = s.find("Unable to load any lib") {
        let tok = s[p + 19..].split_whitespace().next().unwrap_or("");
        let name = tok.split('*').next().unwrap_or("").trim_end_matches('.');
        if is_library_name(name) {
            push(p, name, None);
            return;
        }
    }
    // bitsandbytes before 0.43 looking for the CUDA runtime: `WARNING: No libcudart.so found!
    // Install CUDA or the cudatoolkit package (anaconda)!`.
    if let Some(p) = s.find("No libcudart.so found") {
        push(p, "libcudart.so", None);
        return;
    }
    // CTranslate2's lazy loader after its dlopen of cuBLAS failed: `Invalid handle. Cannot load
    // symbol cublasLtCreate` — the symbol's prefix says which library.
    if let Some(p) = s.find("Cannot load symbol ") {
        let sym = s[p + 19..]
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .next()
            .unwrap_or("");
        let lib = [
            ("cublasLt", "libcublasLt.so"),
            ("cublas", "libcublas.so"),
            ("cudnn", "libcudnn.so"),
            ("cufft", "libcufft.so"),
            ("curand", "libcurand.so"),
            ("cusparse", "libcusparse.so"),
            ("cusolver", "libcusolver.so"),
            ("nccl", "libnccl.so"),
        ]
        .iter()
        .find(|(prefix, _)| sym.starts_with(prefix))
        .map(|(_, lib)| *lib);
        if let Some(lib) = lib {
            push(p, lib, None);
            return;
        }
    }
    // `ldd`'s and ntldd's listing: `libcudart.so.11.0 => not found`, `cublas64_13.dll => not
    // found`.
    if let Some(p) = s.find("=> not found") {
        let before = s[..p].trim_end();
        // After the last whitespace character, whatever its width (a full-width space too).
        let at = before
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let tok = before.get(at..).unwrap_or("");
        if is_library_name(tok) {
            push(at, file_name(tok), None);
            return;
        }
    }
    // Loaders that put the library's name right after their words: NVRTC opening its builtins
    // (`nvrtc: error: failed to open nvrtc-builtins64_129.dll.`, `failed to open
    // libnvrtc-builtins.so.12.1`), vLLM's NCCL loader (`Failed to load NCCL library from
    // libnccl.so.2 .`), TensorRT-LLM's `unable to load shared library: libnvinfer_plugin_…so.9`,
    // TensorRT's and other Windows loaders' `Could not find: cublasLt64_12.dll. Is it on your
    // PATH?`.
    for words in [
        "failed to open ",
        "Failed to load NCCL library from ",
        "unable to load shared library: ",
        "Could not find: ",
    ] {
        if let Some(p) = s.find(words) {
            let r = s.get(p + words.len()..).unwrap_or("");
            let tok = r.split_whitespace().next().unwrap_or("");
            let tok = tok
                .trim_matches(['\'', '"', '`'])
                .trim_end_matches(['.', ',', ':']);
            if is_library_name(tok) {
                push(p, file_name(tok), None);
                return;
            }
        }
    }
    // XGBoost's loader: `XGBoost Library (libxgboost.dylib) could not be loaded.` — its own
    // message names the OpenMP runtime as the likely cause.
    if let Some(p) = s.find("XGBoost Library (") {
        let r = &s[p + 17..];
        if let Some(e) = r.find(')')
            && r[e..].starts_with(") could not be loaded")
            && is_library_name(&r[..e])
        {
            // Only macOS' guess holds whatever follows: no libomp comes with the system. On
            // Linux and Windows the runtime is usually there, and the loader's own reason (its
            // `Error message(s)` line) is what the other readers take.
            let own = file_name(&r[..e]);
            if own.to_ascii_lowercase().ends_with(".dylib") {
                push(p, "libomp.dylib", Some(cap(own).to_owned()));
                return;
            }
        }
    }
    // torch.ops.load_library: `OSError: Could not load this library: /…/libtorchcodec7.so`. The
    // path is the whole rest of the line (it may hold spaces), up to the library's own suffix.
    const TORCH_LOAD: &str = "Could not load this library: ";
    if let Some(p) = s.find(TORCH_LOAD) {
        let r = s.get(p + TORCH_LOAD.len()..).unwrap_or("").trim_end();
        let r = r
            .trim_matches(['\'', '"', '`'])
            .trim_end_matches(['.', ',']);
        if is_library_name(r) || is_library_name(file_name(r)) {
            out.push(
                l.span(p, end),
                EventKind::LibraryNotLoaded {
                    path: cap(r).to_owned(),
                },
            );
        }
        return;
    }
    // Loaders that name the file right after their words: `Could not load library
    // libcudnn_cnn_infer.so.8. Error: …` (cuDNN 8), `Could not load library
    // cudnn_ops_infer64_8.dll. Error code 126`, TensorFlow 1.x's dso_loader `Couldn't open CUDA
    // library libcupti.so. LD_LIBRARY_PATH: …`, cuDNN 9's on Windows `Could not locate
    // cudnn_ops64_9.dll. Please make sure it is in your library path!`.
    for lead in [
        "Could not load library ",
        "Couldn't open CUDA library ",
        "Could not locate ",
    ] {
        if let Some(p) = s.find(lead) {
            let r = s.get(p + lead.len()..).unwrap_or("");
            let tok = r.split_whitespace().next().unwrap_or("");
            let tok = tok.trim_end_matches(['.', ',', ':', '!']);
            if is_library_name(tok) {
                push(p, file_name(tok), None);
                return;
            }
        }
    }
    // A ctypes loader's own words with the library's short name (python-magic's `failed to
    // find libmagic.  Check your installation`).
    if let Some(p) = s.find("failed to find lib") {
        let r = s.get(p + 15..).unwrap_or("");
        // A file name as given (`libcudart.so.11.0`), else the short name (`libmagic`); never
        // the word `library`.
        let tok = r.split_whitespace().next().unwrap_or("");
        let tok = tok.trim_end_matches(['.', ',', ':', ';']);
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || b"_+-".contains(c))
            .count();
        let name = &r[..n];
        if is_library_name(tok) {
            push(p, file_name(tok), None);
            return;
        }
        if n > 3
            && n <= 64
            && !name.starts_with("librar")
            && r[n..].starts_with(['.', ' ', ',', ':'])
        {
            push(p, &format!("{name}.so"), None);
            return;
        }
    }
    // CTranslate2: `Library libcublas.so.11 is not found or cannot be loaded`.
    if let Some(p) = s.find(" is not found or cannot be loaded") {
        let t = s.get(..p).unwrap_or("");
        let tok = t.rsplit([' ', '\'', '"']).next().unwrap_or("");
        if is_library_name(tok) {
            let at = p - tok.len();
            push(at, file_name(tok), None);
            return;
        }
    }
    // cffi's `dlopen` of a path that is not there: `cannot load library '/…/libsndfile.dylib':
    // dlopen(…): image not found` (or `(no such file)`); a library that is there but fails for
    // another reason (a symbol, an architecture) is not this.
    if let Some(p) = s.find("cannot load library '") {
        let r = s.get(p + 21..).unwrap_or("");
        if let Some(e) = r.find('\'') {
            let path = &r[..e];
            let why = &r[e..];
            if (is_library_name(path) || is_library_name(file_name(path)))
                && ["image not found", "no such file", "No such file"]
                    .iter()
                    .any(|w| why.contains(w))
            {
                push(p, file_name(path), None);
                return;
            }
        }
    }
    // ctypes' and cffi's search by name (`ctypes.util.find_library() did not manage to locate
    // a library called 'sndfile'`): the bare name is `lib<name>`, a path its file.
    const CALLED: &str = "did not manage to locate a library called '";
    if let Some(p) = s.find(CALLED) {
        let r = s.get(p + CALLED.len()..).unwrap_or("");
        let name = &r[..r.find('\'').unwrap_or(r.len())];
        let file = file_name(name);
        if is_library_name(file) {
            push(p, file, None);
            return;
        }
        if !file.is_empty()
            && file.len() <= 64
            && file
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+'))
        {
            push(p, &format!("lib{file}.so"), None);
            return;
        }
    }
    // bitsandbytes 0.46+: `Configured CUDA binary not found at /…/libbitsandbytes_cuda131.so`.
    if let Some(p) = s.find("binary not found at ") {
        let r = s.get(p + 20..).unwrap_or("");
        let tok = r.split_whitespace().next().unwrap_or("");
        let tok = tok
            .trim_matches(['\'', '"', '`'])
            .trim_end_matches(['.', ',', ':']);
        if is_library_name(file_name(tok)) {
            push(p, tok, None);
            return;
        }
    }
    // Paddle: `Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.`
    if let Some(p) = s.find("Cannot load ") {
        let r = s.get(p + 12..).unwrap_or("");
        if let Some(word) = r.split(' ').next()
            && r.get(word.len()..)
                .is_some_and(|x| x.starts_with(" shared library"))
            && !word.is_empty()
            && word
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        {
            push(p, &format!("lib{word}.so"), None);
            return;
        }
    }
    // macOS dyld: `Library not loaded: @rpath/libc10.dylib … Referenced from: /…/x.so`.
    if let Some(p) = s.find("Library not loaded: ") {
        // macOS 13 and later quote the path (`Library not loaded: '/…/libavdevice.58.dylib'`).
        let r = s
            .get(p + 20..)
            .unwrap_or("")
            .trim_start_matches(['\'', '"']);
        let tok = r
            .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ')'))
            .next()
            .unwrap_or("");
        if is_library_name(tok) {
            // `Referenced from:` on the same line, else the library Python was opening
            // (`dlopen(/…/site-packages/lightgbm/lib_lightgbm.so, 6): Library not loaded`): the
            // one whose load failed, and whose package it is.
            let required_by = s
                .find("Referenced from: ")
                .and_then(|i| {
                    let rr = s.get(i + 17..)?;
                    non_empty(
                        rr.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ')'))
                            .next()?,
                    )
                })
                .or_else(|| {
                    let i = s.get(..p)?.rfind("dlopen(")?;
                    let rr = s.get(i + 7..p)?;
                    let path = rr
                        .split([',', ')'])
                        .next()?
                        .trim()
                        .trim_matches(['\'', '"']);
                    (is_library_name(path) || is_library_name(file_name(path)))
                        .then(|| non_empty(path))
                        .flatten()
                });
            push(p, file_name(tok), required_by);
            return;
        }
    }
    // DGL's GraphBolt loader naming the library of the installed torch that its build lacks:
    // `There is no such file `graphbolt_pytorch_2.4.1.dll`.` (any quotes).
    if let Some(p) = s.find("There is no such file ") {
        let tok = s
            .get(p + 22..)
            .unwrap_or("")
            .trim_start_matches(['`', '\'', '"'])
            .split(['`', '\'', '"', ' '])
            .next()
            .unwrap_or("")
            .trim_end_matches('.');
        if is_library_name(tok) && tok.contains("_pytorch_") {
            push(p, file_name(tok), None);
            return;
        }
    }
    // DGL: `Cannot find DGL C++ sparse library at /…/libdgl_sparse_pytorch_1.9.0.so`,
    // `Cannot find DGL C++ graphbolt library at …`, `Cannot find DGL C++ library`, also as
    // retold in a title (`can't find c++ library graphbolt`).
    let lower = s.to_ascii_lowercase();
    if let Some(p) = lower.find("dgl c++").or_else(|| lower.find("c++ library")) {
        let before = lower.get(..p).unwrap_or("").trim_end();
        let finds = ["find", "find dgl", "load", "load dgl"]
            .iter()
            .any(|w| before.ends_with(w));
        // GraphBolt's own import: `Cannot load Graphbolt C++ library`.
        if before.ends_with("load graphbolt") || before.ends_with("find graphbolt") {
            push(p, "libgraphbolt.so", None);
            return;
        }
        if !finds {
            return;
        }
        // `lower` keeps every byte offset of `s` (ASCII case only changes).
        let at = p;
        let rest = s.get(p..).unwrap_or("");
        if let Some(path) = rest.find(" at ").and_then(|i| rest.get(i + 4..)) {
            // The path may hold spaces (`/Users/x/Design Project/…`): it ends at the library's
            // own suffix.
            let end = [".so", ".dll", ".dylib"]
                .iter()
                .filter_map(|suf| {
                    path.match_indices(suf)
                        .map(|(i, _)| i + suf.len())
                        .find(|&e| {
                            // `.so` ends a name, not a directory (`/.sources/`).
                            !path.as_bytes().get(e).is_some_and(|&c| {
                                c.is_ascii_alphanumeric() || c == b'_' || c == b'/'
                            })
                        })
                })
                .min();
            let tok = end.and_then(|e| path.get(..e)).unwrap_or("");
            let tok = tok.trim_matches(['\'', '"', '`']);
            if is_library_name(tok) {
                push(at, file_name(tok), None);
            }
            // A path that is not a library (`at {path}` in the source line that raised it)
            // names nothing.
            return;
        }
        // No path: the library named by the word before or after `library`.
        let words: Vec<&str> = rest
            .split(|c: char| c.is_whitespace() || matches!(c, '*' | '.' | ',' | ':'))
            .filter(|w| !w.is_empty())
            .collect();
        let lib_at = words.iter().position(|w| w.eq_ignore_ascii_case("library"));
        let named = lib_at.and_then(|i| {
            let prev = i.checked_sub(1).and_then(|j| words.get(j)).copied();
            let next = words.get(i + 1).copied();
            [prev, next].into_iter().flatten().find(|w| {
                !w.eq_ignore_ascii_case("c++")
                    && !w.eq_ignore_ascii_case("dgl")
                    && !w.eq_ignore_ascii_case("at")
                    && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            })
        });
        let name = match named {
            Some(w) => format!("lib{}.so", w.to_ascii_lowercase()),
            None => "libdgl.so".to_owned(),
        };
        push(at, &name, None);
    }
}

/// The operator namespaces torch registers its own operators in: one missing there is torch's
/// own Python and C++ halves disagreeing (or an op of another release), no extension's library.
pub(super) fn torch_namespace(ns: &str) -> bool {
    matches!(
        ns,
        "aten"
            | "prim"
            | "prims"
            | "quantized"
            | "_quantized"
            | "quantized_decomposed"
            | "mkldnn"
            | "onednn"
            | "c10d"
            | "_c10d_functional"
            | "_c10d_functional_autograd"
            | "_dtensor"
            | "inductor"
            | "higher_order"
            | "profiler"
            | "rngprims"
            | "debugprims"
            | "sparse"
            | "_test"
            | "_inductor_test"
    )
}

/// `RuntimeError: No such operator torchvision::nms` (torch's op registry, older torch),
/// TorchScript's `Unknown builtin op: torchvision::nms`, and newer torch's
/// `AttributeError: '_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'`.
pub(super) fn no_such_operator(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    if let Some(p) = s.find("'_OpNamespace' '") {
        fn ident(r: &str) -> Option<&str> {
            let n = r
                .bytes()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_')
                .count();
            (n > 0 && n <= 128).then(|| &r[..n])
        }
        let r = &s[p + 16..];
        let Some(ns) = ident(r) else { return };
        let tail = &r[ns.len()..];
        let Some(rest) = tail.strip_prefix("' object has no attribute '") else {
            return;
        };
        let Some(op) = ident(rest) else { return };
        if !torch_namespace(ns) {
            let end =
                p + 16 + ns.len() + 27 + op.len() + usize::from(rest[op.len()..].starts_with('\''));
            out.push(
                l.span(p, end.min(s.len())),
                EventKind::TorchOperatorMissing {
                    operator: format!("{ns}::{op}"),
                    cuda_backend: false,
                },
            );
        }
        return;
    }
    // The dispatcher's `Could not run 'torchvision::nms' with arguments from the 'CUDA'
    // backend`: the operator exists without a kernel for CUDA — a CPU build of the package under
    // a CUDA torch.
    let cuda_backend = s.contains("from the 'CUDA' backend");
    for intro in [
        "No such operator ",
        "Unknown builtin op: ",
        "Could not run '",
    ] {
        if intro == "Could not run '" && !cuda_backend {
            continue;
        }
        let Some(p) = s.find(intro) else { continue };
        let r = s.get(p + intro.len()..).unwrap_or("");
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b':' || c == b'.')
            .count();
        let op = r.get(..n).unwrap_or("").trim_end_matches(['.', ':']);
        let Some((ns, name)) = op.split_once("::") else {
            continue;
        };
        if ns.is_empty() || name.is_empty() || torch_namespace(ns) {
            continue;
        }
        out.push(
            l.span(p, p + intro.len() + op.len()),
            EventKind::TorchOperatorMissing {
                operator: op.to_owned(),
                cuda_backend: intro == "Could not run '",
            },
        );
        return;
    }
}

/// `No module named 'exllamav2_ext'`, `No module named 'groundingdino._C'`: the package's own
/// compiled module is absent (never built, or a source checkout shadows the installed wheel).
/// Only names compiled modules take: `_C`, `_ext`, `*_ext`, `*_cuda`, `*_kernels`, `*_C`.
pub(super) fn compiled_module_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // Mask2Former's deformable-attention op and the projects that copy it print, in place of
    // the ImportError: `Please compile MultiScaleDeformableAttention CUDA op with the following
    // commands:`.
    if let Some(p) = s.find(" CUDA op with the following")
        && let Some(name) = s[..p].rsplit(' ').next()
        && s[..p].ends_with(&format!("compile {name}"))
        && !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        let start = p - name.len();
        out.push(
            l.span(start, p),
            EventKind::CompiledModuleMissing {
                module: name.to_owned(),
            },
        );
        return;
    }
    // `No module named 'pkg._C'`, or `cannot import name '_C' from 'pkg.nn'` (Python 3.7+; bare
    // before): the compiled module was never built or not copied next to the sources.
    let (p, r, from) = if let Some(p) = s.find("No module named ") {
        (p, s.get(p + 16..).unwrap_or(""), None)
    } else if let Some(p) = s.find("cannot import name ") {
        let r = s.get(p + 19..).unwrap_or("");
        let from = r.find(" from ").map(|i| {
            let f = r[i + 6..].trim_start().trim_start_matches(['\'', '"', '`']);
            let n = f
                .bytes()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                .count();
            f[..n].trim_end_matches('.').to_owned()
        });
        (p, r, from.filter(|f| !f.is_empty()))
    } else if let Some(p) = s.find("NameError: name ") {
        // A package whose `try: from . import _C` swallowed the ImportError fails later with
        // `NameError: name '_C' is not defined`.
        let r = s.get(p + 16..).unwrap_or("");
        if !r.contains("is not defined") {
            return;
        }
        (p, r, None)
    } else {
        return;
    };
    let r = r.trim_start().trim_start_matches(['\'', '"', '`']);
    let n = r
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        .count();
    let name = r.get(..n).unwrap_or("").trim_end_matches('.');
    let module = match &from {
        Some(f) => format!("{f}.{name}"),
        None => name.to_owned(),
    };
    // Any part of the dotted name may be the compiled one (`modules._ext.__ext`); a `lib…`
    // name imported from a package is its C++ library module (fairseq's `libnat`, `libbleu`).
    let lib_module = s[p..].starts_with("cannot import name ")
        && name.len() > 4
        && name.starts_with("lib")
        && !name.contains('.');
    // A package's private core named after it (`pyhailort._pyhailort`,
    // `pydantic_core._pydantic_core`) is its compiled module.
    let own_core = module.rsplit_once('.').is_some_and(|(head, leaf)| {
        leaf.strip_prefix('_')
            .is_some_and(|l| !l.is_empty() && head.rsplit('.').next() == Some(l))
    });
    // A private name Python finds no file for in a package it found only as a directory
    // (`cannot import name '_runtime' from 'iree' (unknown location)`: a namespace package, a
    // build tree or checkout without its compiled modules).
    // Or from a package in a source checkout (`cannot import name '_extras' from
    // 'numba.cuda.cudadrv' (/home/u/numba-cuda/numba_cuda/numba/cuda/cudadrv/__init__.py)`):
    // its modules are there, its compiled ones were never built in place.
    let in_checkout = r.split_once(" (").is_some_and(|(_, loc)| {
        let loc = loc.trim_end().trim_end_matches(')');
        // A package's `__init__.py`, outside every Python's own library (`/usr/lib/python3.8/
        // typing.py` is the standard library's `typing`, not a checkout).
        let lower = loc.replace('\\', "/").to_ascii_lowercase();
        (loc.starts_with('/') || loc.get(1..3) == Some(":\\"))
            && !lower.contains("site-packages")
            && !lower.contains("dist-packages")
            && !lower.contains("/lib/python")
            && !lower.contains("/lib/pypy")
            && lower.ends_with("/__init__.py")
    });
    let unbuilt_private = from.is_some()
        && name.starts_with('_')
        && !name.starts_with("__")
        && !name.contains('.')
        && (r.contains("(unknown location)") || in_checkout);
    // pandas' own words for its unbuilt extensions: `C extension: No module named
    // 'pandas._libs' not built. If you want to import pandas from the source directory, …`.
    // (Older pandas put any inner ImportError in the same sentence: only its own modules count.)
    let c_extension =
        s.contains("C extension:") && s.contains(" not built") && module.starts_with("pandas.");
    let compiled = lib_module
        || own_core
        || unbuilt_private
        || c_extension
        || module.split('.').any(is_compiled_name);
    // A name of torch or a companion another package imports (`cannot import name
    // 'return_and_correct_aliasing' from 'torch.utils._python_dispatch'`, `No module named
    // 'torchvision.transforms.functional_tensor'`): Python API of another release, not a build.
    let api = match from.as_deref() {
        Some(f) => Some((f.to_owned(), name.to_owned())),
        None if s[p..].starts_with("No module named") => module
            .rsplit_once('.')
            .map(|(m, a)| (m.to_owned(), a.to_owned())),
        None => None,
    };
    if let Some((m, a)) = api
        && is_torch_family(&m)
        && !a.is_empty()
        && !a.starts_with("_C")
        && !compiled
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::ModuleAttributeMissing {
                module: m,
                attribute: a,
            },
        );
        return;
    }
    // `torch._C` missing is a broken or shadowed torch, not an extension's build.
    if !compiled || module.starts_with("torch.") || module == "torch" || name.is_empty() {
        return;
    }
    // `r` is a suffix of `s`: its offset is the length difference.
    let end = s.len() - r.len() + n;
    let end = if matches!(s.as_bytes().get(end), Some(b'\'' | b'"' | b'`')) {
        end + 1
    } else {
        end
    };
    out.push(l.span(p, end), EventKind::CompiledModuleMissing { module });
}

/// glibc's words for a file it found and could not read as a library, each as it prints it
/// after the file's path and a colon.
const UNREADABLE: &[&str] = &[
    "invalid ELF header",
    "file too short",
    "ELF load command address/offset not properly aligned",
    "ELF load command address/offset not page-aligned",
    "ELF file data encoding not little-endian",
    "ELF file version does not match current one",
    "only ET_DYN and ET_EXEC can be loaded",
];

/// numba's and llvmlite's setup guard: `Cannot install on Python version 3.13.0; only versions
/// >=3.9,<3.13 are supported.` (see `EventKind::PythonRangeRefused`).
pub(super) fn python_range_refused(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    const MARK: &str = "Cannot install on Python version ";
    let Some(p) = s.find(MARK) else { return };
    let rest = &s[p + MARK.len()..];
    let Some((python, tail)) = rest.split_once("; only versions ") else {
        return;
    };
    let supported = tail.split(" are supported").next().unwrap_or("").trim();
    let ok = |v: &str, extra: &[u8]| {
        !v.is_empty()
            && v.len() <= 40
            && v.bytes()
                .all(|b| b.is_ascii_digit() || b == b'.' || extra.contains(&b))
    };
    if ok(python, b"abrc") && ok(supported, b"<>=!,") {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::PythonRangeRefused {
                python: python.to_owned(),
                supported: supported.to_owned(),
            },
        );
    }
}

/// auditwheel's `Cannot repair wheel, because required library "libcudart.so.13" could not be
/// located` (see `EventKind::AuditwheelMissing`).
pub(super) fn auditwheel_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    const MARK: &str = "Cannot repair wheel, because required library \"";
    let Some(p) = s.find(MARK) else { return };
    let rest = &s[p + MARK.len()..];
    let Some(q) = rest.find('"') else { return };
    let lib = &rest[..q];
    let plain = !lib.is_empty()
        && lib.len() <= 128
        && lib
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+'));
    if plain {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::AuditwheelMissing {
                library: lib.to_owned(),
            },
        );
    }
}

/// A library the loader found and could not read (see `EventKind::LibraryUnreadable`): the
/// path is the word before `: <reason>`.
pub(super) fn unreadable_library(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some((p, why)) = UNREADABLE.iter().find_map(|w| s.find(w).map(|p| (p, *w))) else {
        return;
    };
    let Some(before) = s[..p].trim_end().strip_suffix(':') else {
        return;
    };
    // `before` is a prefix of `s`; the path its last word.
    let word = before.rsplit([' ', '\t', '\'', '"']).next().unwrap_or("");
    let start = before.len() - word.len();
    let path = word.trim_end_matches(':');
    if !is_library_name(file_name(path)) {
        return;
    }
    out.push(
        l.span(start, p + why.len()),
        EventKind::LibraryUnreadable {
            library: cap(path).to_owned(),
            why: why.to_owned(),
        },
    );
}

/// mmcv's op loader (`mmcv.utils.ext_loader`) asserting that its compiled `_ext` has a function:
/// `active_rotated_filter_forward miss in module _ext` — an mmcv installed without its ops (the
/// lite build, or a build that skipped them), or built before the op existed.
pub(super) fn mmcv_op_missing(l: &Line<'_>, next: Option<&str>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find(" miss in module") else {
        return;
    };
    // The module name, or — a line wrapped right after the phrase — the next line's first word.
    let rest = s[p + 15..].trim_start();
    let r = if rest.is_empty() {
        next.map(str::trim_start).unwrap_or("")
    } else {
        rest
    };
    let n = r
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_')
        .count();
    if n == 0 {
        return;
    }
    let start = s[..p].rfind(' ').map_or(0, |i| i + 1).max(l.content);
    out.push(
        l.span(start.min(p), s.trim_end().len()),
        EventKind::CompiledModuleMissing {
            module: format!("mmcv.{}", &r[..n]),
        },
    );
}

/// torchaudio's start-up warning when `torchaudio._torchaudio` is not there to import
/// (`torchaudio C++ extension is not available.`, 0.8–0.10): it checks the module's presence
/// before loading it, so the module is missing, not failing.
pub(super) fn extension_not_available(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("torchaudio C++ extension is not available") else {
        return;
    };
    out.push(
        l.span(p, p + 41),
        EventKind::CompiledModuleMissing {
            module: "torchaudio._torchaudio".into(),
        },
    );
}

/// torch and the companions released with it, whose Python API moves between releases (Triton
/// too: each torch release pins the one its Inductor calls).
pub fn is_torch_family(module: &str) -> bool {
    let top = module.split('.').next().unwrap_or(module);
    matches!(
        top,
        "torch" | "torchvision" | "torchaudio" | "torchao" | "torchtext" | "triton"
    )
}

/// The names build systems give compiled modules: `_C`, `_C_flashattention`, `_ext`, `core_cc`,
/// `iou3d_cuda`, `deform_conv_ext`, `_kernels`, gsplat's `csrc` (its extension is named after
/// the sources' folder).
pub fn is_compiled_name(part: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "_ext",
        "_cuda",
        "_kernels",
        "_kernel",
        "_C",
        "_cpp",
        "_cc",
        "_cext",
        "_bindings",
    ];
    matches!(part, "_C" | "_ext" | "_cuda" | "_kernels" | "csrc" | "bindings")
        || part.starts_with("_C_")
        // Cython modules a checkout builds in place (`utils.cython_bbox`, `nms.cpu_nms`, the
        // Faster R-CNN family's).
        || part.starts_with("cython_")
        || part.ends_with("_cython")
        || matches!(part, "cpu_nms" | "gpu_nms")
        // SWIG's wrapper modules (`_swigfaiss`), and a CUDA op named for CUDA in the middle of
        // its name (RAFT's `alt_cuda_corr`): not a private module, not a function's name
        // (`is_cuda_available`, `get_cuda_version` imported from a Python module).
        || part.starts_with("_swig")
        || (part.contains("_cuda_")
            && !part.starts_with('_')
            && ![
                "is_", "has_", "get_", "set_", "check_", "use_", "enable_", "disable_", "init_",
                "to_", "with_", "require_", "maybe_",
            ]
            .iter()
            .any(|verb| part.starts_with(verb)))
        || SUFFIXES
            .iter()
            // `*_kernel(s)` also names pure-Python packages (`liger_kernel`, `triton_kernels`,
            // `bash_kernel`): public ones count only where the tables know them compiled.
            .filter(|suf| !suf.starts_with("_kernel") || part.starts_with('_'))
            .any(|suf| part.len() > suf.len() + 1 && part.ends_with(suf))
}
