"""The tests of grimorio (tests/conftest.py says how they are run and which are slow)."""
import sys

# Keep compiled test modules (pytest's rewritten asserts) and grimorio's modules in __pycache__
# even under PYTHONDONTWRITEBYTECODE: compiling them again on every run was a tenth of the fast
# profile. This package is imported before tests/conftest.py and everything it imports.
sys.dont_write_bytecode = False
