"""rankframe's measures compiled to SQL: the query builder and the dialects (DESIGN.md §6)."""
