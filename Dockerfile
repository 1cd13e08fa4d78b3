# Burro: one image for every process (`burro serve`, `burro worker`, `burro set-webhook`,
# `burro admin`). Dependencies come from requirements.lock (exact versions and hashes,
# wheels only), so a rebuild installs the same bytes. Validated without Docker by
# tests/deploy (hadolint, and the build context checked against .dockerignore).

FROM python:3.11.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/burro
COPY requirements.lock ./
RUN /opt/burro/bin/pip install --require-hashes --only-binary=:all: -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY service ./service
COPY workers ./workers
COPY cli ./cli
# The project itself, on top of the locked dependencies (setuptools is in the lock).
RUN /opt/burro/bin/pip install --no-deps --no-build-isolation . \
    && /opt/burro/bin/burro --help > /dev/null

FROM python:3.11.11-slim-bookworm
ENV PATH=/opt/burro/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    BURRO_HOST=0.0.0.0 \
    BURRO_PORT=8080
RUN groupadd --system --gid 10001 burro \
    && useradd --system --uid 10001 --gid burro --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin burro
COPY --from=build /opt/burro /opt/burro
WORKDIR /tmp
USER 10001:10001
# 8080: serve (webhook, /healthz, /metrics); 9100: a worker's /metrics and /healthz.
EXPOSE 8080 9100
# SIGTERM: serve drains in-flight requests, a worker finishes its job (warm shutdown).
STOPSIGNAL SIGTERM
ENTRYPOINT ["burro"]
CMD ["serve"]
