"""Subcommands of the ``fisherrdp`` command line, one module each (see :mod:`fisherrdp._src.commands.cli`)."""
