"""The bundled rulesets: one folder per edition. This file only lets an install find them."""
