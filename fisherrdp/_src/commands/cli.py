"""Command-line interface: ``fisherrdp <subcommand> [options]``.

Subcommands live in :mod:`fisherrdp._src.commands`, one module each. A subcommand module
defines

* ``NAME``: the word typed on the command line;
* ``HELP``: a one-line description;
* ``add_arguments(parser)``: adds its options to an :class:`argparse.ArgumentParser`;
* ``run(args) -> int``: does the work and returns the process exit status.

To add a subcommand, write the module and append its module name to :data:`SUBCOMMANDS`.
Modules are imported when the parser is built, but each should import JAX and the numerics
inside ``run`` so that ``fisherrdp --help`` stays quick.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

#: Module names under ``fisherrdp._src.commands``, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = ("figures", "verify", "account", "estimate", "scan", "demo")

#: The subcommand run when none is given.
DEFAULT_SUBCOMMAND = "demo"


def load_subcommands() -> dict[str, ModuleType]:
    """Import the subcommand modules; return them keyed by their command-line ``NAME``."""
    registry: dict[str, ModuleType] = {}
    for module_name in SUBCOMMANDS:
        module = importlib.import_module(f"fisherrdp._src.commands.{module_name}")
        for attr in ("NAME", "HELP", "add_arguments", "run"):
            if not hasattr(module, attr):
                raise AttributeError(f"subcommand module {module.__name__} lacks {attr!r}")
        if module.NAME in registry:
            raise ValueError(f"duplicate subcommand name {module.NAME!r}")
        registry[module.NAME] = module
    return registry


def build_parser(registry: dict[str, ModuleType] | None = None) -> argparse.ArgumentParser:
    """The top-level parser, with one sub-parser per registered subcommand."""
    if registry is None:
        registry = load_subcommands()
    from fisherrdp._src.core.version import VERSION as __version__

    parser = argparse.ArgumentParser(
        prog="fisherrdp",
        description=(
            "Exact numerics for privacy amplification by synthetic data release. "
            f"Runs '{DEFAULT_SUBCOMMAND}' when no subcommand is given."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in registry.items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fisherrdp`` console script and of ``python -m fisherrdp``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    registry = load_subcommands()
    parser = build_parser(registry)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = [DEFAULT_SUBCOMMAND, *argv]
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:  # e.g. only global options were given
        parser.print_help()
        return 2
    status = args._run(args)
    return 0 if status is None else int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
