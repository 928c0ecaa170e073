"""Benchmarks: hand-written Python twins of bundled rules, to hold the interpreter to."""
