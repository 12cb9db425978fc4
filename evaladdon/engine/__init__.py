"""Running the per-file work of the store (parsing, reducing) on other engines (Dask)."""
