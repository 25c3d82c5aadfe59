"""The daemons: one package per HTCondor daemon."""
