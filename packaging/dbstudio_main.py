"""What the frozen `dbstudio` executable runs: the same entry point as the installed script."""

import sys

from studio.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
