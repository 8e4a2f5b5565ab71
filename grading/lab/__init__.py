"""Not product: benchmarks, the load harness, synthetic ledgers and the simulator.

Nothing in the product imports this package (an import-linter contract); it is an app only so
that ``manage.py bench`` and ``manage.py simulate`` exist."""
