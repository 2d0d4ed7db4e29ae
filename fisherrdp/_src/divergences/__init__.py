"""Divergences between the laws of fisherrdp's releases (Rényi, hockey-stick)."""
