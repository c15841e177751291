//! Tests of the torch symbol index against facts about real torch releases and the field corpus.

use super::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn set_of(versions: &[&str]) -> ReleaseSet {
    let mut bits = 0u128;
    for v in versions {
        let i = release_index(v).unwrap_or_else(|| panic!("{v} is not indexed"));
        bits |= 1 << i;
    }
    ReleaseSet::from_bits(bits)
}

/// Releases of `minor` (e.g. "2.3") that are indexed.
fn minor(minor: &str) -> ReleaseSet {
    let mut bits = 0u128;
    for (i, r) in releases().iter().enumerate() {
        if r.version.rsplit_once('.').map(|(m, _)| m) == Some(minor) {
            bits |= 1 << i;
        }
    }
    ReleaseSet::from_bits(bits)
}

fn exported_by(sym: &str) -> ReleaseSet {
    lookup(sym).map_or(ReleaseSet::EMPTY, |h| h.releases)
}

#[test]
fn loads_real_releases() {
    assert_eq!(load_error(), None);
    let rs = releases();
    assert!(rs.len() >= 10, "{} releases", rs.len());
    assert_eq!(rs[0].version_key().0, 2);
    assert!(
        rs.windows(2)
            .all(|w| w[0].version_key() < w[1].version_key())
    );
    // Extensions are built against tens of thousands of exported torch symbols per release.
    assert!(symbol_count() > 50_000, "{}", symbol_count());
    // PyPI wheels switched to the C++11 ABI with 2.7; earlier ones use the old ABI.
    for r in rs {
        assert_eq!(r.cxx11_abi, r.version_key() >= (2, 7, 0), "{}", r.version);
        assert!(
            r.cuda.is_some(),
            "PyPI Linux wheels are CUDA builds: {}",
            r.version
        );
    }
}

#[test]
fn set_device_int_became_signed_char_in_2_3() {
    let int = exported_by("_ZN3c104cuda9SetDeviceEi");
    let schar = exported_by("_ZN3c104cuda9SetDeviceEa");
    assert!(!int.is_empty() && !schar.is_empty());
    assert!(int.intersect(schar).is_empty(), "{int} / {schar}");
    assert_eq!(schar.first().map(|r| r.version_key().1), Some(3));
    assert!(int.last().is_some_and(|r| r.version_key() < (2, 3, 0)));
    assert!(schar.intersect(minor("2.3")).len() == minor("2.3").len());
    assert_eq!(
        lookup("_ZN3c104cuda9SetDeviceEa").map(|h| h.library),
        Some("libc10_cuda.so")
    );
}

#[test]
fn exchange_device_history() {
    // Added in 2.1 taking `int`, switched to `signed char` (DeviceIndex) in 2.3.
    let int = exported_by("_ZN3c104cuda14ExchangeDeviceEi");
    let schar = exported_by("_ZN3c104cuda14ExchangeDeviceEa");
    assert_eq!(int.first().map(|r| r.version_key().1), Some(1));
    assert!(!int.contains_version("2.0.1"));
    assert!(int.contains_version("2.1.2") && int.contains_version("2.2.2"));
    assert!(!int.contains_version("2.3.1"));
    assert!(schar.contains_version("2.3.1"));
    let vs = variants("c10::cuda::ExchangeDevice");
    let forms: Vec<_> = vs.iter().map(|v| v.mangled.as_str()).collect();
    assert_eq!(
        forms,
        [
            "_ZN3c104cuda14ExchangeDeviceEi",
            "_ZN3c104cuda14ExchangeDeviceEa"
        ]
    );
    assert_eq!(
        vs[1].demangled.as_deref(),
        Some("c10::cuda::ExchangeDevice(signed char)")
    );
    // The same variants whichever way the name is given.
    assert_eq!(variants("_ZN3c104cuda14ExchangeDeviceEa"), vs);
    assert_eq!(variants("c10::cuda::ExchangeDevice(int)"), vs);
}

