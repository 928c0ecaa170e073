"""The compile stage: a checked ruleset to a program (generated Python, tables, formats) and its cache."""
