//! The forms in which a library that will not load is reported besides glibc's own sentence
//! (Windows' loader, loaders that name the library in their sentence, DGL, macOS, operators that
//! never registered, a package's compiled module missing): each is read wherever the line puts
//! it, however it is prefixed, and near-misses are not.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_syntax::{DllFailure, EventKind, scan};

fn kinds(input: &str) -> Vec<EventKind> {
    let parse = scan(input);
    for e in &parse.value {
        assert!(input.is_char_boundary(e.span.start) && input.is_char_boundary(e.span.end));
        assert!(e.span.start <= e.span.end && e.span.end <= input.len());
    }
    parse.value.into_iter().map(|e| e.kind).collect()
}

fn missing(input: &str) -> Vec<String> {
    kinds(input)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::MissingSharedLibrary { name, .. } => Some(name),
            _ => None,
        })
        .collect()
}

fn dll(input: &str) -> Vec<(Option<String>, Option<String>, bool)> {
    dll_why(input)
        .into_iter()
        .map(|(m, d, why)| (m, d, why == DllFailure::Procedure))
        .collect()
}

fn dll_why(input: &str) -> Vec<(Option<String>, Option<String>, DllFailure)> {
    kinds(input)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::DllLoadFailed { module, dll, why } => Some((module, dll, why)),
            _ => None,
        })
        .collect()
}

fn s(x: &str) -> Option<String> {
    Some(x.to_owned())
}

#[test]
fn windows_dll_load_failed_names_the_module() {
    assert_eq!(
        dll(
            "ImportError: DLL load failed while importing exllama_kernels: The specified module could not be found.\n"
        ),
        vec![(s("exllama_kernels"), None, false)]
    );
    // Python 3.7's form names no module; Windows' reason in Chinese.
    assert_eq!(
        dll("ImportError: DLL load failed: 找不到指定的模块。\n"),
        vec![(None, None, false)]
    );
    // Behind a launcher tag and a Markdown quote.
    assert_eq!(
        dll("> [rank0]: ImportError: DLL load failed while importing _ext: 找不到指定的模块。\n"),
        vec![(s("_ext"), None, false)]
    );
}

#[test]
fn windows_procedure_not_found_is_a_symbol_failure() {
    for text in [
        "ImportError: DLL load failed while importing exllamav2_ext: 找不到指定的程序。\n",
        "ImportError: DLL load failed while importing _C: The specified procedure could not be found.\n",
        "ImportError: DLL load failed while importing _C: The specified program could not be found.\n",
        // Windows' own words in Hungarian, Polish and Turkish.
        "ImportError: DLL load failed while importing _C: A megadott eljárás nem található.\n",
        "ImportError: DLL load failed while importing _C: Nie można odnaleźć określonej procedury.\n",
        "ImportError: DLL load failed while importing _C: Belirtilen yordam bulunamadı.\n",
    ] {
        let got = dll(text);
        assert_eq!(got.len(), 1, "{text}");
        assert!(got[0].2, "{text}: procedure");
    }
    assert_eq!(
        dll(
            r#"WinError 127 Error loading D:\Python\Python37\Lib\site-packages\torch\lib\caffe2.dll or one of its dependencies."#
        ),
        vec![(
            None,
            s(r"D:\Python\Python37\Lib\site-packages\torch\lib\caffe2.dll"),
            true
        )],
        "retold in a title: no brackets, no quotes"
    );
    assert_eq!(
        dll(
            r#"OSError: [WinError 127] The specified procedure could not be found. Error loading "C:\x\torch\lib\c10_cuda.dll" or one of its dependencies."#
        ),
        vec![(None, s(r"C:\x\torch\lib\c10_cuda.dll"), true)]
    );
}

