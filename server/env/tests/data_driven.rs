//! Data-driven tests over fixture directories in `tests/data`, hand-built ld.so caches, and tiny
//! libraries built with the system compiler for loader resolution.

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used)]

use abidoc_env::dist::{BuildLabel, Requirement, read_site};
use abidoc_env::ldcache::LdCache;
use abidoc_env::loader::{LibStore, LoaderConfig, ProcessModel, Resolution, resolve};
use abidoc_env::manifests::{DeepSpeedBuild, VersionPy, XformersBuild};
use abidoc_env::{EnvSpec, Environment, discover, normalize_name, package_findings};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn rel(p: &Path) -> String {
    let d = data();
    match p.strip_prefix(&d) {
        Ok(r) => format!("$DATA/{}", r.display()),
        Err(_) => p.display().to_string(),
    }
}

fn site1() -> PathBuf {
    data().join("site1/lib/python3.12/site-packages")
}

#[test]
fn dist_info_and_egg_info() {
    let (dists, problems) = read_site(&site1());
    let mut out = String::new();
    for d in &dists {
        let _ = writeln!(
            out,
            "{} ({}) {:?} kind={:?} installer={:?} requested={} top_level={:?}",
            d.name, d.normalized, d.version, d.kind, d.installer, d.requested, d.top_level
        );
        for r in &d.requires_dist {
            let _ = writeln!(out, "  requires {r:?} exact_pin={:?}", r.exact_pin());
        }
        if let Some(u) = &d.direct_url {
            let _ = writeln!(out, "  direct_url wheel={:?} label={:?}", u.wheel, u.label);
        }
        let _ = writeln!(out, "  torch_pin={:?}", d.torch_pin());
        let (files, fp) = d.files();
        for f in files {
            let _ = writeln!(out, "  file {}", rel(&f));
        }
        for p in fp {
            let _ = writeln!(out, "  files problem: {}", p.message);
        }
    }
    for p in problems {
        let _ = writeln!(
            out,
            "problem {}: {}",
            p.path.as_deref().map(rel).unwrap_or_default(),
            p.message
        );
    }
    insta::assert_snapshot!(out);
}

