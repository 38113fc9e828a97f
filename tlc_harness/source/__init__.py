"""Reading TLA+ source: tree-sitter identifier analysis, renaming, cfg files, tokens."""
