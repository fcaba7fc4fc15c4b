"""Print uv's options for the package sources pip is configured with (`make setup`).

`make setup` installs with `uv pip install` (about 2x faster than pip here, bytecode included:
benchmarks/results/install.md). uv does not read pip's configuration, and a machine's
pip configuration can decide which wheels are installed (a local wheel folder holding the
CPU build of torch, a mirror, a constraints file). So this script reads what
`python -m pip config list` reports (environment variables over the `install` section
over `global`, pip's own precedence) and prints the uv options that say the same.
Options that do not choose packages (timeouts, the version check) are left out; any other
one is named on stderr, as uv has no equivalent for it here.

    python tools/uv_install_args.py          # e.g. --find-links /opt/wheels --index-strategy ...
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

#: pip's option -> uv's (each value of a whitespace-separated list gets its own flag).
SAME = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
    "trusted-host": "--allow-insecure-host",
}
#: Options that do not change which packages are installed.
IGNORED = {
    "timeout", "default-timeout", "disable-pip-version-check", "retries", "progress-bar",
    "no-cache-dir", "cache-dir", "quiet", "verbose", "no-input",
}  # fmt: skip


def pip_config(listing: str) -> dict[str, str]:
    """``pip config list`` lines -> {option: value}, by pip's precedence."""
    rank = {":env:": 3, "install": 2, "global": 1}
    chosen: dict[str, tuple[int, str]] = {}
    for line in listing.splitlines():
        key, sep, value = line.partition("=")
        section, _, option = key.rpartition(".")
        if not sep or section not in rank:
            continue
        if option not in chosen or rank[section] > chosen[option][0]:
            chosen[option] = (rank[section], " ".join(shlex.split(value)))
    return {option: value for option, (_, value) in chosen.items()}


def uv_args(config: dict[str, str]) -> tuple[list[str], list[str]]:
    """(uv's options, pip options with no uv equivalent)."""
    # pip takes the best version from every index; uv's default is the first index's.
    args, unknown = ["--index-strategy", "unsafe-best-match"], []
    for option, value in sorted(config.items()):
        if option in SAME:
            args += [part for item in value.split() for part in (SAME[option], item)]
        elif option == "no-index":
            args += ["--no-index"] if value.lower() in {"1", "true", "yes", "on"} else []
        elif option == "cert":
            args.append("--native-tls")  # the system's certificates, as pip's bundle is
        elif option not in IGNORED:
            unknown.append(option)
    return args, unknown


def main() -> int:
    """Print the options on one line (shell-quoted)."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    listing = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout
    args, unknown = uv_args(pip_config(listing))
    if unknown:
        print(
            f"uv_install_args: pip options not passed to uv: {', '.join(unknown)}", file=sys.stderr
        )
    print(shlex.join(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
