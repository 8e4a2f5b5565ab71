from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "grading.lab"
    label = "lab"
    verbose_name = "Lab (benchmarks and simulator)"
