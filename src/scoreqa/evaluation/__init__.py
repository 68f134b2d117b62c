"""The evaluation path: requests -> cached generations -> parsed answers -> cached verdicts -> metrics."""
