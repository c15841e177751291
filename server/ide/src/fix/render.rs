//! The one renderer of fix steps: argument vectors (pip and uv forms), the environment the
//! commands need, a POSIX shell line for display, and notebook lines (`%pip`, `%env`, `!`).
//!
//! Notebook lines are read by IPython, which expands `$name`, `$(…)` and `{expr}` in magics and
//! `!` lines before a shell sees them, so they are quoted for IPython on top of POSIX sh. Every
//! value is already validated; the quoting and the control-character refusal are a second wall.

use super::Shell;
use super::step::{CondaChannel, PipFlag, Python, Query, Requirement, Step};

/// The argument vector of a step; `None` for steps that are not commands (environment, advice).
pub fn argv(step: &Step) -> Option<Vec<String>> {
    let s = |x: &str| x.to_owned();
    Some(match step {
        Step::PipInstall {
            python,
            flags,
            requirements,
        } => {
            let mut v = pip(python, "install");
            v.extend(flags.iter().flat_map(pip_flag));
            v.extend(requirements.iter().map(requirement));
            v
        }
        Step::PipUninstall { python, packages } => {
            let mut v = pip(python, "uninstall");
            v.push(s("-y"));
            v.extend(packages.iter().map(ToString::to_string));
            v
        }
        Step::PipCacheRemove { python, package } => {
            let mut v = pip(python, "cache");
            v.push(s("remove"));
            v.push(package.wheel_stem());
            v
        }
        Step::CondaInstall { channel, packages } => {
            let mut v = vec![s("conda"), s("install"), s("-y")];
            if *channel != CondaChannel::Configured {
                v.extend([s("-c"), s(channel.as_str())]);
            }
            v.extend(packages.iter().map(requirement));
            v
        }
        Step::SystemInstall { manager, packages } => {
            let mut v = vec![s("sudo"), s(manager.command()), s("install"), s("-y")];
            v.extend(packages.iter().map(ToString::to_string));
            v
        }
        Step::MakeDir { path } => vec![s("mkdir"), s("-p"), path.to_string()],
        Step::Link { target, link, root } => {
            let mut v = if *root { vec![s("sudo")] } else { Vec::new() };
            v.extend([s("ln"), s("-sf"), target.to_string(), link.to_string()]);
            v
        }
        Step::Ldconfig => vec![s("sudo"), s("ldconfig")],
        Step::RemoveBuildDir { path } => vec![s("rm"), s("-rf"), path.to_string()],
        Step::Kill { pids } => {
            let mut v = vec![s("kill")];
            v.extend(pids.iter().map(ToString::to_string));
            v
        }
        Step::Show(Query::GpuProcesses) => vec![
            s("nvidia-smi"),
            s("--query-compute-apps=pid,process_name,used_memory"),
            s("--format=csv"),
        ],
        Step::Show(Query::CudaCompilers) => vec![
            s("find"),
            s("/usr/local"),
            s("/opt"),
            s("/usr/lib"),
            s("-maxdepth"),
            s("3"),
            s("-path"),
            s("*/bin/nvcc"),
        ],
        Step::Show(Query::CudaCompilersWindows) => vec![
            // `.exe` spelled out: in PowerShell a bare `where` is Where-Object.
            s("where.exe"),
            s("/r"),
            s(r"C:\Program Files\NVIDIA GPU Computing Toolkit"),
            s("nvcc.exe"),
        ],
        // An import of a namespace package with no code of its own (`nvidia/cudnn/lib` holds
        // only the libraries), written without `;` so that one argument carries it.
        Step::Show(Query::PipCudnnDir) => vec![
            s("python"),
            s("-c"),
            s(r#"print(__import__("nvidia.cudnn.lib").cudnn.lib.__path__[0])"#),
        ],
        Step::Show(Query::PipTags) => {
            vec![s("python"), s("-m"), s("pip"), s("debug"), s("--verbose")]
        }
        Step::SetEnv { .. } | Step::Manual(_) => return None,
    })
}

fn pip(python: &Python, verb: &str) -> Vec<String> {
    vec![
        python.as_str().to_owned(),
        "-m".into(),
        "pip".into(),
        verb.into(),
    ]
}

fn pip_flag(f: &PipFlag) -> Vec<String> {
    match f {
        PipFlag::NoCacheDir => vec!["--no-cache-dir".into()],
        PipFlag::NoBuildIsolation => vec!["--no-build-isolation".into()],
        PipFlag::ForceReinstall => vec!["--force-reinstall".into()],
        PipFlag::NoDeps => vec!["--no-deps".into()],
        PipFlag::Upgrade => vec!["--upgrade".into()],
        PipFlag::NoBinary(n) => vec!["--no-binary".into(), n.to_string()],
        PipFlag::OnlyBinary(n) => vec!["--only-binary".into(), n.to_string()],
        PipFlag::IndexUrl(u) => vec!["--index-url".into(), u.to_string()],
        PipFlag::NoIndex => vec!["--no-index".into()],
        PipFlag::FindLinks(u) => vec!["--find-links".into(), u.to_string()],
    }
}

fn uv_flag(f: &PipFlag) -> Vec<String> {
    match f {
        PipFlag::NoCacheDir => vec!["--no-cache".into()],
        PipFlag::ForceReinstall => vec!["--reinstall".into()],
        other => pip_flag(other),
    }
}

/// A requirement as pip reads it.
pub fn requirement(r: &Requirement) -> String {
    match r {
        Requirement::Any(n) => n.to_string(),
        Requirement::Exact(n, v) => format!("{n}=={v}"),
        Requirement::Below(n, v) => format!("{n}<{v}"),
        Requirement::AtLeast(n, v) => format!("{n}>={v}"),
        Requirement::Major(n, m) => format!("{n}=={m}.*"),
        Requirement::Series(n, a, b) => format!("{n}=={a}.{b}.*"),
        Requirement::Extra(n, extra) => format!("{n}[{extra}]"),
        Requirement::Wheel(_, url) => url.to_string(),
        Requirement::Vcs(n, url) => format!("{n} @ {}", url.as_str()),
        // One argument (`--editable=PATH`): a requirement is one word of the command.
        Requirement::Editable(_, path) => format!("--editable={}", path.as_str()),
    }
}

/// Every command of a fix, in order.
pub fn commands(steps: &[Step]) -> Vec<Vec<String>> {
    steps.iter().filter_map(argv).collect()
}

/// The environment variables a fix sets, in order.
pub fn env(steps: &[Step]) -> Vec<(String, String)> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::SetEnv { name, value } => Some((name.to_string(), value.to_string())),
            _ => None,
        })
        .collect()
}

