"""scoreqa: evaluate and fine-tune (V)LMs on musical score understanding."""

__version__ = "0.1.0"
