//! The human output a person meets first, on the built binary: a scan of an environment with
//! several broken imports and many notes answers in one screen (errors first, each with its
//! fix; the notes folded into counts; a table), while `--verbose` and JSON keep every finding;
//! `scan` with nothing set uses the `python3` on `PATH` and says so; an unrecognized failure
//! says what was read and offers a redacted `--report`.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::repo;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The native fixture environments of `tests/native/build.sh` (a fake torch 2.10 and six
/// extensions broken in six ways), built once for this test binary.
fn fixtures() -> &'static Path {
    common::native_fixtures("cli-native-fixtures")
}

fn cc_shared(out: &Path, source: &str, args: &[&str]) {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let src = out.with_extension("c");
    std::fs::write(&src, source).unwrap();
    let ok = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(out)
        .arg(&src)
        .args(args)
        .status()
        .expect("run cc")
        .success();
    assert!(ok, "cc {}", out.display());
    std::fs::remove_file(&src).unwrap();
}

fn dist_info(sp: &Path, name: &str, version: &str, files: &[String]) {
    let di = sp.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
    std::fs::create_dir_all(&di).unwrap();
    std::fs::write(
        di.join("METADATA"),
        format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
    )
    .unwrap();
    let mut record: String = files.iter().map(|f| format!("{f},,\n")).collect();
    record.push_str(&format!(
        "{0}/METADATA,,\n{0}/RECORD,,\n",
        di.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(di.join("RECORD"), record).unwrap();
}

/// A second site-packages full of libraries that cannot load alone but break no import:
/// bitsandbytes' libraries for other CUDA versions and ROCm (torch is CUDA 12.8), onnxruntime's
/// providers, and an optional NCCL network plugin, each needing runtimes that are absent.
fn notes_site(root: &Path) -> PathBuf {
    let sp = root.join("extra/site-packages");
    let stubs = root.join("stubs");
    std::fs::create_dir_all(&stubs).unwrap();
    let needs = |lib: &str, sonames: &[&str]| {
        let mut args = vec!["-L".to_owned(), stubs.display().to_string()];
        let mut body = String::new();
        for (i, so) in sonames.iter().enumerate() {
            if !stubs.join(so).exists() {
                cc_shared(
                    &stubs.join(so),
                    "int stub(void) { return 0; }\n",
                    &[&format!("-Wl,-soname,{so}")],
                );
            }
            args.push(format!("-l:{so}"));
            let _ = writeln!(
                body,
                "int stub(void);\nint use{i}(void) {{ return stub(); }}"
            );
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cc_shared(&sp.join(lib), &body, &args);
        lib.to_owned()
    };
    let mut bnb = Vec::new();
    for (v, major) in [
        ("117", "11.0"),
        ("118", "11.0"),
        ("121", "12"),
        ("124", "12"),
        ("126", "12"),
    ] {
        bnb.push(needs(
            &format!("bitsandbytes/libbitsandbytes_cuda{v}.so"),
            &[
                &format!("libcudart.so.{major}"),
                &format!("libcublas.so.{}", &v[..2]),
            ],
        ));
    }
    bnb.push(needs(
        "bitsandbytes/libbitsandbytes_rocm63.so",
        &["libamdhip64.so.6"],
    ));
    bnb.push(needs("bitsandbytes/libbitsandbytes_cuda128.so", &[]));
    dist_info(&sp, "bitsandbytes", "0.45.5", &bnb);
    let ort: Vec<String> = [
        ("tensorrt", "libnvinfer.so.10"),
        ("rocm", "libMIOpen.so.1"),
        ("migraphx", "libmigraphx_c.so.3"),
    ]
    .iter()
    .map(|(p, so)| {
        needs(
            &format!("onnxruntime/capi/libonnxruntime_providers_{p}.so"),
            &[so],
        )
    })
    .collect();
    dist_info(&sp, "onnxruntime-gpu", "1.22.0", &ort);
    let nccl = vec![needs("nccl_plugin/libnccl-net.so", &["libfabric.so.1"])];
    dist_info(&sp, "nccl-plugin", "1.0", &nccl);
    sp
}

fn abidoc(args: &[&str], envs: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_abidoc"));
    cmd.args(args).current_dir(repo());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run abidoc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Host-specific text out of a snapshot: the temporary root, and the system libstdc++'s path.
fn stable(s: &str, root: &Path) -> String {
    let s = s
        .replace(&root.display().to_string(), "$T")
        .replace(&fixtures().display().to_string(), "$FX");
    s.split(' ')
        .map(|w| {
            if w.starts_with("(/") && w.contains("libstdc++.so") {
                "(<system libstdc++>)".to_owned()
            } else {
                w.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// This scan's JSON is the VS Code report's fixture (`extensions/vscode/test/fixtures/
/// scan-native.json`, its test checks the report's order and folding against this test's
/// snapshot of the screen), host paths replaced by an install's. `ABIDOC_BLESS=1` rewrites it;
/// otherwise what the report orders and folds by (code, severity, fold, package, version,
/// library of each diagnosis, in order) must not have drifted from it.
fn vscode_fixture(json: &str, root: &Path) {
    let fx = fixtures().display().to_string();
    let t = root.display().to_string();
    let text = json
        .replace(
            &format!("{fx}/site-packages"),
            "/opt/app-root/lib64/python3.12/site-packages",
        )
        .replace(
            &format!("{t}/extra/site-packages"),
            "/opt/app-root/lib/python3.12/site-packages",
        )
        .replace(&fx, "/opt/app-root/src")
        .replace(&t, "/tmp/abidoc");
    // scan lists libraries by path, and the temporary site sorts before or after the checkout
    // depending on where each lives; ordered by the install's paths, the fixture is the same on
    // every machine (and is what a scan of that install would list).
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    if let Some(list) = doc["diagnostics"].as_array_mut() {
        list.sort_by_key(|d| match d["library"].as_str() {
            Some(lib) => (false, lib.to_string()),
            None => (true, String::new()),
        });
    }
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let path = repo().join("extensions/vscode/test/fixtures/scan-native.json");
    if std::env::var_os("ABIDOC_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let shape = |text: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                [
                    "code",
                    "severity",
                    "fold",
                    "package",
                    "package_version",
                    "library",
                ]
                .map(|k| d[k].as_str().unwrap_or("-"))
                .join(" ")
            })
            .collect()
    };
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        shape(&kept),
        shape(&text),
        "{} is stale: ABIDOC_BLESS=1 cargo test -p abidoc --test screen rewrites it",
        path.display()
    );
}

#[test]
fn scan_answers_in_one_screen_and_keeps_every_finding_in_verbose_and_json() {
    let root = tempfile::tempdir().unwrap();
    let extra = notes_site(root.path());
    // A CUDA compiler wheel's nvcc: builds are not in the way here, whatever the host has.
    let nvcc = extra.join("nvidia/cuda_nvcc/bin");
    std::fs::create_dir_all(&nvcc).unwrap();
    std::fs::write(nvcc.join("nvcc"), "").unwrap();
    let main = fixtures().join("site-packages");
    let (m, e) = (main.to_str().unwrap(), extra.to_str().unwrap());
    let base = [
        "scan",
        "--site-packages",
        m,
        "--site-packages",
        e,
        "--no-cache",
        "--color",
        "never",
    ];
    let (code, screen, err) = abidoc(&base, &[]);
    assert_eq!(code, 1, "errors found: {err}");
    let (_, json, _) = abidoc(&[&base[..], &["--format", "json"]].concat(), &[]);
    let (_, verbose, _) = abidoc(&[&base[..], &["--verbose"]].concat(), &[]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    let of = |sev: &str| diags.iter().filter(|d| d["severity"] == sev).count();
    let (errors, notes) = (of("error"), of("information"));
    assert!(errors >= 5 && notes >= 10, "{errors} errors, {notes} notes");

    // One screen: at most 40 lines, every error named by its library, no note spelled out.
    let lines = screen.lines().count();
    assert!(lines <= 40, "{lines} lines:\n{screen}");
    for d in diags.iter().filter(|d| d["severity"] == "error") {
        let lib = d["library"].as_str().unwrap();
        let short = lib.rsplit("/site-packages/").next().unwrap();
        assert!(screen.contains(short), "{short} not named:\n{screen}");
    }
    assert!(!screen.contains("info["), "notes are folded:\n{screen}");
    assert!(screen.contains("no import loads them"), "{screen}");
    let first_error = screen.find("error[").unwrap();
    assert!(
        screen.find("warning[").is_none_or(|w| w > first_error),
        "errors before warnings"
    );
    insta::assert_snapshot!("scan_screen", stable(&screen, root.path()));

    // Every diagnosis says how the screen folds it: errors and warnings are shown, the notes
    // folded by kind (the screen's count line above counts libraries of each kind).
    let fold = |f: &str| diags.iter().filter(|d| d["fold"] == f).count();
    assert_eq!(fold("shown"), errors + of("warning"), "{json}");
    assert!(fold("no-import") >= 1 && fold("optional") >= 1, "{json}");
    assert!(
        diags
            .iter()
            .all(|d| d["package"].is_null() || d["package_version"].is_string()),
        "{json}"
    );
    vscode_fixture(&json, root.path());

    // `--verbose` has every finding JSON has, each headline once.
    let headlines: Vec<&str> = verbose
        .lines()
        .filter(|l| l.starts_with("error[") || l.starts_with("warning[") || l.starts_with("info["))
        .collect();
    assert_eq!(headlines.len(), diags.len(), "{verbose}");
    for d in diags {
        let sev = match d["severity"].as_str().unwrap() {
            "information" => "info",
            s => s,
        };
        let want = format!(
            "{sev}[{}]: {}",
            d["code"].as_str().unwrap(),
            d["message"].as_str().unwrap()
        );
        assert!(
            headlines.contains(&want.as_str()),
            "missing in --verbose: {want}"
        );
    }
    // `--all` is the whole picture too.
    let (_, all, _) = abidoc(&[&base[..], &["--all"]].concat(), &[]);
    assert!(all.matches("info[").count() >= notes, "{all}");
}

#[test]
fn scan_with_nothing_set_uses_python3_on_path_and_says_so() {
    let root = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(root.path()).unwrap();
    let usr = t.join("usr");
    std::fs::create_dir_all(usr.join("bin")).unwrap();
    std::fs::create_dir_all(usr.join("lib/python3.12/site-packages")).unwrap();
    // Not a program: abidoc must never run it, only follow the link to its name.
    std::fs::write(usr.join("bin/python3.12"), b"\x7fELF not a program").unwrap();
    std::os::unix::fs::symlink("python3.12", usr.join("bin/python3")).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_abidoc"));
    let out = cmd
        .args(["scan", "--no-cache", "--color", "never"])
        .current_dir(&t)
        .env("PATH", usr.join("bin"))
        .env("HOME", &t)
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .env_remove("PYENV_VERSION")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = stdout.lines().next().unwrap_or("");
    let want = format!(
        "python3 on PATH: {} → {}",
        usr.join("bin/python3").display(),
        usr.join("bin/python3.12").display()
    );
    assert!(first.contains(&want), "first line: {first}");
    assert!(
        first.contains(
            &usr.join("lib/python3.12/site-packages")
                .display()
                .to_string()
        ),
        "{first}"
    );
}

#[test]
fn an_unrecognized_failure_says_what_was_read_and_offers_a_redacted_report() {
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("run.log");
    std::fs::write(
        &log,
        "alice@gpu-box-7:~/proj$ python train.py\n\
         torch 2.10.0+cu128, flash_attn 2.8.3\n\
         Traceback (most recent call last):\n\
         \x20 File \"/home/alice/proj/train.py\", line 3, in <module>\n\
         \x20   main()\n\
         \x20 File \"/home/alice/proj/.venv/lib/python3.12/site-packages/foo/core.py\", line 9, in main\n\
         \x20   raise ValueError(\"bad shape\")\n\
         ValueError: bad shape (1, 2) for the kernel\n",
    )
    .unwrap();
    let l = log.to_str().unwrap();
    let home = Path::new("/home/alice");
    let envs: &[(&str, &Path)] = &[
        ("USER", Path::new("alice")),
        ("HOME", home),
        ("HOSTNAME", Path::new("gpu-box-7")),
    ];
    let (code, out, _) = abidoc(&["check", "--no-env", "--color", "never", l], envs);
    assert_eq!(code, 0);
    assert!(out.contains("no known failure found"), "{out}");
    assert!(out.contains("8 line(s), 1 traceback"), "{out}");
    assert!(
        out.contains("last exception: ValueError: bad shape (1, 2) for the kernel"),
        "{out}"
    );
    assert!(out.contains("looked for: undefined symbols"), "{out}");
    assert!(out.contains("abidoc check --report"), "{out}");

    let (code, report, _) = abidoc(&["check", "--no-env", "--report", l], envs);
    assert_eq!(code, 0);
    for secret in ["alice", "gpu-box-7"] {
        assert!(
            !report.contains(secret),
            "{secret} left in the report:\n{report}"
        );
    }
    for kept in [
        "torch 2.10.0+cu128, flash_attn 2.8.3",
        "~/proj/.venv/lib/python3.12/site-packages/foo/core.py",
        "- last exception: `ValueError: bad shape (1, 2) for the kernel`",
        "1 traceback(s)",
        "environment: not read (--no-env)",
        "## abidoc does not recognize this failure",
    ] {
        assert!(report.contains(kept), "{kept:?} missing:\n{report}");
    }
    // A recognized failure's report names what abidoc found.
    let seed = repo().join("tests/fixtures/seeds/003-triton-lcuda.log");
    let (_, known, _) = abidoc(
        &["check", "--no-env", "--report", seed.to_str().unwrap()],
        &[],
    );
    assert!(
        known.contains("- found: error [libcuda-not-found]"),
        "{known}"
    );
}

/// Progress is drawn on a terminal's stderr only: under a pseudo-terminal (`script`) a cold
/// scan shows it (and clears it), piped it never does, nor with `--format json`.
#[test]
fn scan_progress_only_on_a_terminal() {
    let main = fixtures().join("site-packages");
    let exe = env!("CARGO_BIN_EXE_abidoc");
    let m = main.to_str().unwrap();
    let (_, _, piped) = abidoc(&["scan", "--site-packages", m, "--no-cache"], &[]);
    assert!(!piped.contains("scanning"), "progress in a pipe: {piped}");
    let Ok(script) = which("script") else {
        eprintln!("no `script` on this machine: the terminal half is not checked");
        return;
    };
    let run = |extra: &str| {
        // stdout to /dev/null: only what reaches the terminal is left, stderr included.
        let cmd = format!("{exe} scan --site-packages {m} --no-cache {extra} >/dev/null");
        let out = Command::new(&script)
            .args(["-qec", &cmd, "/dev/null"])
            .output()
            .expect("run script");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let tty = run("");
    assert!(
        tty.contains("scanning") && tty.contains("libraries"),
        "{tty:?}"
    );
    let json = run("--format json");
    assert!(!json.contains("scanning"), "{json:?}");
}

fn which(name: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}

/// A preferred fix that only sets a variable shows the export under its title, not the title
/// alone (the full view and JSON carry it as `env`).
#[test]
fn an_env_only_fix_shows_its_export_on_the_one_screen_view() {
    let text = repo().join("tests/fixtures/codes/cuda-home-missing/apex-368-listed.txt");
    let (code, out, err) = abidoc(&["check", "--no-env", text.to_str().unwrap()], &[]);
    assert_eq!(code, 1, "{err}");
    let fix = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("fix:"))
        .take(2)
        .collect::<Vec<_>>();
    assert_eq!(
        fix,
        [
            "  fix: Set CUDA_HOME to one directory, /usr/local/cuda, not a list",
            "     $ export CUDA_HOME=/usr/local/cuda"
        ],
        "{out}"
    );
}
