//! Fixes as data: typed steps with a stable id, a kind that fixes the ranking, an applicability
//! derived from the steps and a stated cost. Codes build fixes here; front ends read the
//! renderings (argument vectors, uv form, shell line, notebook cell), all made by [`render`].
//!
//! Ranking (the order of [`FixKind`]), the same for every code:
//! 1. remove what the model or code in use does not need (instant, nothing downloaded);
//! 2. look before acting (the command that shows what a later step touches);
//! 3. configure: a user-level setting, variable or link that removes the cause;
//! 4. align versions: the companion release built for the installed torch;
//! 5. align torch: the torch the binary was built for, saying what else moves;
//! 6. remove an optional package the text shows imported only by importers that fall back
//!    without it (instant and certain, where a rebuild is neither);
//! 7. a prebuilt wheel over a compile;
//! 8. install what is missing (user level: pip, conda);
//! 9. a source build that really compiles, with its cost;
//! 10. remove when nothing in use needs it (model unknown);
//! 11. anything that needs root; 12. advice with no command.

pub mod render;
pub mod step;
pub mod valid;

use crate::codes::id::Code;
pub use step::{CondaChannel, PipFlag, Python, Query, Requirement, Step, SystemManager};
pub use valid::{
    EnvName, EnvValue, FindLinksUrl, IndexUrl, Name, Pid, SafePath, VcsUrl, Version, WheelUrl,
};

/// What a fix does, in ranking order (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum FixKind {
    RemoveUnneeded,
    Inspect,
    Configure,
    AlignCompanion,
    AlignTorch,
    RemoveOptional,
    PrebuiltWheel,
    InstallMissing,
    SourceBuild,
    RemoveIfUnneeded,
    NeedsRoot,
    #[default]
    Advice,
}

impl FixKind {
    /// Installs, removes or builds packages (as opposed to configuring, inspecting or advising).
    pub const fn changes_packages(self) -> bool {
        matches!(
            self,
            FixKind::RemoveUnneeded
                | FixKind::AlignCompanion
                | FixKind::AlignTorch
                | FixKind::RemoveOptional
                | FixKind::PrebuiltWheel
                | FixKind::InstallMissing
                | FixKind::SourceBuild
                | FixKind::RemoveIfUnneeded
        )
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            FixKind::RemoveUnneeded => "remove-unneeded",
            FixKind::Inspect => "inspect",
            FixKind::Configure => "configure",
            FixKind::AlignCompanion => "align-companion",
            FixKind::AlignTorch => "align-torch",
            FixKind::RemoveOptional => "remove-optional",
            FixKind::PrebuiltWheel => "prebuilt-wheel",
            FixKind::InstallMissing => "install-missing",
            FixKind::SourceBuild => "source-build",
            FixKind::RemoveIfUnneeded => "remove-if-unneeded",
            FixKind::NeedsRoot => "needs-root",
            FixKind::Advice => "advice",
        }
    }
}

/// Whether a front end may apply a fix, derived from its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Applicability {
    /// Only sets variables or shows information: nothing on disk changes.
    Safe,
    /// Changes the environment or ends processes: the user confirms first.
    NeedsConfirmation,
    /// Needs root (`sudo`).
    NeedsRoot,
    /// No command: words for the person.
    Advice,
}

impl Applicability {
    pub const fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::NeedsConfirmation => "needs-confirmation",
            Applicability::NeedsRoot => "needs-root",
            Applicability::Advice => "advice",
        }
    }
}

/// What applying a fix costs, stated to the person before they choose it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct Cost {
    /// Something is downloaded (a wheel, a package).
    pub downloads: bool,
    /// Something is compiled, and roughly how long it takes.
    pub compiles: Option<Compile>,
    /// What else moves ("also installs torch 2.11.0").
    pub also: Vec<String>,
}

