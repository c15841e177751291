//! check_library and scan over the native fixture environments built by `tests/native/build.sh`
//! (tiny real libraries compiled with the system compiler).

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used)]

use abidoc_env::check::{FindingFacts, LibraryReport};
use abidoc_env::{EnvSpec, Environment, ScanOptions, check_library, scan};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("env-native-fixtures");
        let status = std::process::Command::new("bash")
            .arg(root.join("tests/native/build.sh"))
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run tests/native/build.sh");
        assert!(status.success(), "tests/native/build.sh failed");
        out
    })
}

fn spec(sp: &Path) -> EnvSpec {
    EnvSpec {
        site_packages: vec![sp.to_path_buf()],
        // The machine's real cache and default directories: libc/libstdc++ resolve as on this host.
        has_nvidia_driver: Some(false),
        ..EnvSpec::default()
    }
}

/// A stable text rendering: fixture paths become `$FX`, system paths are left out.
fn render(r: &LibraryReport, fx: &Path) -> String {
    let rel = |p: &Path| -> String {
        match p.strip_prefix(fx) {
            Ok(r) => format!("$FX/{}", r.display()),
            Err(_) => "<system>".to_string(),
        }
    };
    let mut s = String::new();
    let _ = writeln!(s, "library: {}", rel(&r.path));
    let _ = writeln!(
        s,
        "package: {} {}",
        r.package.as_deref().unwrap_or("-"),
        r.package_version.as_deref().unwrap_or("-")
    );
    if let Some(b) = &r.built_for {
        let _ = writeln!(s, "built for torch {} ({})", b.torch, b.source);
    }
    if let Some(l) = &r.label {
        let _ = writeln!(s, "label: {l:?}");
    }
    let _ = writeln!(s, "verdict: {:?}", r.verdict);
    if let Some(e) = &r.error {
        let _ = writeln!(s, "error: {e}");
    }
    for n in &r.needed {
        if n.found.as_deref().is_some_and(|f| !f.starts_with(fx)) {
            continue;
        }
        let _ = writeln!(
            s,
            "needed {} by {}: {}",
            n.name,
            rel(&n.needed_by),
            match &n.found {
                Some(f) => format!("{} via {:?}", rel(f), n.via),
                None => "NOT FOUND".into(),
            }
        );
    }
    for (p, n) in &r.resolved_by {
        if p.starts_with(fx) || p.to_string_lossy().starts_with('<') {
            let label = if p.starts_with(fx) {
                rel(p)
            } else {
                p.display().to_string()
            };
            let _ = writeln!(s, "resolved {n} by {label}");
        }
    }
    for sym in &r.symbols {
        let _ = writeln!(
            s,
            "symbol {} [{}]{}{}{}",
            sym.mangled,
            sym.status.as_str(),
            sym.version
                .as_deref()
                .map(|v| format!(" @{v}"))
                .unwrap_or_default(),
            sym.nearest
                .as_deref()
                .map(|n| format!(" nearest {n}"))
                .unwrap_or_default(),
            if sym.own_package {
                " (own package)"
            } else {
                ""
            }
        );
        if let Some(d) = &sym.demangled {
            let _ = writeln!(s, "    {d}");
        }
        if let Some(d) = &sym.nearest_demangled {
            let _ = writeln!(
                s,
                "    nearest: {d} in {}",
                sym.nearest_in.as_deref().map(rel).unwrap_or_default()
            );
        }
    }
    for v in &r.versions {
        let _ = writeln!(
            s,
            "version {} from {} needed by {}: provider {} ok={} alternatives {:?}",
            v.version,
            v.file,
            rel(&v.needed_by),
            v.provider.as_deref().map(rel).unwrap_or_default(),
            v.ok,
            v.alternatives.iter().map(|a| rel(a)).collect::<Vec<_>>()
        );
    }
    for f in &r.findings {
        let kind = match &f.facts {
            FindingFacts::MissingLibrary { name, .. } => format!("missing-library {name}"),
            FindingFacts::UndefinedSymbols { symbols } => {
                format!("undefined-symbols {}", symbols.len())
            }
            FindingFacts::IncompleteBuild { symbols } => {
                format!("incomplete-build {}", symbols.len())
            }
            FindingFacts::VersionMissing { check } => format!("version-missing {}", check.version),
            other => format!("{other:?}"),
        };
        let _ = writeln!(
            s,
            "finding {} {:?}{}: {kind}",
            f.facts.kind(),
            f.severity,
            f.downgraded
                .as_deref()
                .map(|d| format!(" (downgraded: {d})"))
                .unwrap_or_default()
        );
    }
    s
}

#[test]
fn main_env_every_extension() {
    let fx = fixtures();
    let env = Environment::open(&spec(&fx.join("site-packages")));
    let mut out = String::new();
    let t = env.torch.as_ref().expect("fixture torch");
    let _ = writeln!(
        out,
        "torch {:?} cuda {:?} cxx11 {:?}\n",
        t.version, t.cuda, t.cxx11_abi
    );
    let mut libs = abidoc_env::scan::find_libraries(&env, true, &mut Vec::new());
    libs.retain(|p| !p.starts_with(fx.join("site-packages/torch")));
    for l in libs {
        out.push_str(&render(&check_library(&env, &l), fx));
        out.push('\n');
    }
    insta::assert_snapshot!(out);
}

#[test]
fn abi0_env_flash_attn_cxx11_flip() {
    let fx = fixtures();
    let sp = fx.join("abi0/site-packages");
    let env = Environment::open(&spec(&sp));
    let t = env.torch.as_ref().expect("fixture torch");
    let mut out = format!(
        "torch {:?} cuda {:?} cxx11 {:?}\n\n",
        t.version, t.cuda, t.cxx11_abi
    );
    out.push_str(&render(
        &check_library(
            &env,
            &sp.join("flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so"),
        ),
        fx,
    ));
    insta::assert_snapshot!(out);
}

