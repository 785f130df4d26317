"""`python -m torch_ascendgen`: the command line (cli/)."""

import sys

from torch_ascendgen.cli import main

if __name__ == "__main__":
    sys.exit(main())
