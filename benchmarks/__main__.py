"""`python -m benchmarks [--quick] [--output FILE]`."""

import sys

from benchmarks.suite import main

sys.exit(main())
