//! The `abidoc` binary: `check`, `scan`, `verify`, `explain`, `demangle`, `lsp`, and the human, JSON and SARIF renderers.

mod demangle_cmd;
mod input;
mod render;
mod screen;
mod unknown;
mod verify_cmd;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abidoc_ide::{Code, Context, Severity};
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "abidoc",
    version,
    about = "Why won't this compiled Python extension load? Reads tracebacks, build logs, notebooks and the libraries on disk; never imports or executes them."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Diagnose logs, tracebacks, terminal captures and notebooks (`-` or nothing: standard input).
    Check {
        /// Files to read; `.ipynb` files are read as notebooks.
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: Common,
        /// Read at most this many bytes of each input; the rest is reported as truncated.
        #[arg(long, default_value_t = input::DEFAULT_MAX_BYTES)]
        max_bytes: u64,
        /// The model in use (a Hugging Face id or a local path), when the text does not name it:
        /// it decides whether an unneeded extension may simply be removed.
        #[arg(long)]
        model: Option<String>,
        /// Code the text came from (notebook cell sources, a script): the model ids it names tell
        /// which model is in use. Read like an input, so `--no-env` still reads nothing else.
        #[arg(long)]
        sources: Option<PathBuf>,
        /// Print a ready-to-file report for the project's issue tracker instead of the
        /// diagnosis: what was read and found, the environment, the end of the text; home
        /// directories, user and host names redacted, versions kept.
        #[arg(long)]
        report: bool,
    },
    /// Check every compiled extension of a Python environment without importing anything.
    Scan {
        #[command(flatten)]
        common: Common,
        /// Directory for the scan cache (default: $XDG_CACHE_HOME/abidoc).
        #[arg(long)]
        cache_dir: Option<PathBuf>,
        /// Do not read or write the scan cache.
        #[arg(long)]
        no_cache: bool,
        /// Also list libraries that load fine.
        #[arg(long)]
        all: bool,
    },
    /// Demangle, classify and locate C++ symbols (mangled or not); for a library file, list the
    /// GPU architectures (SM cubins, PTX) its CUDA fat binary carries.
    Explain {
        #[arg(required = true)]
        symbols: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Judge wheels, a directory of wheels or an install plan before installing anything; with
    /// only --torch VERSION, preview which installed extensions that torch would break; with
    /// --package NAME[==VERSION], name the prebuilt wheel its setup.py would fetch.
    Verify {
        /// `.whl` files, directories of them, or plans (`pip install --dry-run --report FILE`,
        /// requirements lines naming local wheels).
        paths: Vec<PathBuf>,
        /// The torch the environment will have (judged from the offline torch index).
        #[arg(long)]
        torch: Option<String>,
        /// NAME or NAME==VERSION (repeatable) of a package whose setup.py downloads a prebuilt
        /// wheel (flash-attn, mamba-ssm, causal-conv1d): the wheel it would fetch for this
        /// environment (or for --torch), whether the release data lists it, and the nearest
        /// listed releases or torch versions when it does not. No VERSION: the newest release.
        #[arg(long = "package", value_name = "NAME[==VERSION]")]
        packages: Vec<String>,
        /// A GPU the wheels will run on (repeatable): a compute capability (`8.6`, `sm_120`) or
        /// a model (`RTX 5090`). Their libraries' GPU code is judged for it. Default: the GPUs
        /// the NVIDIA driver's files name on this machine.
        #[arg(long = "gpu", value_name = "CAPABILITY|MODEL")]
        gpus: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Run the language server on standard input/output.
    Lsp,
    /// Demangle every `_Z…` token of the input, like `c++filt`, on all cores.
    Demangle {
        /// Files to read (`-` or nothing: standard input).
        paths: Vec<PathBuf>,
        /// Append the C++11 ABI a name was compiled with: ` [_GLIBCXX_USE_CXX11_ABI=1]` or `=0`.
        #[arg(long)]
        abi: bool,
    },
}

#[derive(Args, Clone)]
struct Common {
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The Python interpreter whose environment to read (not executed).
    #[arg(long)]
    python: Option<PathBuf>,
    /// A site-packages directory to read (repeatable).
    #[arg(long = "site-packages")]
    site_packages: Vec<PathBuf>,
    /// Extra library directories, as if on LD_LIBRARY_PATH (repeatable).
    #[arg(long = "library-path")]
    library_paths: Vec<PathBuf>,
    /// Use the text alone: never read the disk beyond the named inputs.
    #[arg(long)]
    no_env: bool,
    /// Turn off diagnostics with this code (repeatable).
    #[arg(long = "disable")]
    disabled: Vec<String>,
    /// Colour in human output: auto (on a terminal), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Human output: every symbol, piece of evidence, fix and note, instead of the answers first.
    #[arg(long, short = 'v')]
    verbose: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl Common {
    fn context(&self) -> Result<Context, String> {
        let mut disabled_codes = Vec::new();
        for name in &self.disabled {
            disabled_codes.push(
                Code::parse(name).ok_or_else(|| format!("unknown diagnostic code `{name}`"))?,
            );
        }
        Ok(Context {
            use_env: !self.no_env,
            python: self.python.clone(),
            site_packages: self.site_packages.clone(),
            library_paths: self.library_paths.clone(),
            model_hint: None,
            disabled_codes,
        })
    }

    fn color(&self) -> bool {
        use std::io::IsTerminal;
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
            }
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(reason) => {
            eprintln!("abidoc: {reason}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Check {
            paths,
            common,
            max_bytes,
            model,
            sources,
            report,
        } => check(
            &paths,
            &common,
            max_bytes,
            (model.as_deref(), sources.as_deref()),
            report,
        ),
        Command::Scan {
            common,
            cache_dir,
            no_cache,
            all,
        } => scan(&common, cache_dir, no_cache, all),
        Command::Explain { symbols, common } => explain(&symbols, &common),
        Command::Verify {
            paths,
            torch,
            packages,
            gpus,
            common,
        } => verify_cmd::run(&paths, torch.as_deref(), &packages, &gpus, &common),
        Command::Demangle { paths, abi } => demangle_cmd::run(&paths, abi),
        Command::Lsp => abidoc_lsp::run_stdio()
            .map(|()| ExitCode::SUCCESS)
            .map_err(|e| e.to_string()),
    }
}

/// A model id from the command line: a Hugging Face id or a path, printable and short.
fn model_id(m: &str) -> Result<String, String> {
    let m = m.trim();
    let ok = !m.is_empty()
        && m.len() <= 256
        && m.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/~+@".contains(c));
    ok.then(|| m.to_owned())
        .ok_or_else(|| format!("--model {m:?}: not a model id"))
}

fn check(
    paths: &[PathBuf],
    common: &Common,
    max_bytes: u64,
    (model, sources): (Option<&str>, Option<&Path>),
    report: bool,
) -> Result<ExitCode, String> {
    let mut ctx = common.context()?;
    ctx.model_hint = match (model, sources) {
        (Some(m), _) => Some(model_id(m)?),
        (None, Some(path)) => {
            let src = input::read_file(path, input::DEFAULT_MAX_BYTES)?;
            abidoc_ide::AnalysisHost::find_model(&src.text)
        }
        (None, None) => None,
    };
    let inputs = if paths.is_empty() || paths.iter().all(|p| p.as_os_str() == "-") {
        vec![input::read_stdin(max_bytes)?]
    } else {
        let mut v = Vec::with_capacity(paths.len());
        for p in paths {
            v.push(if p.as_os_str() == "-" {
                input::read_stdin(max_bytes)?
            } else {
                input::read_file(p, max_bytes)?
            });
        }
        v
    };
    let host = abidoc_ide::AnalysisHost::new();
    let mut reports = Vec::with_capacity(inputs.len());
    for inp in &inputs {
        for note in &inp.notes {
            eprintln!("abidoc: {}: {note}", inp.display_name);
        }
        let diagnostics = if inp.is_notebook {
            host.diagnose_notebook(&inp.text, &ctx)
        } else {
            host.diagnose_text(&inp.text, &ctx)
        };
        reports.push(render::Report {
            input: Some(inp),
            diagnostics,
        });
    }
    if report {
        let env = unknown::environment_lines(&ctx);
        let redactor = unknown::Redactor::from_process();
        let mut out = std::io::stdout().lock();
        for r in &reports {
            if let Some(input) = r.input {
                let _ = writeln!(
                    out,
                    "{}",
                    unknown::report(input, &r.diagnostics, &env, &redactor)
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    emit(&reports, common, None, "`--verbose`")
}

fn scan(
    common: &Common,
    cache_dir: Option<PathBuf>,
    no_cache: bool,
    all: bool,
) -> Result<ExitCode, String> {
    let ctx = common.context()?;
    let options = abidoc_ide::ScanOptions {
        cache_dir,
        use_cache: !no_cache,
        include_ok: all,
        progress: None,
    };
    let bar = progress_bar(common.format);
    let progress = bar.as_ref().map(|b| {
        let b = b.clone();
        Box::new(move |done: usize, total: usize| {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }) as Box<dyn Fn(usize, usize) + Send + Sync>
    });
    let options = abidoc_ide::ScanOptions {
        progress,
        ..options
    };
    let outcome = abidoc_ide::AnalysisHost::new().scan(&ctx, &options);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let outcome = outcome.map_err(|e| e.to_string())?;
    for note in &outcome.notes {
        eprintln!("abidoc: {note}");
    }
    if common.format == Format::Human {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", render::scan_summary(&outcome, common.color()));
    }
    let reports = vec![render::Report {
        input: None,
        diagnostics: outcome.diagnostics,
    }];
    // `--all` lists what loads too: it is the whole picture, as `--verbose` is.
    let common = Common {
        verbose: common.verbose || all,
        ..common.clone()
    };
    emit(&reports, &common, Some(&outcome.meta), "`--all`")
}

fn explain(symbols: &[String], common: &Common) -> Result<ExitCode, String> {
    let ctx = common.context()?;
    let host = abidoc_ide::AnalysisHost::new();
    let explanations: Vec<_> = symbols
        .iter()
        .map(|s| host.explain_symbol(s, &ctx))
        .collect();
    let mut out = std::io::stdout().lock();
    let text = match common.format {
        Format::Json => render::explain_json(&explanations),
        Format::Sarif => return Err("`explain` supports --format human or json".into()),
        Format::Human => render::explain_human(&explanations, common.color()),
    };
    let _ = writeln!(out, "{text}");
    Ok(ExitCode::SUCCESS)
}

fn progress_bar(format: Format) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if format != Format::Human || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("scanning {bar:30} {pos}/{len} libraries")
    {
        bar.set_style(style);
    }
    Some(bar)
}

/// Writes the reports in the chosen format. Human output is the one-screen answer
/// (`screen`) unless `--verbose`; `meta` (a scan's) says what each diagnosis folds into, and
/// `more` names the flag that shows everything.
fn emit(
    reports: &[render::Report<'_>],
    common: &Common,
    meta: Option<&[abidoc_ide::ScanMeta]>,
    more: &str,
) -> Result<ExitCode, String> {
    emit_with(reports, common, meta, more, &Extras::default())
}

/// What a subcommand adds to [`emit`]'s output: the one-screen line when nothing is left to show
/// (`None`: `check`'s or `scan`'s; empty: no line), and fields beside `diagnostics` in JSON.
#[derive(Default)]
struct Extras<'a> {
    none: Option<&'a str>,
    json: Vec<(&'static str, serde_json::Value)>,
}

fn emit_with(
    reports: &[render::Report<'_>],
    common: &Common,
    meta: Option<&[abidoc_ide::ScanMeta]>,
    more: &str,
    extras: &Extras<'_>,
) -> Result<ExitCode, String> {
    let text = match common.format {
        Format::Human => {
            let mut text = if common.verbose {
                render::human(reports, common.color())
            } else {
                let mut items = screen::items(reports);
                if let Some(meta) = meta {
                    for (it, m) in items.iter_mut().zip(meta) {
                        it.fold = m.fold;
                        it.package_version = m.package_version.as_deref();
                    }
                }
                let none = extras.none.unwrap_or(if meta.is_some() {
                    "every compiled extension found should load"
                } else {
                    "no known failure found"
                });
                screen::render(reports, &items, (more, none), common.color())
            };
            // An input with no known failure: what was read and looked for, and how to report it.
            for input in reports
                .iter()
                .filter(|r| r.diagnostics.is_empty())
                .filter_map(|r| r.input)
            {
                text.push_str(&unknown::explain(input, &unknown::read(input)));
            }
            text
        }
        Format::Json => render::json(reports, meta, &extras.json),
        Format::Sarif => render::sarif(reports),
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`abidoc check | head`) is not an error worth a message.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    let errors = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .any(|d| d.severity == Severity::Error);
    Ok(if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
