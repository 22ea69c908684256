# Loupe's production image: the web app (gunicorn) and the Celery worker share it.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 LOUPE_VAR_DIR=/var/lib/loupe \
    STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY annotation ./annotation
COPY scoring ./scoring
COPY frontend ./frontend
COPY fixtures ./fixtures
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && DEBUG=1 python manage.py collectstatic --noinput -v0 \
    && useradd --system --home /app loupe && mkdir -p /var/lib/loupe && chown -R loupe /var/lib/loupe
USER loupe
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
