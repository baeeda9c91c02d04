"""python-graphblas (SuiteSparse:GraphBLAS) backend: masked SpGEMM formulations."""
