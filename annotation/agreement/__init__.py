"""Agreement on error spans: runs over a PolyTope campaign or several annotation sets."""
