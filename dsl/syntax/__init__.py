"""The syntax stage: text to AST (grammar, lexer, parser, trees, builder, nodes, patches)."""
