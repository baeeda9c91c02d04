"""CPU building blocks every family shares: sorted-list searches, the counter-based RNG, CSR builds, the
python-graphblas conversion and an atomic add for parallel loops. Numba kernels only; they trust their inputs."""
