//! pip's temporary build directories in a log: the one reading of the project a build root names.

/// The projects pip's build roots in `text` name, with where each root starts: pip 10+ unpacks a
/// source distribution into `pip-install-<random>/<project>[_<hex>]/`, older pip into
/// `pip-build-<random>/<project>/`. Names are as written (not normalized); at most 16.
pub fn build_dirs(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("pip-") {
        let tail = &text[at..];
        // `pip-build-env-…` is the isolated build environment (its directories are its tools'),
        // `pip-build-tracker-…` pip's own bookkeeping.
        let len = if tail.starts_with("pip-install-") {
            12
        } else if tail.starts_with("pip-build-")
            && !tail.starts_with("pip-build-env-")
            && !tail.starts_with("pip-build-tracker-")
        {
            10
        } else {
            continue;
        };
        let rest = &text[at + len..];
        // pip's random part is a few characters of one word: a separator after a space, a quote
        // or far away is another path's (and a text of `pip-install-` without one stays linear).
        let Some((sep, _)) = rest
            .char_indices()
            .take(64)
            .take_while(|(_, c)| !c.is_whitespace() && !matches!(c, '\'' | '"' | '`'))
            .find(|(_, c)| matches!(c, '/' | '\\'))
        else {
            continue;
        };
        let dir = rest[sep + 1..]
            .split(['/', '\\', '\'', '"', ' ', '\n', '`'])
            .next()
            .unwrap_or("");
        // pip 20.1+ adds `_<32 hex>` to the name.
        let name = match dir.rsplit_once('_') {
            Some((n, h)) if h.len() >= 8 && h.bytes().all(|c| c.is_ascii_hexdigit()) => n,
            _ => dir,
        };
        if !name.is_empty()
            && name.len() <= 100
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        {
            out.push((at, name));
        }
        if out.len() >= 16 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::build_dirs;

    #[test]
    fn reads_each_pip_layout() {
        let t = "/tmp/pip-install-n4exwr7n/fcos/setup.py \
                 C:\\Temp\\pip-install-ab\\flash-attn_5c2e0123456789abcdef0123456789ab\\setup.py \
                 /tmp/pip-build-x/atari-py/ /tmp/pip-build-env-q/overlay/lib";
        let names: Vec<&str> = build_dirs(t).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["fcos", "flash-attn", "atari-py"]);
    }

    #[test]
    fn ignores_a_root_without_a_project() {
        assert!(build_dirs("pip-install-").is_empty());
        assert!(build_dirs(&format!("pip-install-{}", "x".repeat(200))).is_empty());
        assert!(build_dirs("/tmp/pip-install-x/ /").is_empty());
        // pip -v's own temporary directories, one per line: no project after the random part.
        assert!(build_dirs("directory: /tmp/pip-install-8xk2ql9p\ndirectory: /var/x/y").is_empty());
        assert!(build_dirs("/tmp/pip-build-tracker-ab12/x").is_empty());
    }
}
