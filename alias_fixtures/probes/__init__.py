"""Contamination probes: reference likelihood and file continuation."""
