"""``python -m scoring.metrics <command>``: the metrics core's command-line interface."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
