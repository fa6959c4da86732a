#!/usr/bin/env bash
# Install LiteLLM's proxy, the route benchmark's comparison, into benchmarks/.litellm-venv (gitignored),
# or into LITELLM_VENV: scripts/clients puts the hub tests' copy in .clients/litellm.
#
#     bash benchmarks/install_litellm.sh          # or: benchmarks/route.py --install
#
# `pip install "litellm[proxy]==1.110.2"` cannot work: that extra requires
# `litellm-proxy==1.110.2`, `litellm-proxy-extras==0.4.114.post1` and
# `litellm-enterprise==0.1.83.post1`, which are not published on PyPI. So this
# installs `litellm==1.110.2` and then, by name, the proxy extra's packages
# that `litellm --config` needs to start (from the wheel's METADATA,
# `extra == "proxy"`), plus four it imports that no extra names (semver,
# expression, mcp, soundfile: found from the import errors when starting it)
# and httptools, so its uvicorn parses HTTP with the same C parser panelgate's
# does. Versions are the ones the published numbers were measured with.
# Nothing that needs a database, Redis or a cloud SDK is installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${LITELLM_VENV:-$here/.litellm-venv}"
python="${PYTHON:-python3.11}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" "litellm==1.110.2"
"${pip[@]}" \
    "fastapi==0.165.0" "starlette==1.10.0" "uvicorn==0.54.0" "uvloop==0.23.0" "httptools==0.9.0" \
    "gunicorn==23.0.0" "backoff==2.2.1" "rq==2.12.0" "orjson==3.13.0" "apscheduler==3.11.3" \
    "pyjwt==2.15.1" "python-multipart==0.0.34" "cryptography==50.0.2" "pynacl==1.6.2" \
    "websockets==15.0.1" "fastapi-sso==0.23.0" "email-validator==2.4.0" \
    "semver==3.1.2" "expression==5.8.0" "mcp==2.3.0" "soundfile==0.14.0"
"$venv/bin/python" -c "import importlib.metadata as m; print('litellm', m.version('litellm'), 'in $venv')"
