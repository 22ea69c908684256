"""The suite's order: its module lists name modules that exist, and the xdist schedule holds."""

from __future__ import annotations

from types import SimpleNamespace

from tests.conftest import MODEL_MODULES, ROOT
from tests.e2e.conftest import LONGEST_FIRST
from tests.scheduling import BROWSER_TESTS, BrowsersAlongside


def test_the_model_modules_exist():
    assert [m for m in MODEL_MODULES if not (ROOT / m).is_file()] == []


def test_the_longest_browser_modules_exist_once_each():
    assert [m for m in LONGEST_FIRST if not (ROOT / "tests" / "e2e" / m).is_file()] == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)


class _Worker:
    """A stand-in for an xdist worker: it records the tests it is sent and its shutdown."""

    def __init__(self, number: int):
        self.gateway = SimpleNamespace(id=f"gw{number}")
        self.shutting_down = False
        self.pending: list[int] = []

    def send_runtest_some(self, indices):
        self.pending += indices

    def shutdown(self):
        self.shutting_down = True


def _run(collection: list[str], workers: int) -> dict[str, list[str]]:
    """Schedule ``collection`` on ``workers`` stand-ins that finish a test in turn; the modules
    each ran, in order."""
    config = SimpleNamespace(
        getvalue={"tx": [f"{workers}*popen"], "dist": "loadscope"}.__getitem__,
        option=SimpleNamespace(loadscopereorder=False),
    )
    scheduler = BrowsersAlongside(config)
    nodes = [_Worker(n) for n in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    ran: dict[str, list[str]] = {node.gateway.id: [] for node in nodes}
    while any(node.pending for node in nodes):
        for node in nodes:
            if node.pending:
                index = node.pending.pop(0)
                module = collection[index].split("::")[0]
                if module not in _modules(ran[node.gateway.id])[-1:]:
                    ran[node.gateway.id].append(module)
                ran[node.gateway.id].append(collection[index])
                scheduler.mark_test_complete(node, index)
    assert scheduler.tests_finished and all(node.shutting_down for node in nodes)
    return ran


def _collection() -> list[str]:
    modules = [*MODEL_MODULES, "tests/test_a.py", "tests/test_b.py", "tests/test_c.py"]
    modules += [f"{BROWSER_TESTS}test_{name}.py" for name in "vwxyz"]
    return [f"{module}::test_{n}" for module in modules for n in range(4)]


def _modules(ran: list[str]) -> list[str]:
    return [entry for entry in ran if "::" not in entry]


def test_one_worker_runs_the_browser_modules_from_the_start_and_none_runs_others_after_them():
    collection = _collection()
    ran = _run(collection, workers=3)
    tests = [entry for entries in ran.values() for entry in entries if "::" in entry]
    assert sorted(tests) == sorted(collection)  # each test once
    assert {m.startswith(BROWSER_TESTS) for m in _modules(ran["gw2"])} == {True}
    assert _modules(ran["gw2"])[0] == f"{BROWSER_TESTS}test_v.py"
    # The model modules are one unit: on one worker, one after the other.
    with_models = [w for w, entries in ran.items() if set(_modules(entries)) & set(MODEL_MODULES)]
    assert len(with_models) == 1
    assert _modules(ran[with_models[0]])[: len(MODEL_MODULES)] == list(MODEL_MODULES)
    for entries in ran.values():
        kinds = [m.startswith(BROWSER_TESTS) for m in _modules(entries)]
        assert kinds == sorted(kinds), entries  # no other module after a browser module


def test_a_single_worker_runs_the_other_modules_first():
    collection = _collection()
    ran = _run(collection, workers=1)
    modules = _modules(ran["gw0"])
    others = len(MODEL_MODULES) + 3
    assert [m.startswith(BROWSER_TESTS) for m in modules] == [False] * others + [True] * 5


def test_the_browser_worker_stops_when_no_browser_module_is_left():
    modules = [f"tests/test_{n}.py" for n in range(12)] + [f"{BROWSER_TESTS}test_only.py"]
    collection = [f"{module}::test_{n}" for module in modules for n in range(4)]
    ran = _run(collection, workers=3)
    assert _modules(ran["gw2"]) == [f"{BROWSER_TESTS}test_only.py"]
    tests = [entry for entries in ran.values() for entry in entries if "::" in entry]
    assert sorted(tests) == sorted(collection)
