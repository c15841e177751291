//! Version parsing and ordering (PEP 440-ish) for torch, CUDA and package versions, including local labels such as `+cu128`.

use std::cmp::Ordering;
use std::fmt;

/// Pre-release kind; ordered as PEP 440 orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PreKind {
    Alpha,
    Beta,
    Rc,
}

/// One dot-separated segment of a local label (`cu128`, `07cecf4168`, `nv24`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LocalPart {
    Num(u64),
    Str(String),
}

impl PartialOrd for LocalPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for LocalPart {
    // PEP 440: numeric segments sort after alphanumeric ones.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (LocalPart::Num(a), LocalPart::Num(b)) => a.cmp(b),
            (LocalPart::Str(a), LocalPart::Str(b)) => a.cmp(b),
            (LocalPart::Num(_), LocalPart::Str(_)) => Ordering::Greater,
            (LocalPart::Str(_), LocalPart::Num(_)) => Ordering::Less,
        }
    }
}

/// A parsed version. Equality and ordering follow PEP 440 (trailing zeros in the release do not
/// matter: `2.5` == `2.5.0`), with the local label compared last.
#[derive(Debug, Clone)]
pub struct Version {
    pub epoch: u64,
    pub release: Vec<u64>,
    pub pre: Option<(PreKind, u64)>,
    pub post: Option<u64>,
    pub dev: Option<u64>,
    pub local: Vec<LocalPart>,
    /// The text as given (trimmed), for display.
    raw: String,
}

