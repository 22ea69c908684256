"""Fail loudly unless PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL) answer."""

import os
import sys

import dj_database_url
import psycopg2
import redis


def main() -> int:
    """Connect to both services for real; print what failed and return non-zero on failure."""
    failures = []
    db = dj_database_url.parse(os.environ["DATABASE_URL"])
    try:
        psycopg2.connect(
            host=db["HOST"],
            port=db["PORT"] or 5432,
            user=db["USER"],
            password=db["PASSWORD"],
            dbname="postgres",
            connect_timeout=5,
        ).close()
    except Exception as error:  # noqa: BLE001
        failures.append(f"PostgreSQL at {db['HOST']}:{db['PORT']} is unreachable: {error}")
    broker = os.environ["CELERY_BROKER_URL"]
    try:
        redis.Redis.from_url(broker, socket_connect_timeout=5).ping()
    except Exception as error:  # noqa: BLE001
        failures.append(f"Redis at {broker} is unreachable: {error}")
    for failure in failures:
        print(f"FATAL: {failure}", file=sys.stderr)
    if not failures:
        print(f"PostgreSQL and Redis are reachable ({db['HOST']}, {broker}).")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
