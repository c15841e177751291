//! Finding the environment a user means when nothing names it: `python3`, then `python`, on
//! `PATH`, resolved statically through links, `pyvenv.cfg` and pyenv shims, over fake
//! interpreter layouts built here (the "interpreters" are never run: they are not programs).

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use abidoc_env::{EnvSpec, discover};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn mkdir(p: &Path) {
    std::fs::create_dir_all(p).expect("mkdir");
}

/// A file that is not a script: what an interpreter binary looks like to a reader.
fn binary(p: &Path) {
    mkdir(p.parent().expect("parent"));
    std::fs::write(p, b"\x7fELF not really").expect("write");
}

fn script(p: &Path, text: &str) {
    mkdir(p.parent().expect("parent"));
    std::fs::write(p, text).expect("write");
}

fn link(target: &Path, at: &Path) {
    mkdir(at.parent().expect("parent"));
    std::os::unix::fs::symlink(target, at).expect("symlink");
}

/// A CPython installation under `prefix`: `bin/python{v}` and its site-packages.
fn install(prefix: &Path, v: &str) -> PathBuf {
    let exe = prefix.join(format!("bin/python{v}"));
    binary(&exe);
    mkdir(&prefix.join(format!("lib/python{v}/site-packages")));
    exe
}

/// What discovery answered, with the temporary root as `$T`.
fn describe(spec: &EnvSpec, t: &Path) -> String {
    let (layout, problems) = discover(spec);
    let rel = |p: &Path| {
        p.strip_prefix(t)
            .map(|r| format!("$T/{}", r.display()))
            .unwrap_or_else(|_| p.display().to_string())
    };
    let mut s = format!("origin: {:?}\n", layout.origin);
    if let Some(f) = &layout.found_as {
        let _ = writeln!(s, "found as: {}", rel(f));
    }
    if let Some(i) = &layout.interpreter {
        let _ = writeln!(s, "interpreter: {}", rel(i));
    }
    for sp in &layout.site_packages {
        let _ = writeln!(s, "site-packages: {}", rel(sp));
    }
    let _ = writeln!(s, "venv: {}", layout.is_venv);
    for p in problems {
        let _ = writeln!(
            s,
            "problem: {}",
            p.to_string().replace(&t.display().to_string(), "$T")
        );
    }
    s
}

fn spec(t: &Path, path: &[&str]) -> EnvSpec {
    EnvSpec {
        path_var: Some(
            path.iter()
                .map(|d| t.join(d).display().to_string())
                .collect::<Vec<_>>()
                .join(":"),
        ),
        cwd: Some(t.join("project")),
        ..EnvSpec::default()
    }
}

#[test]
fn python_on_path_is_found_statically() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The temporary directory may itself sit behind a link (macOS /var): compare resolved paths.
    let t = std::fs::canonicalize(dir.path()).expect("canonicalize");
    mkdir(&t.join("project"));
    mkdir(&t.join("empty"));

    // A distribution's interpreter: /usr/local/bin/python3 → python3.12.
    let real = install(&t.join("usr"), "3.12");
    link(&real, &t.join("usr/bin/python3"));
    // A virtualenv whose python3 links to that interpreter, found first on PATH.
    link(&real, &t.join("venv/bin/python3"));
    std::fs::write(
        t.join("venv/pyvenv.cfg"),
        format!("home = {}\nversion = 3.12.4\n", t.join("usr/bin").display()),
    )
    .expect("pyvenv.cfg");
    mkdir(&t.join("venv/lib/python3.12/site-packages"));
    // Only `python`, no `python3`.
    let only = install(&t.join("only"), "3.11");
    link(&only, &t.join("only/bin/python"));
    // pyenv: a shim script and two installed versions.
    let pyenv = t.join("pyenv");
    script(
        &pyenv.join("shims/python3"),
        "#!/usr/bin/env bash\nexec pyenv exec \"$0\" \"$@\"\n",
    );
    for v in ["3.11.7", "3.13.1"] {
        let short = &v[..v.rfind('.').expect("dot")];
        let exe = install(&pyenv.join("versions").join(v), short);
        link(&exe, &pyenv.join("versions").join(v).join("bin/python3"));
    }
    std::fs::write(pyenv.join("version"), "3.11.7\n").expect("pyenv version");
    // Some other wrapper script.
    script(
        &t.join("wrapper/python3"),
        "#!/bin/sh\nexec /opt/python3 \"$@\"\n",
    );

    let mut out = String::new();
    let mut case = |what: &str, s: EnvSpec| {
        let _ = writeln!(out, "## {what}\n{}", describe(&s, &t));
    };
    case(
        "python3 links to a versioned interpreter",
        spec(&t, &["empty", "usr/bin"]),
    );
    case(
        "a virtualenv's python3 comes first on PATH",
        spec(&t, &["venv/bin", "usr/bin"]),
    );
    case(
        "no python3 anywhere: python",
        spec(&t, &["empty", "only/bin"]),
    );
    case(
        "a pyenv shim: pyenv's global version",
        spec(&t, &["pyenv/shims", "usr/bin"]),
    );
    let mut s = spec(&t, &["pyenv/shims", "usr/bin"]);
    s.pyenv_version = Some("3.13.1".into());
    case("a pyenv shim: PYENV_VERSION", s);
    std::fs::write(t.join("project/.python-version"), "system\n").expect("write");
    case(
        "a pyenv shim: .python-version says system",
        spec(&t, &["pyenv/shims", "usr/bin"]),
    );
    case(
        "another script is skipped, with a note",
        spec(&t, &["wrapper", "usr/bin"]),
    );
    case("nothing on PATH", spec(&t, &["empty"]));
    insta::assert_snapshot!(out);
}

/// `--site-packages` outside `lib/pythonX.Y/` with `--python`: the Python version comes from
/// the interpreter, read statically (pyvenv.cfg, the name it resolves to, `lib/pythonX.Y`
/// beside it), never from the site directory's name; without `--python` it stays unknown.
#[test]
fn site_packages_elsewhere_takes_the_interpreters_python_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path();
    let site = t.join("opt/app/site");
    mkdir(&site);
    let version = |python: Option<PathBuf>| {
        let spec = EnvSpec {
            site_packages: vec![site.clone()],
            python,
            ..EnvSpec::default()
        };
        discover(&spec).0.python_version
    };
    assert_eq!(version(None), None);
    // The interpreter's resolved name: python3 → python3.12.
    let real = install(&t.join("usr"), "3.12");
    link(&real, &t.join("usr/bin/python3"));
    assert_eq!(
        version(Some(t.join("usr/bin/python3"))).as_deref(),
        Some("3.12")
    );
    // A virtualenv's pyvenv.cfg says the version its link does not.
    binary(&t.join("base/bin/python"));
    link(&t.join("base/bin/python"), &t.join("venv/bin/python"));
    script(
        &t.join("venv/pyvenv.cfg"),
        "home = /nowhere/bin\nversion = 3.11.9\n",
    );
    assert_eq!(
        version(Some(t.join("venv/bin/python"))).as_deref(),
        Some("3.11")
    );
    // No name and no cfg: the `lib/pythonX.Y` beside it.
    binary(&t.join("plain/bin/python"));
    mkdir(&t.join("plain/lib/python3.10"));
    assert_eq!(
        version(Some(t.join("plain/bin/python"))).as_deref(),
        Some("3.10")
    );
}
