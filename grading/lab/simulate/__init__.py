"""A simulated bridge world for testing, benchmarking and judging the grading (issue 9).

Pure Python (standard library and numpy, plus the product's pure engine and parsers): no
Django. ``simulate(SimConfig(...))`` builds players with hidden true strengths, clubs, weekly
sessions played board by board and scored by ``grading.engine.scoring``, and the upload files
the clubs would send; ``grading.engine.quality`` holds the FR 18 report arithmetic.
"""

from grading.lab.simulate.world import SimConfig, SimUpload, World, simulate

__all__ = ["SimConfig", "SimUpload", "World", "simulate"]
