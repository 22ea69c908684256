"""Parser for the FAR public release (Mao et al., ACL 2020): documents, FAMs and system outputs.

Reads the release folder as published at morningmoni/FAR (see its PROVENANCE.md):

* ``output/{low_abstraction,noise,high_abstraction}.txt`` give each sample's story id, document
  (one line, sentence boundaries removed), reference facets and, for low-abstraction samples, the
  support sentences with their released sentence index;
* ``data/FAMs.pkl`` gives the categories and the FAMs; ``data/idx2labels_*.pkl`` the extracted
  sentence indices of five systems; ``data/all_test.txt`` the CNN/DM test URLs (story id = SHA1).

Pickles are read with :mod:`..safe_pickle`, never plain ``pickle``. Documents are split with
:mod:`..far_split`; the released indices (FAM groups and extracted sentences) are always kept
exactly as released, and the split is checked against the released support-sentence texts.
A release index that falls outside the split is never papered over: for a FAM the parser refuses
it, and a system output keeps it so that the pipeline's validator refuses the import.
"""

from .parse import parse_far_release
from .release import (
    DATASET,
    DUMP_FILES,
    FAM_KEYS,
    FAMS_FILE,
    LEAD_K,
    LEAD_SLUG,
    RELEASE_COMMIT,
    RELEASED_SYSTEMS,
    URLS_FILE,
    ReleasedSystem,
)

__all__ = [
    "DATASET",
    "DUMP_FILES",
    "FAMS_FILE",
    "FAM_KEYS",
    "LEAD_K",
    "LEAD_SLUG",
    "RELEASED_SYSTEMS",
    "RELEASE_COMMIT",
    "URLS_FILE",
    "ReleasedSystem",
    "parse_far_release",
]
