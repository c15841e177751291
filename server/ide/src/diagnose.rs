//! Diagnosing one incident at a time, for front ends that keep the diagnoses of unchanged
//! incidents between edits (the language server's notebook memo).

use crate::diagnostic::{Diagnostic, SourceRef};
use crate::evidence::World;
use crate::incidents::{Incident, Scene};

/// Turns one incident into a diagnosis through the module that owns its code.
pub fn diagnose(
    inc: &Incident,
    scene: &Scene,
    world: &World,
    to_source: &dyn Fn(abidoc_syntax::Span) -> SourceRef,
) -> Option<Diagnostic> {
    crate::codes::diagnose(inc, scene, world, to_source)
}

/// Links the diagnoses of one text (a silent symptom names the failure that causes it), the last
/// step of the entry points.
pub fn link(diags: &mut [Diagnostic]) {
    crate::codes::link(diags);
}
