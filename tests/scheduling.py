"""pytest-xdist's ``loadscope`` schedule with the browser modules started early on one worker."""

from __future__ import annotations

import re

from xdist.scheduler import LoadScopeScheduling

from tests.conftest import MODEL_MODULES, _module

# The browser tests' folder: under pytest-xdist one worker runs its modules from the start.
BROWSER_TESTS = "tests/e2e/"


class BrowsersAlongside(LoadScopeScheduling):
    """``--dist loadscope`` (a module's tests on one worker, handed out in the collected order)
    with two changes: the modules of :data:`tests.conftest.MODEL_MODULES` are one unit (the
    model is loaded once per run), and the last worker takes the browser modules from the
    start while the others take the other modules, then help with the browser modules left.

    A browser test spends much of its time waiting on Chromium, the live server or a real
    Celery worker. When every worker ran its browser modules last, they all waited at once and
    the cores were up to a quarter idle for the run's last 110 s; beside the other modules
    those waits are filled (runs in one checkout: 213 and 217 against 226 s). A worker never
    takes another module after a browser module (``tests/e2e/conftest.py``: they delete the
    rows the data migrations made, and the browser lifts Django's async guard while it runs),
    unless no worker that could is left: a worker with no browser module left to take is shut
    down, and the others finish the run.
    """

    def __init__(self, config, log=None):
        super().__init__(config, log)
        self.browsed = set()

    def _split_scope(self, nodeid: str) -> str:
        scope = super()._split_scope(nodeid)
        return MODEL_MODULES[0] if _module(nodeid) in MODEL_MODULES else scope

    def _browser_worker(self):
        """The worker with the highest number (``gw2`` of three), when there are two or more;
        workers with other names (``--tx ...//id=name``) count as 0 and keep their order."""

        def number(node) -> int:
            found = re.fullmatch(r"gw(\d+)", node.gateway.id)
            return int(found.group(1)) if found else 0

        nodes = sorted(self.nodes, key=number)
        return nodes[-1] if len(nodes) > 1 else None

    def _assign_work_unit(self, node) -> None:
        browser = [scope for scope in self.workqueue if scope.startswith(BROWSER_TESTS)]
        other = [scope for scope in self.workqueue if not scope.startswith(BROWSER_TESTS)]
        if node in self.browsed:
            # Other modules go to a worker that ran no browser module, or, if none is left
            # (a crashed worker's modules came back to the queue), to this one.
            free = [n for n in self.nodes if n not in self.browsed and not n.shutting_down]
            choices = browser or (other if not free else [])
        elif node is self._browser_worker():
            choices = browser or other
        else:
            choices = other or browser
        if not choices:
            node.shutdown()
            return
        if choices[0].startswith(BROWSER_TESTS):
            self.browsed.add(node)
        self.workqueue.move_to_end(choices[0], last=False)
        super()._assign_work_unit(node)
