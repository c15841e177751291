//! `wheel-tags-mismatch`: pip refuses a wheel file built for another Python, OS or CPU
//! architecture than the interpreter installing it (`X.whl is not a supported wheel on this
//! platform`).
//!
//! A wheel's name carries its tags (`name-version-cp37-cp37m-linux_armv7l.whl`: CPython 3.7, its
//! ABI, 32-bit ARM Linux); pip installs it only when every tag is one its interpreter accepts.
//! The diagnosis reads the tags, says what the wheel was built for, and names the side that
//! differs where the text shows the interpreter's Python; the first fix lists the tags this pip
//! accepts, a read-only query, before another file is fetched.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Name, PipFlag, Query, Requirement, Step};
use abidoc_knowledge::Version;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "pip refuses a wheel file built for another Python, OS or CPU architecture (`is not a supported wheel on this platform`).",
    meaning: "A wheel's file name carries its tags: the Python it was built for (`cp310`), its ABI, and its platform (`manylinux_2_28_x86_64`, `linux_aarch64`, `macosx_14_0_arm64`, `win_amd64`). pip installs a wheel only when each tag is one its interpreter accepts. A wheel downloaded by hand (a GitHub release, a board vendor's page) for another Python version, a 32-bit ARM wheel on a 64-bit OS, an arm64 macOS wheel under an x86_64 Python running in Rosetta or on an older macOS, a glibc-tagged wheel on an older glibc: each is refused.",
    fixes: "1. List the tags this interpreter accepts (`python -m pip debug --verbose`, read-only) and pick the wheel whose tags appear there. 2. The same release by name (`pip install name==version`, pip picks its file for this interpreter; first when the text shows this Python and the wheel is for another), the package's wheel for this Python (`cpXY`), or a Python of the wheel's version (a virtual environment of that version). 3. Where the platform differs (an x86_64 Python on Apple Silicon, a 32-bit OS on a 64-bit board): a Python of the wheel's architecture.",
    ..CodeDoc::BASE
};

/// `cp310` → `3.10`: the CPython version a wheel's Python tag names.
pub(crate) fn cpython_of(tag: &str) -> Option<String> {
    let v = tag.split('.').next()?.strip_prefix("cp")?;
    // Digits only before splitting: a tag from a mangled file name may hold any character.
    if v.len() < 2 || !v.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = v.split_at(1);
    Some(format!("{major}.{minor}"))
}

/// `cp310` → `CPython 3.10`, `py3` → `any Python 3`.
fn python_of(tag: &str) -> Option<String> {
    cpython_of(tag).map(|v| format!("CPython {v}")).or_else(|| {
        tag.split('.')
            .next()?
            .strip_prefix("py")
            .filter(|v| v.bytes().all(|c| c.is_ascii_digit()))
            .map(|v| format!("any Python {v}"))
    })
}

