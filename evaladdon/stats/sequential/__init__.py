"""Confidence sequences: time-uniform intervals that stay valid under peeking (see :mod:`.sequence`)."""
