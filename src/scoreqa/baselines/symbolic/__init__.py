"""Rule-based answers computed from the score text (see :mod:`.answerer`)."""
