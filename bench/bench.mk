# Benchmark (make bench, tilecopy bench) and the SIMD equivalence tests.
include tests/simd/simd.mk
