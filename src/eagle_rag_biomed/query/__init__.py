"""The query side before retrieval: analysis (once per request), intent, routing, scope and expansion."""