impl Cost {
    /// A step that downloads and nothing more (a wheel, a package).
    pub fn download() -> Cost {
        Cost {
            downloads: true,
            ..Cost::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Compile {
    pub minutes: u32,
    /// Tools the build needs (`nvcc`, `ninja`, a C++ compiler).
    pub needs: Vec<&'static str>,
}

impl Cost {
    /// One line for people: "downloads; compiles (about 30 min; needs nvcc, ninja); also …".
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.downloads {
            parts.push("downloads".to_owned());
        }
        if let Some(c) = &self.compiles {
            let needs = if c.needs.is_empty() {
                String::new()
            } else {
                format!("; needs {}", c.needs.join(", "))
            };
            parts.push(format!("compiles (about {} min{needs})", c.minutes));
        }
        parts.extend(self.also.iter().cloned());
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// The shell a fix's lines are written for: the platform the text shows. Argument vectors and
/// the environment map are the same for both; only the lines people paste differ (`export
/// K=V` and `'…'` quoting, or cmd.exe's `set K=V` and `"…"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Shell {
    #[default]
    Posix,
    /// Windows' cmd.exe (not PowerShell, whose `set` and `"…"` mean other things).
    Cmd,
}

impl Shell {
    pub fn as_str(self) -> &'static str {
        match self {
            Shell::Posix => "posix",
            Shell::Cmd => "cmd",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fix {
    /// Stable: `<code>/<what>` (`abi-mismatch/companion-release`).
    pub id: String,
    pub kind: FixKind,
    pub title: String,
    /// One line on why this fix, and why in this place in the ranking.
    pub reason: String,
    pub preferred: bool,
    pub steps: Vec<Step>,
    pub cost: Cost,
    /// False when the fix names something that cannot be checked offline (a wheel URL, a path
    /// guessed without the environment).
    pub verified: bool,
    /// Ranked ahead of the kinds' order, because the evidence points at it first (the Visual
    /// C++ runtime for a Windows DLL failure that names no DLL); its kind still says what it is.
    pub lead: bool,
    /// The value a person fills into the command written in words before running it (the
    /// installed torch's version, which the text does not state): such a command is ranked with
    /// its kind, not with the advice, because it is complete but for that value.
    pub fill_in: Option<String>,
    /// What stands in the way of this fix working here as written, read from the environment
    /// (no CUDA compiler for a compile): ranked after every fix with nothing in its way.
    pub blocker: Option<String>,
    /// The shell its lines are written for (see [`Shell`]).
    pub shell: Shell,
}

impl Fix {
    pub fn new(
        code: Code,
        what: &str,
        kind: FixKind,
        title: impl Into<String>,
        reason: impl Into<String>,
    ) -> Fix {
        Fix {
            id: format!("{}/{what}", code.as_str()),
            kind,
            title: title.into(),
            reason: reason.into(),
            verified: true,
            ..Fix::default()
        }
    }

    /// Advice: one step in words (a search, a choice, a change only the person can make), never
    /// a command to run.
    pub fn in_words(
        code: Code,
        what: &str,
        title: impl Into<String>,
        reason: impl Into<String>,
        words: impl Into<String>,
    ) -> Fix {
        Fix::new(code, what, FixKind::Advice, title, reason).step(Step::Manual(words.into()))
    }

    /// Ranks this fix first whatever its kind (see [`Fix::lead`]).
    pub fn leading(mut self) -> Fix {
        self.lead = true;
        self
    }

    /// A command in words that is complete but for `what`, which the person reads off their
    /// environment (see [`Fix::fill_in`]).
    pub fn filled_in_with(mut self, what: impl Into<String>) -> Fix {
        self.fill_in = Some(what.into());
        self
    }

    /// Says what stands in the way of this fix here (see [`Fix::blocker`]).
    pub fn blocked_by(mut self, what: impl Into<String>) -> Fix {
        self.blocker = Some(what.into());
        self
    }

    pub fn step(mut self, s: Step) -> Fix {
        self.steps.push(s);
        self
    }

    pub fn steps(mut self, s: impl IntoIterator<Item = Step>) -> Fix {
        self.steps.extend(s);
        self
    }

    pub fn cost(mut self, c: Cost) -> Fix {
        self.cost = c;
        self
    }

    pub fn unverified(mut self) -> Fix {
        self.verified = false;
        self
    }

    pub fn applicability(&self) -> Applicability {
        if self.steps.iter().any(Step::needs_root) {
            Applicability::NeedsRoot
        } else if self.steps.iter().all(|s| matches!(s, Step::Manual(_))) {
            Applicability::Advice
        } else if self
            .steps
            .iter()
            .all(|s| matches!(s, Step::SetEnv { .. } | Step::Show(_) | Step::Manual(_)))
        {
            Applicability::Safe
        } else {
            Applicability::NeedsConfirmation
        }
    }

    /// The kind it ranks as: its own, except that an action written only in words (a source
    /// build of a checkout whose path the text gives relative, another torch named without a
    /// version) ranks with the advice, after every action with a command, unless it is complete
    /// but for one value the person fills in (`fill_in`). Its kind still says what it is.
    pub fn ranks_as(&self) -> FixKind {
        if self.kind.changes_packages() && self.fill_in.is_none() && self.commands().is_empty() {
            FixKind::Advice
        } else {
            self.kind
        }
    }

    /// Argument vectors, never shell strings.
    pub fn commands(&self) -> Vec<Vec<String>> {
        render::commands(&self.steps)
    }

    /// Environment variables the commands (and the program being fixed) need.
    pub fn env(&self) -> Vec<(String, String)> {
        render::env(&self.steps)
    }

    /// The same fix as a notebook cell (`%pip …`, `%env …`, `!…`).
    pub fn notebook_cell(&self) -> Option<String> {
        render::notebook(&self.steps)
    }

    /// The same fix as one shell line, for display.
    pub fn shell_line(&self) -> Option<String> {
        render::shell_line(&self.steps, self.shell)
    }

    /// The commands in uv's form, when the fix uses pip.
    pub fn uv_commands(&self) -> Option<Vec<Vec<String>>> {
        render::uv_commands(&self.steps)
    }

    /// Whether two fixes change the same packages the same way, told apart only by pip's cache
    /// flag (two recipes reaching one torch pin): the second says nothing new. Fixes with
    /// advice or nothing to run are never the same.
    fn same_changes(&self, other: &Fix) -> bool {
        let effect = |f: &Fix| -> Option<Vec<Step>> {
            if f.steps.is_empty() || f.steps.iter().any(|s| matches!(s, Step::Manual(_))) {
                return None;
            }
            Some(
                f.steps
                    .iter()
                    .map(|s| match s {
                        Step::PipInstall {
                            python,
                            flags,
                            requirements,
                        } => Step::PipInstall {
                            python: python.clone(),
                            flags: flags
                                .iter()
                                .filter(|g| **g != PipFlag::NoCacheDir)
                                .cloned()
                                .collect(),
                            requirements: requirements.clone(),
                        },
                        other => other.clone(),
                    })
                    .collect(),
            )
        };
        matches!((effect(self), effect(other)), (Some(a), Some(b)) if a == b)
    }

    /// Advice that goes with the steps (never a command).
    pub fn advice(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Manual(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Orders fixes by kind (stable among equals), those with a blocker after the rest, drops repeats, keeps ids unique and marks the
/// first preferred.
pub fn rank(mut fixes: Vec<Fix>) -> Vec<Fix> {
    // `ranks_as` renders the commands: once per fix.
    fixes.sort_by_cached_key(|f| (!f.lead, f.blocker.is_some(), f.ranks_as()));
    let mut out: Vec<Fix> = Vec::with_capacity(fixes.len());
    for f in fixes {
        if out
            .iter()
            .any(|g| (g.title == f.title && g.steps == f.steps) || g.same_changes(&f))
        {
            continue;
        }
        out.push(f);
    }
    for i in 1..out.len() {
        let id = out[i].id.clone();
        let taken = |c: &str| out[..i].iter().any(|g| g.id == c);
        if taken(&id) {
            let mut n = 2;
            while taken(&format!("{id}-{n}")) {
                n += 1;
            }
            out[i].id = format!("{id}-{n}");
        }
    }
    for (i, f) in out.iter_mut().enumerate() {
        f.preferred = i == 0;
    }
    // A fix written as an alternative (`Or keep torch 1.13.1 and run it under Python 3.10`) reads
    // so only after another; ranked first, it is the fix.
    // (A lowercase word starts the sentence; a command or a name keeps its case.)
    if let Some(first) = out.first_mut()
        && let Some(rest) = first.title.strip_prefix("Or ")
    {
        let word = rest.split_whitespace().next().unwrap_or("");
        let plain = word.bytes().all(|c| c.is_ascii_lowercase())
            && !matches!(
                word,
                "pip" | "conda" | "uv" | "python" | "torch" | "apt" | "brew"
            );
        let mut chars = rest.chars();
        first.title = match chars.next() {
            Some(c) if plain => c.to_uppercase().chain(chars).collect(),
            _ => rest.to_owned(),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An action written only in words says what it is by its kind and ranks with the advice,
    /// after every action that has a command; a lead one still comes first.
    #[test]
    fn actions_in_words_rank_with_the_advice() {
        let code = Code::ExtensionIncompleteBuild;
        let words = Fix::new(
            code,
            "in-words",
            FixKind::SourceBuild,
            "Build it in place",
            "",
        )
        .step(Step::Manual("pip install -e . in the checkout".into()));
        let advice =
            Fix::new(code, "advice", FixKind::Advice, "Look", "").step(Step::Manual("look".into()));
        let typed =
            Fix::new(code, "typed", FixKind::SourceBuild, "Build", "").step(Step::PipInstall {
                python: Python::OnPath,
                flags: vec![PipFlag::NoBuildIsolation],
                requirements: vec![Requirement::Any(Name::new("pkg").expect("a name"))],
            });
        assert_eq!(words.ranks_as(), FixKind::Advice);
        assert_eq!(words.kind, FixKind::SourceBuild);
        let ids = |v: Vec<Fix>| v.into_iter().map(|f| f.id).collect::<Vec<_>>();
        let ranked = rank(vec![words.clone(), advice.clone(), typed.clone()]);
        assert_eq!(ids(ranked)[0], "extension-incomplete-build/typed");
        let ranked = rank(vec![advice.clone(), typed.clone(), words.clone().leading()]);
        assert_eq!(ids(ranked)[0], "extension-incomplete-build/in-words");
        // Complete but for a value the person reads off their machine: ranked with its kind,
        // ahead of a compile, behind a typed action of an earlier kind.
        let page = Fix::new(code, "page", FixKind::PrebuiltWheel, "Wheel page", "")
            .step(Step::Manual("pip install -f <page> pkg".into()))
            .filled_in_with("the torch version");
        assert_eq!(page.ranks_as(), FixKind::PrebuiltWheel);
        let align =
            Fix::new(code, "align", FixKind::AlignCompanion, "Pin", "").step(Step::PipInstall {
                python: Python::OnPath,
                flags: vec![],
                requirements: vec![Requirement::Any(Name::new("pkg").expect("a name"))],
            });
        let ranked = rank(vec![typed, advice, page, align, words]);
        assert_eq!(
            ids(ranked)[..3],
            [
                "extension-incomplete-build/align",
                "extension-incomplete-build/page",
                "extension-incomplete-build/typed"
            ]
        );
    }
}
