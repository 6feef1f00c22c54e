"""The model: the vault's files and notes, the links between them, and the one vault state every command keeps."""
