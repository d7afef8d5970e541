"""Compile the biomed vocabulary from the CC0/free sources (DrugBank, HGNC, Disease Ontology, MeSH).

Run through ``scripts/build_vocabulary.py``; nothing here is imported when the plugin matches text.
"""
