"""`make bench`: benchmarks that print rates and ratios measured in one run."""
