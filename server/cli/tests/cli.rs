//! The built binary on fixtures: the contract's JSON, SARIF, human output, stdin, exit codes.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn abidoc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run abidoc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn notebook_json_follows_the_contract() {
    let (code, out, err) = abidoc(&[
        "check",
        "--no-env",
        "--format",
        "json",
        "examples/granite-lora-training.ipynb",
    ]);
    assert_eq!(code, 1, "an error was found: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["version"], 1);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "abi-mismatch");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["package"], "mamba-ssm");
    assert_eq!(d["source"]["path"], "examples/granite-lora-training.ipynb");
    let cell = d["source"]["cell"].as_u64().expect("cell index");
    let line = d["source"]["range"]["start"]["line"]
        .as_u64()
        .expect("line") as usize;
    // The range is in the raw .ipynb: that line holds the error text of the failing cell.
    let raw = std::fs::read_to_string(repo().join("examples/granite-lora-training.ipynb")).unwrap();
    let text_line = raw.lines().nth(line).unwrap();
    assert!(
        text_line.contains("undefined symbol") || text_line.contains("selective_scan_cuda"),
        "line {line}: {text_line}"
    );
    let nb: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(nb["cells"][cell as usize]["cell_type"], "code");
    assert_eq!(
        d["symbols"][0]["mangled"],
        "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"
    );
    assert_eq!(
        d["symbols"][0]["demangled"],
        "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"
    );
    let fixes = d["fixes"].as_array().unwrap();
    assert_eq!(fixes.iter().filter(|f| f["preferred"] == true).count(), 1);
    assert_eq!(
        fixes[0]["commands"][0],
        serde_json::json!([
            "python",
            "-m",
            "pip",
            "uninstall",
            "-y",
            "mamba-ssm",
            "causal-conv1d"
        ])
    );
    assert_eq!(
        fixes[0]["notebook_cell"],
        "%pip uninstall -y mamba-ssm causal-conv1d"
    );
}

#[test]
fn sarif_and_human_output() {
    let (code, out, _) = abidoc(&[
        "check",
        "--no-env",
        "--format",
        "sarif",
        "tests/fixtures/seeds/003-triton-lcuda.log",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let r = &v["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "libcuda-not-found");
    assert_eq!(r["level"], "error");
    assert!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
            >= 1
    );

    let (_, human, _) = abidoc(&[
        "check",
        "--no-env",
        "--color",
        "never",
        "tests/fixtures/seeds/003-triton-lcuda.log",
    ]);
    // What failed, why, what to do — in that order.
    let e = human.find("error[libcuda-not-found]").expect("headline");
    let f = human.find("fix:").expect("fix");
    assert!(e < f);
    assert!(!human.contains('\x1b'), "no colour when not asked");
}

#[test]
fn stdin_and_exit_codes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["check", "--no-env", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"hello world\nnothing to see\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);

    let (code, _, err) = abidoc(&["check", "no/such/file.log"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "one-line reason: {err}");
    let (code, _, _) = abidoc(&["check", "--disable", "not-a-code", "x"]);
    assert_eq!(code, 2);
}

#[test]
fn explain_without_environment_names_releases() {
    for (sym, want) in [
        (
            "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib",
            "2.9.1",
        ),
        ("_ZN3c104cuda14ExchangeDeviceEa", "2.3.0"),
        ("_ZN3c105ErrorC2ENS_14SourceLocationESs", "2.6.0"),
    ] {
        let (code, out, err) = abidoc(&["explain", "--no-env", sym]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(want), "{sym}: expected {want} in\n{out}");
    }
    let (_, out, _) = abidoc(&[
        "explain",
        "--no-env",
        "--format",
        "json",
        "_ZN3c104cuda14ExchangeDeviceEa",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["symbols"][0]["demangled"],
        "c10::cuda::ExchangeDevice(signed char)"
    );
}

/// `--no-env` is the text alone: a model directory in the working directory and a Hugging Face
/// cache on this machine, both claiming the notebook's transformer is a hybrid Mamba model, must
/// not change a byte of the diagnosis (they used to flip the preferred fix to a rebuild).
#[test]
fn no_env_reads_no_model_config_from_disk() {
    let nb = repo().join("examples/granite-lora-training.ipynb");
    let nb = nb.to_str().unwrap();
    let run = |cwd: &Path, home: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_abidoc"))
            .args(["check", "--no-env", "--format", "json", nb])
            .current_dir(cwd)
            .env("HOME", home)
            .env("HF_HOME", home.join("hf"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env_remove("HF_HUB_CACHE")
            .env_remove("HUGGINGFACE_HUB_CACHE")
            .output()
            .expect("run abidoc");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let clean = tempfile::tempdir().unwrap();
    let baseline = run(clean.path(), clean.path());
    let v: serde_json::Value = serde_json::from_str(&baseline).unwrap();
    assert_eq!(
        v["diagnostics"][0]["fixes"][0]["id"], "abi-mismatch/uninstall",
        "the transformer's fix"
    );

    let planted = tempfile::tempdir().unwrap();
    let hybrid =
        r#"{"model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"]}"#;
    let id = "ibm-granite/granite-3.2-8b-instruct";
    let local = planted.path().join(id);
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("config.json"), hybrid).unwrap();
    for hub in ["hf/hub", "cache/huggingface/hub"] {
        let snap = planted
            .path()
            .join(hub)
            .join("models--ibm-granite--granite-3.2-8b-instruct/snapshots/abc");
        std::fs::create_dir_all(&snap).unwrap();
        std::fs::write(snap.join("config.json"), hybrid).unwrap();
    }
    assert_eq!(run(planted.path(), planted.path()), baseline);
}

/// `--model` is input too: anything but a model id or a plain path is refused before analysis.
#[test]
fn model_option_refuses_what_is_not_a_model_id() {
    for bad in ["$(id)", "a b", "x;rm -rf ~", "{os.system(1)}", ""] {
        let (code, _, err) = abidoc(&[
            "check",
            "--no-env",
            "--model",
            bad,
            "tests/fixtures/seeds/001-exchange-device.log",
        ]);
        assert_eq!(code, 2, "{bad:?} accepted: {err}");
        assert!(err.contains("not a model id"), "{err}");
    }
    let (code, out, _) = abidoc(&[
        "check",
        "--no-env",
        "--format",
        "json",
        "--model",
        "ibm-granite/granite-3.2-8b-instruct",
        "examples/granite-lora-training.ipynb",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["diagnostics"][0]["fixes"][0]["id"],
        "abi-mismatch/uninstall"
    );
}
