"""``python -m abidoc ARGS``: run the bundled binary, for environments whose scripts dir is not on PATH."""

import os
import subprocess
import sys

from ._binary import find_binary


def main() -> int:
    binary = find_binary()
    if not binary:
        print("abidoc: the abidoc binary was not found (pip install abidoc, or set ABIDOC_PATH)", file=sys.stderr)
        return 2
    if os.name != "nt":
        os.execv(binary, [binary, *sys.argv[1:]])
    return subprocess.call([binary, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
