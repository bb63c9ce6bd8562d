# The acworld OpenEnv server on the OpenEnv base image (openenv.yaml, server/app.py).
#
#   docker build -t acworld-openenv .
#   docker run --rm -p 127.0.0.1:8000:8000 acworld-openenv
#
# Building needs network access: the base image and the Python packages are downloaded. The
# server is the same command run outside a container: python -m server.app --port 8000.
ARG BASE_IMAGE=ghcr.io/huggingface/openenv-base:latest
FROM ${BASE_IMAGE}

WORKDIR /app/env

# The package (its task files and catalog are package data) and the template's entry point.
COPY pyproject.toml README.md openenv.yaml ./
COPY acworld_env ./acworld_env
COPY server ./server

# openenv-core (an older distribution of the same `openenv` import package) is removed first if the
# base image carries it. The image runs only the OpenEnv server, so openenv installs with its own
# pins (fastmcp<4, hence mcp<2); `acworld mcp`, which needs mcp>=2.3, is not served from it.
RUN (python -m pip uninstall -y openenv-core || true) \
    && python -m pip install --no-cache-dir . "openenv==0.10.0" "uvicorn[standard]>=0.29" "httpx>=0.28.1" \
       "websockets>=15"

ENV PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2)"

# Inside a container the server binds every interface; publish the port on the host's loopback.
CMD ["python", "-m", "server.app", "--host", "0.0.0.0", "--port", "8000"]
