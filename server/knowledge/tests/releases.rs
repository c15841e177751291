//! The generated release data (`data/releases.toml` from `tools/release-data/derive.py`,
//! `data/prebuilt_wheels.toml` from setup.py): it loads and is well formed, its lookups answer,
//! the hand-written `compat.toml` never contradicts it, and the wheel names it builds (snapshots).

// Test helpers panic on broken data by design.
#![allow(clippy::panic)]

use abidoc_knowledge::compat::{self, tables};
use abidoc_knowledge::releases::{self, PrebuiltQuery};
use abidoc_knowledge::{Version, load_errors};
use std::fmt::Write as _;

fn v(s: &str) -> Version {
    Version::parse(s).unwrap_or_else(|| panic!("unparsable version {s:?}"))
}

#[test]
fn generated_tables_load_and_are_well_formed() {
    assert!(load_errors().is_empty(), "{:?}", load_errors());
    let all = releases::all();
    assert!(all.len() > 300, "only {} generated releases", all.len());
    for r in all {
        assert!(
            releases::is_canonical_release(&r.version),
            "{} {}",
            r.package,
            r.version
        );
        if let Some(t) = &r.torch {
            assert!(
                Version::parse(t.strip_suffix(".*").unwrap_or(t)).is_some(),
                "{} {}: torch pin {t:?}",
                r.package,
                r.version
            );
        }
        // A CUDA major is read from a wheel: an sdist has none.
        assert!(r.wheels || r.cuda_major.is_none(), "{r:?}");
        assert!(r.cuda_major.is_none_or(|c| (10..=14).contains(&c)), "{r:?}");
    }
    for p in ["torchvision", "torchaudio", "xformers", "vllm", "torch"] {
        assert!(releases::packages().contains(&p), "{p} missing");
    }
    let mut seen = std::collections::HashSet::new();
    for s in releases::prebuilt_schemes() {
        assert!(releases::is_canonical_release(&s.from), "{s:?}");
        assert!(
            s.until
                .as_deref()
                .is_none_or(|u| releases::is_canonical_release(u) && v(u) > v(&s.from)),
            "{s:?}"
        );
        assert!(
            ["major", "major_minor"].contains(&s.cuda_format.as_str()),
            "{s:?}"
        );
        assert!(["torch", "none"].contains(&s.unmatched.as_str()), "{s:?}");
        assert!(s.url.starts_with("https://github.com/"), "{s:?}");
        assert!(s.source.contains("setup.py"), "{s:?}");
        seen.insert((s.package.clone(), s.from.clone()));
    }
    // Ranges of one package do not overlap: each release has one scheme.
    for a in releases::prebuilt_schemes() {
        for b in releases::prebuilt_schemes() {
            if std::ptr::eq(a, b) || a.package != b.package {
                continue;
            }
            let a_end = a.until.as_deref().map(v);
            assert!(
                v(&b.from) < v(&a.from) || a_end.is_some_and(|e| v(&b.from) >= e),
                "{a:?} overlaps {b:?}"
            );
        }
    }
}

