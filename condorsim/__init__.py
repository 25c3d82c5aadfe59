"""condorsim: a faithful, fast, teachable simulator of an HTCondor pool."""

__version__ = "0.1.0"
