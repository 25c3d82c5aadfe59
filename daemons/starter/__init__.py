"""condor_starter: runs the jobs of one startd process (each job an instance)."""
