"""Rendering of result objects: text tables (rich), JSON, markdown."""
