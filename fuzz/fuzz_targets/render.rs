//! Fuzzes the validation boundary and the one renderer together: whatever a crafted METADATA,
//! log or path puts into a name, version, path, variable or URL either is refused by
//! `fix::valid`, or reaches the shell line and the notebook cell as exactly one argument each
//! (splitting the rendered line back as sh and IPython would gives the argument vector again),
//! with no control character.
#![no_main]
use abidoc_ide::fix::render::{self, ipython, sh};
use abidoc_ide::fix::{
    EnvName, EnvValue, Name, Pid, Python, Requirement, SafePath, Step, Version, WheelUrl,
};
use libfuzzer_sys::fuzz_target;

/// POSIX sh word splitting of what `sh` produces: bare words, `'…'`, `"…"` holding nothing sh
/// expands there, and `\'`; `&&` separates commands. `None` on anything `sh` never writes (an
/// expansion character outside quotes, or `$`, `` ` ``, `\` or `!` inside double quotes).
fn split(line: &str) -> Option<Vec<Vec<String>>> {
    let mut cmds = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if let Some(w) = word.take() {
                    if w == "&&" {
                        cmds.push(Vec::new());
                    } else {
                        cmds.last_mut()?.push(w);
                    }
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        q => w.push(q),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' | '!' => return None,
                        q => w.push(q),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '$' | '`' | '(' | ')' | ';' | '|' | '<' | '>' | '*' | '?' | '[' | '#' | '~' => {
                return None;
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = word.take() {
        cmds.last_mut()?.push(w);
    }
    Some(cmds)
}

/// What IPython hands to the shell for a `!`/`%pip` line: `$$`, `{{`, `}}` become literal, and a
/// lone `$` or `{` would be an expansion (never written by `ipython`).
fn ipython_literal(line: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' | '{' | '}' => {
                if chars.next()? != c {
                    return None;
                }
                out.push(c);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

fn check_word(raw: &str) {
    if let Some(q) = sh(raw) {
        assert!(!q.chars().any(char::is_control), "{q:?}");
        assert_eq!(split(&q), Some(vec![vec![raw.to_owned()]]), "sh {raw:?} -> {q:?}");
        let i = ipython(raw).expect("ipython quotes what sh quotes");
        assert_eq!(ipython_literal(&i).as_deref(), Some(q.as_str()), "ipython {raw:?}");
    } else {
        assert!(raw.chars().any(char::is_control), "sh refused {raw:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut fields = text.split('\u{1f}');
    let mut next = || fields.next().unwrap_or("").to_owned();
    let (a, b, c, d) = (next(), next(), next(), next());
    for w in [&a, &b, &c, &d] {
        check_word(w);
    }
    let mut steps = Vec::new();
    let python = SafePath::new(&d).map_or(Python::OnPath, Python::Path);
    if let Some(name) = Name::new(&a) {
        let mut requirements = vec![Requirement::Any(name.clone())];
        if let Some(v) = Version::new(&b) {
            requirements.push(Requirement::Exact(name.clone(), v.clone()));
            requirements.push(Requirement::Below(name.clone(), v));
        }
        if let Some(u) = WheelUrl::new(&c) {
            requirements.push(Requirement::Wheel(name.clone(), u));
        }
        steps.push(Step::PipInstall {
            python: python.clone(),
            flags: Vec::new(),
            requirements,
        });
        steps.push(Step::PipUninstall {
            python,
            packages: vec![name],
        });
    }
    if let (Some(n), Some(v)) = (EnvName::new(&a), EnvValue::new(&b)) {
        steps.push(Step::SetEnv { name: n, value: v });
    }
    if let (Some(t), Some(l)) = (SafePath::new(&c), SafePath::new(&d)) {
        steps.push(Step::MakeDir { path: t.clone() });
        steps.push(Step::Link {
            target: t,
            link: l,
            root: false,
        });
    }
    let pid = u64::from_le_bytes(data.get(..8).and_then(|s| s.try_into().ok()).unwrap_or([0; 8]));
    if let Some(p) = Pid::new(pid) {
        assert!(p.get() >= 2 && p.get() < 1 << 31, "{pid}");
        steps.push(Step::Kill { pids: vec![p] });
    }
    let argvs = render::commands(&steps);
    for v in &argvs {
        for a in v {
            assert!(!a.chars().any(char::is_control), "{a:?}");
        }
    }
    if let Some(line) = render::shell_line(&steps) {
        let got = split(&line).unwrap_or_else(|| panic!("unsplittable: {line:?}"));
        let want: Vec<Vec<String>> = steps
            .iter()
            .filter_map(|s| match s {
                Step::SetEnv { name, value } => {
                    Some(vec![format!("export"), format!("{name}={}", value.as_str())])
                }
                other => render::argv(other),
            })
            .collect();
        assert_eq!(got, want, "{line:?}");
    }
    if let Some(cell) = render::notebook(&steps) {
        for l in cell.lines() {
            assert!(!l.chars().any(char::is_control), "{l:?}");
            let (_, rest) = l.split_once([' ', '!']).unwrap_or(("", l));
            let literal = ipython_literal(rest).unwrap_or_else(|| panic!("expands: {l:?}"));
            assert!(split(&literal).is_some(), "{l:?}");
        }
    }
});