/// The same commands for uv (`uv pip install`), when the fix installs or removes with pip.
pub fn uv_commands(steps: &[Step]) -> Option<Vec<Vec<String>>> {
    let uses_pip = steps.iter().any(|s| {
        matches!(
            s,
            Step::PipInstall { .. } | Step::PipUninstall { .. } | Step::PipCacheRemove { .. }
        )
    });
    if !uses_pip {
        return None;
    }
    let uv = |verb: &[&str], python: &Python| {
        let mut v: Vec<String> = ["uv"].iter().chain(verb).map(|s| (*s).to_owned()).collect();
        if let Python::Path(p) = python {
            v.push("--python".into());
            v.push(p.to_string());
        }
        v
    };
    let out = steps
        .iter()
        .filter_map(|s| match s {
            Step::PipInstall {
                python,
                flags,
                requirements,
            } => {
                let mut v = uv(&["pip", "install"], python);
                v.extend(flags.iter().flat_map(uv_flag));
                v.extend(requirements.iter().map(requirement));
                Some(v)
            }
            Step::PipUninstall { python, packages } => {
                let mut v = uv(&["pip", "uninstall"], python);
                v.extend(packages.iter().map(ToString::to_string));
                Some(v)
            }
            Step::PipCacheRemove { package, .. } => Some(vec![
                "uv".into(),
                "cache".into(),
                "clean".into(),
                package.to_string(),
            ]),
            other => argv(other),
        })
        .collect();
    Some(out)
}