#[test]
fn a_missing_library_does_not_hide_the_torch_break_behind_it() {
    let fx = fixtures();
    let sp = fx.join("mixed/site-packages");
    let env = Environment::open(&spec(&sp));
    let report = check_library(
        &env,
        &sp.join("mixed_ext/_C.cpython-312-x86_64-linux-gnu.so"),
    );
    insta::assert_snapshot!(render(&report, fx));
}

#[test]
fn hostile_files_give_per_file_messages() {
    let fx = fixtures();
    let env = Environment::open(&spec(&fx.join("site-packages")));
    let mut out = String::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(fx.join("hostile"))
        .expect("hostile dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n != "libelf32.so"))
        .collect();
    names.push(PathBuf::from("/dev/zero"));
    names.push(fx.join("hostile/does-not-exist.so"));
    // By file name: sorting full paths would put /dev/zero before or after the
    // fixtures depending on where the checkout lives.
    names.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    for p in names {
        let r = check_library(&env, &p);
        let _ = writeln!(
            out,
            "{}: {:?} {}",
            p.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            r.verdict,
            r.error.as_deref().unwrap_or("")
        );
    }
    insta::assert_snapshot!(out);
}

#[test]
fn second_scan_is_served_from_cache() {
    let fx = fixtures();
    let env = Environment::open(&spec(&fx.join("site-packages")));
    let cache = tempfile::tempdir().expect("tempdir");
    let opts = ScanOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        include_stray: true,
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let first = scan(&env, &opts, &|_, _| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(first.stats.from_cache, 0);
    assert_eq!(calls.into_inner(), first.stats.libraries);
    // A fresh Environment, as a second process would have.
    let env2 = Environment::open(&spec(&fx.join("site-packages")));
    let second = scan(&env2, &opts, &|_, _| {});
    assert_eq!(second.stats.libraries, first.stats.libraries);
    assert_eq!(second.stats.from_cache, second.stats.libraries);
    assert_eq!(second.stats.analyzed, 0);
    assert_eq!(
        serde_json::to_string(&second.libraries).ok(),
        serde_json::to_string(&first.libraries).ok()
    );
    // A corrupted cache is ignored.
    for e in std::fs::read_dir(cache.path())
        .expect("cache dir")
        .filter_map(Result::ok)
    {
        std::fs::write(e.path(), b"{not json").expect("corrupt cache");
    }
    let env3 = Environment::open(&spec(&fx.join("site-packages")));
    let third = scan(&env3, &opts, &|_, _| {});
    assert_eq!(third.stats.from_cache, 0);
    assert_eq!(third.stats.analyzed, first.stats.libraries);
}

/// `ldconfig` changes what resolves through `/etc/ld.so.cache` without touching any directory a
/// report depends on: a new loader cache makes every cached verdict stale.
#[test]
fn cached_verdicts_follow_the_loader_cache() {
    let fx = fixtures();
    let tmp = tempfile::tempdir().expect("tempdir");
    let ld_cache = tmp.path().join("ld.so.cache");
    std::fs::copy("/etc/ld.so.cache", &ld_cache)
        .or_else(|_| std::fs::write(&ld_cache, b"glibc-ld.so.cache1.1").map(|()| 0))
        .expect("a loader cache");
    let spec = EnvSpec {
        ld_cache: Some(ld_cache.clone()),
        ..spec(&fx.join("site-packages"))
    };
    let opts = ScanOptions {
        cache_dir: Some(tmp.path().join("cache")),
        include_stray: true,
    };
    let first = scan(&Environment::open(&spec), &opts, &|_, _| {});
    assert_eq!(first.stats.from_cache, 0);
    let second = scan(&Environment::open(&spec), &opts, &|_, _| {});
    assert_eq!(
        second.stats.from_cache, second.stats.libraries,
        "unchanged: cached"
    );
    // `ldconfig` writes a new cache and renames it into place.
    let fresh = tmp.path().join("ld.so.cache~");
    std::fs::copy(&ld_cache, &fresh).expect("copy");
    std::fs::rename(&fresh, &ld_cache).expect("rename");
    let third = scan(&Environment::open(&spec), &opts, &|_, _| {});
    assert_eq!(
        third.stats.from_cache, 0,
        "a new loader cache reuses no verdict"
    );
    assert_eq!(
        serde_json::to_string(&third.libraries).ok(),
        serde_json::to_string(&first.libraries).ok()
    );
}

/// A real CPython on this machine (an ELF file, not a shim script), if there is one.
fn real_python() -> Option<PathBuf> {
    let mut cands: Vec<PathBuf> = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .iter()
        .map(PathBuf::from)
        .collect();
    if let Ok(rd) = std::fs::read_dir("/root/.pyenv/versions") {
        let mut v: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin/python3"))
            .collect();
        v.sort();
        cands.extend(v);
    }
    cands.into_iter().find(|p| {
        std::fs::read(p)
            .ok()
            .is_some_and(|b| abidoc_env::LibFacts::parse(&b).is_ok())
    })
}

#[test]
fn interpreter_symbols_come_from_the_real_interpreter() {
    let Some(py) = real_python() else {
        eprintln!("no ELF python3 on this machine; skipped");
        return;
    };
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let mut s = spec(&sp);
    s.python = Some(py.clone());
    let env = Environment::open(&s);
    assert!(env.layout.interpreter.is_some());
    assert!(
        env.process().assumed_interpreter_prefixes.is_empty(),
        "the interpreter {} should provide Py* symbols itself",
        py.display()
    );
    let r = check_library(&env, &sp.join("torch_scatter/_scatter_cuda.so"));
    assert_eq!(r.verdict, abidoc_env::Verdict::Loads, "{r:#?}");
    assert!(
        !r.resolved_by
            .keys()
            .any(|k| k.to_string_lossy().starts_with('<'))
    );
    let by_python = r
        .resolved_by
        .iter()
        .filter(|(k, _)| {
            let n = k.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("python") || n.starts_with("libpython")
        })
        .map(|(_, n)| *n)
        .sum::<usize>();
    // PyModule_Create2, PyErr_SetString, PyExc_RuntimeError.
    assert_eq!(by_python, 3, "{:#?}", r.resolved_by);
}

#[test]
fn scan_summary_main_env() {
    let fx = fixtures();
    let env = Environment::open(&spec(&fx.join("site-packages")));
    let report = scan(&env, &ScanOptions::default(), &|_, _| {});
    let rel = |p: &Path| {
        p.strip_prefix(fx)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };
    let mut out = format!(
        "torch {:?} cuda {:?} cxx11 {:?}; {} libraries\n",
        report.torch_version, report.torch_cuda, report.torch_cxx11_abi, report.stats.libraries
    );
    for l in &report.libraries {
        let codes: Vec<String> = l
            .findings
            .iter()
            .map(|f| format!("{}:{:?}", f.facts.kind(), f.severity))
            .collect();
        let _ = writeln!(
            out,
            "{:?} {} [{}] {}",
            l.verdict,
            rel(&l.path),
            l.package.as_deref().unwrap_or("-"),
            codes.join(", ")
        );
    }
    for f in &report.package_findings {
        let _ = writeln!(
            out,
            "package {:?} {} {:?}: {:?}",
            f.package,
            f.facts.kind(),
            f.severity,
            f.facts
        );
    }
    insta::assert_snapshot!(out);
}

/// `to` spelled relative to the current directory (`../../target/tmp/…`).
fn relative_to_cwd(to: &Path) -> PathBuf {
    let cwd = std::env::current_dir().expect("cwd");
    let cwd: Vec<_> = cwd.components().collect();
    let to_c: Vec<_> = to.components().collect();
    let common = cwd.iter().zip(&to_c).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..cwd.len() {
        rel.push("..");
    }
    for c in &to_c[common..] {
        rel.push(c.as_os_str());
    }
    rel
}

#[test]
fn relative_site_packages_is_the_same_environment() {
    let fx = fixtures();
    let abs = fx.join("site-packages");
    let rel = relative_to_cwd(&abs);
    assert!(rel.is_relative() && rel.is_dir(), "{}", rel.display());
    let cache = tempfile::tempdir().expect("tempdir");
    let opts = ScanOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        include_stray: true,
    };
    let first = scan(&Environment::open(&spec(&abs)), &opts, &|_, _| {});
    let rel_env = Environment::open(&spec(&rel));
    assert_eq!(rel_env.layout.site_packages, vec![abs.clone()]);
    // The same cache file: every library comes from the absolute scan's entries.
    let second = scan(&rel_env, &opts, &|_, _| {});
    assert_eq!(second.stats.from_cache, second.stats.libraries);
    // And without the cache, `$ORIGIN` resolves the same: the same verdicts and findings.
    let fresh = scan(
        &Environment::open(&spec(&rel)),
        &ScanOptions::default(),
        &|_, _| {},
    );
    let facts = |r: &abidoc_env::ScanReport| -> Vec<String> {
        r.libraries.iter().map(|l| render(l, fx)).collect()
    };
    assert_eq!(facts(&first), facts(&fresh));
    assert!(
        fresh.libraries.iter().any(|l| l
            .needed
            .iter()
            .any(|n| n.found.is_some() && n.name.contains("torch"))),
        "the fixtures resolve torch's libraries"
    );
}

#[test]
fn scan_reports_are_reused_by_later_checks() {
    let fx = fixtures();
    let env = Environment::open(&spec(&fx.join("site-packages")));
    let report = scan(&env, &ScanOptions::default(), &|_, _| {});
    let lib = report
        .libraries
        .iter()
        .find(|l| !l.findings.is_empty())
        .expect("a library with findings");
    let again = env.report(&lib.path);
    assert_eq!(&*again, lib);
    // The very report the scan made, not a new check.
    assert!(std::sync::Arc::ptr_eq(&again, &env.report(&lib.path)));
    assert_eq!(env.checked(&lib.path).as_deref(), Some(lib));
}

/// Libraries that fail to load alone but not in an import: a grafted `.libs` dependency found
/// through its loader's inherited DT_RPATH, and an extension whose package loads its sibling
/// library first, are information; the same layout without the preload stays an error.
#[test]
fn context_env_judges_libraries_as_imports_load_them() {
    let fx = fixtures();
    let sp = fx.join("context/site-packages");
    let env = Environment::open(&spec(&sp));
    let opts = ScanOptions {
        cache_dir: None,
        include_stray: true,
    };
    let report = scan(&env, &opts, &|_, _| {});
    let mut out = String::new();
    for r in report
        .libraries
        .iter()
        .filter(|r| !r.path.starts_with(sp.join("torch")))
    {
        out.push_str(&render(r, fx));
        out.push('\n');
    }
    insta::assert_snapshot!(out);
}

/// A library over 1 MiB is mapped, as torch's are, and keeps its export names in the mapping
/// (pages given back once read): it must answer exactly what the same bytes read into memory
/// answer, before and after its pages are given back.
#[test]
fn mapped_library_answers_as_the_bytes_read_into_memory() {
    use abidoc_env::LibFacts;
    use abidoc_env::fsguard::{Bytes, map_library};
    let p = fixtures().join("site-packages/torch/lib/libtorch_cpu.so");
    let bytes = map_library(&p).expect("map the fixture");
    assert!(
        matches!(bytes, Bytes::Mapped(_)),
        "the fixture libtorch_cpu must be large enough to be mapped"
    );
    let mapped = LibFacts::from_bytes(bytes).expect("parse mapped");
    let owned = LibFacts::parse(&std::fs::read(&p).expect("read")).expect("parse owned");
    let list = |f: &LibFacts| -> Vec<String> {
        f.exports()
            .map(|e| format!("{} {:?} {}", e.name, e.version, e.default))
            .collect()
    };
    assert!(
        list(&owned)
            .iter()
            .any(|e| e.starts_with("_ZN2at4_ops3sum4call"))
    );
    assert_eq!(list(&mapped), list(&owned));
    assert_eq!(mapped.export_hashes(), owned.export_hashes());
    let names = |f: &LibFacts| {
        let mut v = Vec::new();
        f.scan_names(|i, n| v.push((i, n.to_string())));
        v.sort();
        v
    };
    let want: Vec<(usize, String)> = {
        let mut prev = None;
        let mut v = Vec::new();
        for (i, e) in owned.exports().enumerate() {
            if prev != Some(e.name) {
                v.push((i, e.name.to_string()));
            }
            prev = Some(e.name);
        }
        v
    };
    assert_eq!(names(&owned), want);
    assert_eq!(names(&mapped), want);
    mapped.release_pages();
    for e in owned.exports() {
        for v in [None, e.version, Some("NO_SUCH_VERSION")] {
            assert_eq!(
                mapped.defines(e.name, v),
                owned.defines(e.name, v),
                "{} {v:?}",
                e.name
            );
        }
    }
    assert!(!mapped.defines(
        "_ZN2at4_ops3sum4callERKNS_6TensorESt8optionalIN3c1010ScalarTypeEEx",
        None
    ));
}

/// A copy of the main fixture environment in a tempdir, to be changed by a test.
fn copy_main_env() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(fixtures().join("site-packages"))
        .arg(dir.path())
        .status()
        .expect("run cp")
        .success();
    assert!(ok, "cp -a site-packages");
    let sp = dir.path().join("site-packages");
    (dir, sp)
}

