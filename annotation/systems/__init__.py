"""Systems, their output versions per dataset and their outputs: what is annotated and scored."""