/// The platform tag in words.
fn platform_of(tag: &str) -> String {
    let arch = |t: &str| {
        if t.ends_with("x86_64") || t.ends_with("amd64") {
            "x86-64"
        } else if t.ends_with("aarch64") || t.ends_with("arm64") {
            "64-bit ARM"
        } else if t.ends_with("armv7l") || t.ends_with("armv6l") {
            "32-bit ARM"
        } else if t.ends_with("i686") || t == "win32" {
            "32-bit x86"
        } else {
            "another architecture"
        }
    };
    let first = tag.split('.').next().unwrap_or(tag);
    if first == "any" {
        "any platform".into()
    } else if first.starts_with("macosx_") {
        let v: Vec<&str> = first.split('_').collect();
        let os = v.get(1).map_or(String::new(), |m| format!(" {m}"));
        format!("macOS{os} or later on {}", arch(first))
    } else if first.starts_with("win") {
        format!("Windows on {}", arch(first))
    } else if let Some(rest) = first.strip_prefix("manylinux_") {
        let v: Vec<&str> = rest.split('_').collect();
        match (v.first(), v.get(1)) {
            (Some(a), Some(b)) => format!("Linux with glibc {a}.{b} or newer on {}", arch(first)),
            _ => format!("Linux on {}", arch(first)),
        }
    } else if first.starts_with("manylinux2014") {
        format!("Linux with glibc 2.17 or newer on {}", arch(first))
    } else if first.starts_with("linux_") || first.starts_with("manylinux") {
        format!("Linux on {}", arch(first))
    } else if first.starts_with("musllinux") {
        format!("musl Linux (Alpine) on {}", arch(first))
    } else {
        first.to_owned()
    }
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, wheel: &str) -> Diagnostic {
    let code = Code::WheelTagsMismatch;
    let mut d = blank(code, source);
    // `name-version(-build)?-python-abi-platform.whl`, read as the environment's wheel reader
    // reads it.
    let t = abidoc_env::wheel::parse_file_name(wheel);
    d.package = t.as_ref().map(|(name, ..)| crate::kb::normalize(name));
    let built = t.as_ref().map(|(_, _, (python, abi, platform))| {
        let py = python_of(python).unwrap_or_else(|| python.clone());
        let py = if abi == "abi3" { format!("{py} or later") } else { py };
        format!("{py}, {}", platform_of(platform))
    });
    d.message = match &built {
        Some(b) => format!("pip refuses {wheel}: it is built for {b}, and this interpreter is another Python or platform"),
        None => format!("pip refuses {wheel}: its tags name another Python, OS or architecture than this interpreter"),
    };
    // Which tag differs, where the text shows the interpreter's Python.
    let have = cx
        .scene
        .version_of("python")
        .map(str::to_owned)
        .or_else(|| cx.scene.python_in_paths.map(|(a, b)| format!("{a}.{b}")));
    let wheel_py = t
        .as_ref()
        .and_then(|(_, _, (python, _, _))| cpython_of(python));
    // A stable-ABI wheel (`cp38-abi3`) installs on its Python and every later one: only an
    // older interpreter differs.
    let abi3 = t.as_ref().is_some_and(|(_, _, (_, abi, _))| abi == "abi3");
    let mut py_differs = false;
    if let (Some(h), Some(w)) = (&have, &wheel_py)
        && let (Some(hv), Some(wv)) = (Version::parse(h), Version::parse(w))
    {
        let refused = if abi3 {
            hv.major_minor() < wv.major_minor()
        } else {
            !hv.same_minor(&wv)
        };
        if refused {
            py_differs = true;
            d.evidence
                .push(format!("the text shows Python {h}; the wheel is for Python {w}"));
        }
    }
    let mut fixes = vec![
        Fix::new(
            code,
            "list-tags",
            FixKind::Inspect,
            "List the wheel tags this Python accepts, and pick the file whose tags are among them",
            "pip prints the tags its interpreter accepts under \"Compatible tags\", most specific first; a wheel installs when its Python, ABI and platform tags are in that list. Nothing is installed.",
        )
        .step(Step::Show(Query::PipTags)),
    ];
    if let Some((name, version, (_, _, platform))) = &t {
        if py_differs && let Some(w) = &wheel_py {
            fixes.push(
                Fix::in_words(
                    code,
                    "python-of-wheel",
                    format!("Get {name}'s wheel for this Python, or install it from a Python {w} environment"),
                    "The wheel's Python tag is the only one a different interpreter version refuses by itself; the project's page for that release usually has one file per Python.",
                    format!(
                        "download the {name}-{version} wheel tagged for this Python (cpXY, as `python -m pip debug --verbose` lists), or create an environment of Python {w} (python{w} -m venv …, conda create -n … python={w}) and install the file there"
                    ),
                ),
            );
        }
        if platform.starts_with("macosx_") && platform.ends_with("arm64") {
            fixes.push(recipes::native_python(
                code,
                "If this Python runs as x86_64 (an Intel build, or a terminal under Rosetta), it accepts no arm64 wheel; on an older macOS than the wheel's tag names, none of that macOS either.",
            ));
        }
        if let Some(pkg) = Name::new(name) {
            // The same release by name where the file names one pip can pin: its file for this
            // interpreter, not whatever release is newest (which may move torch with it).
            // A local build label (`+cu122torch2.2…`) is a file published elsewhere: PyPI has
            // only the public release, by that number.
            let public = recipes::short_torch(version);
            let local = public != version.as_str();
            let pinned = recipes::exact(pkg.as_str(), public);
            let what = match &pinned {
                Some(_) => format!("install {pkg} {public} by name, so pip picks its file for this interpreter"),
                None => format!("install {pkg} by name, so pip picks its file for this interpreter"),
            };
            // First when it leads (below), else one more way after the tags are listed.
            let lead = py_differs && !local;
            let title = if lead {
                let mut t = what.clone();
                t[..1].make_ascii_uppercase();
                t
            } else {
                format!("Or {what}")
            };
            let req = pinned.unwrap_or(Requirement::Any(pkg));
            let fix = Fix::new(
                code,
                "let-pip-choose",
                FixKind::PrebuiltWheel,
                title,
                "Asked for the package rather than a file, pip downloads the wheel whose tags this interpreter accepts, or builds the sdist when the project publishes none for it (then it needs a compiler); a release published only as files elsewhere is not found this way.",
            )
            .step(recipes::pip_install(cx, vec![PipFlag::NoCacheDir], vec![req]))
            .cost(crate::fix::Cost::download());
            // The text shows this interpreter's Python and the wheel is for another: the tags
            // need no listing, the release's file for this Python is the fix.
            fixes.push(if lead { fix.leading() } else { fix });
        }
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

#[cfg(test)]
mod tests {
    use crate::{AnalysisHost, Code, Context};

    fn first_fix(text: &str) -> String {
        let diags = AnalysisHost::new().diagnose_text(text, &Context::default());
        let d = diags
            .iter()
            .find(|d| d.code == Code::WheelTagsMismatch)
            .expect("wheel-tags-mismatch");
        d.fixes[0].id.clone()
    }

    /// With the interpreter's Python in the text and another in the wheel's tag, the release's
    /// file for this Python leads; with nothing to compare, the tags are listed first.
    #[test]
    fn the_release_by_name_leads_when_the_python_is_known_to_differ() {
        let wheel = "ERROR: xformers-0.0.14.dev0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform.\n";
        assert_eq!(first_fix(wheel), "wheel-tags-mismatch/list-tags");
        let with_python = format!("Python 3.8.16\n$ pip install xformers-0.0.14.dev0-cp37-cp37m-linux_x86_64.whl\n{wheel}");
        assert_eq!(first_fix(&with_python), "wheel-tags-mismatch/let-pip-choose");
    }
}