/// Replaces `to` by a copy of `from` the way pip does: a new file renamed into place.
fn replace_file(from: &Path, to: &Path) {
    let tmp = to.with_extension("abidoc-test-new");
    std::fs::copy(from, &tmp).expect("copy");
    std::fs::rename(&tmp, to).expect("rename");
}

/// The cache's temporary file has an unpredictable name, is created exclusively and never
/// written through a planted symlink; the cache directory is private (0700) and the file 0600.
#[test]
fn scan_cache_is_private_and_never_written_through_a_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, sp) = copy_main_env();
    let home = tempfile::tempdir().expect("tempdir");
    let cache = home.path().join("cache/abidoc");
    let opts = ScanOptions {
        cache_dir: Some(cache.clone()),
        include_stray: true,
    };
    let first = scan(&Environment::open(&spec(&sp)), &opts, &|_, _| {});
    assert!(first.problems.iter().all(|p| !p.message.contains("cache")));
    let mode = |p: &Path| {
        std::fs::symlink_metadata(p)
            .expect("stat")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&cache), 0o700, "cache directory");
    let files: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("cache dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert_eq!(
        files.len(),
        1,
        "one cache file, no temporary left: {files:?}"
    );
    let json = files[0].clone();
    assert_eq!(mode(&json), 0o600, "cache file");
    // Plant symlinks at every name an attacker could predict (the old `NAME.tmpPID` scheme, for
    // this and nearby pids), pointing at a victim file, then make the scan rewrite its cache.
    let victim = home.path().join("victim");
    std::fs::write(&victim, "precious").expect("victim");
    let pid = std::process::id();
    for p in pid.saturating_sub(2)..pid + 3 {
        std::os::unix::fs::symlink(&victim, json.with_extension(format!("tmp{p}")))
            .expect("plant symlink");
    }
    std::fs::remove_file(&json).expect("drop cache");
    let second = scan(&Environment::open(&spec(&sp)), &opts, &|_, _| {});
    assert_eq!(second.stats.from_cache, 0);
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "precious"
    );
    let meta = std::fs::symlink_metadata(&json).expect("cache rewritten");
    assert!(
        meta.file_type().is_file(),
        "the cache is a file, not a link"
    );
    assert_eq!(mode(&json), 0o600);
    let third = scan(&Environment::open(&spec(&sp)), &opts, &|_, _| {});
    assert_eq!(third.stats.from_cache, third.stats.libraries);
}

