# The solrace race server. Built by docker-compose.yml; runs one server process per container
# (scale by adding containers: all state lives in Redis).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A C compiler: the solver's Klondike core (shared/solver/klondike.c) is built on first use;
# without one the server falls back to the Python search (docs/solver.md, "The compiled core").
# It also compiles the hot modules with Cython at image build (shared/accel.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY shared ./shared
COPY server ./server
COPY client ./client
ENV SOLRACE_COMPILED_DIR=/app/compiled
RUN pip install . \
    && python -m solrace.shared.accelbuild \
    && useradd --system --home-dir /app --shell /usr/sbin/nologin solrace \
    && mkdir -p /app/data \
    && chown solrace /app/data

USER solrace
EXPOSE 8765
# Config comes from SOLRACE_* environment variables (see `python -m solrace.server --help`).
CMD ["python", "-m", "solrace.server", "--host", "0.0.0.0", "--port", "8765"]
