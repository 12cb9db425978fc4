"""Thin plug-ins that put evaladdon's statistics into the harnesses' own results."""
