"""The pytest plugin: options, the run session, the run header, the hooks."""
