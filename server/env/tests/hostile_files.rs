//! Hostile metadata on disk (issue #17): non-ASCII version labels in every reader, and METADATA,
//! RECORD, version.py and friends that are symlinks into /proc or /dev, FIFOs or directories. Each
//! must give a value plus a problem, quickly, and never panic, hang or read without bound.

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used)]

use abidoc_env::dist::Distribution;
use abidoc_env::{BuildLabel, DirectUrl, EnvSpec, Environment, ScanOptions, fsguard, scan};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A tiny environment: torch (version.py + dist-info) and the given extra files, in a tempdir.
fn site(extra: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sp = dir.path().join("lib/python3.12/site-packages");
    let mut files: Vec<(&str, &str)> = vec![
        (
            "torch/version.py",
            "__version__ = '2.5.1+cu121'\ncuda: Optional[str] = '12.1'\n",
        ),
        (
            "torch-2.5.1.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu121\n",
        ),
        ("torch-2.5.1.dist-info/RECORD", "torch/version.py,,\n"),
    ];
    files.extend_from_slice(extra);
    for (rel, text) in files {
        let p = sp.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write fixture");
    }
    (dir, sp)
}

fn spec(sp: &Path) -> EnvSpec {
    EnvSpec {
        site_packages: vec![sp.to_path_buf()],
        has_nvidia_driver: Some(false),
        ..EnvSpec::default()
    }
}

/// Runs `f` on a thread and fails the test if it takes 2 s or more: a read that hangs on a FIFO
/// or streams /proc/self/pagemap (hundreds of GB) must not hang the test run with it.
fn fast<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    let out = rx.recv_timeout(Duration::from_secs(2));
    assert!(out.is_ok(), "{what}: still running after 2 s");
    let out = out.expect("checked above");
    assert!(start.elapsed() < Duration::from_secs(2), "{what}: too slow");
    out
}

// ---- 1. non-ASCII version labels -------------------------------------------------------------

#[test]
fn non_ascii_label_in_metadata_version_is_read_and_scanned() {
    let (_d, sp) = site(&[(
        "torchvision-0.20.1.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.20.1+é\n",
    )]);
    let env = Environment::open(&spec(&sp));
    let tv = env
        .dists
        .iter()
        .find(|d| d.normalized == "torchvision")
        .expect("torchvision read");
    assert_eq!(tv.version.as_deref(), Some("0.20.1+é"));
    // package_findings reads the version's label (torchvision's CUDA check).
    let report = scan(&env, &ScanOptions::default(), &|_, _| {});
    assert!(report.package_findings.iter().all(|f| !matches!(
        f.facts,
        abidoc_env::check::FindingFacts::CudaMismatch { .. }
    )));
}

#[test]
fn non_ascii_labels_parse_without_panicking() {
    for text in [
        "2.5.0+é",
        "é",
        "+cu12é",
        "2.6.3+cu12torch2.5é",
        "+cxx11abiéfalse",
        "+torché2.5",
        "+rocmé6.1",
        "+ptéé25",
        "+cpu\u{1F600}cu121",
    ] {
        let _ = BuildLabel::parse(text);
    }
    assert_eq!(
        BuildLabel::parse("2.6.3+cu12torch2.5é").and_then(|l| l.torch),
        Some("2.5".to_string())
    );
}

#[test]
fn non_ascii_direct_url_is_read() {
    let (_d, sp) = site(&[
        (
            "flash_attn-2.6.3.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.6.3\n",
        ),
        (
            "flash_attn-2.6.3.dist-info/direct_url.json",
            r#"{"archive_info": {}, "url": "https://例え.example/flash_attn-2.6.3+cu12torch2.5é-cp312-cp312-linux_x86_64.whl"}"#,
        ),
    ]);
    let (d, problems) = Distribution::read(&sp.join("flash_attn-2.6.3.dist-info"));
    assert!(problems.is_empty(), "{problems:?}");
    let du = d.and_then(|d| d.direct_url).expect("direct_url read");
    assert_eq!(du.label.and_then(|l| l.cuda), Some("12".to_string()));
    // Percent-encoded non-ASCII (and a stray `%` before a multi-byte char) decodes without panic.
    let du = DirectUrl::parse(
        r#"{"url": "https://x/flash_attn-2.6.3%2Bcu12torch2.5%C3%A9%é-cp312-cp312-linux_x86_64.whl"}"#,
    )
    .expect("json");
    assert!(du.wheel.is_some_and(|w| w.contains("é")));
}

