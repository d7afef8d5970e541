"""The microkernel: the plugin manager, the core's own hook implementations, plugin options, audit."""
