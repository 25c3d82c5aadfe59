"""condor_shadow: the submit side of the running jobs of one schedd (each job an instance)."""
