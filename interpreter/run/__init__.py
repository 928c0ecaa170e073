"""The run stage: an encounter played by a compiled program (engine, dice, values, semantics, state, transcript)."""
