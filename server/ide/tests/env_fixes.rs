//! Fixes weighed against what the installed distributions' metadata requires: a step that would
//! break another installed package ranks after one that does not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use abidoc_ide::{Code, Context};

/// A site-packages of Python 3.11 with NumPy 2.3.1, pandas 2.0.3 (built against NumPy 1.x)
/// and, when `opencv` is set, opencv-python 4.12.0.88, whose metadata (as published) requires
/// NumPy 2; `later` adds a package that requires NumPy 2 only on Python 3.13 and later.
fn site(root: &Path, opencv: bool, later: bool) -> PathBuf {
    let sp = root.join("lib/python3.11/site-packages");
    let write = |rel: &str, body: &str| common::write_under(&sp, rel, body);
    write("numpy/__init__.py", "");
    write(
        "numpy-2.3.1.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: numpy\nVersion: 2.3.1\n",
    );
    write("pandas/__init__.py", "from pandas._libs import hashtable\n");
    write(
        "pandas-2.0.3.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: pandas\nVersion: 2.0.3\nRequires-Dist: numpy>=1.21.0; python_version >= \"3.10\"\nRequires-Dist: python-dateutil>=2.8.2\n",
    );
    if later {
        write(
            "later-1.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: later\nVersion: 1.0\nRequires-Dist: numpy>=2; python_version >= \"3.13\"\n",
        );
    }
    if opencv {
        write("cv2/__init__.py", "");
        write(
            "opencv_python-4.12.0.88.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: opencv-python\nVersion: 4.12.0.88\nRequires-Dist: numpy<2.0; python_version < \"3.9\"\nRequires-Dist: numpy<2.3.0,>=2; python_version >= \"3.9\"\n",
        );
    }
    sp
}

/// NumPy 2's own message for a module built against 1.x, as pandas 2.0.3 under NumPy 2 prints it.
const TRACEBACK: &str = "A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.3.1 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

Traceback (most recent call last):
  File \"<string>\", line 1, in <module>
  File \"SP/pandas/__init__.py\", line 1, in <module>
    from pandas._libs import hashtable
ImportError: numpy.core.multiarray failed to import
";

fn preferred(opencv: bool, later: bool) -> (String, Vec<abidoc_ide::Fix>) {
    let root = tempfile::tempdir().expect("tempdir");
    let sp = site(root.path(), opencv, later);
    let text = TRACEBACK.replace("SP", &sp.display().to_string());
    let ctx = Context {
        use_env: true,
        site_packages: vec![sp],
        ..Context::default()
    };
    let diags = abidoc_ide::AnalysisHost::new().diagnose_text(&text, &ctx);
    let d = diags
        .into_iter()
        .find(|d| d.code == Code::NumpyAbi)
        .expect("numpy-abi");
    (d.package.clone().unwrap_or_default(), d.fixes)
}

#[test]
fn numpy_1x_first_when_nothing_installed_needs_numpy_2() {
    let (package, fixes) = preferred(false, false);
    assert_eq!(package, "pandas");
    assert!(fixes[0].id.ends_with("numpy-below-2"), "{:?}", fixes[0].id);
    // A requirement whose marker does not hold for this Python is not in the way.
    let (_, fixes) = preferred(false, true);
    assert!(fixes[0].id.ends_with("numpy-below-2"), "{:?}", fixes[0].id);
}

#[test]
fn the_module_moves_when_an_installed_package_needs_numpy_2() {
    let (package, fixes) = preferred(true, false);
    assert_eq!(package, "pandas");
    assert!(fixes[0].id.ends_with("upgrade-module"), "{:?}", fixes[0].id);
    assert!(!fixes[0].title.starts_with("Or "), "{}", fixes[0].title);
    assert!(
        fixes[0].shell_line().is_some_and(|l| l.contains("pandas")),
        "{:?}",
        fixes[0].shell_line()
    );
    let below = fixes
        .iter()
        .find(|f| f.id.ends_with("numpy-below-2"))
        .expect("numpy<2 still offered");
    assert!(
        below
            .blocker
            .as_deref()
            .is_some_and(|b| b.contains("opencv-python")),
        "{:?}",
        below.blocker
    );
}
