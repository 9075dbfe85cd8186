"""mus-scorer: a scoring companion for the card game Mus."""

__version__ = "0.1.0"
