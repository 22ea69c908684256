"""Users app: admins add, invite, deactivate and reset users; one-time invitation links."""
