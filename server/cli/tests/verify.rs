//! `abidoc verify` on real wheels built here: extensions compiled with the system compiler
//! against the fake torch of `tests/native/build.sh`, zipped with dist-info (METADATA, WHEEL,
//! RECORD with real hashes) by Python's `zipfile`. Each wheel is verified before anything is
//! installed, then installed (extracted as pip would) and loaded by the real loader after
//! torch's libraries (`ctypes.CDLL`, RTLD_NOW|RTLD_LOCAL as CPython imports an extension): the
//! verdict must be the loader's, and what the loader names (the symbol, the library, the
//! version) must be what `verify` names. Needs `cc`, `c++` and `python3`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The native fixtures: `site-packages/` (torch 2.10.0+cu128, C++11 ABI) and `build/src/`.
fn fixtures() -> &'static Path {
    common::native_fixtures("verify-native-fixtures")
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One wheel: its sources, how they are built, and which code `verify` must give (or `None`:
/// it loads).
struct Case {
    name: &'static str,
    /// (member path in the wheel, compiler, C++11 ABI flag, source, extra link arguments).
    libs: &'static [(
        &'static str,
        &'static str,
        u8,
        &'static str,
        &'static [&'static str],
    )],
    /// The extension module the import loads.
    ext: &'static str,
    /// Python files of the package (path, text), and the libraries its `__init__.py` loads by
    /// path before importing the extension (the referee loads them first too).
    py: &'static [(&'static str, &'static str)],
    preload: &'static [&'static str],
    code: Option<&'static str>,
}

const GOOD_SRC: &str = r#"#include "torch_api.h"
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit__C() {
  c10::cuda::SetDevice(c10::cuda::MaybeExchangeDevice(0), false);
  c10::cuda::c10_cuda_check_implementation(0, __FILE__, __func__, __LINE__, true);
  if (c10::cuda::warp_size() != 32) c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, std::string("warp"));
  return PyModule_Create2(nullptr, 1013);
}
"#;

/// Built against torch < 2.10: `int line_number`, which torch 2.10 changed to `unsigned int`.
const OLD_TORCH_SRC: &str = r#"#include "torch_api.h"
namespace c10 { namespace cuda {
void c10_cuda_check_implementation(int err, const char* filename, const char* function_name,
                                   int line_number, bool include_device_assertions);
} }
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit__C() {
  signed char old = c10::cuda::ExchangeDevice(0);
  c10::cuda::c10_cuda_check_implementation(0, __FILE__, __func__, __LINE__, true);
  c10::cuda::ExchangeDevice(old);
  return PyModule_Create2(nullptr, 1013);
}
"#;

/// `torchCheckFail(…, std::string const&)`: compiled with ABI 0 against a C++11-ABI torch.
const ABI0_SRC: &str = r#"#include "torch_api.h"
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit__C() {
  if (c10::cuda::warp_size() != 32) c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, std::string("warp"));
  return PyModule_Create2(nullptr, 1013);
}
"#;

const CUDART_STUB: &str = "int cudaGetDevice(int* d) { *d = 0; return 0; }\n";

const CUDA13_SRC: &str = r#"extern int cudaGetDevice(int*);
extern void* PyModule_Create2(void* def, int api);
void* PyInit__C(void) { int d; cudaGetDevice(&d); return PyModule_Create2(0, 1013); }
"#;

/// A newer libstdc++ than any on this machine: defines `GLIBCXX_3.4.99`.
const NEW_STDCXX_SRC: &str = r#"void glibcxx_old_feature(void) {}
void glibcxx_new_feature(void) __asm__("_ZSt21__glibcxx_assert_failPKciS0_S0_");
void glibcxx_new_feature(void) {}
"#;
const NEW_STDCXX_MAP: &str = "GLIBCXX_3.4 { global: glibcxx_old_feature; local: *; };\nGLIBCXX_3.4.29 { } GLIBCXX_3.4;\nGLIBCXX_3.4.99 { global: _ZSt21__glibcxx_assert_failPKciS0_S0_; } GLIBCXX_3.4.29;\n";
const NEW_STDCXX_USER: &str = r#"extern void glibcxx_new_feature(void) __asm__("_ZSt21__glibcxx_assert_failPKciS0_S0_");
extern void* PyModule_Create2(void* def, int api);
void* PyInit__C(void) { glibcxx_new_feature(); return PyModule_Create2(0, 1013); }
"#;

/// A helper library the wheel carries in `bundled.libs/`, found through `$ORIGIN`.
const HELPER_SRC: &str = "int bundled_helper(int x) { return x + 1; }\n";
const BUNDLED_SRC: &str = r#"extern int bundled_helper(int);
extern void* PyModule_Create2(void* def, int api);
void* PyInit__C(void) { return bundled_helper(1) ? PyModule_Create2(0, 1013) : 0; }
"#;

const TORCH_LINK: &[&str] = &["-L$TORCH", "-lc10", "-lc10_cuda"];