#[test]
fn non_ascii_torch_version_py_is_read() {
    let (_d, sp) = site(&[]);
    std::fs::write(
        sp.join("torch/version.py"),
        "__version__ = '2.5.0+é'\ncuda = None\n",
    )
    .expect("write");
    let env = Environment::open(&spec(&sp));
    let t = env.torch.as_ref().expect("torch found");
    assert_eq!(t.version.as_deref(), Some("2.5.0+é"));
    let _ = scan(&env, &ScanOptions::default(), &|_, _| {});
}

#[test]
fn non_ascii_mangled_names_are_classified_without_panicking() {
    use abidoc_env::classify::{is_own_symbol, qualified_prefix};
    for name in [
        "_ZN2aé1xE",
        "_ZN3aé1xEv",
        "_Z2é",
        "_ZN1aB2é1xE",
        "_ZN1a1éE",
        "_ZNé",
    ] {
        let _ = qualified_prefix(name);
        let _ = is_own_symbol(name);
    }
}

// ---- 2. reads that cannot hang or balloon ------------------------------------------------------

fn symlink(target: &Path, link: &Path) {
    let _ = std::fs::remove_file(link);
    let _ = std::fs::remove_dir_all(link);
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("run mkfifo")
        .success();
    assert!(ok, "mkfifo failed");
}

/// The problems `Distribution::read` gives for a METADATA replaced by `make`.
fn metadata_problems(make: impl FnOnce(&Path)) -> Vec<String> {
    let (d, sp) = site(&[(
        "pkg-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
    )]);
    let meta = sp.join("pkg-1.0.dist-info/METADATA");
    make(&meta);
    let di = sp.join("pkg-1.0.dist-info");
    let (dist, problems) = fast("Distribution::read", move || Distribution::read(&di));
    drop(d);
    // The name and version from the directory name stand in.
    let dist = dist.expect("a distribution from the directory name");
    assert_eq!(dist.version.as_deref(), Some("1.0"));
    problems.into_iter().map(|p| p.message).collect()
}

#[test]
fn metadata_symlink_into_proc_is_refused_fast() {
    let msgs = metadata_problems(|m| symlink(Path::new("/proc/self/pagemap"), m));
    assert!(
        msgs.iter().any(|m| m.contains("/proc")),
        "no /proc note: {msgs:?}"
    );
    let msgs = metadata_problems(|m| symlink(Path::new("/proc/kmsg"), m));
    assert!(
        msgs.iter().any(|m| m.contains("/proc")),
        "no /proc note: {msgs:?}"
    );
}

#[test]
fn metadata_symlink_into_dev_is_refused_fast() {
    let msgs = metadata_problems(|m| symlink(Path::new("/dev/zero"), m));
    assert!(!msgs.is_empty());
    // A regular file under /dev (tmpfs /dev/shm) is refused for where it is, after resolution.
    if Path::new("/dev/shm").is_dir() {
        let victim = PathBuf::from(format!("/dev/shm/abidoc-test-{}", std::process::id()));
        if std::fs::write(&victim, "Name: shm\nVersion: 9\n").is_ok() {
            let v = victim.clone();
            let msgs = metadata_problems(move |m| symlink(&v, m));
            let _ = std::fs::remove_file(&victim);
            assert!(
                msgs.iter().any(|m| m.contains("/dev")),
                "no /dev note: {msgs:?}"
            );
        }
    }
}

#[test]
fn metadata_fifo_and_directory_are_refused_fast() {
    let msgs = metadata_problems(mkfifo);
    assert!(
        msgs.iter().any(|m| m.contains("not a regular file")),
        "{msgs:?}"
    );
    let msgs = metadata_problems(|m| {
        let _ = std::fs::remove_file(m);
        std::fs::create_dir(m).expect("mkdir METADATA");
    });
    assert!(msgs.iter().any(|m| m.contains("directory")), "{msgs:?}");
}

