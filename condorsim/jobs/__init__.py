"""What every daemon knows about jobs: status values, universes, hold and exit codes."""
