"""``manage.py grading_report``: FR 18's grading-quality figures for this database.

Board flatness, the session variance split (Svar = Rvar + Gvar + Evar) and the estimated
pair-grading error, the spread of (score - par), grade drift by month; with ``--truth`` (a
simulator's truth file) the error of grades against true strength by status; with
``--params`` the same figures after replaying the stored ledger with another parameter set,
side by side (the grading committee's what-if tool).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grading.engine.quality import FR18_FIGURES
from grading.staff.quality import quality_report


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.2f}"
    return str(value)


class Command(BaseCommand):
    help = "Report the grading quality (FR 18) of the stored grades; compare parameter sets."

    def add_arguments(self, parser):
        parser.add_argument("--truth", help="a simulator's truth.json (number -> strength)")
        parser.add_argument(
            "--params",
            help="replay the ledger with this parameter set (ngs-15a, ngs-2018, fr18-factors) "
            "or overrides such as gain=1.5, and compare",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options):
        truth = _truth(options["truth"]) if options["truth"] else None
        try:
            report = quality_report(params=options["params"], truth=truth)
        except (KeyError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            for part in (report, report.get("compare") or {}):
                for key in ("flatness_values", "score_minus_par_values", "truth_points"):
                    part.pop(key, None)
            self.stdout.write(json.dumps(report, indent=1, default=str))
            return
        self._print(report)

    def _print(self, report: dict) -> None:
        compare = report.get("compare")
        columns = [report] + ([compare] if compare else [])
        out = self.stdout.write
        head = "".join(f"{c['params']:>22}" for c in columns)
        out(f"{'':34}{head}{'FR 18':>10}")
        published = report["published"]

        def row(label: str, getter, paper=None) -> None:
            cells = "".join(f"{_fmt(getter(c)):>22}" for c in columns)
            out(f"{label:34}{cells}{_fmt(paper):>10}")

        row("graded sessions", lambda c: c["sessions"])
        row("board flatness F", lambda c: c["flatness"], published["F"])
        for key in FR18_FIGURES:
            row(f"  {key}", lambda c, k=key: c["fr18"][k], published.get(key))
        row("  comparison groups (MP)", lambda c: c["fr18"]["groups"])
        row("MP score - par: sd", lambda c: c["score_minus_par_mp"]["sd"], published["session_sd"])
        row("MP score - par: mean", lambda c: c["score_minus_par_mp"]["mean"])
        scorings = sorted({k for c in columns for k in c["excess_by_scoring"]})
        for scoring in scorings:
            row(
                f"excess sd, {scoring}",
                lambda c, s=scoring: c["excess_by_scoring"].get(s, {}).get("sd"),
            )
        row("cross-IMP XRvar", lambda c: report.get("xrvar"), published["XRvar"])
        for status in ("P", "E", "M", "O"):
            row(f"members status {status}", lambda c, s=status: c["statuses"].get(s, 0))
        for c in columns:
            for warning in c.get("warnings", []):
                out(f"warning ({c['params']}): {warning}")
        if report.get("truth"):
            out("\nGrades against true strength (grade - truth):")
            statuses = [r["status"] for r in report["truth"]]
            for status in statuses:
                for key in ("n", "bias", "rmse", "centred_rmse", "correlation"):
                    row(
                        f"  {status}: {key}",
                        lambda c, s=status, k=key: next(
                            (r[k] for r in c["truth"] or [] if r["status"] == s), None
                        ),
                    )
        out("\nDrift by month (mean grade before play / mean excess):")
        months = sorted({d["month"] for c in columns for d in c["drift"]})
        for month in months:
            cells = ""
            for c in columns:
                d = next((x for x in c["drift"] if x["month"] == month), None)
                cells += (
                    f"{(_fmt(d['mean_grade']) + ' / ' + _fmt(d['mean_excess'])) if d else '-':>22}"
                )
            out(f"  {month:32}{cells}")


def _truth(path: str) -> dict[str, float]:
    """The simulator's truth file: a JSON object of membership number to true strength."""
    try:
        data = json.loads(Path(path).read_text())
        if not isinstance(data, dict):
            raise ValueError(
                "it must be a JSON object of membership number to strength, "
                f"not a {type(data).__name__}"
            )
        return {str(k): float(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError) as exc:
        raise CommandError(f"--truth: {exc}") from None
