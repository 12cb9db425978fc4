"""Writing files safely: never over an input, never through a link, never half-written."""
