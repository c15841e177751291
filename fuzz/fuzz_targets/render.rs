//! Fuzzes the validation boundary and the one renderer together: whatever a crafted METADATA,
//! log or path puts into a name, version, path, variable or URL either is refused by
//! `fix::valid`, or reaches the shell line and the notebook cell as exactly one argument each
//! (splitting the rendered line back as sh and IPython would gives the argument vector again),
//! with no control character; and in cmd.exe's form, read back by Microsoft's C runtime rules,
//! one argument each too.
#![no_main]
use abidoc_ide::fix::render::{self, cmd, ipython, sh};
use abidoc_ide::fix::{
    EnvName, EnvValue, Name, Pid, Python, Requirement, SafePath, Shell, Step, Version, WheelUrl,
};
use libfuzzer_sys::fuzz_target;

/// POSIX sh word splitting of what `sh` produces: bare words, `'…'`, `"…"` holding nothing sh
/// expands there (a `\` before anything but `$`, `` ` ``, `"`, `\` stays itself), and `\'`; `&&`
/// separates commands. `None` on anything `sh` never writes (an expansion character outside
/// quotes, or `$`, `` ` ``, `!` or an escaping `\` inside double quotes).
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
                        '$' | '`' | '!' => return None,
                        '\\' if matches!(chars.peek(), Some('$' | '`' | '"' | '\\')) => {
                            return None;
                        }
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

/// One argument as Microsoft's C runtime reads it from a command line: `"…"` groups, `2n`
/// backslashes before a `"` are `n` and the quote toggles, `2n+1` are `n` and a literal `"`,
/// other backslashes are themselves. `None` when cmd.exe would act on the text first (a `%`
/// not of a URL's percent-encoding, or `&|<>^` outside quotes) or it is not one argument.
fn cmd_split(line: &str) -> Option<Vec<String>> {
    let b: Vec<char> = line.chars().collect();
    let mut args = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            '\\' => {
                let n = b[i..].iter().take_while(|&&x| x == '\\').count();
                let w = word.get_or_insert_with(String::new);
                if b.get(i + n) == Some(&'"') {
                    w.extend(std::iter::repeat_n('\\', n / 2));
                    if n % 2 == 1 {
                        w.push('"');
                        i += n + 1;
                        continue;
                    }
                    i += n;
                    continue;
                }
                w.extend(std::iter::repeat_n('\\', n));
                i += n;
                continue;
            }
            '"' => {
                word.get_or_insert_with(String::new);
                quoted = !quoted;
            }
            ' ' if !quoted => {
                if let Some(w) = word.take() {
                    args.push(w);
                }
            }
            '&' | '|' | '<' | '>' | '^' if !quoted => return None,
            '%' => {
                let hex = b.get(i + 1..i + 3)?;
                if !hex.iter().all(char::is_ascii_hexdigit) {
                    return None;
                }
                word.get_or_insert_with(String::new).push(c);
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
        i += 1;
    }
    if quoted {
        return None;
    }
    if let Some(w) = word.take() {
        args.push(w);
    }
    Some(args)
}

fn check_cmd_word(raw: &str) {
    match cmd(raw) {
        Some(q) => {
            assert!(!q.chars().any(char::is_control), "{q:?}");
            assert_eq!(cmd_split(&q), Some(vec![raw.to_owned()]), "cmd {raw:?} -> {q:?}");
        }
        None => {
            let percent_ok = raw.match_indices('%').all(|(i, _)| {
                raw.get(i + 1..i + 3)
                    .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()))
            });
            assert!(
                raw.chars().any(char::is_control)
                    || !percent_ok
                    || raw.contains('"') && raw.contains(['&', '|', '<', '>', '^']),
                "cmd refused {raw:?}"
            );
        }
    }
}

fn check_word(raw: &str) {
    check_cmd_word(raw);
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
    if let Some(line) = render::shell_line(&steps, Shell::Posix) {
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
