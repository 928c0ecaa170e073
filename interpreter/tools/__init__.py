"""The tools on top of the stages: command line, simulate, compare, report, language server, formatter, highlighting."""
