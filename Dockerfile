# The solrace race server. Built by docker-compose.yml; runs one server process per container
# (scale by adding containers: all state lives in Redis).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A C compiler: `pip install .` compiles the hot modules (Cython) and the solver's C cores
# (setup.py); without one the image would run everything from the .py files
# (docs/performance.md, "Compiled hot modules"; docs/solver.md, "The compiled cores").
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY shared ./shared
COPY server ./server
COPY client ./client
RUN pip install . \
    && useradd --system --home-dir /app --shell /usr/sbin/nologin solrace \
    && mkdir -p /app/data \
    && chown solrace /app/data

USER solrace
EXPOSE 8765
# Config comes from SOLRACE_* environment variables (see `python -m solrace.server --help`).
CMD ["python", "-m", "solrace.server", "--host", "0.0.0.0", "--port", "8765"]
