"""What the FAR release holds: its files, the released systems and the dataset record."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.imports.bundle import CATEGORY_HIGH, CATEGORY_LOW, CATEGORY_NOISE, DatasetRecord

RELEASE_COMMIT = "69a7890c578405fc06f5edf05653d4afeb16d353"
FAMS_FILE = "data/FAMs.pkl"
URLS_FILE = "data/all_test.txt"
DUMP_FILES = {
    CATEGORY_LOW: "output/low_abstraction.txt",
    CATEGORY_NOISE: "output/noise.txt",
    CATEGORY_HIGH: "output/high_abstraction.txt",
}
FAM_KEYS = {"low_abs": CATEGORY_LOW, "noise": CATEGORY_NOISE, "high_abs": CATEGORY_HIGH}


@dataclass(frozen=True)
class ReleasedSystem:
    """One system whose extracted indices the release ships as a pickle."""

    slug: str
    name: str
    file: str
    description: str


RELEASED_SYSTEMS = (
    ReleasedSystem(
        "banditsum", "BanditSum", "data/idx2labels_bs.pkl", "BanditSum (Dong et al., 2018)."
    ),
    ReleasedSystem(
        "fastrl-e",
        "FastRL(E)",
        "data/idx2labels_fastrl.pkl",
        "The extractor of Fast Abstractive Summarization with RL (Chen and Bansal, 2018).",
    ),
    ReleasedSystem("neusum", "NeuSum", "data/idx2labels_neusum.pkl", "NeuSum (Zhou et al., 2018)."),
    ReleasedSystem(
        "refresh", "Refresh", "data/idx2labels_refresh.pkl", "Refresh (Narayan et al., 2018)."
    ),
    ReleasedSystem(
        "unifiedsum-e",
        "UnifiedSum(E)",
        "data/idx2labels_unified.pkl",
        "The extractor of the unified extractive-abstractive model (Hsu et al., 2018).",
    ),
)
LEAD_SLUG = "lead-3"
LEAD_K = 3

DATASET = DatasetRecord(
    slug="cnndm-far",
    name="CNN/DailyMail FAR (Mao et al., 2020)",
    description=(
        "150 CNN/DailyMail test articles annotated for Facet-Aware Evaluation (Mao et al., ACL "
        "2020): each reference sentence is a facet; 89 low-abstraction samples map every facet "
        "to support groups of document sentences, 41 are noise and 20 high abstraction. With "
        "the extracted sentences of BanditSum, FastRL(E), NeuSum, Refresh and UnifiedSum(E)."
    ),
    source=f"morningmoni/FAR commit {RELEASE_COMMIT}",
    license=(
        "Not stated by the FAR release (the repository has no license file); the articles are "
        "CNN/DailyMail stories, distributed for research use."
    ),
)
