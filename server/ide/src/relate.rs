//! Links between diagnoses of one text: a silent symptom points at the failure that causes it.

use crate::diagnostic::{Code, Diagnostic};

pub fn link(diags: &mut [Diagnostic]) {
    let causes: Vec<(Option<String>, String)> = diags
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                Code::AbiMismatch | Code::Cxx11AbiMismatch | Code::MissingSharedLibrary
            )
        })
        .map(|d| (d.package.clone(), d.message.clone()))
        .collect();
    for d in diags.iter_mut() {
        let symptom = matches!(
            d.code,
            Code::TorchOpsMissing
                | Code::XformersBuiltFor
                | Code::MambaFastPath
                | Code::FlashAttnUnavailable
        );
        if !symptom {
            continue;
        }
        for (pkg, msg) in &causes {
            let same = match (&d.package, pkg) {
                (Some(a), Some(b)) => {
                    a == b
                        || (d.code == Code::MambaFastPath
                            && (b == "causal-conv1d" || b == "mamba-ssm"))
                }
                _ => false,
            };
            if same {
                d.evidence.push(format!("caused by: {msg}"));
            }
        }
    }
}
