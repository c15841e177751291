//! Binaries that do not fit the process or the CPU (`scan/cpu.rs`): a library of another
//! architecture, instructions the CPU lacks, a second OpenMP runtime, a wheel pip refuses, an
//! executable stack glibc refuses — each read with what its form names, and near-misses not.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_syntax::{EventKind, scan};

fn kinds(input: &str) -> Vec<EventKind> {
    let parse = scan(input);
    for e in &parse.value {
        assert!(input.is_char_boundary(e.span.start) && input.is_char_boundary(e.span.end));
        assert!(e.span.start <= e.span.end && e.span.end <= input.len());
    }
    parse.value.into_iter().map(|e| e.kind).collect()
}

fn arch(input: &str) -> Vec<(Option<String>, Option<String>, Option<String>)> {
    kinds(input)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::WrongArchitecture {
                library,
                have,
                need,
                ..
            } => Some((library, have, need)),
            _ => None,
        })
        .collect()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

#[test]
fn another_architecture_with_both_sides() {
    // macOS 12+, quoted archs; older dyld, parenthesized and arm64e.
    assert_eq!(
        arch(
            "ImportError: dlopen(/u/env/lib/python3.11/site-packages/x/_C.so, 0x0002): tried: '/u/env/lib/python3.11/site-packages/x/_C.so' (mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64')), '/System/x/_C.so' (no such file)"
        ),
        [(
            s("/u/env/lib/python3.11/site-packages/x/_C.so"),
            s("x86_64"),
            s("arm64")
        )]
    );
    assert_eq!(
        arch(
            "  Reason: tried: '/opt/homebrew/lib/libomp.dylib' (mach-o file, but is an incompatible architecture (have (x86_64), need (arm64e)))"
        ),
        [(s("/opt/homebrew/lib/libomp.dylib"), s("x86_64"), s("arm64"))]
    );
    // Older dyld's `Did find:` line.
    assert_eq!(
        arch(
            "\t/Users/a/env/lib/python3.8/site-packages/matplotlib/ft2font.cpython-38-darwin.so: mach-o, but wrong architecture"
        ),
        [(
            s("/Users/a/env/lib/python3.8/site-packages/matplotlib/ft2font.cpython-38-darwin.so"),
            None,
            None
        )]
    );
    // glibc names the file's class: the process is the other one.
    assert_eq!(
        arch("OSError: /home/pi/sdk/acrcloud_extr_tool.so: wrong ELF class: ELFCLASS32"),
        [(
            s("/home/pi/sdk/acrcloud_extr_tool.so"),
            s("32-bit"),
            s("64-bit")
        )]
    );
}

#[test]
fn windows_error_193_only_for_a_load() {
    assert_eq!(
        arch(
            "ImportError: DLL load failed while importing _C: %1 is not a valid Win32 application."
        ),
        [(s("_C"), None, None)]
    );
    assert_eq!(
        arch(
            r#"OSError: [WinError 193] %1 is not a valid Win32 application. Error loading "C:\env\Lib\site-packages\torch\lib\c10.dll" or one of its dependencies."#
        ),
        [(s(r"C:\env\Lib\site-packages\torch\lib\c10.dll"), None, None)]
    );
    // subprocess running a file that is no program.
    assert!(arch("OSError: [WinError 193] %1 is not a valid Win32 application").is_empty());
}

fn illegal(input: &str) -> Vec<Option<String>> {
    kinds(input)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::IllegalInstruction { feature, .. } => Some(feature),
            _ => None,
        })
        .collect()
}

#[test]
fn instructions_the_cpu_lacks() {
    assert_eq!(illegal("Illegal instruction (core dumped)"), [None]);
    assert_eq!(illegal("zsh: illegal hardware instruction  python"), [None]);
    assert_eq!(
        illegal("Program received signal SIGILL, Illegal instruction."),
        [None]
    );
    assert_eq!(illegal("非法指令 (核心已转储)"), [None]);
    assert_eq!(
        illegal(
            "RuntimeError: This version of jaxlib was built using AVX instructions, which your CPU and/or operating system do not support."
        ),
        [s("AVX")]
    );
    assert_eq!(
        illegal(
            "The TensorFlow library was compiled to use AVX instructions, but these aren't available on your machine."
        ),
        [s("AVX")]
    );
    // A GPU kernel's illegal instruction is CUDA's; TensorFlow's information line is no failure.
    assert!(illegal("RuntimeError: CUDA error: an illegal instruction was encountered").is_empty());
    assert!(illegal("Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA").is_empty());
}

