"""condor_gridmanager: runs the schedd's grid-universe jobs at simulated sites."""
