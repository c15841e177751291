#!/usr/bin/env python3
"""Turn the shared corpus of real error reports into test fixtures.

For each JSON line of real_cases.jsonl this writes tests/fixtures/corpus/<id>.txt (the error text,
verbatim) and <id>.json (source URL, package, category, versions, accepted_fix, demangled), so the
scanner and the diagnosis engine are tested on text exactly as users pasted it.

Usage: tests/scripts/import_corpus.py [PATH_TO_real_cases.jsonl]
(default: ../shared/corpus/real_cases.jsonl relative to the repository root)
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "corpus"


def main() -> int:
    src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".." / "shared" / "corpus" / "real_cases.jsonl"
    if not src.is_file():
        print(f"error: {src} not found", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    seen = set()
    count = 0
    for lineno, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        case = json.loads(line)
        case_id = case["id"]
        if not re.fullmatch(r"[A-Za-z0-9._-]+", case_id) or case_id in seen:
            print(f"error: line {lineno}: bad or duplicate id {case_id!r}", file=sys.stderr)
            return 1
        seen.add(case_id)
        # newline="" keeps the text byte for byte (no platform newline translation).
        with open(OUT / f"{case_id}.txt", "w", encoding="utf-8", newline="") as f:
            f.write(case["text"])
        meta = {k: case.get(k) for k in ("id", "source", "package", "category", "versions", "accepted_fix", "demangled")}
        with open(OUT / f"{case_id}.json", "w", encoding="utf-8", newline="\n") as f:
            json.dump(meta, f, indent=2, ensure_ascii=False)
            f.write("\n")
        count += 1
    print(f"wrote {count} cases to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
