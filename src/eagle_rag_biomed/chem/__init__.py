"""Chemistry on RDKit: molecules, Morgan fingerprints and their side index, drug names to structures."""
