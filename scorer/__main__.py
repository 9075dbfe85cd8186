"""`python -m scorer` is the `mus-scorer` command."""

import sys

from scorer.cli import main

sys.exit(main())