#[test]
fn record_symlinks_and_fifo_are_refused_fast() {
    let (_d, sp) = site(&[(
        "pkg-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
    )]);
    let record = sp.join("pkg-1.0.dist-info/RECORD");
    let di = sp.join("pkg-1.0.dist-info");
    for make in [
        (|r: &Path| symlink(Path::new("/proc/self/pagemap"), r)) as fn(&Path),
        |r: &Path| symlink(Path::new("/proc/kmsg"), r),
        |r: &Path| symlink(Path::new("/dev/urandom"), r),
        |r: &Path| mkfifo(r),
    ] {
        make(&record);
        let di = di.clone();
        let (files, problems) = fast("Distribution::files", move || {
            let (d, _) = Distribution::read(&di);
            d.expect("dist").files()
        });
        assert!(files.is_empty());
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
    // The whole environment opens and scans fast with it, and says why RECORD was not read.
    symlink(Path::new("/proc/self/pagemap"), &record);
    let s = spec(&sp);
    let report = fast("scan", move || {
        let env = Environment::open(&s);
        scan(&env, &ScanOptions::default(), &|_, _| {})
    });
    assert_eq!(report.libraries.len(), 0);
}

#[test]
fn torch_version_py_and_direct_url_into_proc_are_refused_fast() {
    let (_d, sp) = site(&[
        (
            "pkg-1.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
        ),
        ("pkg-1.0.dist-info/direct_url.json", "{}"),
    ]);
    symlink(
        Path::new("/proc/self/pagemap"),
        &sp.join("torch/version.py"),
    );
    symlink(
        Path::new("/proc/self/pagemap"),
        &sp.join("pkg-1.0.dist-info/direct_url.json"),
    );
    let s = spec(&sp);
    let env = fast("Environment::open", move || Environment::open(&s));
    // The dist-info's version stands in for version.py's.
    assert_eq!(
        env.torch.as_ref().and_then(|t| t.version.as_deref()),
        Some("2.5.1+cu121")
    );
    let notes: Vec<String> = env.problems.iter().map(ToString::to_string).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("direct_url.json") && n.contains("/proc")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("version.py") && n.contains("/proc")),
        "{notes:?}"
    );
}

#[test]
fn guarded_reads_resolve_first_and_are_capped() {
    let dir = tempfile::tempdir().expect("tempdir");
    // pyvenv.cfg, cpp_lib.json, ld.so.cache: every reader goes through fsguard.
    for (name, target) in [
        ("pyvenv.cfg", "/proc/self/pagemap"),
        ("cpp_lib.json", "/proc/self/status"),
        ("ld.so.cache", "/sys/kernel/notes"),
    ] {
        let link = dir.path().join(name);
        symlink(Path::new(target), &link);
        let l = link.clone();
        let r = fast("read_text", move || fsguard::read_text(&l));
        let e = r.expect_err("refused");
        assert!(e.contains("/proc") || e.contains("/sys"), "{name}: {e}");
        let l = link.clone();
        let r = fast("map_library", move || fsguard::map_library(&l));
        assert!(r.is_err(), "{name}");
    }
    // A chain of symlinks ending in /proc is resolved to the end.
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    symlink(Path::new("/proc/self/pagemap"), &b);
    symlink(&b, &a);
    let e = fast("read_text", move || fsguard::read_text(&a)).expect_err("refused");
    assert!(e.contains("/proc"), "{e}");
    // The cap is on bytes read, not on the size the file reports.
    let big = dir.path().join("big");
    std::fs::write(&big, vec![b'x'; 4096]).expect("write");
    let e = fsguard::read_capped(&big, 100).expect_err("over the cap");
    assert!(e.contains("100"), "{e}");
    assert_eq!(fsguard::read_capped(&big, 4096).map(|b| b.len()), Ok(4096));
    // A symlink loop gives its own message.
    let l1 = dir.path().join("loop1");
    let l2 = dir.path().join("loop2");
    symlink(&l2, &l1);
    symlink(&l1, &l2);
    let e = fsguard::read_text(&l1).expect_err("loop");
    assert!(e.contains("loop"), "{e}");
}
