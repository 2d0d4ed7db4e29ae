"""Log-densities, moments and samplers of the distributions used by fisherrdp."""
