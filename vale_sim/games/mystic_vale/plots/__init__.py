"""Figures of the Mystic Vale studies: pool sizes (``pools``) and spoil odds (``spoil``)."""
