"""Import pipeline: readers -> parsers -> validators -> writer, shared by commands and uploads."""
