//! The validation boundary: the only constructors of the names, versions, paths, PIDs, URLs and
//! environment values a fix step may carry. A value from the text, from a METADATA file or from
//! the knowledge tables reaches a step only through one of these, so a step can never hold
//! shell syntax, a path that climbs, a process group or a URL with a scheme chosen by input.

use std::fmt;

/// A file name fit to appear in a command shown in words (`apt-file search libfoo.so.1`): only
/// the characters sonames and headers use, at most 128 bytes, never an option (`-…`) or a
/// hidden file (`.…`). Advice about a name from the text quotes it only when this holds.
pub fn plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(['-', '.'])
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"._+-".contains(&c))
}

/// A distribution name: PEP 508 valid, at most 128 bytes, stored PEP 503 normalized.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(String);

impl Name {
    pub fn new(raw: &str) -> Option<Name> {
        // No real distribution name comes near 128 characters; a longer one is crafted text.
        (raw.len() <= 128 && abidoc_knowledge::names::is_valid_pep508_name(raw))
            .then(|| Name(abidoc_knowledge::names::normalize_name(raw)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form `pip cache remove` matches wheel files by (`mamba_ssm`).
    pub fn wheel_stem(&self) -> String {
        self.0.replace('-', "_")
    }
}

/// A PEP 440 version in its usual spellings (`2.5.1`, `2.3.0.dev20240304+cu118`, `0.0.28.post3`,
/// `2.0.0rc1`, `1!2.0`), nothing else: no spaces, quotes, `$`, `/`, `..` or operators.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    pub fn new(raw: &str) -> Option<Version> {
        (raw.len() <= 64 && is_pep440(raw)).then(|| Version(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Without the local label: `2.5.1` for `2.5.1+cu121`.
    pub fn public(&self) -> Version {
        Version(self.0.split('+').next().unwrap_or(&self.0).to_owned())
    }
}

/// `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]`, with local = `[A-Za-z0-9]+(.[A-Za-z0-9]+)*`.
fn is_pep440(v: &str) -> bool {
    let (public, local) = match v.split_once('+') {
        Some((p, l)) => (p, Some(l)),
        None => (v, None),
    };
    if let Some(l) = local
        && (l.is_empty()
            || !l
                .split('.')
                .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())))
    {
        return false;
    }
    let public = match public.split_once('!') {
        Some((epoch, rest)) if digits(epoch) => rest,
        Some(_) => return false,
        None => public,
    };
    let b = public.as_bytes();
    let mut i = 0;
    // Release: N(.N)*
    loop {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i < b.len() && b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            continue;
        }
        break;
    }
    let mut rest = &public[i..];
    for (prefix, alts) in [
        ("", &["rc", "a", "b"][..]),
        (".", &["post"][..]),
        (".", &["dev"][..]),
    ] {
        let Some(after_dot) = rest.strip_prefix(prefix) else {
            continue;
        };
        if let Some(after) = alts.iter().find_map(|a| after_dot.strip_prefix(a)) {
            let n = after.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return false;
            }
            rest = &after[n..];
        }
    }
    rest.is_empty()
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// An absolute path that names what it spells: printable, free of shell metacharacters, with no
/// `.` or `..` component anywhere (a trailing `/..` climbs as well). Paths come from pasted text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SafePath(String);

impl SafePath {
    pub fn new(raw: &str) -> Option<SafePath> {
        let ok = raw.starts_with('/')
            && raw.len() < 4096
            && raw.split('/').all(|c| c != "." && c != "..")
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-+@".contains(&b));
        ok.then(|| SafePath(raw.trim_end_matches('/').to_owned()))
            .filter(|p| !p.0.is_empty())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn join(&self, child: &str) -> Option<SafePath> {
        SafePath::new(&format!("{}/{child}", self.0))
    }

    pub fn parent(&self) -> Option<SafePath> {
        let (p, _) = self.0.rsplit_once('/')?;
        SafePath::new(p)
    }

    pub fn is_inside(&self, dir: &SafePath) -> bool {
        self.0
            .strip_prefix(&dir.0)
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
    }
}

/// A process to end: greater than 1 (`kill 0` ends the caller's own process group, 1 is init),
/// below 2³¹ (larger values wrap to negative, process-group kills), and never this process or
/// its parent (the notebook kernel or editor that runs abidoc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pid(u32);

impl Pid {
    pub fn new(raw: u64) -> Option<Pid> {
        let p = u32::try_from(raw).ok()?;
        let own = std::process::id();
        let parent = std::os::unix::process::parent_id();
        (p > 1 && p < (1 << 31) && p != own && p != parent).then_some(Pid(p))
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

/// An environment variable name: `[A-Z_][A-Z0-9_]*`, at most 64 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnvName(String);

impl EnvName {
    pub fn new(raw: &str) -> Option<EnvName> {
        let b = raw.as_bytes();
        let ok = !b.is_empty()
            && b.len() <= 64
            && !b[0].is_ascii_digit()
            && b.iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
        ok.then(|| EnvName(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An environment variable value: printable ASCII without shell or IPython syntax (paths,
/// `:`-lists, `expandable_segments:True`, `TRUE`, `8.9`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnvValue(String);

impl EnvValue {
    pub fn new(raw: &str) -> Option<EnvValue> {
        let ok = !raw.is_empty()
            && raw.len() < 4096
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._:+@,=-".contains(&b));
        ok.then(|| EnvValue(raw.to_owned()))
    }

    pub fn path(p: &SafePath) -> EnvValue {
        EnvValue(p.0.clone())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A wheel URL: `https://` on a host the knowledge tables name, assembled from validated parts
/// only, and checked once more as a whole (no `..`, no query, nothing a shell or IPython reads).
/// The one escape allowed is `%2B`, the `+` of a local version as GitHub's asset URLs (and the
/// setup.py that downloads them) spell it; `%` means nothing to a shell or to IPython.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WheelUrl(String);

impl WheelUrl {
    pub fn new(raw: &str) -> Option<WheelUrl> {
        let rest = raw.strip_prefix("https://")?;
        let ok = raw.len() < 1024
            && raw.ends_with(".whl")
            && !rest
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
            && rest
                .replace("%2B", "+")
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._+-".contains(&b));
        ok.then(|| WheelUrl(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A page of links to prebuilt wheels (`pip --find-links`): a project's per-torch, per-CUDA
/// index outside PyPI (PyG's `https://data.pyg.org/whl/torch-2.4.0+cu121.html`). Made only from
/// a knowledge table's template and two validated labels, then checked as a whole like a
/// [`WheelUrl`]: `https://`, letters, digits and `/._+-`, no empty or `..` component.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FindLinksUrl(String);

impl FindLinksUrl {
    /// `template` with `{torch_minor}` (`2.4`) and `{cuda}` (`cu121`, `cpu`) filled in.
    pub fn from_template(template: &str, torch_minor: &str, cuda: &str) -> Option<FindLinksUrl> {
        let minor_ok = torch_minor.split('.').count() == 2
            && torch_minor
                .split('.')
                .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
        let cuda_ok = cuda == "cpu"
            || cuda.strip_prefix("cu").is_some_and(|d| {
                (2..=3).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())
            });
        if !minor_ok || !cuda_ok {
            return None;
        }
        let raw = template
            .replace("{torch_minor}", torch_minor)
            .replace("{cuda}", cuda);
        let rest = raw.strip_prefix("https://")?;
        let body = rest.strip_suffix('/').unwrap_or(rest);
        let ok = raw.len() < 512
            && !body
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._+-".contains(&b));
        ok.then_some(FindLinksUrl(raw))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A source repository pip builds from: `git+https://` on a host and path of letters, digits and
/// `/._-`, an optional `@ref` of the same, nothing else (no `#egg=`, query, `..` or user info).
/// Only the knowledge tables' `install_target` values come here.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VcsUrl(String);

impl VcsUrl {
    pub fn new(raw: &str) -> Option<VcsUrl> {
        // pip reads the name from the requirement itself: the `#egg=` fragment is dropped.
        let raw = raw.split('#').next().unwrap_or(raw);
        let rest = raw.strip_prefix("git+https://")?;
        let (path, reference) = match rest.split_once('@') {
            Some((p, r)) => (p, Some(r)),
            None => (rest, None),
        };
        let plain = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
        };
        let ok = raw.len() < 512
            && plain(path)
            && !path
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
            && reference.is_none_or(|r| plain(r) && !r.contains(".."));
        ok.then(|| VcsUrl(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A package index URL: PyPI's own, or one of PyTorch's per-build indexes
/// (`https://download.pytorch.org/whl/cu128`), named by a build label (`cpu`, `cu118`, `cu128`,
/// `rocm6.2`) of letters, digits and dots only. Nothing else is accepted: an index decides what
/// code pip installs, so it is never taken from the text as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexUrl(String);

impl IndexUrl {
    /// The PyTorch index of one build label.
    pub fn pytorch(label: &str) -> Option<IndexUrl> {
        let ok = !label.is_empty()
            && label.len() <= 16
            && label.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.')
            && !label.contains("..");
        ok.then(|| IndexUrl(format!("https://download.pytorch.org/whl/{label}")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(
    Name,
    Version,
    SafePath,
    EnvName,
    EnvValue,
    WheelUrl,
    VcsUrl,
    IndexUrl,
    FindLinksUrl
);

impl fmt::Display for Pid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_links_pages() {
        let pyg = "https://data.pyg.org/whl/torch-{torch_minor}.0+{cuda}.html";
        assert_eq!(
            FindLinksUrl::from_template(pyg, "2.5", "cu124").map(|u| u.0),
            Some("https://data.pyg.org/whl/torch-2.5.0+cu124.html".to_owned())
        );
        let mm = "https://download.openmmlab.com/mmcv/dist/{cuda}/torch{torch_minor}/index.html";
        assert!(FindLinksUrl::from_template(mm, "1.10", "cpu").is_some());
        // Labels are the only variable parts, and each has one shape.
        for (minor, cuda) in [
            ("2.5", "cu124/../../x"),
            ("2.5", "rocm6.2"),
            ("2.5", "cu1"),
            ("2.5", "$(id)"),
            ("2", "cu121"),
            ("2.5.1", "cu121"),
            ("2.5;id", "cu121"),
            ("2.x", "cu121"),
            ("", "cu121"),
        ] {
            assert!(
                FindLinksUrl::from_template(pyg, minor, cuda).is_none(),
                "{minor} {cuda}"
            );
        }
        // Every page the knowledge names makes a valid URL.
        for p in abidoc_knowledge::packages::all() {
            if let Some(w) = &p.wheel_index {
                assert!(
                    FindLinksUrl::from_template(&w.url, "2.5", "cu121").is_some(),
                    "{}: {}",
                    p.name,
                    w.url
                );
            }
        }
        // A template is checked as a whole too.
        for bad in [
            "http://data.pyg.org/whl/torch-{torch_minor}+{cuda}.html",
            "https://data.pyg.org/whl/../torch-{torch_minor}+{cuda}.html",
            "https://data.pyg.org/whl/torch-{torch_minor}+{cuda}.html?x=$(id)",
            "https://data.pyg.org//torch-{torch_minor}+{cuda}.html",
        ] {
            assert!(
                FindLinksUrl::from_template(bad, "2.5", "cu124").is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn versions() {
        for ok in [
            "2.5.1",
            "2.5.1+cu121",
            "2.3.0.dev20240304+cu118",
            "0.0.28.post3",
            "2.0.0rc1",
            "1!2.0",
            "1.2.0.post1",
            "2.10.0a0+git1234abc",
        ] {
            assert!(Version::new(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            "2.5.1+é",
            "2.5.1/../../x",
            "2.5.1 ",
            "$(id)",
            "2.5.1;id",
            "2.5.1+",
            "2..5",
            "v2.5",
            "2.5.1+cu121/../..",
            "2.5.1{x}",
            "2.5.1\n",
            ".5",
            "2.5.post",
        ] {
            assert!(Version::new(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn pids() {
        assert!(Pid::new(0).is_none());
        assert!(Pid::new(1).is_none());
        assert!(Pid::new(1 << 31).is_none());
        assert!(Pid::new(u64::MAX).is_none());
        assert!(Pid::new(u64::from(std::process::id())).is_none());
        assert!(Pid::new(u64::from(std::os::unix::process::parent_id())).is_none());
        assert!(Pid::new(4242).is_some() || std::process::id() == 4242);
    }

    #[test]
    fn paths_urls_env() {
        assert!(SafePath::new("/home/u/.cache/torch_extensions/py310/fused_adam").is_some());
        for bad in [
            "rel/x",
            "/a/../b",
            "/a/.",
            "/a b",
            "/$HOME/x",
            "/a;b",
            "/x\u{15}y",
        ] {
            assert!(SafePath::new(bad).is_none(), "{bad:?}");
        }
        assert!(
            WheelUrl::new("https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.5cxx11abiFALSE-cp310-cp310-linux_x86_64.whl").is_some()
        );
        assert!(
            WheelUrl::new("https://github.com/o/r/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.5cxx11abiFALSE-cp310-cp310-linux_x86_64.whl").is_some()
        );
        for bad in [
            "http://x/y.whl",
            "https://x/%24(id).whl",
            "https://x/y%2.whl",
            "https://x/../y.whl",
            "https://x/y.whl?z",
            "https://x//y.whl",
            "https://x/$(id).whl",
        ] {
            assert!(WheelUrl::new(bad).is_none(), "{bad}");
        }
        assert_eq!(
            VcsUrl::new("git+https://github.com/facebookresearch/xformers.git@main#egg=xformers")
                .map(|u| u.as_str().to_owned())
                .as_deref(),
            Some("git+https://github.com/facebookresearch/xformers.git@main")
        );
        assert!(VcsUrl::new("git+https://github.com/NVIDIA/apex.git").is_some());
        for bad in [
            "https://github.com/NVIDIA/apex.git",
            "git+ssh://git@github.com/NVIDIA/apex.git",
            "git+https://github.com/NVIDIA/../x.git",
            "git+https://u:p@github.com/x.git@main",
            "git+https://github.com/x.git@$(id)",
            "git+https://github.com/x.git?x=1",
            "git+https://github.com/a b.git",
        ] {
            assert!(VcsUrl::new(bad).is_none(), "{bad}");
        }
        assert!(EnvName::new("LD_LIBRARY_PATH").is_some());
        assert!(EnvName::new("1X").is_none());
        assert!(EnvValue::new("expandable_segments:True").is_some());
        assert!(EnvValue::new("$HOME/x").is_none());
        assert!(EnvValue::new("a b").is_none());
    }

    #[test]
    fn index_urls_are_pytorch_build_labels_only() {
        assert_eq!(
            IndexUrl::pytorch("cu128").map(|u| u.to_string()).as_deref(),
            Some("https://download.pytorch.org/whl/cu128")
        );
        assert!(IndexUrl::pytorch("rocm6.2").is_some() && IndexUrl::pytorch("cpu").is_some());
        for bad in [
            "",
            "cu128/../x",
            "cu128 --x",
            "CU128",
            "cu128?a=b",
            "1cu",
            "cu128$(x)",
            "a..b",
        ] {
            assert!(IndexUrl::pytorch(bad).is_none(), "{bad}");
        }
    }
}