#[test]
fn lookups() {
    let tv = releases::companion_for_torch("torchvision", "2.5.1+cu121").map(|r| &r.version);
    assert_eq!(tv.map(String::as_str), Some("0.20.1"));
    assert_eq!(releases::torch_for("torchvision", "0.20.1"), Some("2.5.1"));
    assert_eq!(
        releases::companion_for_torch("xformers", "2.5.1").map(|r| r.version.as_str()),
        Some("0.0.29.post1")
    );
    assert_eq!(
        releases::torch_for("xformers", "0.0.28.post3"),
        Some("2.5.1")
    );
    assert_eq!(releases::ships_wheels("torchvision", "0.20.1"), Some(true));
    assert_eq!(releases::ships_wheels("flash-attn", "2.8.3"), Some(false));
    assert_eq!(releases::ships_wheels("flash_attn", "2.8.3"), Some(false));
    assert_eq!(releases::ships_wheels("torchvision", "9.9.9"), None);
    assert_eq!(releases::cuda_major("torch", "2.5.1"), Some(12));
    assert_eq!(releases::cuda_major("torch", "2.0.1"), Some(11));
    assert_eq!(releases::cuda_major("xformers", "0.0.28.post3"), Some(12));
    // Nightly and vendor builds match no pin: the generated data stays silent.
    assert_eq!(
        releases::companion_for_torch("torchvision", "2.4.0a0+07cecf4168"),
        None
    );
    assert_eq!(releases::companion_for_torch("torchvision", "junk"), None);
    // compat answers from it first, and from its own rows where it is silent.
    assert_eq!(
        compat::torchvision_for_torch("2.4.0a0+07cecf4168"),
        Some("0.19.0")
    );
    assert_eq!(compat::xformers_for_torch("2.5.1"), Some("0.0.29.post1"));
    let vllm = compat::releases_built_for_torch("vllm", "2.5.1");
    assert!(
        vllm.iter().all(|r| r.torch == ["2.5"]) && !vllm.is_empty(),
        "{vllm:?}"
    );
    assert!(!compat::releases_built_for_torch("mamba-ssm", "2.5").is_empty());
    // The Triton each torch release requires, from its Requires-Dist.
    assert_eq!(
        releases::triton_for_torch("2.5.1+cu121"),
        Some((3, 1, Some("3.1.0")))
    );
    assert_eq!(
        releases::triton_for_torch("2.3.1"),
        Some((2, 3, Some("2.3.1")))
    );
    // `2.9` is 2.9.0 (PEP 440); `~=` pins a line, no release.
    assert_eq!(
        releases::triton_for_torch("2.9"),
        Some((3, 5, Some("3.5.0")))
    );
    assert_eq!(releases::triton_for_torch("2.14.0"), Some((3, 8, None)));
    assert_eq!(
        releases::triton_for_torch("2.4.0a0+07cecf4168"),
        Some((3, 0, Some("3.0.0")))
    );
    assert_eq!(releases::triton_for_torch("1.13.1"), None);
    assert_eq!(releases::triton_for_torch("junk"), None);
}

