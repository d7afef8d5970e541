#!/usr/bin/env bash
# The README's quickstart, as a new user runs it, on the base install only (what `make demo` installs,
# no dev extras): `make demo` in a fresh virtual environment, `eagle-rag serve` in the background,
# the README's search through that server, the README's Python client example, and `eagle-rag mcp`
# listing its tools to the official MCP client. `.ci/run` runs it before `make test` installs the dev
# tools, so a module that only the dev extras carry (httpx once) cannot break the quickstart unseen.
#
# Everything lives in a temporary folder (the venv, the data folder, the logs); the server gets a free
# port. QUICKSTART_KEEP=1 keeps the folder. Prints how long each step took.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d -t eagle-quickstart-XXXXXX)"
venv="$work/venv"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "${QUICKSTART_KEEP:-0}" = 1 ]; then echo "quickstart: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# the user's own settings and server must not leak in: a plain environment, a data folder of its own
while IFS= read -r var; do unset "$var"; done < <(env | sed -n 's/^\(EAGLE_RAG_[A-Za-z0-9_]*\)=.*/\1/p')
export EAGLE_RAG_DATA_DIR="$work/data"
export EAGLE_RAG_PROGRESS=0
# the same packages as make demo installs, without compiling their bytecode ahead (Python compiles what it
# imports): the install is most of this check's time
export PIP_NO_COMPILE=1 PIP_DISABLE_PIP_VERSION_CHECK=1

started=$SECONDS
step_started=$SECONDS
step() {  # step NAME: print the time the previous step took, then the next step's name
  echo "quickstart: $1 (previous step $((SECONDS - step_started)) s)"
  step_started=$SECONDS
}
fail() {
  echo "quickstart: FAILED: $*" >&2
  [ -f "$work/serve.log" ] && { echo "--- serve log (last 40 lines)" >&2; tail -n 40 "$work/serve.log" >&2; }
  exit 1
}

step "make demo (fresh venv, base install only)"
make --no-print-directory demo VENV="$venv" >"$work/demo.log" 2>&1 || { cat "$work/demo.log" >&2; fail "make demo"; }
tail -n 3 "$work/demo.log"
grep -q "^profile: biomed" "$work/demo.log" || fail "make demo did not run the biomed profile"
grep -q "^route: workflow=drug_entity; entities=imatinib (drug)" "$work/demo.log" \
  || fail "make demo did not show what the biomedical stages did (route: workflow, entities, section cues)"
if "$venv/bin/python" -c "import pytest" 2>/dev/null; then fail "the base install carries pytest: not a base install"; fi

step "eagle-rag serve (background)"
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
"$venv/bin/eagle-rag" serve --port "$port" >"$work/serve.log" 2>&1 &
server_pid=$!
"$venv/bin/python" - "$url" "$server_pid" <<'EOF' || fail "the server did not answer /health"  # stdlib only
import os, sys, time, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the server exited")
    try:
        with urllib.request.urlopen(url + "/health", timeout=5) as answer:
            sys.exit(0 if answer.status == 200 else "not healthy")
    except OSError:
        pass
    time.sleep(1)
sys.exit("no answer in 600 s")
EOF

searches() {  # how many POST /search the server has answered (its Prometheus counter)
  "$venv/bin/python" - "$url" <<'EOF'
import re, sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/metrics", timeout=10) as answer:
    text = answer.read().decode()
print(int(sum(float(n) for n in re.findall(r'route="/search",status="200"} ([0-9.]+)', text))))
EOF
}

step "the README's search, through the server"
before="$(searches)"
command="$(sed -n 's/^\.venv\/bin\/eagle-rag \(search "imatinib dosage".*\)# shell 2.*/\1/p' README.md | head -n 1)"
[ -n "$command" ] || fail "README.md has no quickstart search line (.venv/bin/eagle-rag search \"imatinib dosage\" ...)"
eval "set -- $command"
"$venv/bin/eagle-rag" "$@" >"$work/search.log" 2>&1 || { cat "$work/search.log" >&2; fail "eagle-rag $command"; }
head -n 4 "$work/search.log"
grep -q "imatinib" "$work/search.log" || fail "the quickstart search found no imatinib document"
[ "$(searches)" -gt "$before" ] || fail "the quickstart search did not go through the server"

step "the README's client example"
"$venv/bin/python" - "$url" >"$work/client.log" 2>&1 <<'EOF' || { cat "$work/client.log" >&2; fail "the client example"; }
import re, sys
from pathlib import Path
blocks = re.findall(r"```python\n(.*?)```", Path("README.md").read_text(encoding="utf-8"), re.S)
example = next((b for b in blocks if "EagleClient(" in b), None)
if example is None:
    sys.exit("README.md has no Python block with EagleClient")
exec(compile(example.replace("http://127.0.0.1:8000", sys.argv[1]), "README.md (client example)", "exec"))
EOF
cat "$work/client.log"
grep -q "imatinib" "$work/client.log" || fail "the client example printed no imatinib hit"

step "eagle-rag mcp lists its tools (official MCP client)"
"$venv/bin/python" - "$venv/bin/eagle-rag" <<'EOF' || fail "eagle-rag mcp"
import asyncio, os, sys
from mcp import ClientSession, StdioServerParameters, stdio_client

async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
    print("mcp tools:", ", ".join(names))
    missing = {"core_search", "core_get_document", "biomed_query_entities", "datasets_search"} - set(names)
    if missing:
        sys.exit(f"missing tools: {sorted(missing)}")

asyncio.run(main())
EOF

step "done"
echo "quickstart: passed in $((SECONDS - started)) s"
