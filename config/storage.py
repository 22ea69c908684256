"""Static files storage: WhiteNoise's compressed manifest, with ES module imports hashed too."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class LoupeStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Rewrite ``import ... from "./api.js"`` to the hashed file name, so a deploy never mixes
    an old module with a new one (each version is cached forever under its own name)."""

    support_js_module_import_aggregation = True
