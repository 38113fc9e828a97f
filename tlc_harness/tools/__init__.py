"""Running SANY and TLC: toolchain, isolated processes, JVM workers, typed results."""