#[test]
fn winerror_126_names_the_dll_in_any_language() {
    for (text, path) in [
        (
            r#"OSError: [WinError 126] The specified module could not be found. Error loading "C:\Users\me\py\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies."#,
            r"C:\Users\me\py\Lib\site-packages\torch\lib\fbgemm.dll",
        ),
        (
            r#"执行main.py的时候报"OSError: [WinError 126] 找不到指定的模块。 Error loading "D:\env\lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.""#,
            r"D:\env\lib\site-packages\torch\lib\fbgemm.dll",
        ),
        (
            r#"OSError: [WinError 126] Не найден указанный модуль. Error loading "C:\P\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies."#,
            r"C:\P\torch\lib\cudnn_cnn_infer64_8.dll",
        ),
        // A repr doubles the backslashes; cut off before the closing quote.
        (
            r#"OSError('[WinError 126] The specified module could not be found. Error loading "C:\\a b\\torch\\lib\\c10.dll"#,
            r"C:\a b\torch\lib\c10.dll",
        ),
    ] {
        assert_eq!(dll(text), vec![(None, s(path), false)], "{text}");
    }
    // cffi gives Windows' error number in hex.
    assert_eq!(
        dll(
            r"OSError: cannot load library 'C:\Users\me\venv\lib\site-packages\_soundfile_data\libsndfile_64bit.dll': error 0x7e"
        ),
        vec![(
            None,
            s(r"C:\Users\me\venv\lib\site-packages\_soundfile_data\libsndfile_64bit.dll"),
            false
        )]
    );
    // ctypes on Windows.
    assert_eq!(
        dll(
            "FileNotFoundError: Could not find module 'C:\\x\\llama.dll' (or one of its dependencies). Try using the full path with constructor syntax."
        ),
        vec![(None, s("C:\\x\\llama.dll"), false)]
    );
    // The same retold without its quotes, the path elided.
    assert_eq!(
        dll(
            "FileNotFoundError: Could not find module .... _scatter_cuda.pyd (or one of its dependencies)"
        ),
        vec![(None, s("_scatter_cuda.pyd"), false)]
    );
    // Prose without Windows' words is no load failure.
    assert_eq!(dll("Could not find module foo in the docs"), vec![]);
}

#[test]
fn other_windows_loader_failures_are_not_missing_libraries() {
    // Error 1114: found, loaded, and its start-up code failed.
    for text in [
        r#"OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\x\torch\lib\c10.dll" or one of its dependencies."#,
        "ImportError: DLL load failed while importing _C: A dynamic link library (DLL) initialization routine failed.",
        "ImportError: DLL load failed while importing onnxruntime_pybind11_state: 动态链接库(DLL)初始化例程失败。",
    ] {
        let got = dll_why(text);
        assert_eq!(got.len(), 1, "{text}");
        assert_eq!(got[0].2, DllFailure::InitFailed, "{text}");
    }
    let text =
        "ImportError: DLL load failed while importing _C: %1 is not a valid Win32 application.";
    assert_eq!(dll(text), Vec::new(), "{text}");
    // Prose that mentions the words is not the error.
    assert_eq!(
        dll("I get DLL load failed every time I start it"),
        Vec::new()
    );
    // The reason cut off: still a DLL that did not load.
    assert_eq!(
        dll("ImportError: DLL load failed while importing flash_attn_2_cuda:"),
        vec![(s("flash_attn_2_cuda"), None, false)]
    );
}

#[test]
fn loaders_that_name_the_library_in_their_sentence() {
    for (text, name) in [
        (
            "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}\n",
            "libcudnn_ops.so.9.1.0",
        ),
        // Pasted as a title, the next line on the same one; the brace cut off.
        (
            "Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9",
            "libcudnn_cnn.so.9.1.0",
        ),
        (
            "RuntimeError: Library libcublas.so.11 is not found or cannot be loaded\n",
            "libcublas.so.11",
        ),
        (
            "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded\n",
            "cublas64_12.dll",
        ),
        (
            "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n",
            "cudnn_ops_infer64_8.dll",
        ),
        (
            "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!\n",
            "cudnn_ops64_9.dll",
        ),
        (
            "RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.\n",
            "libcudnn.so",
        ),
        (
            "ImportError: dlopen(/x/_C.so, 0x0002): Library not loaded: @rpath/libc10.dylib\n",
            "libc10.dylib",
        ),
    ] {
        assert_eq!(missing(text), vec![name.to_owned()], "{text}");
    }
    // glibc's own sentence on the same line is read once, by its own reader.
    assert_eq!(
        missing(
            "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n"
        ),
        vec!["libcudnn_cnn_infer.so.8".to_owned()]
    );
}

