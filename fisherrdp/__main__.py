"""``python -m fisherrdp``: same as the ``fisherrdp`` console script."""

import sys

from fisherrdp._src.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
