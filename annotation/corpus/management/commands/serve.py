"""``manage.py serve``: the web server plus a real Celery worker process beside it."""

import signal
import subprocess

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from config.celery import beat_options, worker_command


class Command(BaseCommand):
    help = (
        "Run the development web server and a Celery worker process (with the embedded broker "
        "when CELERY_BROKER_URL/REDIS_URL are unset). Stops the worker on exit."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-worker", action="store_true", help="Do not start a worker.")
        parser.add_argument("--concurrency", type=int, default=2, help="Worker processes.")

    def handle(self, *args, **options):
        worker = None
        if not options["no_worker"]:
            command = worker_command(
                queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                hostname="loupe-serve@%h",
                options=[f"--concurrency={options['concurrency']}", *beat_options()],
            )
            worker = subprocess.Popen(command)  # noqa: S603 - fixed argv, no shell
            broker = "embedded file-system broker" if settings.CELERY_EMBEDDED_BROKER else "Redis"
            self.stdout.write(
                f"Started Celery worker (pid {worker.pid}) and beat (the job watchdog) "
                f"on the {broker}."
            )
        # SIGTERM (a process manager, `kill`) ends the server like Ctrl-C does, so the
        # finally below always stops the worker instead of orphaning it.
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        try:
            call_command("runserver", options["addrport"], use_reloader=False)
        finally:
            if worker is not None and worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                try:
                    worker.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    worker.kill()


def _exit_on_sigterm(signum, frame):
    raise SystemExit(0)
