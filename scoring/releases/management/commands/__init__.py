"""The releases app's commands: export_release."""
