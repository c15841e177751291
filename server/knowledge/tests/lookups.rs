//! Direct checks of the public lookups on facts the field reports depend on.

// Test helpers panic on broken fixtures by design.
#![allow(clippy::unwrap_used, clippy::panic)]

use abidoc_knowledge::compat::*;
use abidoc_knowledge::*;

#[test]
fn tables_load() {
    assert_eq!(load_errors(), Vec::<String>::new());
}

#[test]
fn packages_by_module_and_path() {
    let name = |p: Option<&'static Package>| p.map(|p| p.name.as_str());
    assert_eq!(
        name(package_for_module("selective_scan_cuda")),
        Some("mamba-ssm")
    );
    assert_eq!(
        name(package_for_module("causal_conv1d_cuda")),
        Some("causal-conv1d")
    );
    assert_eq!(
        name(package_for_module("flash_attn_2_cuda")),
        Some("flash-attn")
    );
    assert_eq!(
        name(package_for_module("mamba_ssm.ops.selective_scan_interface")),
        Some("mamba-ssm")
    );
    assert_eq!(name(package_for_module("amp_C")), Some("apex"));
    assert_eq!(
        name(package_for_path("/x/site-packages/xformers/_C.so")),
        Some("xformers")
    );
    assert_eq!(
        name(package_for_path("torch_scatter/_version_cuda.so")),
        Some("torch-scatter")
    );
    assert_eq!(
        name(package_for_path(
            "/usr/lib/python3/dist-packages/torchaudio/lib/libtorchaudio.so"
        )),
        Some("torchaudio")
    );
    assert_eq!(
        name(package_for_path(
            "/a/site-packages/bitsandbytes/libbitsandbytes_cuda121.so"
        )),
        Some("bitsandbytes")
    );
    assert_eq!(
        name(package_for_path(
            "/h/.cache/torch_extensions/py310_cu117/fused_adam/fused_adam.so"
        )),
        Some("deepspeed")
    );
    assert_eq!(
        name(package_for_path("/usr/lib/x86_64-linux-gnu/libcuda.so.1")),
        None
    );
    assert_eq!(name(package("nvidia-apex")), Some("apex"));
    assert_eq!(name(package("MMCV_full")), Some("mmcv"));
}

#[test]
fn compat_lookups() {
    assert_eq!(torchvision_for_torch("2.5.1+cu121"), Some("0.20.1"));
    assert_eq!(torchaudio_for_torch("1.13.1"), Some("0.13.1"));
    assert_eq!(torchvision_for_torch("2.4.0a0+07cecf4168"), Some("0.19.0"));
    assert_eq!(torchvision_for_torch("3.0"), None);
    assert_eq!(torch_cxx11_abi("2.5.1"), Some(false));
    assert_eq!(torch_cxx11_abi("2.6.0+cu124"), Some(false));
    assert_eq!(torch_cxx11_abi("2.6.0+cu126"), Some(true));
    assert_eq!(torch_cxx11_abi("2.8.0+cu128"), Some(true));
    assert_eq!(torch_default_cuda("2.2.2"), Some("12.1"));
    // Vendor and source builds decide for themselves: the tables do not guess.
    assert_eq!(torch_cxx11_abi("2.4.0a0+07cecf4168"), None);
    assert_eq!(torch_cxx11_abi("2.5.0a0+e000cf0ad9.nv24.10"), None);
    assert_eq!(torch_cxx11_abi("2.3.0.dev20240304+cu118"), None);
    assert_eq!(torch_default_cuda("2.4.0a0+07cecf4168"), None);
    assert_eq!(torch_cxx11_abi("2.3.1+cpu.cxx11.abi"), Some(true));
    assert_eq!(torch_cxx11_abi("2.5.1+rocm6.2"), Some(false));
    assert_eq!(xformers_for_torch("2.2.0+cu121"), Some("0.0.24"));
    assert_eq!(torch_for_xformers("0.0.24"), Some("2.2.0"));
    let r: Vec<&str> = releases_built_for_torch("mamba-ssm", "2.2.2+cu121")
        .iter()
        .map(|r| r.version.as_str())
        .collect();
    assert!(r.contains(&"2.2.4"), "{r:?}");
    // Releases whose metadata names no torch, from the projects' own tables (newest first).
    let newest = |pkg: &str, torch: &str| {
        releases_built_for_torch(pkg, torch)
            .first()
            .map(|r| r.version.clone())
    };
    assert_eq!(
        newest("fbgemm-gpu", "2.6.0+cu124").as_deref(),
        Some("1.1.0")
    );
    assert_eq!(newest("torchcodec", "2.9.1").as_deref(), Some("0.9.1"));
    assert_eq!(newest("torchcodec", "2.7.0").as_deref(), Some("0.5"));
    // torch-tensorrt's `>=2.10.0,<2.11.0` is generated as the pin `2.10.*`.
    assert_eq!(
        releases::companion_for_torch("torch-tensorrt", "2.10.1").map(|r| r.version.as_str()),
        Some("2.10.0")
    );
}