#[test]
fn openmp_runtimes_wheels_and_stacks() {
    let k = kinds(
        "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.",
    );
    assert!(
        k.contains(&EventKind::OpenmpDuplicate {
            initializing: s("libiomp5md.dll"),
            found: s("libiomp5md.dll"),
            mkl_layer: None,
        }),
        "{k:?}"
    );
    let k = kinds(
        "Error: mkl-service + Intel(R) MKL: MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1 library.\n        Try to import numpy first or set the threading layer accordingly. Set MKL_SERVICE_FORCE_INTEL to force it.",
    );
    assert!(
        k.contains(&EventKind::OpenmpDuplicate {
            initializing: s("libiomp5"),
            found: s("libgomp.so.1"),
            mkl_layer: s("INTEL"),
        }),
        "{k:?}"
    );
    let k = kinds(
        "ERROR: mlx-0.12.0-cp312-cp312-macosx_14_0_arm64.whl is not a supported wheel on this platform.",
    );
    assert!(
        k.contains(&EventKind::WheelUnsupported {
            wheel: "mlx-0.12.0-cp312-cp312-macosx_14_0_arm64.whl".into(),
        }),
        "{k:?}"
    );
    let k = kinds(
        "ImportError: libtorch_cpu.so: cannot enable executable stack as shared object requires: Invalid argument",
    );
    assert!(
        k.contains(&EventKind::ExecutableStack {
            library: s("libtorch_cpu.so"),
        }),
        "{k:?}"
    );
}

#[test]
fn resolver_finding_no_release() {
    let k = kinds(
        "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 (from versions: 2.0.0, 2.0.1, 2.1.0)",
    );
    assert!(
        k.contains(&EventKind::NoMatchingDistribution {
            requirement: "torch==1.13.1".into(),
            available: Some(vec!["2.0.0".into(), "2.0.1".into(), "2.1.0".into()]),
        }),
        "{k:?}"
    );
    // Markers after the requirement are not part of it; `none` is an empty list.
    let k = kinds(
        "ERROR: Could not find a version that satisfies the requirement nvidia-cuda-runtime-cu11==11.7.99; platform_system == \"Linux\" (from versions: none)",
    );
    assert!(
        k.contains(&EventKind::NoMatchingDistribution {
            requirement: "nvidia-cuda-runtime-cu11==11.7.99".into(),
            available: Some(Vec::new()),
        }),
        "{k:?}"
    );
    let k = kinds("ERROR: No matching distribution found for triton");
    assert!(
        k.contains(&EventKind::NoMatchingDistribution {
            requirement: "triton".into(),
            available: None,
        }),
        "{k:?}"
    );
    let k = kinds(
        "  ╰─▶ Because there is no version of torch==1.13.1 and you require torch==1.13.1, we can conclude that your requirements are unsatisfiable.",
    );
    assert!(
        k.contains(&EventKind::NoMatchingDistribution {
            requirement: "torch==1.13.1".into(),
            available: None,
        }),
        "{k:?}"
    );
}

#[test]
fn static_tls_block_spent() {
    let k = kinds(
        "ImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block",
    );
    assert!(
        k.contains(&EventKind::StaticTlsExhausted {
            library: s("/usr/lib/aarch64-linux-gnu/libgomp.so.1"),
        }),
        "{k:?}"
    );
}

#[test]
fn media_backend_missing() {
    let cases: &[(&str, &str, Option<&str>, Option<u32>)] = &[
        (
            "RuntimeError: Backend \"soundfile\" is not one of available backends: ['sox', 'sox_io'].",
            "torchaudio",
            Some("soundfile"),
            None,
        ),
        (
            "RuntimeError: No audio I/O backend is available.",
            "torchaudio",
            None,
            None,
        ),
        (
            "RuntimeError: Couldn't find appropriate backend to handle uri output.wav and format None.",
            "torchaudio",
            None,
            None,
        ),
        (
            "ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
            "torchaudio",
            Some("torchcodec"),
            None,
        ),
        (
            "ImportError: PyAV is not installed, and is necessary for the video operations in torchvision.",
            "torchvision",
            Some("av"),
            None,
        ),
        (
            "> ImportError: Failed to intialize FFmpeg extension. Tried versions: ['6', '5', '4', '']. Enable DEBUG logging to see more details about the error.",
            "torchaudio",
            Some("ffmpeg"),
            Some(6),
        ),
    ];
    for (line, package, backend, newest) in cases {
        let k = kinds(line);
        assert!(
            k.contains(&EventKind::IoBackendMissing {
                package: (*package).into(),
                backend: backend.map(str::to_owned),
                newest: *newest,
            }),
            "{line}: {k:?}"
        );
    }
}

#[test]
fn ipex_checks_the_torch_it_was_built_for() {
    let k = kinds(
        "ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.2.*, but PyTorch 2.1.0+cu121 is found. Please switch to the matching version and run again.",
    );
    assert!(
        k.contains(&EventKind::FrameworkVersionRequired {
            package: "intel-extension-for-pytorch".into(),
            framework: "PyTorch".into(),
            needs: "2.2.*".into(),
            installed: "2.1.0+cu121".into(),
        }),
        "{k:?}"
    );
    // Prose about the requirement names no versions it cannot read.
    assert!(
        !kinds("IPEX needs to work with PyTorch of the same minor, but PyTorch nightly is found")
            .iter()
            .any(|k| matches!(k, EventKind::FrameworkVersionRequired { .. }))
    );
}
