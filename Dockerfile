# One image for every role in docker-compose.yml: web (ASGI), worker, beat.
FROM python:3.11-slim

# uvicorn believes X-Forwarded-For only from FORWARDED_ALLOW_IPS (docker-compose.yml sets it to its
# proxy's address); run alone, the image trusts no one but itself.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=piramide_site.settings.production \
    FORWARDED_ALLOW_IPS=127.0.0.1

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
# collectstatic needs a secret to import the settings; this one never serves a request.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home piramide
USER piramide
# the solver's compiled kernel (docs/solver.md), compiled once here rather than by every new container
ENV NUMBA_CACHE_DIR=/home/piramide/numba-cache
RUN python -m games.engine.solver.warm
EXPOSE 8000
# uvicorn with the socket message limit of the settings (piramide_site/serve.py)
CMD ["python", "-m", "piramide_site.serve", "--host", "0.0.0.0", "--port", "8000", "--loop", "uvloop", "--http", "httptools", "--proxy-headers"]