/// Compiles C `source` into the shared library `out` with extra linker arguments.
fn cc_shared(out: &Path, source: &str, args: &[&str]) {
    let src = out.with_extension("c");
    std::fs::write(&src, source).expect("write source");
    let ok = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&src)
        .args(args)
        .status()
        .expect("run cc")
        .success();
    assert!(ok, "cc {}", out.display());
    std::fs::remove_file(&src).expect("remove source");
}

/// A cached verdict depends on the libraries the library loads: replacing its grafted
/// dependency by a build without the symbol it binds, then restoring it, must change the verdict
/// both ways although the extension's own file never changes.
#[test]
fn cached_verdicts_follow_their_dependencies() {
    use abidoc_env::Verdict;
    let dir = tempfile::tempdir().expect("tempdir");
    let sp = dir.path().join("site-packages");
    let libs = sp.join("pkg.libs");
    std::fs::create_dir_all(&libs).expect("mkdir");
    std::fs::create_dir_all(sp.join("pkg")).expect("mkdir");
    let good = dir.path().join("libdep-good.so.1");
    let broken = dir.path().join("libdep-broken.so.1");
    cc_shared(
        &good,
        "int dep_fn(void) { return 1; }\n",
        &["-Wl,-soname,libdep.so.1"],
    );
    cc_shared(
        &broken,
        "int dep_other(void) { return 2; }\n",
        &["-Wl,-soname,libdep.so.1"],
    );
    let dep = libs.join("libdep.so.1");
    std::fs::copy(&good, &dep).expect("install dep");
    let ext = sp.join("pkg/_ext.so");
    cc_shared(
        &ext,
        "int dep_fn(void);\nint PyInit__ext(void) { return dep_fn(); }\n",
        &[
            "-L",
            &libs.to_string_lossy(),
            "-l:libdep.so.1",
            "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../pkg.libs",
        ],
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let opts = ScanOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        include_stray: true,
    };
    let verdict = |expect_cached: bool| {
        let r = scan(&Environment::open(&spec(&sp)), &opts, &|_, _| {});
        if expect_cached {
            assert_eq!(r.stats.from_cache, r.stats.libraries, "all cached");
        }
        r.libraries
            .iter()
            .find(|l| l.path == ext)
            .map(|l| l.verdict)
            .expect("the extension scanned")
    };
    assert_eq!(verdict(false), Verdict::Loads);
    assert_eq!(verdict(true), Verdict::Loads);
    // Downgraded: dep_fn is gone, whatever the cache said.
    replace_file(&broken, &dep);
    assert_eq!(verdict(false), Verdict::Fails);
    assert_eq!(verdict(true), Verdict::Fails);
    // Restored.
    replace_file(&good, &dep);
    assert_eq!(verdict(false), Verdict::Loads);
    assert_eq!(verdict(true), Verdict::Loads);
}

