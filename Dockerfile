# syntax=docker/dockerfile:1
# The creatorpack service image (see docs/deploy.md).
#   build:   a virtual environment with the locked dependencies (requirements/service.lock, hashes
#            checked) and the creatorpack wheel built from this tree, byte-compiled once;
#   runtime: that environment alone, run by a user of its own, fit for a read-only root file
#            system (the data directory is a volume, /tmp a tmpfs, no bytecode written at run time).
# Secrets (database password, S3 keys, the metrics token) come from the environment when a
# container starts, never from this file.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY requirements/service.lock requirements/service.lock
RUN python -m venv /opt/creatorpack \
    && /opt/creatorpack/bin/pip install --require-hashes --no-deps -r requirements/service.lock
COPY pyproject.toml README.md ./
COPY src/ src/
RUN /opt/creatorpack/bin/pip wheel --no-deps --wheel-dir /tmp/wheels . \
    && /opt/creatorpack/bin/pip install --no-deps /tmp/wheels/creatorpack-*.whl \
    && /opt/creatorpack/bin/python -m compileall -q -j 0 /opt/creatorpack

FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/opt/creatorpack/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CREATORPACK_DATA_DIR=/var/lib/creatorpack \
    CREATORPACK_LOG_FORMAT=json
RUN groupadd --system --gid 10001 creatorpack \
    && useradd --system --uid 10001 --gid creatorpack --home-dir /var/lib/creatorpack \
        --shell /usr/sbin/nologin creatorpack \
    && mkdir -p /var/lib/creatorpack \
    && chown creatorpack:creatorpack /var/lib/creatorpack
COPY --from=build /opt/creatorpack /opt/creatorpack
USER 10001:10001
WORKDIR /var/lib/creatorpack
VOLUME ["/var/lib/creatorpack"]
EXPOSE 8000
# Readiness, with the Python the image has (no curl in it): /v1/ready is 200 once the stores answer.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8000/v1/ready', timeout=4); sys.exit(r.status != 200)"]
ENTRYPOINT ["creatorpack"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
