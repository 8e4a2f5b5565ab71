from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Grading"

    def ready(self) -> None:
        # Loaded here, not in grading/__init__.py, so that importing the pure
        # grading.engine package never imports Celery.
        from grading import celery  # noqa: F401
        from grading.ledger.hooks import after_step_register
        from grading.results.hooks import results_after_step
        from grading.schemes.after_step import after_fold_register, schemes_after_step
        from members.pagewarm import member_pages_warm_queue

        # PPI and Brambledown follow every ledger step in its transaction; registered here so
        # that the ledger never imports the schemes (docs/architecture.md).
        after_step_register(schemes_after_step)
        # The graded members' pages rendered ahead, by a low-priority task once the schemes'
        # fold has renewed them (rendered before, they would be stale at once).
        after_fold_register(member_pages_warm_queue)
        # The players' emails (S16), queued for when the step's transaction commits.
        after_step_register(results_after_step)
