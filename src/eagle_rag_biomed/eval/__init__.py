"""The biomed gold set and its evaluation run (``eagle-rag eval biomed``)."""