#[test]
fn dgl_libraries_with_either_slash_or_none() {
    for (text, name) in [
        (
            "FileNotFoundError: Cannot find DGL C++ sparse library at /r/site-packages/dgl/dgl_sparse/libdgl_sparse_pytorch_1.9.0.so\n",
            "libdgl_sparse_pytorch_1.9.0.so",
        ),
        (
            r"FileNotFoundError: Cannot find DGL C++ sparse library at D:\A\dgl\dgl_sparse\dgl_sparse_pytorch_2.4.0.dll",
            "dgl_sparse_pytorch_2.4.0.dll",
        ),
        (
            "When I using GraphBolt I meet this question: **can't find c++ library graphbolt**\n",
            "libgraphbolt.so",
        ),
    ] {
        assert_eq!(missing(text), vec![name.to_owned()], "{text}");
    }
    for text in [
        "-- Building the C++ library at /tmp/build\n",
        "We ship a C++ library for speed.\n",
        "Cannot load model: out of shared library handles\n",
    ] {
        assert_eq!(missing(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn no_such_operator() {
    let ops: Vec<String> = kinds("RuntimeError: No such operator torchvision::nms\n")
        .into_iter()
        .filter_map(|k| match k {
            EventKind::TorchOperatorMissing { operator, .. } => Some(operator),
            _ => None,
        })
        .collect();
    assert_eq!(ops, vec!["torchvision::nms".to_owned()]);
    // torch's own namespaces are not an extension that failed to load.
    assert!(
        !kinds("RuntimeError: No such operator aten::foo\n")
            .iter()
            .any(|k| matches!(k, EventKind::TorchOperatorMissing { .. }))
    );
}

#[test]
fn compiled_module_missing() {
    let mods = |t: &str| -> Vec<String> {
        kinds(t)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::CompiledModuleMissing { module } => Some(module),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        mods("ModuleNotFoundError: No module named 'exllamav2_ext'\n"),
        vec!["exllamav2_ext".to_owned()]
    );
    assert_eq!(
        mods("ModuleNotFoundError: No module named 'mmcv._ext'\n"),
        vec!["mmcv._ext".to_owned()]
    );
    // A package's private core named after it.
    assert_eq!(
        mods("ModuleNotFoundError: No module named 'hailo_platform.pyhailort._pyhailort'\n"),
        vec!["hailo_platform.pyhailort._pyhailort".to_owned()]
    );
    // SWIG's wrapper, a CUDA op named in the middle.
    assert_eq!(
        mods("ImportError: No module named _swigfaiss\n"),
        vec!["_swigfaiss".to_owned()]
    );
    assert_eq!(
        mods("ModuleNotFoundError: No module named 'alt_cuda_corr'\n"),
        vec!["alt_cuda_corr".to_owned()]
    );
    assert_eq!(
        mods("Please compile MultiScaleDeformableAttention CUDA op with the following commands:\n"),
        vec!["MultiScaleDeformableAttention".to_owned()]
    );
    for t in [
        // A private module of another name is Python.
        "ModuleNotFoundError: No module named 'pkg._utils'\n",
        "ModuleNotFoundError: No module named 'torch._C'\n",
        "ModuleNotFoundError: No module named 'transformers'\n",
        "ModuleNotFoundError: No module named 'context'\n",
        // Pure-Python packages whose names end as kernels do.
        "ModuleNotFoundError: No module named 'liger_kernel'\n",
        "ModuleNotFoundError: No module named 'triton_kernels'\n",
        "ModuleNotFoundError: No module named 'bash_kernel'\n",
        // Functions named for CUDA, and torch's own private modules.
        "ImportError: cannot import name 'is_cuda_available' from 'accelerate.utils' (/x/site-packages/accelerate/utils/__init__.py)\n",
        "ImportError: cannot import name 'is_torch_cuda_available' from 'transformers.utils'\n",
        "ModuleNotFoundError: No module named 'torch.utils._cuda_trace'\n",
    ] {
        assert_eq!(mods(t), Vec::<String>::new(), "{t}");
    }
}

#[test]
fn hostile_lines_cost_nothing_and_never_panic() {
    let long = format!(
        "DLL load failed while importing {}: Unable to load any of {{{}\n",
        "x".repeat(40_000),
        "libfoo.so.1, ".repeat(10_000)
    );
    let _ = kinds(&long);
    let _ = kinds("Error loading \"\u{3000}\u{3000}");
    let _ = kinds("[WinError 126]Error loading '");
    let _ = kinds("Cannot find DGL C++ library at ");
    let _ = kinds("No such operator ::");
    // The forms read around a multi-byte character where an ASCII one is usual.
    let _ = kinds("\u{3000}libcudart.so.11.0\u{3000}=> not found\n");
    let _ = kinds("=> not found");
    let _ = kinds(
        "The procedure entry point \u{3000} could not be located in the dynamic link library ",
    );
    let _ = kinds("procedure entry point ");
    let _ = kinds("XGBoost Library (\u{3000}");
    let _ = kinds("XGBoost Library (libx.so) could not be loaded");
    let _ = kinds("nvrtc: error: failed to open \u{3000}");
    let _ = kinds("dlopen(\u{3000}: Library not loaded: libomp.dylib");
}

/// ldd's listing, Windows' entry point and XGBoost's loader each name the missing library.
#[test]
fn listing_and_loader_sentences_name_the_library() {
    assert_eq!(
        missing("\tlibcudart.so.11.0 => not found\n"),
        vec!["libcudart.so.11.0"]
    );
    assert_eq!(
        missing("\u{3000}cublas64_13.dll => not found\n"),
        vec!["cublas64_13.dll"]
    );
    assert_eq!(
        missing("\tlibm.so.6 => /lib64/libm.so.6 (0x1)\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        missing("XGBoost Library (libxgboost.dylib) could not be loaded.\n"),
        vec!["libomp.dylib"]
    );
    assert_eq!(
        missing("nvrtc: error: failed to open libnvrtc-builtins.so.12.1.\n"),
        vec!["libnvrtc-builtins.so.12.1"]
    );
    assert_eq!(
        missing("I failed to open the door.\n"),
        Vec::<String>::new()
    );
}

/// torch.ops.load_library's sentence (torchcodec prints one per FFmpeg major it tried): the
/// library path, with spaces and quotes as printed; prose without a library names nothing.
#[test]
fn torch_load_library_names_the_library() {
    let not_loaded = |input: &str| -> Vec<String> {
        kinds(input)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::LibraryNotLoaded { path } => Some(path),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        not_loaded(
            "Could not load this library: /venv/lib/python3.11/site-packages/torchcodec/libtorchcodec7.so\n"
        ),
        ["/venv/lib/python3.11/site-packages/torchcodec/libtorchcodec7.so"]
    );
    assert_eq!(
        not_loaded(
            "OSError: Could not load this library: /home/a b/env/torchcodec/libtorchcodec_core6.so\n"
        ),
        ["/home/a b/env/torchcodec/libtorchcodec_core6.so"]
    );
    assert_eq!(
        not_loaded(
            "E   OSError: Could not load this library: 'C:\\env\\torchcodec\\libtorchcodec_core7.dll'\n"
        ),
        ["C:\\env\\torchcodec\\libtorchcodec_core7.dll"]
    );
    assert!(not_loaded("Could not load this library: see the docs\n").is_empty());
    assert!(not_loaded("Could not load this library:\n").is_empty());
}

/// A package's check of its framework's version names both releases; its source line (with
/// `{}` for the versions) and prose name nothing.
#[test]
fn framework_version_checks_are_read() {
    let found = |input: &str| -> Vec<(String, String, String, String)> {
        kinds(input)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::FrameworkVersionRequired {
                    package,
                    framework,
                    needs,
                    installed,
                } => Some((package, framework, needs, installed)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        found(
            "Exception: Version mismatch: Open3D needs PyTorch version 1.7.*, but version 1.8.2 is installed!\n"
        ),
        vec![(
            "Open3D".into(),
            "PyTorch".into(),
            "1.7.*".into(),
            "1.8.2".into()
        )]
    );
    assert!(
        found("    raise Exception('Version mismatch: Open3D needs TensorFlow version {}, but'\n")
            .is_empty()
    );
    assert!(
        found("Version mismatch: my code needs PyTorch version 2, but version 1 is installed\n")
            .is_empty()
    );
    let long = format!(
        "Version mismatch: {} needs PyTorch version 1.7.*, but version 1.8 is installed\n",
        "x".repeat(100_000)
    );
    assert!(found(&long).is_empty());
}

/// Windows' entry-point message: the symbol as Windows prints it (MSVC's decorated names too),
/// the DLL as the rest of the line up to its suffix (a path with spaces); cut before the DLL, it
/// says nothing a reader could place.
#[test]
fn windows_entry_points_name_symbol_and_dll() {
    let undefined = |input: &str| -> Vec<(Option<String>, String)> {
        kinds(input)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::UndefinedSymbol {
                    library, symbol, ..
                } => Some((library, symbol)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        undefined(
            "The procedure entry point ?dtype@Tensor@at@@QEBA?AVTypeMeta@caffe2@@XZ could not be located in the dynamic link library C:\\Program Files\\App\\torch_ext.pyd.\n"
        ),
        vec![(
            Some("C:\\Program Files\\App\\torch_ext.pyd".to_owned()),
            "?dtype@Tensor@at@@QEBA?AVTypeMeta@caffe2@@XZ".to_owned()
        )]
    );
    assert!(undefined("The procedure entry point omp_get_num_threads could not be located in the dynamic link library\n").is_empty());
}

/// Older pips' `Running setup.py install for X ... error` names the package being built, as
/// `Building wheel for X` does.
#[test]
fn setup_py_install_names_the_package_built() {
    let built: Vec<String> = kinds("    Running setup.py install for pointnet2 ... error\n")
        .into_iter()
        .filter_map(|k| match k {
            EventKind::PipBuildingWheel { package, .. } => Some(package),
            _ => None,
        })
        .collect();
    assert_eq!(built, vec!["pointnet2".to_owned()]);
}

/// A pip install the user ran is read after a prompt; advice naming a command is not one.
#[test]
fn user_pip_installs_are_read_after_a_prompt() {
    let ran = |input: &str| -> Vec<String> {
        kinds(input)
            .into_iter()
            .filter_map(|k| match k {
                EventKind::UserPipInstall { command } => Some(command),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        ran("pip install git+https://github.com/x/y.git\n"),
        vec!["pip install git+https://github.com/x/y.git"]
    );
    assert_eq!(
        ran("(venv) C:\\Users\\me>pip install -U xformers\n"),
        vec!["pip install -U xformers"]
    );
    assert_eq!(
        ran("$ python -m pip install flash-attn --no-build-isolation\n"),
        vec!["pip install flash-attn --no-build-isolation"]
    );
    assert!(ran("Please try pip install torch==2.1\n").is_empty());
    assert!(ran("I ran the pip install command yesterday\n").is_empty());
}

#[test]
fn cffi_and_ctypes_searches_name_the_library() {
    // ctypes.util.find_library by bare name: the library is `lib<name>`.
    assert_eq!(
        missing(
            "OSError: ctypes.util.find_library() did not manage to locate a library called 'sndfile'\n"
        ),
        vec!["libsndfile.so".to_owned()]
    );
    // …or by path: its file.
    assert_eq!(
        missing(
            "Additionally, ctypes.util.find_library() did not manage to locate a library called '/e/site-packages/_soundfile_data/libsndfile.dylib'\n"
        ),
        vec!["libsndfile.dylib".to_owned()]
    );
    // cffi's dlopen of a path that is not there.
    assert_eq!(
        missing(
            "OSError: cannot load library '/v/site-packages/_soundfile_data/libsndfile.dylib': dlopen(/v/site-packages/_soundfile_data/libsndfile.dylib, 2): image not found\n"
        ),
        vec!["libsndfile.dylib".to_owned()]
    );
    // A library that is there but fails for another reason is not a missing one.
    assert!(
        missing("OSError: cannot load library '/v/libfoo.dylib': dlopen(/v/libfoo.dylib, 2): Symbol not found: _bar\n")
            .is_empty()
    );
    // bitsandbytes' own loader.
    assert_eq!(
        missing(
            "Original error: Configured CUDA binary not found at /usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda131.so\n"
        ),
        vec![
            "/usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda131.so"
                .to_owned()
        ]
    );
}

#[test]
fn macos_quoted_paths_are_read() {
    // macOS 13 and later quote the library's path.
    assert_eq!(
        missing(
            "OSError: dlopen(/u/site-packages/torchaudio/lib/libtorchaudio_ffmpeg.so, 0x0006): Library not loaded: '/Users/ec2-user/ffmpeg/lib/libavdevice.58.dylib'\n"
        ),
        vec!["libavdevice.58.dylib".to_owned()]
    );
}

#[test]
fn windows_dialog_retold() {
    for (line, want) in [
        (
            "The code execution cannot continue because hiprtc0507.dll was not found. To solve the problem, try reinstalling the software",
            "hiprtc0507.dll",
        ),
        (
            "The program can't start because MSVCP140.dll is missing from your computer.",
            "MSVCP140.dll",
        ),
        ("提示zlibwapi.dll找不到，这个是干嘛用的？", "zlibwapi.dll"),
        ("Could not run: cudnn64_8.dll not found", "cudnn64_8.dll"),
    ] {
        assert_eq!(
            dll_why(line),
            vec![(None, s(want), DllFailure::Missing)],
            "{line}"
        );
    }
    // Prose about a DLL that is there is not a load failure.
    assert!(dll_why("I found torch_cpu.dll in the lib folder").is_empty());
}

#[test]
fn find_library_loaders_name_the_project() {
    assert_eq!(
        missing(
            "    raise OSError('PortAudio library not found')\nOSError: PortAudio library not found\n"
        ),
        vec!["libportaudio.so".to_owned()]
    );
    // Prose that merely says a library was not found names none.
    assert!(missing("the PortAudio library not found on my path").is_empty());
}

#[test]
fn windows_exit_status_of_a_missing_dll() {
    // A server's supervisor reporting its child's exit status, signed and in hex.
    assert_eq!(
        dll("WARN supervisor: llama-server exited with status code -1073741515, args: x\n"),
        vec![(None, None, false)]
    );
    assert_eq!(
        dll("Process finished with exit code -1073741511 (0xC0000139)\n"),
        vec![(None, None, true)]
    );
    // The decimal alone, with no exit status beside it, is only a number.
    assert!(dll("allocated 3221225781 bytes\n").is_empty());
}

#[test]
fn ctypes_sentence_wrapped_before_its_path() {
    assert_eq!(
        dll(
            "FileNotFoundError: Could not find module\n'C:\\x\\lib\\cuda\\ctransformers.dll' (or one of its dependencies). Try using the full path with constructor syntax.\n"
        ),
        vec![(None, s(r"C:\x\lib\cuda\ctransformers.dll"), false)]
    );
}
