from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Grading"

    def ready(self) -> None:
        # Loaded here, not in grading/__init__.py, so that importing the pure
        # grading.engine package never imports Celery.
        from grading import celery  # noqa: F401
