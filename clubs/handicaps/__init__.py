"""Handicaps for a club (S8, FR 7, FAQ 36, issue 20): ``table`` (who is in a handicap table
and which grade or estimate stands for each player), ``figures`` (the table's figures, by
``grading.engine.ngs.handicap`` with the active parameter set), ``players`` (the club's players
for the scoring programs' files), ``exports`` (CSV, XLSX, the per-player files and the one
escaping function ``cell_text``), ``forms`` (the handicap form)."""
