"""The grimorio rules language: grammar, parser, AST, loader, checker, diagnostics."""
