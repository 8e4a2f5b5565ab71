"""Grading models: sessions, versions, ledger and grades (issue 5 fills these in)."""
