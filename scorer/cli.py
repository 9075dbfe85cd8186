"""The `mus-scorer` command line.

Each sub-command lives in its own module under `scorer.commands`, which exposes
`add_arguments(parser)` and `run(args) -> int`. Those modules import heavy
dependencies (Flask, onnxruntime, Pillow) only inside `run`, so that `settle`
starts fast.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "settle": ("scorer.commands.settle", "settle hand records (mus-hand/1) into mus-settlement/1 lines"),
    "replay": ("scorer.commands.replay", "replay a mus-match/1 file: score after every hand, games, vacas, winner"),
    "standings": ("scorer.commands.standings", "rank the teams of a club or tournament over mus-match/1 files"),
    "scan": ("scorer.commands.scan", "read the cards in showdown photos"),
    "serve": ("scorer.commands.serve", "start the table web app"),
    "prune": ("scorer.commands.prune", "delete old showdown photos (and long-idle tables) from the database"),
    "export-photos": ("scorer.commands.export_photos",
                      "write the stored showdown photos with the cards the players confirmed (mus-photo-label/1)"),
    "backup": ("scorer.commands.backup", "copy the database into one file, safely even while the server runs"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mus-scorer", description="Scoring companion for the card game Mus.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a part not built yet
            if exc.name != module:
                raise
            p.set_defaults(_missing=module)
            continue
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


def _version() -> str:
    from scorer import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "_missing", None):
        print(f"mus-scorer {args.command}: not available in this build", file=sys.stderr)
        return 2
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # the output cannot be written: the disk full (> /dev/full), a quota, an I/O error
        if exc.errno not in _CANNOT_WRITE:
            raise
        where = exc.filename if exc.filename else "cannot write the output"
        print(f"mus-scorer {args.command}: {where}: {exc.strerror}", file=sys.stderr)
        from scorer.commands._io import drop_stdout

        drop_stdout()  # what is left in the buffer is not written again at exit
        return 2


_CANNOT_WRITE = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)}


if __name__ == "__main__":
    sys.exit(main())
