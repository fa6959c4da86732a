# panelgate's image: `docker compose up` (compose.yaml) runs it as a cluster; alone it is
#   docker run -p 127.0.0.1:8122:8122 -e PANELGATE_ADMIN_TOKEN=... -v panelgate:/data panelgate
# Nothing secret is baked in: the admin token and provider keys come from the environment.

# The wheels: panelgate's own, built from this checkout, and every runtime dependency's, so the
# image below installs from files alone and carries no compiler, no source and no test tools.
FROM python:3.11-slim AS wheels
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --system --user-group --uid 10001 --home-dir /data --no-create-home panelgate \
    && install -d -o panelgate -g panelgate -m 0700 /data
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-compile --no-index --find-links /wheels panelgate
ENV PANELGATE_HOME=/data \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
VOLUME /data
USER panelgate
EXPOSE 8122
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-c", "import os, sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('PANELGATE_PORT', '8122'), timeout=4).status != 200)"]
# Any address but loopback needs PANELGATE_ADMIN_TOKEN: without it the gateway refuses to start
# and says so (and asks for gateway keys on the API when it has it).
ENTRYPOINT ["panelgate"]
CMD ["serve", "--host", "0.0.0.0"]
