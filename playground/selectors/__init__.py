"""Selectors: the functions that fetch things for views and services."""
