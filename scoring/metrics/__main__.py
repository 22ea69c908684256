"""``python -m scoring.metrics <command>``: the metrics core's command-line interface."""

import sys

from .cli import main

sys.exit(main())
