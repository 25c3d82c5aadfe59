"""The pool runtime: simulated time, the network between daemons, the daemon base."""