/// Every pairing the hand-written `compat.toml` makes that the generated table also covers
/// agrees with it: torchvision/torchaudio per torch release, the torch each xformers release
/// pins, the CUDA of torch's default wheel, and the torch minors listed for GitHub wheels.
#[test]
fn hand_written_and_generated_never_contradict() {
    let mut bad = Vec::new();
    let t = tables();
    for row in &t.torch {
        for (pkg, hand) in [
            ("torchvision", &row.torchvision),
            ("torchaudio", &row.torchaudio),
        ] {
            let Some(hand) = hand.as_deref() else {
                continue;
            };
            if let Some(pin) = releases::torch_for(pkg, hand)
                && !pin.ends_with(".*")
                && v(pin) != v(&row.torch)
            {
                bad.push(format!(
                    "compat.toml: torch {} ↔ {pkg} {hand}, but {pkg} {hand} pins torch {pin}",
                    row.torch
                ));
            }
            if let Some(g) = releases::companion_for_torch(pkg, &row.torch)
                && g.version != hand
            {
                bad.push(format!(
                    "compat.toml: torch {} ↔ {pkg} {hand}, but PyPI's newest {pkg} pinning it is {}",
                    row.torch, g.version
                ));
            }
        }
        if let Some(c) = releases::release("torch", &row.torch).and_then(|r| r.cuda.as_deref())
            && c != row.default_cuda
        {
            bad.push(format!(
                "compat.toml: torch {} default_cuda {}, but its PyPI wheel pins CUDA runtime {c}",
                row.torch, row.default_cuda
            ));
        }
    }
    for x in &t.xformers {
        if let Some(pin) = releases::torch_for("xformers", &x.xformers)
            && !pin.ends_with(".*")
            && v(pin) != v(&x.torch)
        {
            bad.push(format!(
                "compat.toml: xformers {} ↔ torch {}, but it pins torch {pin}",
                x.xformers, x.torch
            ));
        }
    }
    for r in &t.release {
        if let Some(pin) = releases::torch_for(&r.package, &r.version) {
            let minor = v(pin.strip_suffix(".*").unwrap_or(pin)).major_minor_string();
            if !r.torch.contains(&minor) {
                bad.push(format!(
                    "compat.toml: {} {} for torch {:?}, but it pins torch {pin}",
                    r.package, r.version, r.torch
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Per package: how many releases, how many with Linux wheels, the range, and the torch each
/// torch release gets as companion (what fixes will propose).
#[test]
fn generated_summary_snapshot() {
    let mut out = String::new();
    for p in releases::packages() {
        let rs = releases::releases(p);
        let wheels = rs.iter().filter(|r| r.wheels).count();
        let pinned = rs.iter().filter(|r| r.torch.is_some()).count();
        let (newest, oldest) = (
            rs.first().map_or("", |r| r.version.as_str()),
            rs.last().map_or("", |r| r.version.as_str()),
        );
        let _ = writeln!(
            out,
            "{p}: {} releases ({oldest} .. {newest}), {wheels} with Linux x86_64 wheels, {pinned} pin torch",
            rs.len()
        );
    }
    out.push('\n');
    for row in &tables().torch {
        let mut line = format!("torch {}:", row.torch);
        for p in [
            "torchvision",
            "torchaudio",
            "xformers",
            "vllm",
            "torchao",
            "flashinfer-python",
            "sgl-kernel",
        ] {
            if let Some(r) = releases::companion_for_torch(p, &row.torch) {
                let _ = write!(line, " {p} {}", r.version);
            }
        }
        if let Some(c) = releases::release("torch", &row.torch).and_then(|r| r.cuda.as_deref()) {
            let _ = write!(line, " (cuda {c})");
        }
        out.push_str(&line);
        out.push('\n');
    }
    insta::assert_snapshot!(out);
}

/// The wheel names setup.py would download, over each scheme's first release, a few torch and
/// CUDA versions and both ABIs.
#[test]
fn prebuilt_wheel_names_snapshot() {
    let mut out = String::new();
    for s in releases::prebuilt_schemes() {
        for (torch, cuda) in [
            ("2.1.2", "11.8"),
            ("2.1.2", "12.1"),
            ("2.5.1", "12.4"),
            ("2.9.0", "13.0"),
            ("2.9.0", "12"),
        ] {
            let q = PrebuiltQuery {
                package: &s.package,
                version: &s.from,
                torch,
                cuda,
                cxx11_abi: torch >= "2.7",
                python: "3.12",
                platform: None,
            };
            let line = match releases::prebuilt_wheel(&q) {
                Some(w) => {
                    assert!(!w.verified);
                    assert!(w.url.ends_with(&w.file_name.replace('+', "%2B")));
                    w.url
                }
                None => format!("(none: {} {} torch {torch} cuda {cuda})", s.package, s.from),
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn prebuilt_wheel_follows_setup_py() {
    let q = PrebuiltQuery {
        package: "flash-attn",
        version: "2.8.3",
        torch: "2.9.0+cu130",
        cuda: "13.0",
        cxx11_abi: true,
        python: "cp312",
        platform: None,
    };
    // Before 2.8.3.post1 anything not CUDA 11 was pinned to 12.3: a CUDA 13 torch asks for cu12.
    let w = releases::prebuilt_wheel(&q).map(|w| w.file_name);
    assert_eq!(
        w.as_deref(),
        Some("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl")
    );
    let post = releases::prebuilt_wheel(&PrebuiltQuery {
        version: "2.8.3.post1",
        ..q
    })
    .map(|w| w.file_name);
    assert_eq!(
        post.as_deref(),
        Some("flash_attn-2.8.3.post1+cu13torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl")
    );
    // 2.1.2 to 2.2.3.post1 spell torch's own CUDA: the minor is needed.
    let raw = PrebuiltQuery {
        version: "2.1.2",
        torch: "2.0.1",
        cuda: "11.7",
        cxx11_abi: false,
        ..q
    };
    assert_eq!(
        releases::prebuilt_wheel(&raw)
            .map(|w| w.file_name)
            .as_deref(),
        Some("flash_attn-2.1.2+cu117torch2.0cxx11abiFALSE-cp312-cp312-linux_x86_64.whl")
    );
    assert!(releases::prebuilt_wheel(&PrebuiltQuery { cuda: "11", ..raw }).is_none());
    // Before 2.0.6 setup.py downloads nothing.
    assert!(
        releases::prebuilt_wheel(&PrebuiltQuery {
            version: "2.0.4",
            ..q
        })
        .is_none()
    );
    // mamba-ssm from 2.2.6.post3 raises on a CUDA it does not know.
    assert!(
        releases::prebuilt_wheel(&PrebuiltQuery {
            package: "mamba_ssm",
            version: "2.3.0",
            cuda: "14.0",
            ..q
        })
        .is_none()
    );
    // Nothing unvalidated reaches a URL.
    for (version, torch, cuda, python, platform) in [
        ("2.8.3/../../x", "2.9.0", "12.8", "cp312", None),
        ("2.8.3", "2.9.0;x", "12.8", "cp312", None),
        ("2.8.3", "2.9.0", "12.8?x", "cp312", None),
        ("2.8.3", "2.9.0", "12.8", "cp312&x", None),
        ("2.8.3", "2.9.0", "12.8", "py3", None),
        ("2.8.3", "2.9.0", "12.8", "cp312", Some("linux/../x")),
        ("2.8.3", "2", "12.8", "cp312", None),
    ] {
        let q = PrebuiltQuery {
            package: "flash-attn",
            version,
            torch,
            cuda,
            cxx11_abi: true,
            python,
            platform,
        };
        assert!(releases::prebuilt_wheel(&q).is_none(), "{q:?}");
    }
}

/// compat.toml's hand-written GitHub-wheel releases list CUDA versions setup.py asks for: a
/// `12.2` where the scheme pins 12.2 for CUDA 12, a bare major where it spells only the major
/// (rows that list no CUDA are not GitHub-wheel releases).
#[test]
fn compat_release_cuda_agrees_with_prebuilt() {
    let mut bad = Vec::new();
    for r in &tables().release {
        // A row that names no CUDA (torchao's, a PyPI package without a torch pin) has nothing
        // for setup.py to contradict.
        if r.cuda.is_empty() {
            continue;
        }
        let Some(s) = releases::prebuilt_scheme(&r.package, &r.version) else {
            bad.push(format!("{} {}: no setup.py scheme", r.package, r.version));
            continue;
        };
        for c in &r.cuda {
            let (maj, minor) = match c.split_once('.') {
                Some((a, b)) => (a, Some(b)),
                None => (c.as_str(), None),
            };
            let ok = match (s.cuda_format.as_str(), minor) {
                ("major", None) => true,
                ("major_minor", Some(_)) => {
                    let pinned = s.cuda_pins.iter().find(|p| {
                        p.torch.is_none() && p.cuda_major.is_none_or(|m| m.to_string() == maj)
                    });
                    pinned.is_none_or(|p| p.cuda == *c)
                }
                _ => false,
            };
            if !ok {
                bad.push(format!(
                    "compat.toml: {} {} cuda {c}, but setup.py ({}) spells {}",
                    r.package, r.version, s.source, s.cuda_format
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Without torch's CUDA from the environment, the answer takes the minor from torch's `+cuNNN`
/// label or its release's default CUDA, then setup.py's pins.
#[test]
fn answer_recovers_torch_cuda_for_setup_py() {
    use abidoc_knowledge::prebuilt::{Fetch, Target, answer};
    let name = |torch: &str, cuda: Option<&str>| {
        let t = Target {
            torch,
            cuda,
            cxx11_abi: Some(false),
            python: Some("3.10"),
            platform: None,
        };
        match answer("flash-attn", Some("2.3.0"), &t).map(|a| a.fetch) {
            Some(Fetch::Wheel(w)) => Some(w.file_name),
            _ => None,
        }
    };
    // 2.2.3.post2 to 2.3.1 spell torch's own CUDA (11.8 from the label) ...
    assert_eq!(
        name("2.0.1+cu118", None).as_deref(),
        Some("flash_attn-2.3.0+cu118torch2.0cxx11abiFALSE-cp310-cp310-linux_x86_64.whl")
    );
    // ... from the default CUDA of that torch without a label (2.0.1: 11.7) ...
    assert_eq!(
        name("2.0.1", None).as_deref(),
        Some("flash_attn-2.3.0+cu117torch2.0cxx11abiFALSE-cp310-cp310-linux_x86_64.whl")
    );
    // ... and pin every torch 2.1 build to 12.2.
    assert_eq!(
        name("2.1.2", None).as_deref(),
        Some("flash_attn-2.3.0+cu122torch2.1cxx11abiFALSE-cp310-cp310-linux_x86_64.whl")
    );
    // A CUDA major whose minor cannot be known gives nothing rather than a guess.
    assert_eq!(name("2.0.1", Some("12")), None);
}

#[test]
fn hand_wheel_cuda_rows_agree_with_generated_data() {
    for r in &abidoc_knowledge::compat::tables().wheel_cuda {
        if let Some(generated) = releases::cuda_major(&r.package, &r.version) {
            assert_eq!(
                generated, r.cuda_major,
                "{} {}: compat.toml says CUDA {}, the generated data {generated}",
                r.package, r.version, r.cuda_major
            );
        }
        assert_eq!(
            abidoc_knowledge::compat::wheel_cuda_major(&r.package, &r.version),
            Some(r.cuda_major)
        );
    }
}