/// A library importing `n` undefined own-namespace C++ names (`abidoc::miss::fNNNNNN()`), each
/// referenced twice, built with the system assembler and linker.
fn library_with_unresolved(dir: &Path, n: usize) -> PathBuf {
    let mut asm =
        String::from("\t.section .data.rel,\"aw\"\n\t.globl abidoc_table\nabidoc_table:\n");
    for i in 0..n {
        let _ = writeln!(asm, "\t.quad _ZN6abidoc4miss7f{i:06}Ev");
        let _ = writeln!(asm, "\t.quad _ZN6abidoc4miss7f{i:06}Ev");
    }
    let src = dir.join(format!("big{n}.s"));
    std::fs::write(&src, asm).expect("write asm");
    let lib = dir.join(format!("libbig{n}.so"));
    let ok = std::process::Command::new("cc")
        .args(["-shared", "-nostdlib", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("run cc")
        .success();
    assert!(ok, "cc -shared {}", src.display());
    lib
}

/// 200k unresolved symbols are checked, de-duplicated and classified in time linear in their
/// number: 4× the symbols must cost about 4× the time (a quadratic pass would cost 16×), and the
/// whole check stays within seconds even on a loaded machine.
#[test]
fn two_hundred_thousand_unresolved_symbols_are_checked_fast() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = Environment::open(&spec(&fixtures().join("site-packages")));
    let _ = env.process();
    let mut took = Vec::new();
    for n in [50_000, 200_000] {
        let lib = library_with_unresolved(dir.path(), n);
        let start = std::time::Instant::now();
        let cpu0 = process_cpu();
        let r = check_library(&env, &lib);
        took.push(start.elapsed());
        eprintln!("cpu {:?}", process_cpu().saturating_sub(cpu0));
        assert_eq!(r.verdict, abidoc_env::Verdict::Fails);
        assert_eq!(r.symbols.len(), n);
        let listed: usize = r
            .findings
            .iter()
            .map(|f| match &f.facts {
                FindingFacts::IncompleteBuild { symbols }
                | FindingFacts::UndefinedSymbols { symbols } => symbols.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(listed, n);
    }
    eprintln!("check of 50k / 200k unresolved symbols: {took:?}");
    assert!(took[1] < took[0] * 8, "superlinear: {took:?}");
    assert!(took[1] < std::time::Duration::from_secs(6), "{took:?}");
}

/// CPU time this process used so far (all threads; 10 ms ticks), from /proc/self/stat.
fn process_cpu() -> std::time::Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    std::time::Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// Writes a distribution's METADATA and RECORD (every file listed) into `sp`.
fn dist_info(sp: &Path, name: &str, version: &str, files: &[&str]) {
    let di = format!("{}-{version}.dist-info", name.replace('-', "_"));
    std::fs::create_dir_all(sp.join(&di)).expect("mkdir dist-info");
    std::fs::write(
        sp.join(&di).join("METADATA"),
        format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
    )
    .expect("write METADATA");
    let mut record = String::new();
    for f in files {
        let _ = writeln!(record, "{f},,");
    }
    let _ = writeln!(record, "{di}/METADATA,,\n{di}/RECORD,,");
    std::fs::write(sp.join(&di).join("RECORD"), record).expect("write RECORD");
}

/// A site-packages holding the context environment's torch (2.10.0+cu128, CUDA 12.8), a
/// bitsandbytes of `version` with one library per backend (`stems`: each needs its runtime,
/// absent here, except `cuda128` and `cpu`), and onnxruntime's TensorRT provider (which needs
/// TensorRT, absent).
fn backends_env(version: &str, stems: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sp = dir.path().join("site-packages");
    std::fs::create_dir_all(sp.join("bitsandbytes")).expect("mkdir");
    std::fs::create_dir_all(sp.join("onnxruntime/capi")).expect("mkdir");
    copy_context_torch(&sp);
    // The runtimes the libraries were linked against live outside every searched directory.
    let stubs = dir.path().join("stubs");
    std::fs::create_dir_all(&stubs).expect("mkdir");
    let runtime = |soname: &str| {
        cc_shared(
            &stubs.join(soname),
            "int runtime_fn(void) { return 0; }\n",
            &[&format!("-Wl,-soname,{soname}")],
        );
        format!("-l:{soname}")
    };
    let mut files = Vec::new();
    for stem in stems {
        let needs = match *stem {
            "libbitsandbytes_cuda118" => Some("libcudart.so.11.0"),
            "libbitsandbytes_cuda124" | "libbitsandbytes_cuda126" => Some("libcudart.so.12"),
            "libbitsandbytes_cuda130" => Some("libcudart.so.13"),
            "libbitsandbytes_rocm63" => Some("libamdhip64.so.6"),
            _ => None,
        };
        let file = format!("bitsandbytes/{stem}.so");
        let mut args = vec!["-L".to_owned(), stubs.display().to_string()];
        let body = match needs {
            Some(soname) => {
                args.push(runtime(soname));
                "int runtime_fn(void);\nint cquantize(void) { return runtime_fn(); }\n"
            }
            None => "int cquantize(void) { return 0; }\n",
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cc_shared(&sp.join(&file), body, &args);
        files.push(file);
    }
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    dist_info(&sp, "bitsandbytes", version, &files);
    let trt = "onnxruntime/capi/libonnxruntime_providers_tensorrt.so";
    let nvinfer = runtime("libnvinfer.so.10");
    cc_shared(
        &sp.join(trt),
        "int runtime_fn(void);\nint provider(void) { return runtime_fn(); }\n",
        &["-L", &stubs.display().to_string(), &nvinfer],
    );
    dist_info(&sp, "onnxruntime-gpu", "1.22.0", &[trt]);
    (dir, sp)
}

/// Copies the context environment's torch (2.10.0+cu128, CUDA 12.8) and its dist-info into `sp`.
fn copy_context_torch(sp: &Path) {
    let from = fixtures().join("context/site-packages");
    for e in std::fs::read_dir(&from)
        .expect("read context env")
        .flatten()
    {
        let n = e.file_name().to_string_lossy().into_owned();
        if n == "torch" || n.starts_with("torch-") {
            let ok = std::process::Command::new("cp")
                .arg("-r")
                .arg(e.path())
                .arg(sp)
                .status()
                .expect("run cp")
                .success();
            assert!(ok, "cp {n}");
        }
    }
}

/// Every library of `sp` but torch's: its verdict and its findings, by file name.
fn backend_verdicts(sp: &Path, vars: &[(&str, &str)]) -> String {
    scan_verdicts(
        sp,
        &EnvSpec {
            selector_vars: vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..spec(sp)
        },
        false,
    )
}

/// [`backend_verdicts`] of the environment `env_spec` opens; with `named`, a missing library's
/// finding names it.
fn scan_verdicts(sp: &Path, env_spec: &EnvSpec, named: bool) -> String {
    let env = Environment::open(env_spec);
    let opts = ScanOptions {
        cache_dir: None,
        include_stray: true,
    };
    let report = scan(&env, &opts, &|_, _| {});
    let mut out = String::new();
    let mut libs: Vec<_> = report
        .libraries
        .iter()
        .filter(|r| !r.path.starts_with(sp.join("torch")))
        .collect();
    libs.sort_by(|a, b| a.path.cmp(&b.path));
    for f in &report.package_findings {
        let _ = writeln!(
            out,
            "package {} {}: {:?} {:?}",
            f.package.as_deref().unwrap_or("-"),
            f.package_version.as_deref().unwrap_or("-"),
            f.severity,
            f.facts
        );
    }
    for r in libs {
        let name = r.path.strip_prefix(sp).unwrap_or(&r.path).display();
        let _ = writeln!(out, "{name}: {:?}", r.verdict);
        for f in &r.findings {
            let what = match &f.facts {
                FindingFacts::MissingLibrary { name, .. } if named => {
                    format!("{} {name}", f.facts.kind())
                }
                other => other.kind().to_owned(),
            };
            let _ = writeln!(
                out,
                "  {:?} {what}{}",
                f.severity,
                f.downgraded
                    .as_deref()
                    .map(|d| format!(" (moot={}: {d})", f.moot))
                    .unwrap_or_default()
            );
        }
    }
    out
}

/// Of a package's per-backend libraries only the one its import loads is judged: bitsandbytes'
/// for torch's CUDA 12.8 (exactly, before 0.50; the nearest of the same major after), the one
/// `BNB_CUDA_VERSION` names, and none of onnxruntime's providers (loaded on request). The
/// others fail alone, as the real loader says, and are information with no fix.
#[test]
fn per_backend_libraries_are_judged_as_the_import_picks_them() {
    let all = [
        "libbitsandbytes_cpu",
        "libbitsandbytes_cuda118",
        "libbitsandbytes_cuda124",
        "libbitsandbytes_cuda128",
        "libbitsandbytes_cuda130",
        "libbitsandbytes_rocm63",
    ];
    let (_keep, sp) = backends_env("0.49.0", &all);
    let mut out = String::from("# bitsandbytes 0.49.0, torch CUDA 12.8\n");
    out.push_str(&backend_verdicts(&sp, &[]));
    out.push_str("\n# BNB_CUDA_VERSION=124\n");
    out.push_str(&backend_verdicts(&sp, &[("BNB_CUDA_VERSION", "124")]));
    let (_keep2, sp2) = backends_env(
        "0.50.0",
        &[
            "libbitsandbytes_cpu",
            "libbitsandbytes_cuda118",
            "libbitsandbytes_cuda126",
            "libbitsandbytes_cuda130",
        ],
    );
    out.push_str("\n# bitsandbytes 0.50.0 without a CUDA 12.8 library: 12.6 is loaded\n");
    out.push_str(&backend_verdicts(&sp2, &[]));
    // Before 0.50 no other library stands in: the one for 12.8 is absent, so the package is
    // reported (its GPU functions fail) and its libraries stay information.
    let (_keep3, sp3) = backends_env(
        "0.45.5",
        &[
            "libbitsandbytes_cpu",
            "libbitsandbytes_cuda118",
            "libbitsandbytes_cuda124",
        ],
    );
    out.push_str("\n# bitsandbytes 0.45.5 without a CUDA 12.8 library\n");
    out.push_str(&backend_verdicts(&sp3, &[]));
    insta::assert_snapshot!(out);
}

/// A site-packages holding the context environment's torch, torchcodec 0.17's layout (one set of
/// libraries per FFmpeg major 8, 7, 6: `libtorchcodec_core{N}.so` needing that major's
/// `libavutil`, `libtorchcodec_custom_ops{N}.so` needing the core, by name, and the same
/// `libavutil`; the FFmpeg-free `libtorchcodec_pybind_ops.so`; `libtorchcodec_heic.so` needing
/// libheif), and torchaudio's FFmpeg 6 backend (`torio/lib/libtorio_ffmpeg6.so`). Each FFmpeg
/// major's `libavutil` is built into `ffmpeg/N/` of the returned directory, which no search path
/// names until a test puts it on `LD_LIBRARY_PATH`; libheif is never found. With `other_torch`, each core also binds a
/// function this torch does not export (built for another torch).
fn torchcodec_env(other_torch: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sp = dir.path().join("site-packages");
    std::fs::create_dir_all(sp.join("torchcodec")).expect("mkdir");
    std::fs::create_dir_all(sp.join("torio/lib")).expect("mkdir");
    copy_context_torch(&sp);
    // FFmpeg N's libavutil is libavutil.so.(N + 52) (FFmpeg 6: .58, 7: .59, 8: .60); these
    // add 900, which no installed FFmpeg has, so this machine's own FFmpeg never answers.
    let avutil = |major: u32| {
        let soname = format!("libavutil.so.{}", major + 952);
        let at = dir.path().join(format!("ffmpeg/{major}"));
        std::fs::create_dir_all(&at).expect("mkdir");
        cc_shared(
            &at.join(&soname),
            "int av_log_get_level(void) { return 0; }\n",
            &[&format!("-Wl,-soname,{soname}")],
        );
        (at.display().to_string(), format!("-l:{soname}"))
    };
    let tc = sp.join("torchcodec");
    let mut files = Vec::new();
    for major in [8, 7, 6] {
        let (ffdir, link) = avutil(major);
        let core = format!("libtorchcodec_core{major}.so");
        let body = if other_torch {
            "int av_log_get_level(void); int at_removed_op(void);\n\
             int core_fn(void) { return av_log_get_level() + at_removed_op(); }\n"
        } else {
            "int av_log_get_level(void);\nint core_fn(void) { return av_log_get_level(); }\n"
        };
        cc_shared(
            &tc.join(&core),
            body,
            &[&format!("-Wl,-soname,{core}"), "-L", &ffdir, &link],
        );
        // DT_NEEDED names the core, with no search path: torchcodec loads the core first.
        cc_shared(
            &tc.join(format!("libtorchcodec_custom_ops{major}.so")),
            "int core_fn(void); int av_log_get_level(void);\n\
             int ops_fn(void) { return core_fn() + av_log_get_level(); }\n",
            &[
                "-L",
                &tc.display().to_string(),
                &format!("-l:{core}"),
                "-L",
                &ffdir,
                &link,
            ],
        );
        files.push(format!("torchcodec/{core}"));
        files.push(format!("torchcodec/libtorchcodec_custom_ops{major}.so"));
    }
    cc_shared(
        &tc.join("libtorchcodec_pybind_ops.so"),
        "int pybind_fn(void) { return 0; }\n",
        &[],
    );
    files.push("torchcodec/libtorchcodec_pybind_ops.so".into());
    // libheif.so.1 in the real library; .901 for the same reason as FFmpeg's.
    let heif = dir.path().join("heif");
    std::fs::create_dir_all(&heif).expect("mkdir");
    cc_shared(
        &heif.join("libheif.so.901"),
        "int heif_fn(void) { return 0; }\n",
        &["-Wl,-soname,libheif.so.901"],
    );
    cc_shared(
        &tc.join("libtorchcodec_heic.so"),
        "int heif_fn(void); int heic_fn(void) { return heif_fn(); }\n",
        &["-L", &heif.display().to_string(), "-l:libheif.so.901"],
    );
    files.push("torchcodec/libtorchcodec_heic.so".into());
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    dist_info(&sp, "torchcodec", "0.17.0", &files);
    let (ffdir, link) = avutil(6);
    let torio = "torio/lib/libtorio_ffmpeg6.so";
    cc_shared(
        &sp.join(torio),
        "int av_log_get_level(void); int torio_fn(void) { return av_log_get_level(); }\n",
        &["-L", &ffdir, &link],
    );
    dist_info(&sp, "torchaudio", "2.8.0", &[torio]);
    (dir, sp)
}

/// A missing FFmpeg is judged by who needs it: torchcodec's decoding cannot load without one of
/// the FFmpeg majors it has a set of libraries for, so with none installed its cores' missing
/// FFmpeg libraries are errors; with FFmpeg 7 on the search path the 7 set loads and the 8 and 6
/// sets are information with no fix (torchcodec tries 8, then uses 7, never tries 6); built for
/// another torch with FFmpeg 6 installed, only the 6 set's error stands. torchaudio's FFmpeg
/// backend, loaded only when asked for, and torchcodec's lazily loaded HEIC library are
/// information in every case.
#[test]
fn a_missing_ffmpeg_is_an_error_only_where_the_import_needs_it() {
    let (dir, sp) = torchcodec_env(false);
    let ffmpeg = |major: u32| {
        dir.path()
            .join(format!("ffmpeg/{major}"))
            .display()
            .to_string()
    };
    let mut out = String::from("# torchcodec 0.17.0, no FFmpeg installed\n");
    out.push_str(&scan_verdicts(&sp, &spec(&sp), true));
    out.push_str("\n# FFmpeg 7 on LD_LIBRARY_PATH\n");
    out.push_str(&scan_verdicts(
        &sp,
        &EnvSpec {
            ld_library_path: Some(ffmpeg(7)),
            ..spec(&sp)
        },
        true,
    ));
    let (dir2, sp2) = torchcodec_env(true);
    out.push_str("\n# torchcodec built for another torch, FFmpeg 6 on LD_LIBRARY_PATH\n");
    out.push_str(&scan_verdicts(
        &sp2,
        &EnvSpec {
            ld_library_path: Some(dir2.path().join("ffmpeg/6").display().to_string()),
            ..spec(&sp2)
        },
        true,
    ));
    insta::assert_snapshot!(out);
}

/// A site-packages with the layouts a real CUDA 13 environment showed (an H100's, read by
/// `lab/import_referee.py`): mpi4py's one MPI module per MPI library (`MPI.mpich` needing
/// MPICH's libmpi, `MPI.openmpi` Open MPI's), numba's threading layers (TBB's needing libtbb,
/// the workqueue needing nothing), and CuPy's bindings of its core and optional CUDA libraries.
/// The sonames carry numbers no real library has, so this machine's own MPI never answers.
fn providers_env() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sp = dir.path().join("site-packages");
    let stubs = dir.path().join("stubs");
    for d in ["mpi4py", "numba/np/ufunc", "cupy_backends/cuda/libs"] {
        std::fs::create_dir_all(sp.join(d)).expect("mkdir");
    }
    std::fs::create_dir_all(&stubs).expect("mkdir");
    copy_context_torch(&sp);
    let lib = |file: &str, needs: Option<&str>| {
        let mut args = vec!["-L".to_owned(), stubs.display().to_string()];
        let body = match needs {
            Some(soname) => {
                cc_shared(
                    &stubs.join(soname),
                    "int runtime_fn(void) { return 0; }\n",
                    &[&format!("-Wl,-soname,{soname}")],
                );
                args.push(format!("-l:{soname}"));
                "int runtime_fn(void);\nint module_fn(void) { return runtime_fn(); }\n"
            }
            None => "int module_fn(void) { return 0; }\n",
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cc_shared(&sp.join(file), body, &args);
    };
    let mpich = "mpi4py/MPI.mpich.cpython-312-x86_64-linux-gnu.so";
    let openmpi = "mpi4py/MPI.openmpi.cpython-312-x86_64-linux-gnu.so";
    lib(mpich, Some("libmpi.so.912"));
    lib(openmpi, Some("libmpi.so.940"));
    dist_info(&sp, "mpi4py", "4.1.2", &[mpich, openmpi]);
    let tbb = "numba/np/ufunc/tbbpool.cpython-312-x86_64-linux-gnu.so";
    let wq = "numba/np/ufunc/workqueue.cpython-312-x86_64-linux-gnu.so";
    lib(tbb, Some("libtbb.so.912"));
    lib(wq, None);
    dist_info(&sp, "numba", "0.62.1", &[tbb, wq]);
    let cutensor = "cupy_backends/cuda/libs/cutensor.cpython-312-x86_64-linux-gnu.so";
    let cublas = "cupy_backends/cuda/libs/cublas.cpython-312-x86_64-linux-gnu.so";
    lib(cutensor, Some("libcutensor.so.902"));
    lib(cublas, Some("libcublas.so.913"));
    dist_info(&sp, "cupy-cuda13x", "14.2.0", &[cutensor, cublas]);
    // Every stub but Open MPI's and cuBLAS's leaves: those two are what this machine has.
    let have = dir.path().join("have");
    std::fs::create_dir_all(&have).expect("mkdir");
    for so in ["libmpi.so.940", "libcublas.so.913"] {
        std::fs::rename(stubs.join(so), have.join(so)).expect("move stub");
    }
    let have = have.display().to_string();
    (dir, sp, have)
}

/// A package that picks one of several modules by what is installed, or loads some only when
/// a feature is used, is judged as its import meets them: with Open MPI installed only mpi4py's
/// Open MPI module is used (MPICH's missing library is information with no fix), and with no
/// MPI at all both stand (either library, installed, would do); numba's TBB threading layer and
/// CuPy's cuTENSOR binding are never loaded by their package's import, while CuPy's cuBLAS
/// binding without cuBLAS stays an error.
#[test]
fn variant_and_optional_modules_are_judged_as_the_import_meets_them() {
    let (_keep, sp, have) = providers_env();
    let mut out = String::from("# Open MPI and cuBLAS on LD_LIBRARY_PATH\n");
    out.push_str(&scan_verdicts(
        &sp,
        &EnvSpec {
            ld_library_path: Some(have),
            ..spec(&sp)
        },
        true,
    ));
    out.push_str("\n# nothing on LD_LIBRARY_PATH\n");
    out.push_str(&scan_verdicts(&sp, &spec(&sp), true));
    insta::assert_snapshot!(out);
}

/// The environment's lazy state (RECORD owners, the process model) is built on first use, which
/// may come from inside a parallel check: built with forks there, a worker waiting on its forks
/// could steal another check that needs the same state and block on it forever (seen as a hung
/// `scan` on a 16-core machine). Fresh environments, many workers, one check per task.
#[test]
fn first_use_inside_a_parallel_check_never_deadlocks() {
    use rayon::prelude::*;
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let libs =
        abidoc_env::scan::find_libraries(&Environment::open(&spec(&sp)), true, &mut Vec::new());
    assert!(libs.len() > 5, "{libs:?}");
    for round in 0..12 {
        let (tx, rx) = std::sync::mpsc::channel();
        let (libs, sp) = (libs.clone(), sp.clone());
        std::thread::spawn(move || {
            let env = Environment::open(&spec(&sp));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(8)
                .build()
                .expect("a pool");
            pool.install(|| {
                libs.par_iter().with_max_len(1).for_each(|l| {
                    let _ = check_library(&env, l);
                });
            });
            let _ = tx.send(());
        });
        assert!(
            rx.recv_timeout(std::time::Duration::from_secs(120)).is_ok(),
            "round {round}: the checks never finished (a deadlock on the environment's lazy state)"
        );
    }
}

/// glibc 2.41 and later refuse to `dlopen` an object asking for an executable stack: the check
/// reads which glibc the interpreter's own libc.so.6 is (its version definitions), so the same
/// library fails under a 2.41 interpreter and loads under a 2.40 one.
#[test]
fn an_executable_stack_fails_under_glibc_2_41_only() {
    let fx = fixtures();
    let lib = fx.join("build/execstack/libexecstack.so");
    let quiet = fx.join("build/execstack/libnoexecstack.so");
    let sp = fx.join("site-packages");
    let refused = |glibc: &str, lib: &Path| {
        let mut s = spec(&sp);
        s.python = Some(fx.join(format!("build/fakepy-{glibc}/bin/python3")));
        let env = Environment::open(&s);
        assert!(env.layout.interpreter.is_some(), "{glibc}: no interpreter");
        check_library(&env, lib)
            .findings
            .iter()
            .any(|f| matches!(&f.facts, FindingFacts::ExecutableStack { object } if object == lib))
    };
    assert!(
        refused("2.41", &lib),
        "glibc 2.41 refuses an executable stack"
    );
    assert!(!refused("2.40", &lib), "glibc 2.40 grants it");
    assert!(!refused("2.41", &quiet), "no executable stack asked for");
}
