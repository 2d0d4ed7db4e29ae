"""Private implementation of fisherrdp. Import the public modules instead."""
