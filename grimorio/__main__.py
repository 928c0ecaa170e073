"""`python -m grimorio`: the same command line as the `grimorio` script."""
import sys

from ._entry import main

if __name__ == "__main__":
    sys.exit(main())
