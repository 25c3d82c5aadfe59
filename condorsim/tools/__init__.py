"""The HTCondor-like command-line tools (status, q, submit, ...), run by ``condorsim``."""