/// The fix as notebook lines: `%pip …` (the kernel's own interpreter), `%conda …`, `%env K=V`,
/// `!cmd …`; `None` when it has no command.
pub fn notebook(steps: &[Step]) -> Option<String> {
    let mut lines = Vec::new();
    for step in steps {
        let line = match step {
            Step::SetEnv { name, value } => format!("%env {name}={}", ipython(value.as_str())?),
            Step::Manual(_) => continue,
            Step::PipInstall { .. } | Step::PipUninstall { .. } | Step::PipCacheRemove { .. } => {
                // `%pip` runs the kernel's interpreter: the argv's own interpreter is dropped.
                let v = argv(step)?;
                format!("%pip {}", join(v.get(3..)?, ipython)?)
            }
            Step::CondaInstall { .. } => {
                let v = argv(step)?;
                format!("%conda {}", join(v.get(1..)?, ipython)?)
            }
            other => format!("!{}", join(&argv(other)?, ipython)?),
        };
        lines.push(line);
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The fix as one shell line, for people to read or paste: `export K=V && cmd && cmd` (cmd.exe:
/// `set K=V && cmd`). `None` when it has no command, or (never for validated steps) when a
/// character would reach a terminal's line editor or the shell's own expansion.
pub fn shell_line(steps: &[Step], shell: Shell) -> Option<String> {
    let mut parts = Vec::new();
    let mut commands = 0;
    for step in steps {
        match step {
            Step::SetEnv { name, value } => {
                parts.push(env_line(shell, name.as_str(), value.as_str())?);
            }
            Step::Manual(_) => {}
            other => {
                let v = argv(other)?;
                let quoted: Option<Vec<String>> = v.iter().map(|a| quote(shell, a)).collect();
                parts.push(quoted?.join(" "));
                commands += 1;
            }
        }
    }
    (commands > 0).then(|| parts.join(" && "))
}

/// One argument quoted for `shell`.
pub fn quote(shell: Shell, arg: &str) -> Option<String> {
    match shell {
        Shell::Posix => sh(arg),
        Shell::Cmd => cmd(arg),
    }
}

/// Setting a variable for the commands after it: `export K=V`, or cmd.exe's `set "K=V"`, whose
/// quotes keep the space before a following `&&` out of the value (`set K=4 && …` sets `4 `).
pub fn env_line(shell: Shell, name: &str, value: &str) -> Option<String> {
    match shell {
        Shell::Posix => Some(format!("export {name}={}", sh(value)?)),
        Shell::Cmd => cmd(value).map(|_| format!("set \"{name}={value}\"")),
    }
}

/// A command as a line of `shell` for people to read, never to run (commands run from their
/// argument vectors): an argument the shell cannot carry is shown as refused.
pub fn display_command(shell: Shell, argv: &[String]) -> String {
    argv.iter()
        .map(|a| quote(shell, a).unwrap_or_else(|| refused(shell)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Setting a variable as a line of `shell` for people to read, like [`display_command`].
pub fn display_env(shell: Shell, name: &str, value: &str) -> String {
    env_line(shell, name, value).unwrap_or_else(|| format!("{name}={}", refused(shell)))
}

/// What stands for an argument `shell` cannot carry: sh refuses control characters only.
fn refused(shell: Shell) -> String {
    match shell {
        Shell::Posix => "<refused: control character>".into(),
        Shell::Cmd => "<refused: not quotable for this shell>".into(),
    }
}

/// cmd.exe quoting: an argument of plain characters as it is, anything else inside double
/// quotes, where `&|<>^` are literal. A `"` inside is escaped for the program's own argument
/// parser (Microsoft's C runtime: `\"`, backslashes before it and at the end doubled), and then
/// no character cmd acts on may stand anywhere, since cmd toggles its quoting at every `"`. A
/// `%` only as a URL's percent-encoding (`%2B`), which an interactive cmd leaves as it is; a
/// control character is refused.
pub fn cmd(arg: &str) -> Option<String> {
    if arg.chars().any(char::is_control) {
        return None;
    }
    let b = arg.as_bytes();
    let percent_encoded = b
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == b'%')
        .all(|(i, _)| {
            b.get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        });
    if !percent_encoded {
        return None;
    }
    let plain = !arg.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"_./:=,+@-\\".contains(c));
    if plain {
        return Some(arg.to_owned());
    }
    if arg.contains('"') && arg.contains(['&', '|', '<', '>', '^']) {
        return None;
    }
    let mut out = String::from("\"");
    let mut backslashes = 0;
    for c in arg.chars() {
        match c {
            '\\' => {
                backslashes += 1;
                out.push(c);
            }
            '"' => {
                out.push_str(&"\\".repeat(backslashes + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                backslashes = 0;
                out.push(c);
            }
        }
    }
    out.push_str(&"\\".repeat(backslashes));
    out.push('"');
    Some(out)
}

fn join(args: &[String], quote: fn(&str) -> Option<String>) -> Option<String> {
    let quoted: Option<Vec<String>> = args.iter().map(|a| quote(a)).collect();
    Some(quoted?.join(" "))
}

/// POSIX sh quoting; refuses control characters, which a terminal's line editor acts on even
/// inside quotes (Ctrl-U erases the opening quote). An argument whose characters mean nothing
/// inside double quotes to sh, cmd.exe or PowerShell (a requirement: `"numpy<2"`,
/// `"triton-windows==3.4.*"`) is double-quoted, so the line pastes the same into all three
/// (cmd.exe passes single quotes on to pip); anything else is single-quoted for sh.
pub fn sh(arg: &str) -> Option<String> {
    if arg.chars().any(char::is_control) {
        return None;
    }
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=,+@%-".contains(&b));
    // A Windows path's backslashes mean nothing inside double quotes to cmd.exe and PowerShell,
    // nor to sh unless one ends the argument or doubles (`\\"`, `\\\\`).
    let lone_backslashes = !arg.ends_with('\\') && !arg.contains("\\\\");
    let inert = arg.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || b"_./:=,+@-<>*~[] ;".contains(&b)
            || (b == b'\\' && lone_backslashes)
    });
    Some(if plain {
        arg.to_owned()
    } else if inert {
        format!("\"{arg}\"")
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    })
}

/// Quoting for an IPython magic or `!` line: POSIX sh quoting, then IPython's own expansion
/// characters doubled (`$$` and `{{ }}` are IPython's literal `$`, `{`, `}`).
pub fn ipython(arg: &str) -> Option<String> {
    let q = sh(arg)?;
    Some(q.replace('$', "$$").replace('{', "{{").replace('}', "}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(sh("numpy<2").as_deref(), Some("\"numpy<2\""));
        assert_eq!(sh("a b$c").as_deref(), Some("'a b$c'"));
        assert_eq!(sh("x%PATH%").as_deref(), Some("x%PATH%"));
        // cmd.exe: double quotes only, never a `%` it would expand or a `"` that ends them.
        assert_eq!(cmd("numpy<2").as_deref(), Some("\"numpy<2\""));
        assert_eq!(cmd(r"C:\a b\").as_deref(), Some(r#""C:\a b\\""#));
        assert_eq!(cmd("x%PATH%"), None);
        assert_eq!(
            cmd("https://x/a%2Bcu121.whl").as_deref(),
            Some("\"https://x/a%2Bcu121.whl\"")
        );
        assert_eq!(
            cmd(r#"print(__import__("a.b").c)"#).as_deref(),
            Some(r#""print(__import__(\"a.b\").c)""#)
        );
        assert_eq!(cmd(r#"a "b" & c"#), None);
        assert_eq!(
            env_line(Shell::Cmd, "MAX_JOBS", "4").as_deref(),
            Some("set \"MAX_JOBS=4\"")
        );
        // A Windows path pastes into cmd.exe, PowerShell and sh alike; a trailing or doubled
        // backslash would not survive sh's double quotes.
        assert_eq!(
            sh(r"C:\Program Files\NVIDIA").as_deref(),
            Some(r#""C:\Program Files\NVIDIA""#)
        );
        assert_eq!(sh(r"C:\a b\").as_deref(), Some(r"'C:\a b\'"));
        assert_eq!(sh(r"\\srv\a b").as_deref(), Some(r"'\\srv\a b'"));
        assert_eq!(sh("x!y").as_deref(), Some("'x!y'"));
        assert_eq!(sh("a'b").as_deref(), Some("'a'\\''b'"));
        assert_eq!(sh("x\u{15}y"), None);
        assert_eq!(sh("x\ny"), None);
        assert_eq!(ipython("$(id)").as_deref(), Some("'$$(id)'"));
        assert_eq!(
            ipython("{os.system(1)}").as_deref(),
            Some("'{{os.system(1)}}'")
        );
        assert_eq!(ipython("torch==2.5.1").as_deref(), Some("torch==2.5.1"));
    }
}
