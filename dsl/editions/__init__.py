"""The editions stage: an edition's files with their includes, modules, house-rule layers and prelude, as one ruleset."""
