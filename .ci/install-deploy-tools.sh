#!/usr/bin/env bash
# Installs the tools the deploy/ tests drive, on a Debian machine, as root (CI) or with sudo:
#   docker-compose  (Debian package; `docker-compose config` validates docker-compose.yml without an engine)
#   helm v3.17.3    (go install from the Go module proxy; linked into /usr/local/bin)
# Idempotent: a tool already present is left alone. Quiet: prints one line per tool; the full output
# of a failed step is printed before exiting non-zero.
set -euo pipefail

HELM_MODULE=helm.sh/helm/v3/cmd/helm
HELM_VERSION=v3.17.3

log=$(mktemp)
trap 'rm -f "$log"' EXIT

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "install-deploy-tools: need root (or sudo) for: $*" >&2
        return 1
    fi
}

# Runs a step with its output in $log; shows the output when it fails.
quietly() {
    if ! "$@" >"$log" 2>&1; then
        echo "install-deploy-tools: failed: $*" >&2
        cat "$log" >&2
        exit 1
    fi
}

# --- docker-compose -----------------------------------------------------------------------------
if command -v docker-compose >/dev/null 2>&1; then
    echo "docker-compose: present ($(command -v docker-compose))"
else
    quietly as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    quietly as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose
    echo "docker-compose: installed with apt ($(docker-compose version --short 2>/dev/null || echo unknown version))"
fi

# --- helm ---------------------------------------------------------------------------------------
gobin() {
    local go=$1 bin
    bin=$("$go" env GOBIN)
    [ -n "$bin" ] || bin="$("$go" env GOPATH | cut -d: -f1)/bin"
    echo "$bin"
}

helm_bin=""
if command -v helm >/dev/null 2>&1; then
    helm_bin=$(command -v helm)
    echo "helm: present ($helm_bin, $(helm version --short 2>/dev/null || echo unknown version))"
elif [ -x "$HOME/go/bin/helm" ]; then
    helm_bin="$HOME/go/bin/helm"
    echo "helm: present ($helm_bin)"
else
    go=$(command -v go || true)
    [ -n "$go" ] || { [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go; }
    if [ -z "$go" ]; then
        echo "install-deploy-tools: helm is missing and so is Go (needed for go install $HELM_MODULE@$HELM_VERSION)" >&2
        exit 1
    fi
    quietly "$go" install "$HELM_MODULE@$HELM_VERSION"
    helm_bin="$(gobin "$go")/helm"
    echo "helm: built $HELM_VERSION with go install ($helm_bin)"
fi

# Reachable on PATH for CI and the tests (they also look in ~/go/bin).
if [ -n "$helm_bin" ] && [ "$helm_bin" != /usr/local/bin/helm ] && [ ! -e /usr/local/bin/helm ]; then
    as_root ln -sf "$helm_bin" /usr/local/bin/helm
    echo "helm: linked /usr/local/bin/helm -> $helm_bin"
fi