const CASES: &[Case] = &[
    Case {
        name: "goodext",
        libs: &[("goodext/_C.so", "c++", 1, GOOD_SRC, TORCH_LINK)],
        ext: "goodext/_C.so",
        py: &[],
        preload: &[],
        code: None,
    },
    Case {
        name: "bundled",
        libs: &[
            (
                "bundled.libs/libhelper-1a2b3c.so",
                "cc",
                1,
                HELPER_SRC,
                &["-Wl,-soname,libhelper-1a2b3c.so"],
            ),
            (
                "bundled/_C.so",
                "cc",
                1,
                BUNDLED_SRC,
                &[
                    "-L$OUT/bundled.libs",
                    "-l:libhelper-1a2b3c.so",
                    "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../bundled.libs",
                ],
            ),
        ],
        ext: "bundled/_C.so",
        py: &[],
        preload: &[],
        code: None,
    },
    Case {
        name: "oldtorch",
        libs: &[("oldtorch/_C.so", "c++", 1, OLD_TORCH_SRC, TORCH_LINK)],
        ext: "oldtorch/_C.so",
        py: &[],
        preload: &[],
        code: Some("abi-mismatch"),
    },
    Case {
        name: "abizero",
        libs: &[("abizero/_C.so", "c++", 0, ABI0_SRC, TORCH_LINK)],
        ext: "abizero/_C.so",
        py: &[],
        preload: &[],
        code: Some("cxx11-abi-mismatch"),
    },
    Case {
        name: "cuda13",
        libs: &[(
            "cuda13/_C.so",
            "cc",
            1,
            CUDA13_SRC,
            &["-L$STUBS/cudart13", "-l:libcudart.so.13"],
        )],
        ext: "cuda13/_C.so",
        py: &[],
        preload: &[],
        code: Some("missing-shared-library"),
    },
    Case {
        name: "newcxx",
        libs: &[(
            "newcxx/_C.so",
            "cc",
            1,
            NEW_STDCXX_USER,
            &["-L$STUBS/stdcxx99", "-l:libstdc++.so.6"],
        )],
        ext: "newcxx/_C.so",
        py: &[],
        preload: &[],
        code: Some("libstdcxx-mismatch"),
    },
    Case {
        name: "preload",
        libs: &[
            (
                "preload/lib/libpreloadcore.so",
                "cc",
                1,
                HELPER_SRC,
                &["-Wl,-soname,libpreloadcore.so"],
            ),
            (
                "preload/_C.so",
                "cc",
                1,
                BUNDLED_SRC,
                &["-L$OUT/preload/lib", "-lpreloadcore"],
            ),
        ],
        ext: "preload/_C.so",
        py: &[(
            "preload/__init__.py",
            "import ctypes, os\nctypes.CDLL(os.path.join(os.path.dirname(__file__), 'lib', 'libpreloadcore.so'))\nfrom . import _C\n",
        )],
        preload: &["preload/lib/libpreloadcore.so"],
        code: None,
    },
];

/// Build-time stubs that exist only here (never on a search path): a CUDA 13 runtime and a
/// libstdc++ newer than the system's.
fn stubs(dir: &Path) {
    std::fs::create_dir_all(dir.join("cudart13")).unwrap();
    std::fs::create_dir_all(dir.join("cudart12")).unwrap();
    std::fs::create_dir_all(dir.join("stdcxx99")).unwrap();
    std::fs::write(dir.join("cudart.c"), CUDART_STUB).unwrap();
    std::fs::write(dir.join("stdcxx.c"), NEW_STDCXX_SRC).unwrap();
    std::fs::write(dir.join("stdcxx.map"), NEW_STDCXX_MAP).unwrap();
    let cc = |args: &[&str]| {
        let (code, _, err) = run(Command::new("cc").args(args));
        assert_eq!(code, 0, "cc {args:?}: {err}");
    };
    let d = |p: &str| dir.join(p).display().to_string();
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &d("cudart13/libcudart.so.13"),
        "-Wl,-soname,libcudart.so.13",
        &d("cudart.c"),
    ]);
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &d("cudart12/libcudart.so.12"),
        "-Wl,-soname,libcudart.so.12",
        &d("cudart.c"),
    ]);
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &d("stdcxx99/libstdc++.so.6"),
        "-Wl,-soname,libstdc++.so.6",
        &format!("-Wl,--version-script,{}", d("stdcxx.map")),
        &d("stdcxx.c"),
    ]);
}

/// Python's `zipfile` writes the wheel (deflate), with METADATA, WHEEL and a RECORD of real
/// hashes; `install` extracts one as pip would.
const WHEEL_PY: &str = r#"
import base64, hashlib, json, os, sys, zipfile
spec = json.loads(sys.argv[1])
out, name, version, tree = spec["out"], spec["name"], spec["version"], spec["tree"]
di = "%s-%s.dist-info" % (name, version)
meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
for r in spec.get("requires", []):
    meta += "Requires-Dist: %s\n" % r
files = {}
for root, _, names in os.walk(tree):
    for n in names:
        p = os.path.join(root, n)
        files[os.path.relpath(p, tree)] = open(p, "rb").read()
