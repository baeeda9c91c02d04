"""CPU building blocks every family shares: sorted-list searches, the counter-based RNG, CSR builds and the
python-graphblas conversion. Numba kernels only; they trust their inputs."""
