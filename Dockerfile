# Production image: the same code for the web (daphne) and worker (celery) services.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_ENV=production

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
# collectstatic needs settings to load; this throwaway key exists only during the build.
RUN SECRET_KEY=collectstatic-only DEBUG=false python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 playground && chown -R playground /app
USER playground

EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