#[test]
fn cxx11_abi_switch_of_c10_error() {
    let old = exported_by("_ZN3c105ErrorC2ENS_14SourceLocationESs");
    let new = exported_by(
        "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    );
    assert!(old.contains_version("2.0.1") && old.contains_version("2.6.0"));
    assert!(!old.contains_version("2.7.1"));
    assert!(new.contains_version("2.7.1") && !new.contains_version("2.6.0"));
    // Old-ABI symbols are exactly those of the old-ABI releases.
    let old_abi = ReleaseSet::from_bits(
        releases()
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.cxx11_abi)
            .fold(0u128, |m, (i, _)| m | 1 << i),
    );
    assert_eq!(old, old_abi);
    assert_eq!(new, ReleaseSet::all().difference(old_abi));
}

#[test]
fn abi_twins_and_other_abi_builds() {
    let old = "_ZN3c105ErrorC2ENS_14SourceLocationESs";
    let twin = abi_twin(old).unwrap();
    assert!(
        twin.mangled
            .starts_with("_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx11")
    );
    assert_eq!(
        twin.releases.first().map(Release::version_key),
        Some((2, 7, 0))
    );
    assert_eq!(
        abi_twin(&twin.mangled).map(|t| t.mangled),
        Some(old.to_owned())
    );
    assert_eq!(abi_twin("_ZN3c104cuda9SetDeviceEa"), None);

    // parseSchemaOrName(std::string const&) lost its old form in 2.4 and PyPI went C++11 in 2.7,
    // so its C++11 mangling is in no PyPI wheel: only a C++11-ABI build of 2.0–2.3 exports it.
    let cxx11 =
        "_ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
    assert_eq!(lookup(cxx11), None);
    let b = built_for(&[cxx11, "_ZN3c104cuda9SetDeviceEi"]).unwrap();
    let o = b.other_abi.unwrap();
    assert!(o.cxx11);
    assert_eq!(o.releases, exported_by("_ZN3c104cuda9SetDeviceEi"));
    assert!(
        b.summary()
            .starts_with("built for a C++11-ABI build of torch 2.1.0"),
        "{}",
        b.summary()
    );
    // An unknown symbol without a twin leaves the verdict to the known symbols.
    let b = built_for(&[cxx11, "_ZN3c1011CPUTensorIdEv"]).unwrap();
    assert_eq!(b.other_abi, None);
}

#[test]
fn cuda_check_implementation_line_became_unsigned() {
    let int = exported_by("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib");
    let uint = exported_by("_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb");
    assert!(int.contains_version("2.0.1"));
    assert!(!uint.is_empty());
    assert!(int.intersect(uint).is_empty(), "{int} / {uint}");
    // 2.10 made the line number unsigned; 2.14 added a trailing CUDAErrorLogCapture*.
    assert_eq!(uint.first().map(|r| r.version_key().1), Some(10));
    assert!(int.last().map(Release::version_key) < uint.first().map(Release::version_key));
    let vs = variants("c10::cuda::c10_cuda_check_implementation");
    assert_eq!(vs.len(), 3, "{vs:#?}");
    assert_eq!(
        vs.iter()
            .fold(ReleaseSet::EMPTY, |s, v| s.union(v.releases)),
        ReleaseSet::all()
    );
}

#[test]
fn ops_signatures_moved_from_c10_optional_to_std_optional() {
    // at::_ops::*::call took c10::optional (mangled `N3c108optional`) until c10::optional became
    // an alias of std::optional (`St8optional`).
    let vs = variants("at::_ops::zeros_like::call");
    assert!(vs.len() >= 2, "{vs:#?}");
    let c10 = vs
        .iter()
        .filter(|v| v.mangled.contains("N3c108optional"))
        .fold(ReleaseSet::EMPTY, |s, v| s.union(v.releases));
    let std = vs
        .iter()
        .filter(|v| v.mangled.contains("St8optional"))
        .fold(ReleaseSet::EMPTY, |s, v| s.union(v.releases));
    assert!(c10.contains_version("2.0.1") && !c10.is_empty() && !std.is_empty());
    assert!(c10.last().map(Release::version_key) < std.first().map(Release::version_key));
}

