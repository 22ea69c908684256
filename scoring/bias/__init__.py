"""Dataset-bias measures in the platform: runs over references and systems, stored means."""
