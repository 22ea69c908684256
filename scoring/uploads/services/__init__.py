"""System services (writes): register a system, import and upload its outputs."""

from annotation.systems.services.systems import system_create, system_record_for_upload
from config.uploads import UploadTooLargeError

from .uploads import (
    FORMAT_DIR,
    FORMAT_JSONL,
    FORMAT_ZIP,
    JSONL_SUFFIXES,
    OutputsParser,
    OutputUpload,
    output_upload_format,
    system_output_import,
    system_outputs_upload,
)

__all__ = [
    "FORMAT_DIR",
    "FORMAT_JSONL",
    "FORMAT_ZIP",
    "JSONL_SUFFIXES",
    "OutputUpload",
    "OutputsParser",
    "UploadTooLargeError",
    "output_upload_format",
    "system_create",
    "system_output_import",
    "system_outputs_upload",
    "system_record_for_upload",
]
