//! A media package finding no backend to read or write a file: torchaudio's `No audio I/O
//! backend is available`, its dispatcher's `Couldn't find appropriate backend`, 2.9's
//! `TorchCodec is required for load_with_torchcodec`, torio's `Failed to intialize FFmpeg
//! extension. Tried versions: ['6', '5', '4', '']`, torchvision's `PyAV is not installed`,
//! imageio-ffmpeg's `No ffmpeg exe could be found`.

use super::{Line, Out, cap};
use crate::EventKind;

/// Each message, the package that prints it, and the backend it names where the wording fixes
/// one (`None`: read from the line, or none named).
const MESSAGES: &[(&str, &str, Option<&str>)] = &[
    ("No audio I/O backend is available", "torchaudio", None),
    ("Couldn't find appropriate backend", "torchaudio", None),
    ("is not one of available backends", "torchaudio", None),
    (
        "TorchCodec is required for ",
        "torchaudio",
        Some("torchcodec"),
    ),
    ("PyAV is not installed", "torchvision", Some("av")),
    // A torchaudio built without SoX (its Windows wheels): `torchaudio.utils.sox_utils.
    // set_buffer_size requires sox extension, but TorchAudio is not compiled with it.` No SoX
    // installed adds it: another backend is the way (none named).
    ("but TorchAudio is not compiled with it", "torchaudio", None),
    // torio (torchaudio's FFmpeg binding) finding no FFmpeg of a major it was built for; its
    // message spells "intialize".
    (
        "FFmpeg extension. Tried versions",
        "torchaudio",
        Some("ffmpeg"),
    ),
    // imageio-ffmpeg (imageio's and MoviePy's video I/O) without an `ffmpeg` program.
    (
        "No ffmpeg exe could be found",
        "imageio-ffmpeg",
        Some("ffmpeg"),
    ),
];

pub(super) fn io_backend(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    for (phrase, package, fixed) in MESSAGES {
        let Some(p) = s.find(phrase) else {
            continue;
        };
        // `Backend "soundfile" is not one of available backends: ['sox', 'sox_io'].`: the
        // quoted word before the phrase is the backend that was asked for.
        let asked = fixed.map(str::to_owned).or_else(|| {
            let before = s[..p].trim_end();
            let q = ['"', '\'', '\u{201c}', '\u{201d}', '`'];
            let inner = before.strip_suffix(q)?;
            let start = inner.rfind(q)?;
            let word = inner[start..].trim_start_matches(q);
            (!word.is_empty()
                && word.len() <= 32
                && word
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-'))
            .then(|| cap(word).to_owned())
        });
        // `Tried versions: ['6', '5', '4', '']`: the newest FFmpeg major it can load.
        let newest = s[p..].split_once("Tried versions:").and_then(|(_, list)| {
            let list = &list[..list.find(']').unwrap_or(list.len())];
            list.split(',')
                .filter_map(|v| {
                    v.trim()
                        .trim_matches(['[', '\'', '"', ' '])
                        .parse::<u32>()
                        .ok()
                })
                .filter(|&v| v < 100)
                .max()
        });
        out.push(
            l.span(p, s.trim_end().len().max(p + phrase.len())),
            EventKind::IoBackendMissing {
                package: (*package).to_owned(),
                backend: asked,
                newest,
            },
        );
        return;
    }
}