#[test]
fn names_requirements_and_labels() {
    let mut out = String::new();
    for n in [
        "Foo_Bar.Baz",
        "mamba-ssm",
        "mamba_ssm",
        "Flash__Attn",
        "  torch ",
    ] {
        let _ = writeln!(out, "{n:?} -> {}", normalize_name(n));
    }
    for r in [
        "torch==2.5.1",
        "torch (==2.5.1)",
        "torch==2.5.*",
        "torch>=2.1,<2.6",
        "torch===2.5.1+cu121",
        "xformers[extra1, extra2] >=0.0.28 ; python_version >= \"3.9\"",
        ";",
        "numpy<2.3.0,>=2; python_version >= \"3.9\"",
        "numpy~=2.1",
        "numpy>1.26,<3",
        "numpy<2",
        "numpy>=99999999999999999999",
    ] {
        let req = Requirement::parse(r);
        let _ = writeln!(
            out,
            "{r:?} -> {req:?} pin={:?} minimum_major={:?}",
            req.as_ref().and_then(|q| q.exact_pin()),
            req.as_ref()
                .and_then(abidoc_env::Requirement::minimum_major)
        );
    }
    for l in [
        "flash_attn-2.8.3+cu12torch2.5cxx11abiFALSE-cp312-cp312-linux_x86_64.whl",
        "2.8.3+cu12torch2.10cxx11abiTRUE",
        "0.20.1+cu121",
        "2.5.1+cu118",
        "0.0.28+pt25cu124",
        "2.5.1+rocm6.2",
        "2.5.1+cpu",
        "1.0.0",
        "cu",
    ] {
        let _ = writeln!(out, "{l:?} -> {:?}", BuildLabel::parse(l));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn build_manifests() {
    let sp = site1();
    let read = |p: &str| std::fs::read_to_string(sp.join(p)).expect("fixture");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "torch: {:?}",
        VersionPy::parse(&read("torch/version.py"))
    );
    let _ = writeln!(
        out,
        "torchvision: {:?}",
        VersionPy::parse(&read("torchvision/version.py"))
    );
    let _ = writeln!(
        out,
        "torchaudio: {:?}",
        VersionPy::parse(&read("torchaudio/version.py"))
    );
    let _ = writeln!(
        out,
        "xformers: {:?}",
        XformersBuild::parse(&read("xformers/cpp_lib.json"))
    );
    let _ = writeln!(out, "xformers bad: {:?}", XformersBuild::parse("{"));
    let _ = writeln!(
        out,
        "deepspeed: {:?}",
        DeepSpeedBuild::parse(&read("deepspeed/git_version_info_installed.py"))
    );
    insta::assert_snapshot!(out);
}

#[test]
fn discovery_and_package_findings() {
    let prefix = data().join("site1");
    let mut out = String::new();
    let specs = [
        (
            "site-packages",
            EnvSpec {
                site_packages: vec![site1()],
                ..EnvSpec::default()
            },
        ),
        (
            "python",
            EnvSpec {
                python: Some(prefix.join("bin/python")),
                ..EnvSpec::default()
            },
        ),
        (
            "virtual_env",
            EnvSpec {
                virtual_env: Some(prefix.clone()),
                ..EnvSpec::default()
            },
        ),
        (
            "traceback",
            EnvSpec {
                traceback_paths: vec![
                    PathBuf::from("/nonexistent/x.py"),
                    site1().join("torchvision/version.py"),
                ],
                ..EnvSpec::default()
            },
        ),
        (
            "missing python",
            EnvSpec {
                python: Some(prefix.join("bin/nope")),
                ..EnvSpec::default()
            },
        ),
        ("nothing", EnvSpec::default()),
    ];
    for (what, spec) in specs {
        let (l, problems) = discover(&spec);
        let _ = writeln!(
            out,
            "{what}: origin={:?} venv={} version={:?} prefix={:?} base={:?} interpreter={:?} site={:?} problems={:?}",
            l.origin,
            l.is_venv,
            l.python_version,
            l.prefix.as_deref().map(rel),
            l.base_prefix.as_deref().map(rel),
            l.interpreter.as_deref().map(rel),
            l.site_packages.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>()
        );
    }
    let env = Environment::open(&EnvSpec {
        site_packages: vec![site1()],
        ld_cache: Some(PathBuf::from("/nonexistent/ld.so.cache")),
        ..EnvSpec::default()
    });
    let t = env.torch.as_ref().expect("torch");
    let _ = writeln!(
        out,
        "\ntorch {:?} cuda {:?} dist {:?}",
        t.version, t.cuda, t.dist_version
    );
    for d in &env.dists {
        for f in package_findings(&env, d) {
            let _ = writeln!(
                out,
                "{} {:?} {:?}: {:?}",
                f.facts.kind(),
                f.severity,
                f.package,
                f.facts
            );
        }
    }
    let owner = env
        .owner(&site1().join("torchvision/_C.so"))
        .map(|d| d.normalized.clone());
    let egg_owner = env
        .owner(&site1().join("foo_bar/_ext.so"))
        .map(|d| d.normalized.clone());
    let _ = writeln!(
        out,
        "owner of torchvision/_C.so: {owner:?}; of foo_bar/_ext.so: {egg_owner:?}"
    );
    for p in &env.problems {
        let _ = writeln!(
            out,
            "problem {}: {}",
            p.path.as_deref().map(rel).unwrap_or_default(),
            p.message
        );
    }
    insta::assert_snapshot!(out);
}

/// A new-format cache: header, entries, then strings; offsets from the start of the header.
fn new_cache(entries: &[(i32, &str, &str)]) -> Vec<u8> {
    let header = 48;
    let table = header + 24 * entries.len();
    let mut strings = Vec::new();
    let mut offs = Vec::new();
    for (_, k, v) in entries {
        let ko = table + strings.len();
        strings.extend_from_slice(k.as_bytes());
        strings.push(0);
        let vo = table + strings.len();
        strings.extend_from_slice(v.as_bytes());
        strings.push(0);
        offs.push((ko as u32, vo as u32));
    }
    let mut b = Vec::new();
    b.extend_from_slice(b"glibc-ld.so.cache1.1");
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    b.extend_from_slice(&(strings.len() as u32).to_le_bytes());
    b.extend_from_slice(&[2, 0, 0, 0]);
    b.extend_from_slice(&[0; 16]);
    for ((flags, _, _), (k, v)) in entries.iter().zip(&offs) {
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&k.to_le_bytes());
        b.extend_from_slice(&v.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
    }
    b.extend_from_slice(&strings);
    b
}

/// An old-format cache: magic, nlibs, 12-byte entries, strings counted from the table's end.
fn old_cache(entries: &[(i32, &str, &str)]) -> Vec<u8> {
    let mut strings = Vec::new();
    let mut b = Vec::new();
    b.extend_from_slice(b"ld.so-1.7.0\0");
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (flags, k, v) in entries {
        let ko = strings.len() as u32;
        strings.extend_from_slice(k.as_bytes());
        strings.push(0);
        let vo = strings.len() as u32;
        strings.extend_from_slice(v.as_bytes());
        strings.push(0);
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&ko.to_le_bytes());
        b.extend_from_slice(&vo.to_le_bytes());
    }
    b.extend_from_slice(&strings);
    b
}

