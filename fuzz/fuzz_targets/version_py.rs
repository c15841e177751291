//! Fuzzes the build manifests read as text: `version.py` (torch, torchvision, torchaudio),
//! xFormers' `cpp_lib.json` and DeepSpeed's `git_version_info_installed.py`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let v = abidoc_env::manifests::VersionPy::parse(&text);
    if let Some(version) = &v.version {
        let _ = abidoc_env::manifests::major_minor(version);
    }
    let _ = abidoc_env::manifests::XformersBuild::parse(&text);
    let _ = abidoc_env::manifests::DeepSpeedBuild::parse(&text);
    let _ = abidoc_env::site::PyvenvCfg::parse(&text);
});
