"""Tasks and their variants: task folders, corpus loaders, conditions, descriptions, prompts."""