#[test]
fn ld_so_cache_formats() {
    let entries = [
        (
            0x0303,
            "libstdc++.so.6",
            "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        ),
        (0x0003, "libstdc++.so.6", "/usr/lib32/libstdc++.so.6"),
        (0x0a03, "libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1"),
        (
            0x0303,
            "libcuda.so.1",
            "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        ),
    ];
    let mut out = String::new();
    let new = new_cache(&entries);
    let old = old_cache(&entries);
    // Compat: an old block with no entries, padded to 8 bytes, then a new block.
    let mut compat = old_cache(&[]);
    while !compat.len().is_multiple_of(8) {
        compat.push(0);
    }
    let compat_base = compat.len();
    let mut inner = new_cache(&entries);
    let _ = compat_base;
    compat.append(&mut inner);
    let mut truncated = new.clone();
    truncated.truncate(new.len() - 30);
    let mut huge = new.clone();
    huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    for (name, bytes) in [
        ("new", new.clone()),
        ("old", old),
        ("compat", compat),
        ("truncated", truncated),
        ("huge count", huge),
        (
            "random",
            (0..200u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
        ("empty", Vec::new()),
    ] {
        let c = LdCache::parse(&bytes);
        let _ = writeln!(out, "{name}: {:?} problems={:?}", c.format, c.problems);
        for e in &c.entries {
            let _ = writeln!(out, "  {:#06x} {} -> {}", e.flags, e.key, e.value);
        }
        let mut idx: Vec<_> = c.index(0x0300).into_iter().collect();
        idx.sort();
        let _ = writeln!(out, "  x86-64 index: {idx:?}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn real_ld_so_cache_smoke() {
    let Ok(bytes) = std::fs::read("/etc/ld.so.cache") else {
        return;
    };
    let c = LdCache::parse(&bytes);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert!(!c.entries.is_empty());
    let idx = c.index(abidoc_env::ldcache::host_required_flags());
    let libc = idx
        .get("libc.so.6")
        .expect("libc.so.6 in the machine's ld.so.cache");
    assert!(Path::new(libc).is_file(), "{libc}");
}

fn cc(args: &[&str]) {
    let st = std::process::Command::new("cc")
        .args(args)
        .status()
        .expect("cc");
    assert!(st.success(), "cc {args:?}");
}

#[test]
fn loader_rpath_runpath_origin() {
    let t = tempfile::tempdir().expect("tempdir");
    let r = t.path();
    for d in ["a", "b", "c", "app", "ldlp"] {
        std::fs::create_dir_all(r.join(d)).expect("mkdir");
    }
    let src = r.join("x.c");
    std::fs::write(&src, "int f(void){return 1;}\n").expect("src");
    let s = src.to_str().expect("utf8");
    let p = |x: &str| r.join(x).to_string_lossy().into_owned();
    // libdep.so.1 exists in a/ and in ldlp/; libonly_b.so in b/.
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("a/libdep.so.1"),
        "-Wl,-soname,libdep.so.1",
        s,
    ]);
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("ldlp/libdep.so.1"),
        "-Wl,-soname,libdep.so.1",
        s,
    ]);
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("b/libonly_b.so"),
        "-Wl,-soname,libonly_b.so",
        s,
    ]);
    // rpath_user: DT_RPATH=$ORIGIN/../a (old dtags) → wins over LD_LIBRARY_PATH.
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("app/rpath_user.so"),
        s,
        "-Wl,--no-as-needed",
        "-Wl,--disable-new-dtags,-rpath,$ORIGIN/../a",
        &format!("-L{}", p("a")),
        "-l:libdep.so.1",
    ]);
    // runpath_user: DT_RUNPATH=$ORIGIN/../a → LD_LIBRARY_PATH wins.
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("app/runpath_user.so"),
        s,
        "-Wl,--no-as-needed",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../a",
        &format!("-L{}", p("a")),
        "-l:libdep.so.1",
    ]);
    // child needs libonly_b.so with no paths; parent has DT_RPATH to b: inherited by the child.
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("c/libchild.so"),
        "-Wl,-soname,libchild.so",
        s,
        "-Wl,--no-as-needed",
        &format!("-L{}", p("b")),
        "-lonly_b",
    ]);
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("app/parent_rpath.so"),
        s,
        "-Wl,--no-as-needed",
        "-Wl,--disable-new-dtags,-rpath,$ORIGIN/../c:$ORIGIN/../b",
        &format!("-L{}", p("c")),
        "-lchild",
    ]);
    // Same with RUNPATH on the parent: not inherited, the child's lookup fails.
    cc(&[
        "-shared",
        "-fPIC",
        "-o",
        &p("app/parent_runpath.so"),
        s,
        "-Wl,--no-as-needed",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../c:$ORIGIN/../b",
        &format!("-L{}", p("c")),
        "-lchild",
    ]);

    let store = LibStore::default();
    let mut out = String::new();
    let show = |res: &Resolution| match res {
        Resolution::Found { path, via, .. } => {
            format!(
                "{} via {via:?}",
                path.strip_prefix(r)
                    .map(|x| x.display().to_string())
                    .unwrap_or_default()
            )
        }
        Resolution::Missing { searched } => format!("missing after {} dirs", searched.len()),
    };
    for ldlp in [None, Some(p("ldlp"))] {
        let cfg = LoaderConfig::new(ldlp.as_deref(), None, Some(Vec::new()));
        for lib in ["rpath_user.so", "runpath_user.so"] {
            let mut pm = ProcessModel::default();
            let list = pm.load_closure(&r.join("app").join(lib), None, &cfg, &store);
            let _ = writeln!(
                out,
                "LD_LIBRARY_PATH={:?} {lib}: {} objects",
                ldlp.is_some(),
                list.len()
            );
            for l in &pm.log {
                let _ = writeln!(out, "  {} -> {}", l.name, show(&l.resolution));
            }
            let again = resolve("libdep.so.1", list[0], &pm, &cfg, &store);
            let _ = writeln!(out, "  again: {}", show(&again));
        }
    }
    let cfg = LoaderConfig::new(None, None, Some(Vec::new()));
    for lib in ["parent_rpath.so", "parent_runpath.so"] {
        let mut pm = ProcessModel::default();
        pm.load_closure(&r.join("app").join(lib), None, &cfg, &store);
        let _ = writeln!(out, "{lib}:");
        for l in &pm.log {
            let _ = writeln!(out, "  {} -> {}", l.name, show(&l.resolution));
        }
    }
    let _ = writeln!(
        out,
        "expand: {}",
        cfg.expand("$ORIGIN/x:${ORIGIN}/$PLATFORM", Path::new("/o"))
            .display()
    );
    insta::assert_snapshot!(out);
}