files[di + "/METADATA"] = meta.encode()
files[di + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: abidoc-tests\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n"
record = ""
for k in sorted(files):
    h = base64.urlsafe_b64encode(hashlib.sha256(files[k]).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (k, h, len(files[k]))
record += di + "/RECORD,,\n"
files[di + "/RECORD"] = record.encode()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for k in sorted(files):
        z.writestr(k, files[k])
"#;

const INSTALL_AND_LOAD_PY: &str = r#"
import ctypes, os, sys, zipfile
wheel, site, torch_lib, ext = sys.argv[1:5]
zipfile.ZipFile(wheel).extractall(site)
for l in ["libc10.so", "libc10_cuda.so", "libtorch_cpu.so", "libtorch_python.so"]:
    ctypes.CDLL(os.path.join(torch_lib, l), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
try:
    for p in sys.argv[5:]:
        ctypes.CDLL(os.path.join(site, p))
    ctypes.CDLL(os.path.join(site, ext), mode=os.RTLD_NOW | os.RTLD_LOCAL)
except OSError as e:
    print(e)
    sys.exit(1)
"#;

/// Builds the wheel of `case` under `work`; returns its path.
fn build_wheel(case: &Case, work: &Path, stubs: &Path) -> PathBuf {
    let fx = fixtures();
    let tree = work.join(format!("{}-tree", case.name));
    let _ = std::fs::remove_dir_all(&tree);
    for (member, compiler, abi, src, extra) in case.libs {
        let out = tree.join(member);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let ext = if *compiler == "c++" { "cpp" } else { "c" };
        let src_path = work.join(format!("{}-{}.{ext}", case.name, member.replace('/', "_")));
        std::fs::write(&src_path, src).unwrap();
        let mut cmd = Command::new(compiler);
        cmd.args(["-shared", "-fPIC", "-O1", "-Wl,--no-as-needed"])
            .arg(format!("-D_GLIBCXX_USE_CXX11_ABI={abi}"))
            .arg(format!("-I{}", fx.join("build/src").display()))
            .arg("-o")
            .arg(&out)
            .arg(&src_path);
        for a in *extra {
            cmd.arg(
                a.replace(
                    "$TORCH",
                    &fx.join("site-packages/torch/lib").display().to_string(),
                )
                .replace("$STUBS", &stubs.display().to_string())
                .replace("$OUT", &tree.display().to_string()),
            );
        }
        let (code, _, err) = run(&mut cmd);
        assert_eq!(code, 0, "{}: {member}: {err}", case.name);
    }
    for (path, text) in case.py {
        std::fs::write(tree.join(path), text).unwrap();
    }
    let wheel = work.join(format!("{}-1.0.0-cp312-cp312-linux_x86_64.whl", case.name));
    zip_wheel(&tree, &wheel, case.name, &["torch>=2.10"]);
    wheel
}

/// Zips `tree` into the wheel `out` (version 1.0.0) with a dist-info naming `requires`.
fn zip_wheel(tree: &Path, out: &Path, name: &str, requires: &[&str]) {
    let spec = serde_json::json!({
        "out": out, "name": name, "version": "1.0.0", "tree": tree, "requires": requires,
    });
    let (code, _, err) = run(Command::new("python3")
        .args(["-c", WHEEL_PY])
        .arg(spec.to_string()));
    assert_eq!(code, 0, "zip {name}: {err}");
}

/// An empty directory of this test's own under the target's temporary directory.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn verify(args: &[&str]) -> (i32, serde_json::Value, String) {
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .arg("verify")
        .args(args)
        .args(["--format", "json"])
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX"));
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, v, err)
}

/// What the real loader said, reduced to what it names: a symbol, a library, or a version.
fn loader_names(message: &str) -> String {
    if let Some(rest) = message.split("undefined symbol: ").nth(1) {
        return rest
            .split([',', ' ', '\n'])
            .next()
            .unwrap_or("")
            .to_string();
    }
    if let Some(i) = message.find(": cannot open shared object file") {
        return message[..i]
            .rsplit([' ', ':'])
            .next()
            .unwrap_or("")
            .to_string();
    }
    if let Some(rest) = message.split("version `").nth(1) {
        return rest.split('\'').next().unwrap_or("").to_string();
    }
    panic!("unexpected loader message: {message}")
}

#[test]
fn verify_predicts_what_installing_and_importing_does() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-wheels");
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    for case in CASES {
        let wheel = build_wheel(case, &work, &stub_dir);
        let (code, v, err) = verify(&[
            "--site-packages",
            sp.to_str().unwrap(),
            wheel.to_str().unwrap(),
        ]);
        let errors: Vec<&serde_json::Value> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        // The referee: install into a fresh site-packages (extract, as pip does), then load.
        let site = work.join(format!("{}-site", case.name));
        let _ = std::fs::remove_dir_all(&site);
        std::fs::create_dir_all(&site).unwrap();
        let (loaded, msg, lerr) = run(Command::new("python3")
            .args(["-c", INSTALL_AND_LOAD_PY])
            .arg(&wheel)
            .arg(&site)
            .arg(sp.join("torch/lib"))
            .arg(case.ext)
            .args(case.preload)
            .env_remove("LD_LIBRARY_PATH"));
        assert!(
            loaded == 0 || loaded == 1,
            "{}: referee crashed: {lerr}",
            case.name
        );
        let loads = loaded == 0;
        assert_eq!(
            code == 0,
            loads,
            "{}: verify exit {code} but the real loader {}: {msg}\n{v:#}\n{err}",
            case.name,
            if loads { "loads it" } else { "fails" }
        );
        match case.code {
            None => {
                assert!(loads, "{}: expected to load: {msg}", case.name);
                assert!(errors.is_empty(), "{}: {v:#}", case.name);
                assert!(
                    v["diagnostics"].to_string().contains(" loads"),
                    "{}: a wheel that loads is said to: {v:#}",
                    case.name
                );
            }
            Some(want) => {
                assert!(!loads, "{}: the loader loaded it", case.name);
                assert_eq!(errors.len(), 1, "{}: {v:#}", case.name);
                let d = errors[0];
                assert_eq!(d["code"], want, "{}: {d:#}", case.name);
                let named = loader_names(&msg);
                assert!(
                    !named.is_empty() && d.to_string().contains(&named),
                    "{}: the loader names {named:?} ({msg}); verify says {d:#}",
                    case.name
                );
                // Where the library would be installed, not where the wheel lies.
                let lib = d["library"].as_str().unwrap_or("");
                assert!(
                    lib.starts_with(sp.to_str().unwrap()),
                    "{}: {lib}",
                    case.name
                );
            }
        }
    }
}

/// A directory is every wheel in it, judged together; SARIF carries the same errors.
#[test]
fn a_directory_of_wheels_in_sarif() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-dir");
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    let wheels = work.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    for case in CASES {
        let w = build_wheel(case, &work, &stub_dir);
        std::fs::rename(&w, wheels.join(w.file_name().unwrap())).unwrap();
    }
    let (code, v, err) = verify(&[
        "--site-packages",
        sp.to_str().unwrap(),
        wheels.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let failing: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["package"].as_str())
        .collect();
    // A directory's wheels are judged in file-name order.
    let mut want: Vec<&str> = CASES
        .iter()
        .filter(|c| c.code.is_some())
        .map(|c| c.name)
        .collect();
    want.sort_unstable();
    assert_eq!(failing, want, "{v:#}");
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["verify", "--format", "sarif", "--site-packages"])
        .arg(&sp)
        .arg(&wheels));
    assert_eq!(code, 1, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let errors = results.iter().filter(|r| r["level"] == "error").count();
    assert_eq!(errors, want.len(), "{out}");
}