impl Version {
    /// Parses leniently: a leading `v`, `-`/`_` separators and missing numbers are accepted.
    /// Returns `None` when the text does not start with a release number.
    pub fn parse(text: &str) -> Option<Version> {
        let raw = text.trim();
        let lower = raw.to_ascii_lowercase();
        let s = lower.strip_prefix('v').unwrap_or(&lower);
        let (public, local) = match s.split_once('+') {
            Some((p, l)) => (p, Some(l)),
            None => (s, None),
        };
        let mut cur = Cursor {
            s: public.as_bytes(),
            i: 0,
        };
        let mut epoch = 0;
        let first = cur.number()?;
        let mut release = vec![first];
        if cur.eat(b'!') {
            epoch = first;
            release = vec![cur.number()?];
        }
        while cur.peek() == Some(b'.') && cur.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            cur.i += 1;
            release.push(cur.number()?);
        }
        let mut pre = None;
        let mut post = None;
        let mut dev = None;
        loop {
            let save = cur.i;
            cur.separator();
            if cur.at_end() {
                break;
            }
            if pre.is_none()
                && post.is_none()
                && dev.is_none()
                && let Some(kind) = cur.pre_kind()
            {
                cur.separator();
                pre = Some((kind, cur.number().unwrap_or(0)));
                continue;
            }
            if post.is_none() && dev.is_none() {
                if cur.word(&["post", "rev", "r"]) {
                    cur.separator();
                    post = Some(cur.number().unwrap_or(0));
                    continue;
                }
                // `1.0-1` is an implicit post-release.
                if cur.i > save
                    && cur.s.get(save) == Some(&b'-')
                    && let Some(n) = cur.number()
                {
                    post = Some(n);
                    continue;
                }
            }
            if dev.is_none() && cur.word(&["dev"]) {
                cur.separator();
                dev = Some(cur.number().unwrap_or(0));
                continue;
            }
            // Unknown trailing text: keep what was understood.
            break;
        }
        let local = local
            .map(|l| {
                l.split(['.', '-', '_'])
                    .filter(|p| !p.is_empty())
                    .map(|p| match p.parse::<u64>() {
                        Ok(n) if p.bytes().all(|c| c.is_ascii_digit()) => LocalPart::Num(n),
                        _ => LocalPart::Str(p.to_string()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Version {
            epoch,
            release,
            pre,
            post,
            dev,
            local,
            raw: raw.to_string(),
        })
    }

    /// The n-th release component, 0 when absent.
    pub fn part(&self, n: usize) -> u64 {
        self.release.get(n).copied().unwrap_or(0)
    }
    pub fn major(&self) -> u64 {
        self.part(0)
    }
    pub fn minor(&self) -> u64 {
        self.part(1)
    }
    pub fn patch(&self) -> u64 {
        self.part(2)
    }
    pub fn major_minor(&self) -> (u64, u64) {
        (self.major(), self.minor())
    }
    /// `"2.5"` for `2.5.1+cu121`.
    pub fn major_minor_string(&self) -> String {
        format!("{}.{}", self.major(), self.minor())
    }
    /// The public part of the version as given, without the local label (`2.5.1` for `2.5.1+cu121`).
    pub fn public(&self) -> &str {
        self.raw.split('+').next().unwrap_or(&self.raw)
    }
    /// The local label as given (`cu121` for `2.5.1+cu121`).
    pub fn local_label(&self) -> Option<&str> {
        self.raw.split_once('+').map(|(_, l)| l)
    }
    pub fn is_prerelease(&self) -> bool {
        self.pre.is_some() || self.dev.is_some()
    }
    /// The CUDA version a `+cuXYZ` local label names (`+cu121` → `(12, 1)`, `+cu118` → `(11, 8)`,
    /// `+cu12` → `(12, 0)`); `None` for CPU/ROCm builds or no label.
    pub fn local_cuda(&self) -> Option<(u64, u64)> {
        self.local.iter().find_map(|p| match p {
            // Wheel labels run on: `cu12torch2.5cxx11abiFALSE` splits into `cu12torch2`, ….
            LocalPart::Str(s) => {
                let digits: String = s
                    .strip_prefix("cu")?
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                cuda_tag(&format!("cu{digits}"))
            }
            LocalPart::Num(_) => None,
        })
    }
    /// Same release series: equal major and minor.
    pub fn same_minor(&self, other: &Version) -> bool {
        self.major_minor() == other.major_minor()
    }

    fn cmp_key(&self, other: &Self) -> Ordering {
        self.epoch
            .cmp(&other.epoch)
            .then_with(|| cmp_release(&self.release, &other.release))
            .then_with(|| pre_key(self).cmp(&pre_key(other)))
            .then_with(|| post_key(self).cmp(&post_key(other)))
            .then_with(|| dev_key(self).cmp(&dev_key(other)))
            .then_with(|| self.local.cmp(&other.local))
    }
}

/// Whether `version` lies in the release range `[from, until)` a table row names (either end
/// open when absent); with no version known, whether the range reaches back to the first
/// release (a row that starts somewhere needs a version to apply).
pub fn in_range(from: Option<&str>, until: Option<&str>, version: Option<&Version>) -> bool {
    let Some(v) = version else {
        return from.is_none();
    };
    from.and_then(Version::parse).is_none_or(|f| *v >= f)
        && until.and_then(Version::parse).is_none_or(|u| *v < u)
}

/// Parses a CUDA tag such as `cu121`, `cu118`, `cu12`, `cu128` into `(major, minor)`.
pub fn cuda_tag(tag: &str) -> Option<(u64, u64)> {
    let digits = tag.strip_prefix("cu")?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    match digits.len() {
        1 | 2 => Some((digits.parse().ok()?, 0)),
        3 => Some((digits[..2].parse().ok()?, digits[2..].parse().ok()?)),
        4 => Some((digits[..2].parse().ok()?, digits[2..].parse().ok()?)),
        _ => None,
    }
}

fn cmp_release(a: &[u64], b: &[u64]) -> Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        match x.cmp(&y) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    Ordering::Equal
}

// PEP 440 keys: a dev-only release sorts before its pre-releases; no pre sorts after them.
fn pre_key(v: &Version) -> (i8, Option<(PreKind, u64)>) {
    match (v.pre, v.post, v.dev) {
        (None, None, Some(_)) => (-1, None),
        (None, _, _) => (1, None),
        (Some(p), _, _) => (0, Some(p)),
    }
}
fn post_key(v: &Version) -> (i8, u64) {
    v.post.map_or((-1, 0), |p| (0, p))
}
fn dev_key(v: &Version) -> (i8, u64) {
    v.dev.map_or((1, 0), |d| (0, d))
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_key(other) == Ordering::Equal
    }
}
impl Eq for Version {}
impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_key(other)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl std::str::FromStr for Version {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s).ok_or_else(|| format!("not a version: {s:?}"))
    }
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn separator(&mut self) {
        if matches!(self.peek(), Some(b'.' | b'-' | b'_')) {
            self.i += 1;
        }
    }
    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        // Saturate absurdly long numbers (dates, hashes) instead of failing.
        let text = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        Some(text.parse::<u64>().unwrap_or(u64::MAX))
    }
    fn word(&mut self, words: &[&str]) -> bool {
        let rest = &self.s[self.i.min(self.s.len())..];
        for w in words {
            if rest.starts_with(w.as_bytes()) {
                self.i += w.len();
                return true;
            }
        }
        false
    }
    fn pre_kind(&mut self) -> Option<PreKind> {
        // Longest spellings first so `alpha` is not read as `a` + junk.
        const KINDS: &[(&str, PreKind)] = &[
            ("alpha", PreKind::Alpha),
            ("beta", PreKind::Beta),
            ("preview", PreKind::Rc),
            ("pre", PreKind::Rc),
            ("rc", PreKind::Rc),
            ("a", PreKind::Alpha),
            ("b", PreKind::Beta),
            ("c", PreKind::Rc),
        ];
        let rest = &self.s[self.i.min(self.s.len())..];
        for (w, k) in KINDS {
            if rest.starts_with(w.as_bytes()) {
                self.i += w.len();
                return Some(*k);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn pep440_order() {
        let ordered = [
            "1.0.dev1",
            "1.0a1",
            "1.0a2.dev1",
            "1.0a2",
            "1.0b1",
            "1.0rc1",
            "1.0",
            "1.0+cu118",
            "1.0+cu121",
            "1.0.post1.dev1",
            "1.0.post1",
            "1.1",
            "2.3.0.dev20240304+cu118",
            "2.3.0",
            "2.4.0a0+07cecf4168",
            "2.4.0",
            "2.10.0",
            "1!0.1",
        ];
        for w in ordered.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
        assert_eq!(v("2.5"), v("2.5.0"));
        assert_ne!(v("2.5.0"), v("2.5.0+cu121"));
    }

    #[test]
    fn parts_and_labels() {
        let t = v("2.5.1+cu121");
        assert_eq!(t.major_minor(), (2, 5));
        assert_eq!(t.major_minor_string(), "2.5");
        assert_eq!(t.public(), "2.5.1");
        assert_eq!(t.local_label(), Some("cu121"));
        assert_eq!(t.local_cuda(), Some((12, 1)));
        assert_eq!(v("2.8.0+cu128").local_cuda(), Some((12, 8)));
        assert_eq!(v("1.2.0.post1+cu118torch2.3cxx11abiFALSE").post, Some(1));
        assert_eq!(
            v("2.5.0a0+e000cf0ad9.nv24.10").pre,
            Some((PreKind::Alpha, 0))
        );
        assert_eq!(v("v2.2.4").release, vec![2, 2, 4]);
        assert!(v("2.4.0a0").is_prerelease());
        assert_eq!(cuda_tag("cu12"), Some((12, 0)));
        assert_eq!(cuda_tag("cpu"), None);
        assert_eq!(
            v("2.2.4+cu12torch2.5cxx11abiFALSE").local_cuda(),
            Some((12, 0))
        );
        assert!(Version::parse("abc").is_none());
        assert!(Version::parse("").is_none());
    }
}
