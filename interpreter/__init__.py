"""The grimorio runtime: compiles a checked Ruleset into Python callables and runs encounters."""
