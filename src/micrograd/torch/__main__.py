"""python -m micrograd.torch script.py [args...]: run a PyTorch script on micrograd.

python -m micrograd.torch --list-names prints the torch names micrograd.torch supports."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if argv[0] == "--list-names":
        from micrograd.torch._names import format_markdown

        print(format_markdown())
        return 0
    from micrograd.torch.runner import run_script

    try:
        run_script(argv[0], argv[1:])
    except FileNotFoundError as error:
        print(f"python -m micrograd.torch: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
