//! Windows' NTSTATUS codes for a process the loader would not start or that met an instruction
//! its CPU lacks, as exit statuses, ctypes' `WinError`s and app logs print them: hex, signed and
//! unsigned decimal.

/// What one of the codes says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NtStatus {
    /// STATUS_ILLEGAL_INSTRUCTION (0xC000001D).
    IllegalInstruction,
    /// STATUS_DLL_NOT_FOUND (0xC0000135): a DLL the program links is missing.
    DllNotFound,
    /// STATUS_ENTRYPOINT_NOT_FOUND (0xC0000139): a DLL lacks a function the program imports.
    EntryPointNotFound,
}

/// The codes: their hex spellings, and their signed and unsigned decimal forms.
const CODES: [(NtStatus, [&str; 2], [&str; 2]); 3] = [
    (
        NtStatus::IllegalInstruction,
        ["0xc000001d", "0xC000001D"],
        ["-1073741795", "3221225501"],
    ),
    (
        NtStatus::DllNotFound,
        ["0xc0000135", "0xC0000135"],
        ["-1073741515", "3221225781"],
    ),
    (
        NtStatus::EntryPointNotFound,
        ["0xc0000139", "0xC0000139"],
        ["-1073741511", "3221225785"],
    ),
];

/// The words beside which a bare number is a status: elsewhere a decimal is only a number.
const STATUS_WORDS: [&str; 7] = [
    "WinError",
    "Windows Error",
    "exit code",
    "exit status",
    "status code",
    "returned",
    "exited with",
];

/// Where `s` reports one of the codes, and which: a hex form as a whole token (never inside a
/// longer number or address, `0xc000001d80`), a decimal form only beside a status word.
pub(super) fn windows_status(s: &str) -> Option<(usize, NtStatus)> {
    let token_at = |w: &str| {
        s.match_indices(w).map(|(i, _)| i).find(|&i| {
            let before = s[..i].bytes().next_back();
            let after = s.as_bytes().get(i + w.len());
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-')
                && !after.is_some_and(u8::is_ascii_alphanumeric)
        })
    };
    let status = STATUS_WORDS.iter().any(|w| s.contains(w));
    CODES.iter().find_map(|(code, hex, dec)| {
        hex.iter()
            .find_map(|w| token_at(w))
            .or_else(|| {
                status
                    .then(|| dec.iter().find_map(|w| token_at(w)))
                    .flatten()
            })
            .map(|p| (p, *code))
    })
}
