//! The wheel a package's setup.py fetches for an environment and the nearest listed builds
//! (`prebuilt::answer`), over a table of environments: one snapshot, and the invariants every
//! answer keeps (a listed wheel is the one setup.py names; nothing nearby is the judged release;
//! no computed name claims to be verified).

#![allow(clippy::panic)]

use abidoc_knowledge::prebuilt::{self, Answer, Fetch, Listing, Target};
use std::fmt::Write as _;

/// (what the case shows, package, version asked, torch, torch's CUDA, C++11 ABI, Python)
type Case = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    Option<&'static str>,
    Option<bool>,
    Option<&'static str>,
);

const CASES: &[Case] = &[
    (
        "listed: torch 2.4, CUDA 12, pre-C++11 ABI, Python 3.10",
        "flash-attn",
        Some("2.6.3"),
        "2.4.0",
        Some("12.1"),
        Some(false),
        Some("3.10"),
    ),
    (
        "the newest release has no wheel list: the nearest listed releases for torch 2.4",
        "flash-attn",
        None,
        "2.4.0+cu121",
        None,
        Some(false),
        Some("cp310"),
    ),
    (
        "a torch newer than any release: the nearest listed torch versions",
        "flash-attn",
        None,
        "2.15.0",
        None,
        None,
        Some("3.12"),
    ),
    (
        "a listed release, not for this torch: its own nearest torch versions",
        "flash_attn",
        Some("2.8.3"),
        "2.15.0+cu130",
        Some("13.0"),
        Some(true),
        Some("3.12"),
    ),
    (
        "mamba-ssm listed for torch 2.6 and CUDA 12",
        "mamba-ssm",
        Some("2.2.4"),
        "2.6.0+cu124",
        Some("12.4"),
        Some(false),
        Some("3.11"),
    ),
    (
        "causal-conv1d newest: the listed releases nearest to it for torch 2.10",
        "causal-conv1d",
        None,
        "2.10.0",
        Some("12.8"),
        Some(true),
        Some("3.12"),
    ),
    (
        "the Python unknown: listed, no file name",
        "flash-attn",
        Some("2.5.8"),
        "2.3.1+cu118",
        None,
        Some(false),
        None,
    ),
    (
        "a CPU build of torch",
        "flash-attn",
        Some("2.6.3"),
        "2.4.0+cpu",
        None,
        Some(false),
        Some("3.10"),
    ),
    (
        "a release before get_wheel_url: always compiled",
        "flash-attn",
        Some("2.0.4"),
        "2.0.1",
        Some("11.7"),
        Some(false),
        Some("3.10"),
    ),
    (
        "setup.py raises for a CUDA it does not know",
        "mamba-ssm",
        Some("2.3.2.post1"),
        "2.9.0",
        Some("10.2"),
        Some(true),
        Some("3.12"),
    ),
];

fn render(a: &Answer) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} {}{} for torch {} cuda {} ({:?}) abi {} ({:?}) python {}",
        a.package,
        a.version,
        if a.newest { " (newest)" } else { "" },
        a.torch.as_deref().unwrap_or("?"),
        a.cuda.as_deref().unwrap_or("?"),
        a.cuda_from,
        a.cxx11_abi.map_or("?".into(), |b| b.to_string()),
        a.abi_from,
        a.python.as_deref().unwrap_or("?"),
    );
    let fetch = match &a.fetch {
        Fetch::Wheel(w) => format!("wheel {}\n    url {}", w.file_name, w.url),
        other => format!("{other:?}"),
    };
    let _ = writeln!(s, "  fetch: {fetch}");
    let listing = match &a.listing {
        Listing::Listed { source } => format!("listed ({source})"),
        Listing::NotListed { torch, cuda, .. } => {
            format!(
                "not listed: torch {} cuda {}",
                torch.join(","),
                cuda.join(",")
            )
        }
        Listing::NoData => "no data".into(),
    };
    let _ = writeln!(s, "  listing: {listing}");
    for n in &a.nearest_releases {
        let _ = writeln!(
            s,
            "  nearest release: {} torch {} cuda {} {}",
            n.version,
            n.torch,
            n.cuda.join(","),
            n.wheel
                .as_ref()
                .map_or("(no name)", |w| w.file_name.as_str())
        );
    }
    for n in &a.nearest_torch {
        let _ = writeln!(
            s,
            "  nearest torch: {} ({} cuda {})",
            n.torch,
            n.version,
            n.cuda.join(",")
        );
    }
    s
}

#[test]
fn nearest_prebuilt_wheels() {
    let mut out = String::new();
    for (what, package, version, torch, cuda, abi, python) in CASES {
        let t = Target {
            torch,
            cuda: *cuda,
            cxx11_abi: *abi,
            python: *python,
            platform: None,
        };
        let a = prebuilt::answer(package, *version, &t)
            .unwrap_or_else(|| panic!("{what}: no answer for {package}"));
        if let Fetch::Wheel(w) = &a.fetch {
            assert!(!w.verified, "{what}");
            assert!(w.url.ends_with(&w.file_name.replace('+', "%2B")), "{what}");
        }
        assert!(
            a.nearest_releases.iter().all(|n| n.version != a.version),
            "{what}: the judged release is not its own nearest"
        );
        assert!(
            !matches!(a.listing, Listing::Listed { .. })
                || (a.nearest_releases.is_empty() && a.nearest_torch.is_empty()),
            "{what}: a listed build needs no alternative"
        );
        assert!(
            a.nearest_releases.is_empty() || a.nearest_torch.is_empty(),
            "{what}: another torch only when no release is listed for this one"
        );
        let _ = writeln!(out, "# {what}\n{}", render(&a));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn only_packages_whose_setup_fetches_a_wheel() {
    let t = Target {
        torch: "2.5.1",
        ..Target::default()
    };
    assert!(prebuilt::answer("torchvision", None, &t).is_none());
    assert!(prebuilt::answer("no-such-package", None, &t).is_none());
    // A version that is not one gives nothing, not a guess.
    assert!(prebuilt::answer("flash-attn", Some("latest"), &t).is_none());
}

/// Hostile parts never reach a name: a torch or CUDA with shell syntax gives no wheel.
#[test]
fn malformed_environment_parts_name_nothing() {
    for (torch, cuda) in [
        ("2.4.0;rm", Some("12.1")),
        ("2.4.0", Some("12;rm")),
        ("2.4.0", Some("12.x")),
    ] {
        let t = Target {
            torch,
            cuda,
            cxx11_abi: Some(false),
            python: Some("3.10"),
            platform: None,
        };
        let a = prebuilt::answer("flash-attn", Some("2.6.3"), &t)
            .unwrap_or_else(|| panic!("{torch} {cuda:?}"));
        assert!(
            !matches!(a.fetch, Fetch::Wheel(_)),
            "{torch} {cuda:?}: {a:?}"
        );
        assert!(
            a.nearest_releases.iter().all(|n| n.wheel.is_none()),
            "{torch} {cuda:?}: {a:?}"
        );
    }
}