#[test]
fn release_set_formatting() {
    let rs = releases();
    let n = rs.len();
    assert_eq!(ReleaseSet::EMPTY.to_string(), "none");
    let first_three = ReleaseSet::from_bits(0b111);
    assert_eq!(
        first_three.to_string(),
        format!("{}–{}", rs[0].version, rs[2].version)
    );
    let gap = ReleaseSet::from_bits(0b1011);
    assert_eq!(
        gap.to_string(),
        format!("{}–{}, {}", rs[0].version, rs[1].version, rs[3].version)
    );
    assert_eq!(ReleaseSet::from_bits(0b100).to_string(), rs[2].version);
    let all = ReleaseSet::all();
    assert_eq!(all.len(), n);
    let r = all.hull().unwrap();
    assert!(r.from_oldest() && r.to_newest());
    assert_eq!(set_of(&[&rs[1].version]).bits(), 0b10);
}

#[test]
fn built_for_intersects_and_reports_unknowns() {
    let syms = [
        "_ZN3c104cuda9SetDeviceEa",
        "_ZN3c105ErrorC2ENS_14SourceLocationESs",
        "memcpy",
        "_ZNSt6vectorIiSaIiEE9push_backERKi",
    ];
    let b = built_for(&syms).unwrap();
    assert_eq!(b.ignored, 2);
    assert_eq!(b.known, 2);
    assert!(b.is_exact());
    // Signed-char SetDevice (2.3+) and old-ABI std::string (before 2.7).
    assert_eq!(b.range().map(|r| r.first.version_key().1), Some(3));
    assert_eq!(b.range().map(|r| r.last.version_key().1), Some(6));

    let unknown = built_for(&["_ZN3c1011CPUTensorIdEv"]).unwrap();
    assert!(unknown.outside_index());
    assert!(
        unknown.summary().contains("outside PyPI"),
        "{}",
        unknown.summary()
    );
    assert_eq!(built_for(&["memcpy", "_Z3foov"]), None);

    // Cut off in a pasted log: counts with the releases of its completions.
    let cut = built_for(&[
        "_ZN3c104cuda9SetDeviceEi",
        "_ZN3c105ErrorC2ENS_14SourceLocationES",
    ])
    .unwrap();
    assert_eq!(cut.truncated.len(), 1);
    assert_eq!(cut.releases, exported_by("_ZN3c104cuda9SetDeviceEi"));
    // A complete symbol no release exports is unknown even when it prefixes exported ones: the
    // data symbol `c10::cuda::SetDevice` would otherwise match `SetDevice(signed char, …)`.
    assert!(completions("_ZN3c104cuda9SetDeviceE", 8).len() >= 2);
    let b = built_for(&["_ZN3c104cuda9SetDeviceE"]).unwrap();
    assert!(b.outside_index() && b.truncated.is_empty(), "{b:?}");

    let partial = built_for(&["_ZN3c104cuda9SetDeviceEi", "_ZN3c1011CPUTensorIdEv"]).unwrap();
    assert!(!partial.is_exact() && !partial.outside_index());
    assert!(
        partial.summary().contains("best effort"),
        "{}",
        partial.summary()
    );
}

#[test]
fn torch_symbol_classification() {
    for s in [
        "_ZN3c104cuda9SetDeviceEa",
        "_ZNK2at10TensorBase4sizeEl",
        "_ZTIN3c105ErrorE",
        "_Z16THPVariable_WrapRKN2at10TensorBaseE",
        "THPVariableClass",
        "_ZN4c10d12ProcessGroupD2Ev",
        "_ZN6caffe28TypeMeta21_typeMetaDataInstanceISt7complexIdEEEPKNS_6detail12TypeMetaDataEv",
    ] {
        assert!(is_torch_symbol(s), "{s}");
    }
    for s in [
        "memcpy",
        "_ZNSt6vectorIiSaIiEE9push_backERKi",
        "_Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_S3_S3_bb",
        "_ZN2at12_GLOBAL__N_13fooEv",
        "_ZN5mamba3fooEv",
    ] {
        assert!(!is_torch_symbol(s), "{s}");
    }
}

