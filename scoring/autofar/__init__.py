"""AutoFAR in the platform: machine FAM sets, fitted models and AutoFAR-L runs."""
