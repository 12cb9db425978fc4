"""Metric families beyond a mean: classification, calibration, ROC and precision-recall areas,
pass@k, corpus-level metrics, and their estimate records and names."""
