"""The layout holds (issue 16; docs/architecture.md, "Layers"): no import cycle between the
product's modules, counting imports inside functions; the product never imports the lab; no
module past the size a reader can hold; the root of ``grading/`` is the project's plumbing
only."""

from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("grading", "clubs", "members")
MAX_LINES = 550  # "about 500"
PLUMBING = {
    "__init__.py",
    "settings.py",
    "urls.py",
    "wsgi.py",
    "asgi.py",
    "celery.py",
    "apps.py",
    "tasks.py",
    "admin.py",
    "privacy.py",
    "params.py",
}


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its body (grimp reads every
    import statement, those inside functions included)."""
    graph = grimp.build_graph(*PRODUCT, cache_dir=None)
    modules = {m for m in graph.modules if ".migrations" not in m}
    return {m: set(graph.find_modules_directly_imported_by(m)) & modules for m in modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_the_product():
    assert cycles(import_graph()) == []


def test_the_product_never_imports_the_lab():
    graph = import_graph()
    offenders = sorted(
        (module, imported)
        for module, imports in graph.items()
        if not module.startswith("grading.lab")
        for imported in imports
        if imported.startswith("grading.lab")
    )
    assert offenders == []


def test_no_module_is_too_long_to_read():
    long = sorted(
        (str(path.relative_to(ROOT)), lines)
        for package in PRODUCT
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
        and (lines := len(path.read_text().splitlines())) > MAX_LINES
    )
    assert long == []


def test_the_root_of_grading_holds_only_the_plumbing():
    modules = {p.name for p in (ROOT / "grading").glob("*.py")}
    assert modules <= PLUMBING, modules - PLUMBING
