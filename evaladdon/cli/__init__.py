"""The ``evaladdon`` command line."""
