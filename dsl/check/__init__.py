"""The check stage: names resolved, kinds followed, every static diagnostic of a ruleset and an encounter."""
