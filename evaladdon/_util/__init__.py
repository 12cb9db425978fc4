"""Helpers below every floor: the collector's pause (``gc``), first-use imports (``lazy``) and
atomic writes that never touch an input (``safe_write``). Nothing here imports the package."""
