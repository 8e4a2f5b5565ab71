"""Reads about members, by topic: base (the login's member, parameters, score units), bands,
card, history, explain, partners, forecast, exemptions, public. Privacy (S7, S14.14) is decided
in ``grading.privacy``: ``grade_view`` and its neighbours are the only way another person's
grade leaves these modules.
"""
