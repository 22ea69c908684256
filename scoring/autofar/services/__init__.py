"""AutoFAR services (writes): machine FAM sets, fits and AutoFAR-L runs."""

from .fits import AutoFarFitError, FitObtained, autofar_fit_obtain, autofar_input_digest
from .machine import (
    MachineSetBuilt,
    feature_parts,
    machine_fam_set_build,
    machine_fams_compute,
    machine_set_slug,
)
from .runs import (
    AUTOFAR_L,
    AutoFarRunError,
    autofar_chunk_compute,
    autofar_run_create,
    autofar_run_fail,
    autofar_run_finish,
    autofar_run_inline,
    autofar_run_plan,
    autofar_run_start,
    extractive_versions,
    model_of,
    target_document_ids,
)

__all__ = [
    "AUTOFAR_L",
    "AutoFarFitError",
    "AutoFarRunError",
    "FitObtained",
    "MachineSetBuilt",
    "autofar_chunk_compute",
    "autofar_fit_obtain",
    "autofar_input_digest",
    "autofar_run_create",
    "autofar_run_fail",
    "autofar_run_finish",
    "autofar_run_inline",
    "autofar_run_plan",
    "autofar_run_start",
    "extractive_versions",
    "feature_parts",
    "machine_fam_set_build",
    "machine_fams_compute",
    "machine_set_slug",
    "model_of",
    "target_document_ids",
]
