"""Cross-dataset evaluation (CDEvalSumm) in the platform: U matrices from stored scores."""