/// A torch the plan or `--torch` names is judged from the offline index: a wheel that loads
/// against the installed torch 2.10 breaks against 2.5.1 exactly where the index says 2.5.1
/// exports another form; an extension built for torch < 2.10 loads there.
#[test]
fn another_torch_is_judged_from_the_offline_index() {
    use abidoc_knowledge::torch_index;
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-index");
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    let index = torch_index::release_index("2.5.1").expect("2.5.1 indexed");
    let good = build_wheel(&CASES[0], &work, &stub_dir);
    let old = build_wheel(&CASES[2], &work, &stub_dir);
    // The torch symbols 2.5.1 does not export, read from the built library and the index.
    let lib = std::fs::read(work.join("goodext-tree/goodext/_C.so")).unwrap();
    let facts = abidoc_env::LibFacts::parse(&lib).unwrap();
    let mut expected: Vec<String> = facts
        .imports
        .iter()
        .filter(|i| !i.weak && torch_index::is_torch_symbol(&i.name))
        .filter(|i| !torch_index::lookup(&i.name).is_some_and(|h| h.releases.contains(index)))
        .map(|i| i.name.to_string())
        .collect();
    expected.sort();
    assert!(
        expected
            .iter()
            .any(|s| s == "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb"),
        "{expected:?}"
    );
    let plan = work.join("report.json");
    let url = |p: &Path| format!("file://{}", p.display());
    std::fs::write(
        &plan,
        serde_json::json!({"version": "1", "install": [
            {"download_info": {"url": "https://example.invalid/torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl"},
             "metadata": {"name": "torch", "version": "2.5.1"}},
            {"download_info": {"url": url(&good)}, "metadata": {"name": "goodext", "version": "1.0.0"}},
            {"download_info": {"url": url(&old)}, "metadata": {"name": "oldtorch", "version": "1.0.0"}},
        ]})
        .to_string(),
    )
    .unwrap();
    let sp_s = sp.to_str().unwrap();
    for args in [
        vec![
            "--site-packages",
            sp_s,
            "--torch",
            "2.5.1",
            good.to_str().unwrap(),
            old.to_str().unwrap(),
        ],
        vec!["--site-packages", sp_s, plan.to_str().unwrap()],
    ] {
        let (code, v, err) = verify(&args);
        assert_eq!(code, 1, "{v:#} {err}");
        let is_plan = args.len() == 3;
        let all_errors: Vec<&serde_json::Value> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        // A plan that changes torch also judges what it leaves installed: the fixture
        // environment's good_ext and torch_scatter load on 2.10.0 and not on 2.5.1 (the index:
        // `c10_cuda_check_implementation(…, unsigned int, bool)` from 2.10.0 on,
        // `THPVariable_Wrap(at::TensorBase const&)` from 2.6.0 on).
        let installed: Vec<&&serde_json::Value> = all_errors
            .iter()
            .filter(|d| d["package"] != "goodext" && d["package"] != "oldtorch")
            .collect();
        assert_eq!(
            installed
                .iter()
                .map(|d| d["package"].as_str().unwrap_or(""))
                .collect::<Vec<_>>(),
            if is_plan {
                vec!["good-ext", "torch-scatter"]
            } else {
                vec![]
            },
            "{v:#}"
        );
        let errors: Vec<&serde_json::Value> = all_errors
            .iter()
            .copied()
            .filter(|d| d["package"] == "goodext" || d["package"] == "oldtorch")
            .collect();
        assert_eq!(errors.len(), 1, "of the wheels only goodext breaks: {v:#}");
        assert_eq!(errors[0]["package"], "goodext");
        let mut got: Vec<String> = errors[0]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["mangled"].as_str().unwrap().to_string())
            .collect();
        got.sort();
        assert_eq!(got, expected, "{:#}", errors[0]);
        assert!(errors[0].to_string().contains("offline torch index"));
        // Both wheels pin nothing exact; the plan says which install changes torch (human form).
    }
    let (_, out, _) = run(Command::new(env!("CARGO_BIN_EXE_abidoc")).args([
        "verify",
        "--site-packages",
        sp_s,
        plan.to_str().unwrap(),
    ]));
    assert!(
        out.contains("torch") && out.contains("changes torch"),
        "{out}"
    );

    // The preview without a wheel: installed extensions that load now and would not on 2.5.1.
    let (code, v, err) = verify(&["--site-packages", sp_s, "--torch", "2.5.1"]);
    assert_eq!(code, 1, "{v:#} {err}");
    let libs: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["library"].as_str())
        .collect();
    assert!(
        libs.iter()
            .any(|l| l.ends_with("good_ext/_C.cpython-312-x86_64-linux-gnu.so")),
        "{libs:?}"
    );
    // A torch the index does not know: no guess, exit 2.
    let (code, out, _) = run(Command::new(env!("CARGO_BIN_EXE_abidoc")).args([
        "verify",
        "--site-packages",
        sp_s,
        "--torch",
        "2.99.0",
    ]));
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no preview"), "{out}");
    // The torch already installed: nothing moves, and it says so rather than asking for --torch.
    let (code, out, _) = run(Command::new(env!("CARGO_BIN_EXE_abidoc")).args([
        "verify",
        "--site-packages",
        sp_s,
        "--torch",
        "2.10.0",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("already the installed torch") && !out.contains("nothing to verify"),
        "{out}"
    );
    // selective_scan_cuda fails now (built for torch < 2.10): not a library the upgrade breaks.
    assert!(
        !libs.iter().any(|l| l.contains("selective_scan")),
        "{libs:?}"
    );
}

/// Hostile archives get one clear line and exit 2; nothing is extracted.
#[test]
fn hostile_wheels_are_refused_with_a_reason() {
    let work = fresh_dir("verify-hostile");
    let py = r#"
import sys, zipfile, struct
d = sys.argv[1]
with zipfile.ZipFile(d + "/evil-1.0-py3-none-any.whl", "w") as z:
    z.writestr("evil-1.0.dist-info/METADATA", "Name: evil\nVersion: 1.0\n")
    z.writestr("../../outside.so", b"\x7fELF" + b"\0" * 60)
with zipfile.ZipFile(d + "/bomb-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("bomb-1.0.dist-info/METADATA", "Name: bomb\nVersion: 1.0\n")
    z.writestr("bomb/_C.so", b"\0" * (8 << 20))
b = bytearray(open(d + "/bomb-1.0-py3-none-any.whl", "rb").read())
# Declare 4096 bytes inflated for the 8 MiB member, in the central directory.
i = b.rfind(b"PK\x01\x02")
b[i + 24:i + 28] = struct.pack("<I", 4096)
open(d + "/bomb-1.0-py3-none-any.whl", "wb").write(bytes(b))
full = open(d + "/evil-1.0-py3-none-any.whl", "rb").read()
open(d + "/cut-1.0-py3-none-any.whl", "wb").write(full[: len(full) // 2])
"#;
    let (code, _, err) = run(Command::new("python3").args(["-c", py]).arg(&work));
    assert_eq!(code, 0, "{err}");
    for (file, want) in [
        ("evil-1.0-py3-none-any.whl", "`..` component"),
        ("bomb-1.0-py3-none-any.whl", "zip bomb"),
        ("cut-1.0-py3-none-any.whl", "truncated"),
    ] {
        let p = work.join(file);
        let (code, _, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
            .args(["verify", "--site-packages"])
            .arg(&work)
            .arg(&p)
            .args(["--format", "json"]));
        assert!(err.contains(want), "{file}: {err}");
        assert_eq!(code, 2, "{file}: {err}");
        assert!(
            !work.join("outside.so").exists()
                && !work.parent().unwrap().join("outside.so").exists()
        );
    }
}

/// A plan that installs the CUDA runtime of the wheel's major from an index provides the
/// library the wheel needs; the runtime of another major does not.
#[test]
fn a_plan_that_brings_the_runtime_provides_it() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-plan-runtime");
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    let case = CASES.iter().find(|c| c.name == "cuda13").unwrap();
    let wheel = build_wheel(case, &work, &stub_dir);
    // torch's own CUDA dependencies come with the torch a plan or --torch installs: CUDA 12
    // with torch 2.10.0 (cu128), not CUDA 13.
    let cuda12 = Case {
        name: "cuda12",
        libs: &[(
            "cuda12/_C.so",
            "cc",
            1,
            CUDA13_SRC,
            &["-L$STUBS/cudart12", "-l:libcudart.so.12"],
        )],
        ext: "cuda12/_C.so",
        py: &[],
        preload: &[],
        code: Some("missing-shared-library"),
    };
    let w12 = build_wheel(&cuda12, &work, &stub_dir);
    for (w, torch, loads) in [
        (&w12, "2.10.0", true),
        (&wheel, "2.10.0", false),
        (&w12, "", false),
    ] {
        // An empty environment: nothing on this machine's Python can provide the runtime.
        let empty = work.join("empty-site");
        std::fs::create_dir_all(&empty).unwrap();
        let mut args = vec![
            "--site-packages",
            empty.to_str().unwrap(),
            w.to_str().unwrap(),
        ];
        if !torch.is_empty() {
            args.extend(["--torch", torch]);
        }
        let (code, v, err) = verify(&args);
        assert_eq!(
            code == 0,
            loads,
            "{} --torch {torch:?}: {v:#} {err}",
            w.display()
        );
    }
    for (runtime, version, provided) in [
        ("nvidia-cuda-runtime", "13.0.96", true),
        ("nvidia-cuda-runtime-cu12", "12.8.90", false),
        ("nvidia-cuda-runtime", "12.9.0", false),
    ] {
        let plan = work.join("report.json");
        std::fs::write(
            &plan,
            serde_json::json!({"version": "1", "install": [
                {"download_info": {"url": format!("file://{}", wheel.display())},
                 "metadata": {"name": "cuda13", "version": "1.0.0"}},
                {"download_info": {"url": "https://example.invalid/runtime.whl"},
                 "metadata": {"name": runtime, "version": version}},
            ]})
            .to_string(),
        )
        .unwrap();
        let (code, v, err) = verify(&[
            "--site-packages",
            sp.to_str().unwrap(),
            plan.to_str().unwrap(),
        ]);
        assert_eq!(code == 0, provided, "{runtime} {version}: {v:#} {err}");
        assert_eq!(
            err.contains("libcudart.so.13: provided by"),
            provided,
            "{runtime} {version}: {err}"
        );
    }
}

/// `abidoc verify` in human form, the wheel paths and work directory made stable.
fn verify_human(args: &[&str], work: &Path) -> (i32, String) {
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .arg("verify")
        .args(args)
        .args(["--color", "never"])
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX"));
    let text = format!("{out}{err}").replace(work.to_str().unwrap(), "[work]");
    (code, text)
}

/// Wheels whose libraries all load: one line each (name, "loads against torch X", what was
/// checked), and no "no known failure found".
#[test]
fn wheels_that_load_say_so_one_line_each() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-loads");
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    let mut wheels = Vec::new();
    for name in ["goodext", "bundled"] {
        let case = CASES.iter().find(|c| c.name == name).unwrap();
        wheels.push(build_wheel(case, &work, &stub_dir));
    }
    let mut args = vec!["--site-packages", sp.to_str().unwrap()];
    args.extend(wheels.iter().map(|w| w.to_str().unwrap()));
    let (code, text) = verify_human(&args, &work);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("no known failure"), "{text}");
    for w in &wheels {
        let name = w.file_name().unwrap().to_str().unwrap();
        let line = text
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"));
        assert!(
            line.contains(" loads against torch 2.10.0+cu128 (installed)"),
            "{line}"
        );
    }
    // The same against another torch, from the offline index: the line names that torch.
    let (code, other) = verify_human(
        &[
            "--site-packages",
            sp.to_str().unwrap(),
            wheels[1].to_str().unwrap(),
            "--torch",
            "2.9.0",
        ],
        &work,
    );
    assert_eq!(code, 0, "{other}");
    insta::assert_snapshot!(format!("{text}\n$ --torch 2.9.0\n{other}"));
}

/// A fake environment for the prebuilt-wheel answers: `lib/pythonX.Y/site-packages` with a
/// torch `version.py`, and `libc10.so` from a native fixture for the ABI its exports show.
fn prebuilt_env(
    work: &Path,
    name: &str,
    python: &str,
    torch: &str,
    cuda: &str,
    abi0: bool,
) -> PathBuf {
    let sp = work
        .join(name)
        .join(format!("lib/python{python}/site-packages"));
    std::fs::create_dir_all(sp.join("torch/lib")).unwrap();
    std::fs::write(
        sp.join("torch/version.py"),
        format!("__version__ = '{torch}'\ncuda = '{cuda}'\n"),
    )
    .unwrap();
    let from = if abi0 {
        "abi0/site-packages"
    } else {
        "site-packages"
    };
    std::fs::copy(
        fixtures().join(from).join("torch/lib/libc10.so"),
        sp.join("torch/lib/libc10.so"),
    )
    .unwrap();
    sp
}

/// `verify --package`: the wheel flash-attn's, mamba-ssm's and causal-conv1d's setup.py would
/// fetch for each environment (its torch, CUDA, C++ ABI and Python), whether the release data
/// lists it, and the nearest listed builds when it does not; human and JSON, over a table.
#[test]
fn the_prebuilt_wheel_for_the_environment_and_the_nearest_listed() {
    let work = fresh_dir("verify-prebuilt");
    let old = prebuilt_env(&work, "torch24", "3.10", "2.4.0+cu121", "12.1", true);
    let new = prebuilt_env(&work, "torch210", "3.12", "2.10.0+cu128", "12.8", false);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    // (environment, arguments, what the JSON answer's status must be)
    let cases: &[(&str, &[&str], &[&str])] = &[
        // torch 2.4, CUDA 12, pre-C++11 ABI, Python 3.10: published and listed.
        (old, &["--package", "flash-attn==2.6.3"], &["listed"]),
        // The newest release has no wheel list: the releases listed for torch 2.4.
        (old, &["--package", "flash-attn"], &["unlisted"]),
        // A torch newer than any release lists: the nearest torch versions listed.
        (
            old,
            &["--package", "flash-attn", "--torch", "2.15.0"],
            &["unlisted"],
        ),
        (
            old,
            &["--package", "flash-attn==2.8.3", "--torch", "2.15.0"],
            &["not-listed"],
        ),
        (
            new,
            &[
                "--package",
                "mamba-ssm==2.3.2.post1",
                "--package",
                "causal-conv1d",
            ],
            &["listed", "unlisted"],
        ),
    ];
    let mut human = String::new();
    let mut json = String::new();
    for (env, args, want) in cases {
        let mut all = vec!["--site-packages", *env];
        all.extend_from_slice(args);
        let (code, text) = verify_human(&all, &work);
        assert_eq!(code, 0, "{args:?}: {text}");
        assert!(!text.contains("no known failure"), "{text}");
        let shown = format!("$ verify {}", args.join(" "));
        human.push_str(&format!("{shown}\n{text}\n"));
        let (code, v, err) = verify(&all);
        assert_eq!(code, 0, "{args:?}: {err}");
        let answers = v["prebuilt"].as_array().unwrap();
        let got: Vec<&str> = answers
            .iter()
            .map(|a| a["status"].as_str().unwrap())
            .collect();
        assert_eq!(&got, want, "{args:?}: {v:#}");
        for a in answers {
            // A listed or unlisted wheel gives its address; one the data says was not
            // published gives none, and nothing claims to be verified.
            assert_eq!(a["verified"], false);
            assert_eq!(a["url"].is_string(), a["status"] != "not-listed", "{a:#}");
            if a["status"] != "listed" {
                assert!(!a["nearest"].as_array().unwrap().is_empty(), "{a:#}");
            }
        }
        json.push_str(&format!(
            "{shown}\n{}\n",
            serde_json::to_string_pretty(&v["prebuilt"]).unwrap()
        ));
    }
    insta::assert_snapshot!("prebuilt_human", human);
    insta::assert_snapshot!(
        "prebuilt_json",
        json.replace(&work.display().to_string(), "[work]")
    );
}

/// An install plan that builds flash-attn from its sdist: the wheel its setup.py would fetch
/// for the plan's torch; `--package` naming a package that fetches none says so and no more.
#[test]
fn a_plan_entry_built_from_an_sdist_gets_its_prebuilt_wheel() {
    let work = fresh_dir("verify-prebuilt-plan");
    let sp = prebuilt_env(&work, "torch24", "3.10", "2.4.0+cu121", "12.1", true);
    let plan = work.join("report.json");
    std::fs::write(
        &plan,
        serde_json::json!({"version": "1", "install": [
            {"download_info": {"url": "https://files.example.invalid/flash_attn-2.6.3.tar.gz"},
             "metadata": {"name": "flash-attn", "version": "2.6.3"}},
        ]})
        .to_string(),
    )
    .unwrap();
    let (code, v, err) = verify(&[
        "--site-packages",
        sp.to_str().unwrap(),
        plan.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v:#} {err}");
    let a = &v["prebuilt"][0];
    assert_eq!(a["version_from"], "plan", "{v:#}");
    assert_eq!(a["status"], "listed", "{v:#}");
    assert_eq!(
        a["file_name"],
        "flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl"
    );
    let (code, v, err) = verify(&[
        "--site-packages",
        sp.to_str().unwrap(),
        "--package",
        "torchvision",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(v.get("prebuilt").is_none(), "{v:#}");
    assert!(err.contains("knows no prebuilt wheel"), "{err}");
    let (code, _, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc")).args([
        "verify",
        "--package",
        "flash-attn==;rm",
    ]));
    assert_eq!(code, 2, "{err}");
}

/// Builds the named cases' wheels under `work/wheels`; returns them in the order asked.
fn wheels_for(work: &Path, names: &[&str]) -> Vec<PathBuf> {
    let stub_dir = work.join("stubs");
    stubs(&stub_dir);
    let dir = work.join("wheels");
    std::fs::create_dir_all(&dir).unwrap();
    names
        .iter()
        .map(|n| {
            let case = CASES.iter().find(|c| c.name == *n).unwrap();
            let w = build_wheel(case, work, &stub_dir);
            let to = dir.join(w.file_name().unwrap());
            std::fs::rename(&w, &to).unwrap();
            to
        })
        .collect()
}

/// A `pip-compile --generate-hashes` style requirements file: `\` continuations and `--hash`
/// options, a `-r` include relative to the including file (which names the failing wheel), a
/// bare prebuilt-wheel name, a range, a marker that excludes its line and a comment. Every
/// line is judged or said not to be; the include's wheel fails the run.
#[test]
fn a_hashed_requirements_file_with_includes_is_read_whole() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify-requirements");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("reqs/sub")).unwrap();
    let w = wheels_for(&work, &["goodext", "oldtorch"]);
    std::fs::write(
        work.join("reqs/requirements.txt"),
        format!(
            "# generated\n-r sub/more.txt\ntorch==2.10.0 \\\n    --hash=sha256:00 \\\n    --hash=sha256:11\n    # via goodext\ngoodext @ file://{} \\\n    --hash=sha256:22\nnumpy>=1.26 ; python_version >= \"3.8\"\nflash-attn\nwinonly==1.0 ; sys_platform == \"win32\"  # never here\n",
            w[0].display()
        ),
    )
    .unwrap();
    std::fs::write(
        work.join("reqs/sub/more.txt"),
        "../../wheels/oldtorch-1.0.0-cp312-cp312-linux_x86_64.whl \\\n  --hash=sha256:33\n-r ../requirements.txt\n",
    )
    .unwrap();
    let req = work.join("reqs/requirements.txt");
    let args = [
        "--site-packages",
        sp.to_str().unwrap(),
        req.to_str().unwrap(),
    ];
    let (code, v, err) = verify(&args);
    assert_eq!(code, 1, "{v:#} {err}");
    let errors: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["package"].as_str())
        .collect();
    assert_eq!(errors, ["oldtorch"], "{v:#}");
    // The bare name is the newest release's prebuilt wheel; the pin has no `\` left.
    assert_eq!(v["prebuilt"][0]["package"], "flash-attn", "{v:#}");
    assert_eq!(v["prebuilt"][0]["version_from"], "newest", "{v:#}");
    assert!(err.contains("include loop"), "{err}");
    let (code, text) = verify_human(&args, &work);
    assert_eq!(code, 1, "{text}");
    let plan: Vec<&str> = text.lines().filter(|l| l.starts_with("plan: ")).collect();
    insta::assert_snapshot!(plan.join("\n"));
}

/// `pylock.toml` (PEP 751): local wheels by `path` (a `wheels` entry, an `archive`) are judged,
/// a torch pin is the target, a URL-only entry is listed as not judged; a lock that yields
/// nothing is an error, not "nothing would fail".
#[test]
fn a_pylock_is_judged() {
    let fx = fixtures();
    let sp = fx.join("site-packages");
    let work = fresh_dir("verify-pylock");
    wheels_for(&work, &["goodext", "oldtorch"]);
    let lock = work.join("pylock.toml");
    let write = |torch: &str| {
        std::fs::write(
            &lock,
            format!(
                r#"lock-version = "1.0"
created-by = "abidoc-tests"
requires-python = ">=3.10"

[[packages]]
name = "torch"
version = "{torch}"
wheels = [{{ url = "https://example.invalid/torch-{torch}-cp312-cp312-manylinux_2_28_x86_64.whl", hashes = {{ sha256 = "00" }} }}]

[[packages]]
name = "goodext"
version = "1.0.0"
wheels = [{{ path = "./wheels/goodext-1.0.0-cp312-cp312-linux_x86_64.whl", hashes = {{ sha256 = "11" }} }}]

[[packages]]
name = "oldtorch"
version = "1.0.0"
archive = {{ path = "wheels/oldtorch-1.0.0-cp312-cp312-linux_x86_64.whl", hashes = {{ sha256 = "22" }} }}

[[packages]]
name = "requests"
version = "2.32.3"
wheels = [{{ url = "https://example.invalid/requests-2.32.3-py3-none-any.whl" }}]
"#
            ),
        )
        .unwrap();
    };
    let args = [
        "--site-packages",
        sp.to_str().unwrap(),
        lock.to_str().unwrap(),
    ];
    // On the installed torch 2.10, the wheel built for torch < 2.10 fails.
    write("2.10.0");
    let (code, v, err) = verify(&args);
    assert_eq!(code, 1, "{v:#} {err}");
    let failing = |v: &serde_json::Value| -> Vec<String> {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .filter_map(|d| d["package"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(failing(&v), ["oldtorch"], "{v:#}");
    let (_, text) = verify_human(&args, &work);
    assert!(
        text.contains("goodext 1.0.0 loads against torch 2.10.0+cu128 (installed)")
            && text.contains("plan: requests new, 2.32.3: not judged: no local wheel to read"),
        "{text}"
    );
    // The lock pins torch 2.9.1: judged from the offline index, where oldtorch loads and
    // goodext (and what the environment has built for 2.10) does not.
    write("2.9.1");
    let (code, v, err) = verify(&args);
    assert_eq!(code, 1, "{v:#} {err}");
    let f = failing(&v);
    assert!(
        f.contains(&"goodext".to_string()) && !f.contains(&"oldtorch".to_string()),
        "{v:#}"
    );
    // Nothing to judge: exit 2 and why, never "nothing would fail to load".
    for text in ["lock-version = \"1.0\"\n", "[[packages]\nname = \"x\n"] {
        std::fs::write(&lock, text).unwrap();
        let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
            .arg("verify")
            .args(args));
        assert_eq!(code, 2, "{out} {err}");
        assert!(
            err.contains("nothing to judge") && !out.contains("nothing would fail"),
            "{out} {err}"
        );
    }
}

/// `--python` with a `--site-packages` that is not `lib/pythonX.Y/site-packages`: the Python
/// comes from the interpreter (its resolved name here), so the prebuilt wheel is named.
#[test]
fn the_interpreters_python_names_the_prebuilt_wheel() {
    let work = fresh_dir("verify-python-version");
    let made = prebuilt_env(&work, "torch24", "3.10", "2.4.0+cu121", "12.1", true);
    let site = work.join("app/site");
    std::fs::create_dir_all(site.parent().unwrap()).unwrap();
    std::fs::rename(&made, &site).unwrap();
    let exe = work.join("py/bin/python3.10");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    std::fs::write(&exe, b"\x7fELF not run").unwrap();
    std::os::unix::fs::symlink(&exe, work.join("py/bin/python3")).unwrap();
    let python = work.join("py/bin/python3");
    let (code, v, err) = verify(&[
        "--site-packages",
        site.to_str().unwrap(),
        "--python",
        python.to_str().unwrap(),
        "--package",
        "flash-attn==2.6.3",
    ]);
    assert_eq!(code, 0, "{err}");
    let a = &v["prebuilt"][0];
    assert_eq!(a["status"], "listed", "{v:#}");
    assert_eq!(a["target"]["python"], "cp310", "{v:#}");
}

/// `--torch X --package NAME`: the wheel NAME's setup.py fetches for torch X, and the preview
/// of what X breaks, in one run (its errors set the exit status).
#[test]
fn a_package_and_a_torch_preview_in_one_run() {
    let sp = fixtures().join("site-packages");
    let (code, v, err) = verify(&[
        "--site-packages",
        sp.to_str().unwrap(),
        "--torch",
        "2.5.1",
        "--package",
        "flash-attn==2.6.3",
    ]);
    assert_eq!(code, 1, "{v:#} {err}");
    assert_eq!(v["prebuilt"][0]["package"], "flash-attn", "{v:#}");
    assert_eq!(v["prebuilt"][0]["target"]["torch"], "2.5.1", "{v:#}");
    let messages: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(!messages.is_empty(), "{v:#}");
    // 2.5.1 is the target, not the installed torch (2.10.0).
    for m in &messages {
        assert!(
            !m.contains("the installed 2.5.1") && m.contains("than torch 2.5.1"),
            "{m}"
        );
    }
}

/// A wheel that loads is no SARIF result; a wheel named as a path and through a plan is judged
/// once.
#[test]
fn a_wheel_that_loads_is_no_sarif_result_and_is_judged_once() {
    let sp = fixtures().join("site-packages");
    let work = fresh_dir("verify-once");
    let w = wheels_for(&work, &["goodext"]);
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["verify", "--format", "sarif", "--site-packages"])
        .arg(&sp)
        .arg(&w[0]));
    assert_eq!(code, 0, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run0 = &sarif["runs"][0];
    assert_eq!(run0["results"].as_array().unwrap().len(), 0, "{out}");
    // Every rule a result names is one the rules list defines.
    assert_eq!(
        run0["tool"]["driver"]["rules"].as_array().unwrap().len(),
        0,
        "{out}"
    );
    let req = work.join("requirements.txt");
    std::fs::write(
        &req,
        "./wheels/goodext-1.0.0-cp312-cp312-linux_x86_64.whl\n",
    )
    .unwrap();
    let (code, v, err) = verify(&[
        "--site-packages",
        sp.to_str().unwrap(),
        w[0].to_str().unwrap(),
        req.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let loads = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["message"].as_str().is_some_and(|m| m.contains(" loads")))
        .count();
    assert_eq!(loads, 1, "{v:#}");
}

/// A wheel whose library carries GPU code for chosen architectures (a `.nv_fatbin` section
/// written from the reader's layout, the library linked by the system compiler): `--gpu` says
/// which GPUs it runs on. The real loader loads the library whatever the GPU (dlopen reads no
/// GPU code), so the verdict for a GPU it lacks is "loads, but its kernels would not run there".
#[test]
fn gpu_code_is_judged_for_the_gpus_named() {
    use abidoc_elf::testing::{build_library, fatbin_section};
    let work = fresh_dir("verify-gpu");
    let tree = work.join("tree");
    std::fs::create_dir_all(tree.join("kernels")).unwrap();
    let lib = tree.join("kernels/libkernels.so");
    // sm_80 and sm_90 cubins, no PTX: Ampere and Hopper only.
    build_library(&lib, Some(&fatbin_section(&[80, 90], &[]))).unwrap();
    let (code, _, err) = run(Command::new("python3")
        .args(["-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])"])
        .arg(&lib));
    assert_eq!(code, 0, "the real loader loads it: {err}");
    let wheel = work.join("kernels-1.0.0-cp312-cp312-linux_x86_64.whl");
    zip_wheel(&tree, &wheel, "kernels", &[]);
    let sp = fixtures().join("site-packages");
    let at = |gpus: &[&str]| {
        let mut args = vec![
            "--site-packages",
            sp.to_str().unwrap(),
            wheel.to_str().unwrap(),
        ];
        for g in gpus {
            args.extend(["--gpu", g]);
        }
        verify(&args)
    };
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(|d| d["code"].as_str().unwrap().to_owned())
            .collect()
    };
    // An RTX 4090 (8.9) runs sm_80 code; an H100 given as a capability runs sm_90.
    for ok in [&["RTX 4090"][..], &["9.0"], &["sm_86", "sm_90"]] {
        let (code, v, err) = at(ok);
        assert_eq!(code, 0, "{ok:?}: {v} {err}");
        assert!(codes(&v).is_empty(), "{ok:?}: {v}");
    }
    // A Blackwell GPU (sm_120) has no cubin of its major and no PTX to compile: error.
    let (code, v, err) = at(&["sm_120"]);
    assert_eq!(code, 1, "{v} {err}");
    assert_eq!(codes(&v), ["gpu-arch-missing"], "{v}");
    let d = &v["diagnostics"][0];
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("no GPU code for sm_120") && msg.contains("would load"),
        "{msg}"
    );
    let ev = d["evidence"].to_string();
    assert!(
        ev.contains("sm_80 sm_90") && ev.contains("CUDA 12.8"),
        "{ev}"
    );
    // The library is the package's, not torch's: no torch build is proposed for it.
    assert_eq!(d["fixes"][0]["id"], "gpu-arch-missing/build-for-gpu", "{d}");
    assert!(
        !d["fixes"].to_string().contains("download.pytorch.org"),
        "{d}"
    );
    // A name the GPU table does not know is said, not guessed.
    let (code, _, err) = at(&["Quantum 9000"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("Quantum 9000") && err.contains("not judged"),
        "{err}"
    );
    // The human line says both: it loads, and where its kernels would not run.
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args([
            "verify",
            "--site-packages",
            sp.to_str().unwrap(),
            "--color",
            "never",
        ])
        .arg(&wheel)
        .args(["--gpu", "RTX 5090", "--gpu", "A100"]));
    assert_eq!(code, 1, "{out} {err}");
    let line = out
        .lines()
        .find(|l| l.contains("kernels 1.0.0"))
        .unwrap_or_default();
    assert!(
        line.contains("loads against")
            && line.contains("no GPU code for NVIDIA GeForce RTX 5090 (sm_120)")
            || line.contains("loads against") && line.contains("(sm_120)"),
        "{out}"
    );
}
