//! `cuda-oom`: CUDA ran out of GPU memory, with the processes that hold it when the text shows
//! them (an `nvidia-smi` table).
//!
//! Produced by torch's "CUDA out of memory" and by an `nvidia-smi` process table where several
//! processes run the same command. Ending processes is offered only for PIDs the text shows
//! holding GPU memory, older copies of a repeated command, never PID 0/1, this process or its
//! parent (the kernel), and always after the command that shows them.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Fix, FixKind, Pid, Query, Step};
use crate::incidents::Scene;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "CUDA out of memory, with the processes that hold the memory when the text names them.",
    meaning: "The caching allocator could not get a block of GPU memory. Often earlier runs of the same script (a crashed notebook kernel, a background job) still hold memory; otherwise the batch is too large or memory is fragmented.",
    fixes: "1. End the stale processes by PID: only older copies of a repeated command that the text shows holding GPU memory, shown first with `nvidia-smi`; needs confirmation, never PIDs 0/1, this process or its parent. 2. List the processes holding GPU memory. 3. `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` against fragmentation (safe).",
    near_package: super::NearPackage::Never,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, tried: Option<&str>) -> Diagnostic {
    let mut d = blank(Code::CudaOom, source);
    let tried = tried
        .map(|t| format!(" (tried to allocate {t})"))
        .unwrap_or_default();
    d.message = format!("CUDA ran out of GPU memory{tried}");
    processes(&mut d, cx.scene);
    d.fixes = fixes(cx);
    d
}

pub(crate) fn diagnose_stale(cx: &Cx<'_>, source: Option<SourceRef>) -> Diagnostic {
    let mut d = blank(Code::CudaOom, source);
    d.severity = Severity::Warning;
    let n = cx.scene.gpu_processes.len();
    d.message = format!(
        "{n} processes hold GPU memory; several run the same command, which usually means earlier runs were left behind"
    );
    processes(&mut d, cx.scene);
    d.fixes = fixes(cx);
    d
}

fn processes(d: &mut Diagnostic, scene: &Scene) {
    for (pid, mem, name) in &scene.gpu_processes {
        let name = name
            .as_deref()
            .map(|n| format!(" `{n}`"))
            .unwrap_or_default();
        let mem = mem
            .as_deref()
            .map(|m| format!(" holds {m}"))
            .unwrap_or_default();
        d.evidence.push(format!("process {pid}{name}{mem}"));
    }
}

/// All but the newest (highest PID) of each repeated command that holds memory.
fn stale(scene: &Scene) -> Vec<Pid> {
    let procs = &scene.gpu_processes;
    let mut names: Vec<&str> = procs.iter().filter_map(|(_, _, n)| n.as_deref()).collect();
    names.sort_unstable();
    names.dedup();
    let mut out = Vec::new();
    for n in names {
        let mut pids: Vec<Pid> = procs
            .iter()
            .filter(|(_, mem, pn)| pn.as_deref() == Some(n) && mem.is_some())
            .filter_map(|(p, _, _)| Pid::new(u64::from(*p)))
            .collect();
        pids.sort_unstable();
        pids.dedup();
        if pids.len() > 1 {
            pids.pop();
            out.extend(pids);
        }
    }
    out
}

fn fixes(cx: &Cx<'_>) -> Vec<Fix> {
    let code = Code::CudaOom;
    let mut fixes = Vec::new();
    let stale = stale(cx.scene);
    if !stale.is_empty() {
        let list: Vec<String> = stale.iter().map(ToString::to_string).collect();
        fixes.push(
            Fix::new(
                code,
                "end-stale",
                FixKind::RemoveUnneeded,
                format!("End the stale processes by PID ({})", list.join(", ")),
                "Older copies of the same command hold memory; the first command shows them so you can check they are yours, and ending them by PID never touches unrelated processes the way `pkill -f` can. The newest copy is kept.",
            )
            .step(Step::Show(Query::GpuProcesses))
            .step(Step::Kill { pids: stale }),
        );
    }
    fixes.push(
        Fix::new(
            code,
            "list",
            FixKind::Inspect,
            "List the processes holding GPU memory",
            "Check which are yours and still needed before ending any.",
        )
        .step(Step::Show(Query::GpuProcesses)),
    );
    fixes.push(
        Fix::new(
            code,
            "expandable-segments",
            FixKind::Configure,
            "Reduce fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
            "Lets the caching allocator reuse freed blocks; set before torch initialises CUDA.",
        )
        .steps(recipes::set_env(
            "PYTORCH_CUDA_ALLOC_CONF",
            "expandable_segments:True",
        )),
    );
    crate::fix::rank(fixes)
}
