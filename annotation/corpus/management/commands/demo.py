"""``manage.py demo``: load the demo dataset and create one user per role."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.demo import demo_load
from annotation.imports.bundle import ImportValidationError


class Command(BaseCommand):
    help = "Load fixtures/demo (6 articles, gold FAMs, 3 systems) and the demo users."

    def add_arguments(self, parser):
        parser.add_argument(
            "--force",
            action="store_true",
            help="Run even with DEBUG off (the demo users have well-known passwords).",
        )

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["force"]:
            raise CommandError(
                "Refusing to load the demo with DEBUG off: its users have well-known passwords. "
                "Use --force on a throw-away instance."
            )
        try:
            result = demo_load(with_campaign=True)
        except ImportValidationError as error:
            raise CommandError(f"The demo fixtures are invalid:\n{error}") from error
        state = "loaded" if result.dataset_created else "already present"
        self.stdout.write(self.style.SUCCESS(f"Demo dataset 'demo' {state}."))
        self.stdout.write(
            "Campaigns 'demo-fam' (6 FAM tasks) and 'demo-polytope' (4 PolyTope error-span "
            "items): the annotator's tasks are at /tasks/."
        )
        self.stdout.write("Demo users (username / password / role):")
        for username, password, role in result.users:
            self.stdout.write(f"  {username:<11} {password:<18} {role}")
        for line in result.report:
            self.stdout.write(f"  report: {line}")