#[test]
fn optional_backends_and_driver_libraries_are_information() {
    let t = tempfile::tempdir().expect("tempdir");
    let sp = t.path().join("site-packages");
    let gone = t.path().join("gone");
    for d in ["torchaudio/lib", "nvshmem/lib", "needs_driver"] {
        std::fs::create_dir_all(sp.join(d)).expect("mkdir");
    }
    std::fs::create_dir_all(&gone).expect("mkdir");
    let src = t.path().join("x.c");
    std::fs::write(&src, "int f(void){return 1;}\n").expect("src");
    let s = src.to_str().expect("utf8");
    let p = |x: &Path| x.to_string_lossy().into_owned();
    // Dependencies that exist at link time only.
    for soname in [
        "libsox.so.3",
        "libfabric.so.1",
        "libcuda.so.1",
        "libcudart.so.12",
    ] {
        cc(&[
            "-shared",
            "-fPIC",
            "-o",
            &p(&gone.join(soname)),
            &format!("-Wl,-soname,{soname}"),
            s,
        ]);
    }
    let link = |out: &Path, deps: &[&str]| {
        let mut args = vec![
            "-shared".to_string(),
            "-fPIC".into(),
            "-o".into(),
            p(out),
            s.to_string(),
            "-Wl,--no-as-needed".into(),
        ];
        args.push(format!("-L{}", p(&gone)));
        for d in deps {
            args.push(format!("-l:{d}"));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        cc(&refs);
    };
    link(
        &sp.join("torchaudio/lib/libtorchaudio_sox.so"),
        &["libsox.so.3"],
    );
    link(
        &sp.join("nvshmem/lib/nvshmem_transport_libfabric.so.3"),
        &["libfabric.so.1"],
    );
    link(&sp.join("needs_driver/_kernels.so"), &["libcuda.so.1"]);
    link(&sp.join("needs_driver/_runtime.so"), &["libcudart.so.12"]);
    std::fs::remove_dir_all(&gone).expect("rm");
    let mut out = String::new();
    for driver in [false, true] {
        let env = Environment::open(&EnvSpec {
            site_packages: vec![sp.clone()],
            has_nvidia_driver: Some(driver),
            ..EnvSpec::default()
        });
        let _ = writeln!(out, "NVIDIA driver present: {driver}");
        for lib in [
            "torchaudio/lib/libtorchaudio_sox.so",
            "nvshmem/lib/nvshmem_transport_libfabric.so.3",
            "needs_driver/_kernels.so",
            "needs_driver/_runtime.so",
        ] {
            let r = abidoc_env::check_library(&env, &sp.join(lib));
            let f: Vec<String> = r
                .findings
                .iter()
                .map(|f| {
                    format!(
                        "{} {:?} downgraded={:?}",
                        f.facts.kind(),
                        f.severity,
                        f.downgraded
                    )
                })
                .collect();
            let _ = writeln!(out, "  {lib}: {:?} {f:?}", r.verdict);
        }
    }
    insta::assert_snapshot!(out);
}
