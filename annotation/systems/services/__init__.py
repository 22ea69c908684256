"""System services (writes): register a system, write the outputs a release or an upload brings."""

from .systems import system_create, system_record_for_upload

__all__ = ["system_create", "system_record_for_upload"]
