"""The biomed plugin's hook implementations: thin adapters from the core hooks to the stage modules."""
