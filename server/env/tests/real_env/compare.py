"""Compare `abidoc scan --format json` with the real loader's verdicts (real_loader.py output).

A library is "flagged" when abidoc reports a diagnostic at `error` severity whose `library` is that
path. Agreement rules:
  - loader fails, abidoc flags it                      -> agree
  - loader loads, abidoc does not flag it              -> agree
  - loader loads, abidoc flags it                      -> FALSE POSITIVE
  - loader fails, abidoc does not flag it              -> FALSE NEGATIVE, unless abidoc reported
    it as `information` (optional backends such as torchaudio's sox/ffmpeg libraries, transports
    needing libfabric/UCX, libraries needing libcuda.so.1 on a machine without the driver): those
    are expected to fail to load and are listed separately.
Also prints, for torchvision and torchaudio, the codes and symbols abidoc reported, so the C++11
ABI flip and the changed signatures can be read off. Exit 0 when there is no false positive and no
false negative.
"""

import json
import os
import sys


def main():
    scan = json.load(open(sys.argv[1]))
    loader = json.load(open(sys.argv[2]))
    by_lib = {}
    for d in scan.get("diagnostics", []):
        lib = d.get("library")
        if lib:
            by_lib.setdefault(os.path.normpath(lib), []).append(d)
    fp, fn, info, agree = [], [], [], 0
    for path, v in sorted(loader.items()):
        ds = by_lib.get(path, [])
        errors = [d for d in ds if d.get("severity") == "error"]
        infos = [d for d in ds if d.get("severity") == "information"]
        if v["loads"] and errors:
            fp.append((path, errors))
        elif not v["loads"] and not errors:
            if infos:
                info.append((path, v["error"]))
            else:
                fn.append((path, v["error"]))
        else:
            agree += 1
    print("libraries: %d, agree: %d, false positives: %d, false negatives: %d, information: %d"
          % (len(loader), agree, len(fp), len(fn), len(info)))
    for path, errors in fp:
        print("FALSE POSITIVE", path, [d.get("code") for d in errors])
    for path, err in fn:
        print("FALSE NEGATIVE", path, err)
    for path, err in info:
        print("information (expected to fail):", path, "--", err[:160])
    for d in scan.get("diagnostics", []):
        if d.get("package") in ("torchvision", "torchaudio"):
            print("%s %s %s: %s" % (d.get("severity"), d.get("code"), d.get("package"), d.get("message")))
            for s in d.get("symbols", [])[:5]:
                print("    %s %s" % (s.get("status"), s.get("demangled") or s.get("mangled")))
    sys.exit(1 if fp or fn else 0)


if __name__ == "__main__":
    main()
