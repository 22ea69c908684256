"""Frontend app: server-rendered page shells whose data comes from the JSON API."""