#[test]
fn qualified_names() {
    let cases = [
        (
            "_ZN3c104cuda14ExchangeDeviceEa",
            Some("c10::cuda::ExchangeDevice"),
        ),
        (
            "_ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE",
            Some("c10::impl::OperatorEntry::reportSignatureError"),
        ),
        (
            "_ZN3c105ErrorC2ENS_14SourceLocationESs",
            Some("c10::Error::Error"),
        ),
        ("_ZN3c105ErrorD0Ev", Some("c10::Error::~Error")),
        ("_ZN3c108demangleB5cxx11EPKc", Some("c10::demangle")),
        ("_ZN3c1012intrusive_ptrINS_10TensorImplEE5resetEv", None),
        ("memcpy", None),
    ];
    for (m, q) in cases {
        assert_eq!(qualified_name(m).as_deref(), q, "{m}");
    }
}

#[test]
fn spot_checks_snapshot() {
    let syms = [
        "_ZN3c104cuda9SetDeviceEi",
        "_ZN3c104cuda9SetDeviceEa",
        "_ZN3c104cuda14ExchangeDeviceEa",
        "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib",
        "_ZN3c105ErrorC2ENS_14SourceLocationESs",
        "_ZN3c108demangleB5cxx11EPKc",
        "_ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE",
        "_ZN3c1019UndefinedTensorImpl10_singletonE",
        "_ZNK3c107SymBool10guard_boolEPKcl",
        "_ZN5torch3jit17parseSchemaOrNameERKSsb",
        "_ZN3c1011CPUTensorIdEv",
        "_ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    ];
    let mut out = String::new();
    for s in syms {
        let _ = writeln!(out, "{s}\n  {}", describe(s).unwrap_or_else(|| "-".into()));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn index_within_size_budget() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/torch_index");
    let total: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total > 0);
    assert!(total <= 10 * 1024 * 1024, "{total} bytes");
}

/// The repository's compressed index, decompressed as `build.rs` does it.
fn decompressed() -> Vec<u8> {
    let mut out = Vec::new();
    let mut src = DATA;
    ruzstd::decoding::StreamingDecoder::new(&mut src)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn corrupt_payloads_are_errors_not_panics() {
    assert!(parse(Vec::new()).is_err());
    assert!(parse(b"ABTI\x01\x05".to_vec()).is_err());
    assert!(parse(b"XXXX".to_vec()).is_err());
    let ok = decompressed();
    for cut in [5, 100, ok.len() / 2, ok.len() - 1] {
        assert!(parse(ok[..cut].to_vec()).is_err(), "cut at {cut}");
    }
    assert!(parse(ok).is_ok());
}

#[test]
fn embedded_index_is_the_repository_file_decompressed() {
    let ok = decompressed();
    assert_eq!(ok, RAW);
}

fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/real_cases.jsonl");
    p.exists().then_some(p)
}

/// For every corpus case that names torch symbols: the built-for range from the symbols alone,
/// next to the versions the thread reports (checked by hand; see the snapshot).
#[test]
fn corpus_built_for_ranges() {
    let Some(path) = corpus() else {
        eprintln!("shared corpus not found beside the repository; skipping");
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut syms: Vec<String> = case["demangled"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d["mangled"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        syms.dedup();
        let refs: Vec<&str> = syms.iter().map(String::as_str).collect();
        let Some(b) = built_for(&refs) else { continue };
        let _ = writeln!(
            out,
            "{} [{}] thread: {}\n  {}",
            case["id"].as_str().unwrap_or("?"),
            case["category"].as_str().unwrap_or("?"),
            case["versions"],
            b.summary()
        );
        for s in &syms {
            let _ = writeln!(
                out,
                "    {s}: {}",
                describe(s).unwrap_or_else(|| "not a torch symbol".into())
            );
        }
    }
    insta::assert_snapshot!(out);
}