#[test]
fn wheel_names() {
    use abidoc_knowledge::releases::{PrebuiltQuery, prebuilt_wheel};
    let q = PrebuiltQuery {
        package: "mamba-ssm",
        version: "2.2.4",
        torch: "2.5.1+cu121",
        cuda: "12.1",
        cxx11_abi: false,
        python: "3.11",
        platform: None,
    };
    let w = prebuilt_wheel(&q).unwrap();
    assert_eq!(
        w.file_name,
        "mamba_ssm-2.2.4+cu12torch2.5cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"
    );
    assert_eq!(
        w.url,
        "https://github.com/state-spaces/mamba/releases/download/v2.2.4/mamba_ssm-2.2.4%2Bcu12torch2.5cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"
    );
    assert!(!w.verified);
    let old = prebuilt_wheel(&PrebuiltQuery {
        version: "1.2.0.post1",
        torch: "2.3.0",
        cuda: "11.8",
        ..q
    })
    .unwrap();
    assert_eq!(
        old.file_name,
        "mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"
    );
    let fa = prebuilt_wheel(&PrebuiltQuery {
        package: "flash_attn",
        version: "2.8.3",
        torch: "2.8.0+cu128",
        cuda: "12.8",
        cxx11_abi: true,
        python: "cp310",
        platform: None,
    })
    .unwrap();
    assert_eq!(
        fa.file_name,
        "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp310-cp310-linux_x86_64.whl"
    );
    assert!(
        prebuilt_wheel(&PrebuiltQuery {
            package: "torchvision",
            ..q
        })
        .is_none()
    );
}

#[test]
fn model_patterns() {
    let fam = |id: &str| models::family_for_model_id(id).map(|(f, _)| f.model_type.as_str());
    assert_eq!(
        fam("ibm-granite/granite-4.0-h-micro"),
        Some("granitemoehybrid")
    );
    assert_eq!(fam("ibm-granite/granite-3.2-8b-instruct"), Some("granite"));
    assert_eq!(fam("Qwen/Qwen3-8B"), Some("qwen3"));
    assert_eq!(fam("state-spaces/mamba-130m-hf"), Some("mamba"));
    assert_eq!(fam("tiiuae/falcon-mamba-7b"), Some("falcon_mamba"));
    assert_eq!(fam("my-org/secret-model"), None);
    assert!(
        family_for_model_type("granitemoehybrid")
            .unwrap()
            .uses_mamba_kernels
    );
    assert!(!family_for_model_type("granite").unwrap().uses_mamba_kernels);
}

/// The wheel names setup.py's scheme gives every listed release, at the ends of its torch range,
/// for each CUDA it ships and both ABIs (the names fixes will print, unverified).
#[test]
fn wheel_names_for_listed_releases() {
    use abidoc_knowledge::releases::{PrebuiltQuery, prebuilt_wheel};
    let mut out = String::new();
    for r in &compat::tables().release {
        let ends = [r.torch.first(), r.torch.last()];
        for torch in ends.into_iter().flatten() {
            for cuda in &r.cuda {
                for abi in [false, true] {
                    let q = PrebuiltQuery {
                        package: &r.package,
                        version: &r.version,
                        torch,
                        cuda,
                        cxx11_abi: abi,
                        python: "3.11",
                        platform: None,
                    };
                    let line = match prebuilt_wheel(&q) {
                        Some(w) => {
                            assert!(!w.verified);
                            assert!(w.url.ends_with(&w.file_name.replace('+', "%2B")));
                            w.url
                        }
                        None => format!(
                            "(no scheme for {} {} torch {torch} cuda {cuda})",
                            r.package, r.version
                        ),
                    };
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn mentions_name_top_level_packages_only() {
    let names = |text: &str| -> Vec<&str> {
        packages::mentions(text)
            .iter()
            .map(|m| m.package.name.as_str())
            .collect()
    };
    // xformers vendors FlashAttention 3 as its own submodule: the frame's package is xformers.
    let frame = "  File \"/env/lib/python3.11/site-packages/xformers/ops/fmha/flash3.py\", line 110, in <module>\n    from ...flash_attn_3 import _C\n";
    assert_eq!(names(frame), ["xformers"]);
    assert!(
        names("import xformers.flash_attn_3._C")
            .iter()
            .all(|n| *n == "xformers")
    );
    assert_eq!(
        names("from flash_attn import flash_attn_func"),
        ["flash-attn"]
    );
    assert_eq!(
        names("import flash_attn_2_cuda as flash_attn_gpu"),
        ["flash-attn"]
    );
}

#[test]
fn mentions_keep_the_alias_the_text_spells() {
    let m = packages::mentions("pip install mmcv-full==1.3.0 -f https://download.openmmlab.com");
    assert_eq!(m.first().map(|m| m.distribution), Some("mmcv-full"));
    assert_eq!(m.first().map(|m| m.package.name.as_str()), Some("mmcv"));
    let m = packages::mentions("import mmcv");
    assert_eq!(m.first().map(|m| m.distribution), Some("mmcv"));
}
